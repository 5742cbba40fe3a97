import CDBase
import CDMaintenance
import CDServe
import CDTestSupport
import Foundation
import Testing

/// `serve` on a store whose tables and columns need quoting in SQL (``OddNameStore``: entity
/// names with quotes, brackets, spaces; property names with non-ASCII letters): every entity's
/// pages, filtered and sorted across page boundaries, hold exactly the objects `query` gives,
/// the ordered to-many's member pages follow sqlite3's `Z_FOK_` order, and every answer conforms
/// to its schema.
@Suite(.temporaryDirectories) struct ServeOddNameTests {
    @Test func everyPageOfAnOddlyNamedStoreEqualsQueryAndSQLite() async throws {
        let store = try OddNameStore.make(seed: 25, cars: 30)
        let entities = [OddNameStore.car, OddNameStore.part, OddNameStore.tag]
        let listings: [(entity: String, sort: String, filter: String)] = [
            (OddNameStore.car, "größe:desc", "größe >= 0 OR tägs.@count > 1"),
            (OddNameStore.car, "plate", "ANY tägs.name == 'tag 2'"),
            (OddNameStore.part, "name", "öwner.größe > 3"),
            (OddNameStore.tag, "name:desc", "cärs.@count >= 1"),
        ]
        // sqlite3's order of each car's parts, and the cars that have any.
        var parts: [(car: Int64, members: [Int64])] = []
        for line in try SQLiteShell.run(store, "SELECT Z_PK FROM \"ZODD \"\"CAR\"\" X\" ORDER BY Z_PK;").split(separator: "\n") {
            let car = try #require(Int64(line))
            let members = try SQLiteShell.run(store, "SELECT Z_PK FROM \"ZPART [1]\" WHERE \"ZÖWNER\" = \(car) ORDER BY \"Z_FOK_ÖWNER\", Z_PK;")
                .split(separator: "\n").compactMap { Int64($0) }
            if !members.isEmpty { parts.append((car, members)) }
        }
        #expect(parts.count > 10)
        let owners = parts.map(\.car)
        let uuid = try SQLiteShell.run(store, "SELECT Z_UUID FROM Z_METADATA;").trimmingCharacters(in: .newlines)

        let (html, listed, members) = try await ServeHarness.withServer([store]) { client in
            var html: [ServeHarness.Answer] = []
            for entity in entities {
                html.append(try await ServeHarness.get(client, "/stores/1/entities/" + HostileStore.segment(entity)))
            }
            var listed: [[JSONValue]] = []
            for listing in listings {
                let uri =
                    "/stores/1/entities/\(HostileStore.segment(listing.entity)).json?size=4&sort=" + ServePagingTests.encode(listing.sort)
                    + "&where=" + ServePagingTests.encode(listing.filter)
                let pages = try await ServePagingTests.allPages(client, uri)
                #expect(pages.status == 200, "\(listing): \(pages.body.prefix(300))")
                listed.append(pages.objects)
            }
            var members: [[String]] = []
            for car in owners {
                var uri: String? = "/stores/1/entities/\(HostileStore.segment(OddNameStore.car))/\(car)/\(HostileStore.segment("pärts")).json?size=1"
                var ids: [String] = []
                while let next = uri, ids.count < 10 {
                    let answer = try await ServeHarness.get(client, next)
                    #expect(answer.status == 200, "\(next): \(answer.body.prefix(300))")
                    #expect(try ServeHarness.problems(answer.body, schema: "serve-members.schema.json") == [], "\(next)")
                    ids += try answer.json["members"]?.array?.compactMap(\.string) ?? []
                    uri = try answer.json["next"]?.string
                }
                members.append(ids)
            }
            return (html, listed, members)
        }
        for (entity, page) in zip(entities, html) {
            let escaped: String = MarkupText.escape(entity, for: .html)
            #expect(page.status == 200, "\(entity): \(page.body.prefix(300))")
            #expect(page.body.contains(escaped), "\(entity)")
        }
        for (listing, objects) in zip(listings, listed) {
            let straight = ServePagingTests.query(store, entity: listing.entity, predicate: listing.filter, sort: [listing.sort])
            #expect(straight.status == 0, "\(straight.stderr)")
            #expect(!objects.isEmpty, "\(listing)")
            let key = String(listing.sort.split(separator: ":")[0])
            #expect(Set(objects.compactMap { $0["_id"]?.string }) == Set(straight.objects.compactMap { $0["_id"]?.string }), "\(listing)")
            #expect(objects.map { $0[key] ?? .null } == straight.objects.map { $0[key] ?? .null }, "\(listing)")
        }
        let prefix = "x-coredata://\(uuid)/\(OddNameStore.part)/p"
        for (part, got) in zip(parts, members) {
            let expected: [String] = part.members.map { prefix + String($0) }
            #expect(got == expected, "car \(part.car)")
        }
    }
}
