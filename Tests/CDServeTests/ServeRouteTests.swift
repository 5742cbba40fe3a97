import CDMaintenance
import CDServe
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Hummingbird
import Testing

/// Every route of `serve` on copies of corpus stores, through Hummingbird's in-memory test
/// client: pages and their JSON against the schemas, counts against SQL, the security rules
/// (methods, escaping, headers, 4xx for garbage) and nothing written to the stores.
@Suite(.temporaryDirectories) struct ServeRouteTests {
    @Test func storesAndStorePagesWithTheirJSON() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample, ServeHarness.photos])
        let before = try copies.map { try Checksums.of(directory: $0.deletingLastPathComponent()) }
        let answers = try await ServeHarness.withServer(copies) { client in
            try await ["/", "/.json", "/stores/1", "/stores/SampleModel_V2.json", "/stores/2.json", "/stores/Photos"].asyncMap { uri in
                (uri, try await ServeHarness.get(client, uri))
            }
        }
        for (uri, answer) in answers {
            #expect(answer.status == 200, "\(uri): \(answer.body.prefix(300))")
            ServeHarness.expectSecurityHeaders(answer, uri)
        }
        #expect(answers[0].1.body.contains(">SampleModel_V2</a>") && answers[0].1.body.contains(">Photos</a>"))
        #expect(answers[0].1.header("Content-Type") == "text/html; charset=utf-8")
        #expect(try ServeHarness.problems(answers[1].1.body, schema: "serve-stores.schema.json") == [])
        for index in [3, 4] {
            #expect(try ServeHarness.problems(answers[index].1.body, schema: "serve-store.schema.json") == [])
        }
        #expect(answers[2].1.body.contains("href=\"/stores/SampleModel_V2/entities/SportCar\""))
        // Photos has 60+ entities, each linked with its count.
        let photos = try answers[4].1.json
        let entities = try #require(photos["entities"]?.array)
        #expect(entities.count >= 60)
        // Every count equals SQLite's own count of the entity's rows, sub-entities included.
        for (index, copy) in copies.enumerated() {
            let json = try answers[index == 0 ? 3 : 4].1.json
            let counted = try Self.sqlCounts(of: copy)
            for entity in try #require(json["entities"]?.array) {
                let name = try #require(entity["name"]?.string)
                guard let expected = counted[name] else { continue }
                #expect(entity["rowsIncludingSubentities"]?.integer == expected, "\(copy.lastPathComponent) \(name)")
            }
            #expect(counted.count >= (index == 0 ? 4 : 60))
        }
        let after = try copies.map { try Checksums.of(directory: $0.deletingLastPathComponent()) }
        #expect(before == after)
    }

    /// Objects per entity, sub-entities included, counted with plain SQL on another copy.
    static func sqlCounts(of store: URL) throws -> [String: Int] {
        let copy = try TemporaryDirectory.make().appendingPathComponent("count.sqlite")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: copy.path + suffix)
        }
        let queue = try DatabaseQueue(path: copy.path)
        defer { try? queue.close() }
        return try queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY")
            let parent = Dictionary(uniqueKeysWithValues: rows.map { (Int($0["Z_ENT"] as Int64), Int($0["Z_SUPER"] as Int64? ?? 0)) })
            let names = Dictionary(uniqueKeysWithValues: rows.map { (Int($0["Z_ENT"] as Int64), $0["Z_NAME"] as String) })
            func root(_ ent: Int) -> Int { (parent[ent] ?? 0) == 0 ? ent : root(parent[ent]!) }
            func descends(_ ent: Int, from ancestor: Int) -> Bool { ent == ancestor || ((parent[ent] ?? 0) != 0 && descends(parent[ent]!, from: ancestor)) }
            var result: [String: Int] = [:]
            for (ent, name) in names {
                let table = "Z" + (names[root(ent)] ?? "").uppercased()
                guard try db.tableExists(table) else { continue }
                let members = names.keys.filter { descends($0, from: ent) }.map(String.init).joined(separator: ",")
                result[name] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE Z_ENT IN (\(members))") ?? 0
            }
            return result
        }
    }

    @Test func entityAndObjectPages() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let answers = try await ServeHarness.withServer(copies) { client in
            try await [
                "/stores/1/entities/Car", "/stores/1/entities/Car.json", "/stores/1/entities/Person.json?sort=lastName:desc&size=5",
                "/stores/1/entities/Person/7", "/stores/1/entities/Person/7.json", "/stores/1/entities/Car/1.json",
                "/stores/1/entities/Car?sql=1&where=maker%20BEGINSWITH%20'A'",
            ].asyncMap { uri in (uri, try await ServeHarness.get(client, uri)) }
        }
        for (uri, answer) in answers {
            #expect(answer.status == 200, "\(uri): \(answer.body.prefix(300))")
            ServeHarness.expectSecurityHeaders(answer, uri)
        }
        #expect(answers[0].1.body.contains("125 objects"))
        #expect(answers[0].1.body.contains("href=\"/stores/SampleModel_V2/entities/Car.csv\""))
        for index in [1, 2] { #expect(try ServeHarness.problems(answers[index].1.body, schema: "serve-entity.schema.json") == []) }
        for index in [4, 5] { #expect(try ServeHarness.problems(answers[index].1.body, schema: "serve-object.schema.json") == []) }
        let people = try answers[2].1.json
        #expect(people["objects"]?.array?.count == 5)
        #expect(people["next"]?.string?.hasPrefix("/stores/SampleModel_V2/entities/Person.json?sort=lastName%3Adesc&size=5&after=") == true)
        // Person p7 is Alex Rathbun; the page names the to-many cars, its inverse and a link.
        let person = answers[3].1.body
        #expect(person.contains("Alex") && person.contains("Rathbun") && person.contains("inverse owner"))
        #expect(person.contains("(entity: Person; id: 0x"))
        let car = try answers[5].1.json
        #expect(car["relationships"]?.array?.first?["name"]?.string == "owner")
        // The SQL panel is open with sql=1 and shows Core Data's statement for the filter.
        #expect(answers[6].1.body.contains("<div id=\"sql\" class=\"sql\">"))
        #expect(answers[6].1.body.contains("NSCoreDataStringSearch"))
    }

    @Test func membersOfAToManyEqualTheDumpsInclude() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let dumped = CommandRunner.runInProcess(["dump", copies[0].path, "Person", "--include", "cars", "--format", "ndjson"])
        #expect(dumped.status == 0, "\(dumped.stderr)")
        var expected: [Int64: Set<String>] = [:]
        for line in dumped.stdout.split(separator: "\n") {
            let object = try JSONValue(parsing: String(line))
            let id = try #require(object["_id"]?.string)
            let pk = try #require(Int64(id.split(separator: "p").last ?? ""))
            expected[pk] = Set((object["cars"]?.array ?? []).compactMap(\.string))
        }
        #expect(expected.count == 20)
        let owners = expected.keys.sorted()
        let listed = try await ServeHarness.withServer(copies) { client in
            var result: [Int64: [String]] = [:]
            for pk in owners {
                var uri: String? = "/stores/1/entities/Person/\(pk)/cars.json?size=2"
                var members: [String] = []
                while let next = uri {
                    let answer = try await ServeHarness.get(client, next)
                    #expect(answer.status == 200, "\(next): \(answer.body)")
                    #expect(try ServeHarness.problems(answer.body, schema: "serve-members.schema.json") == [])
                    members += try answer.json["members"]?.array?.compactMap(\.string) ?? []
                    uri = try answer.json["next"]?.string
                }
                result[pk] = members
            }
            return result
        }
        for (pk, members) in expected {
            #expect(Set(listed[pk] ?? []) == members && listed[pk]?.count == members.count, "Person p\(pk)")
        }
    }

    /// The members of every ordered and every inverse-less to-many (read a page per query, with a
    /// keyset on the relationship's order) equal `dump --include`'s list, in its order, page by
    /// page for generated page sizes: on the corpus stores that have such relationships (Photos
    /// 14.6 and 15.4: ordered many-to-manys with `Z_FOK_` in the join table, an inverse-less
    /// to-many; netusage: an ordered one-to-many), and on a Photos copy given longer lists with
    /// orders that tie and NULLs (SQLite sorts NULL first), which a keyset must step over.
    @Test func orderedAndInverseLessMembersEqualTheDumpsIncludePageByPage() async throws {
        let stores = ["osxphotos-photos-14.6.0/Photos.sqlite", "osxphotos-photos-15.4.1/Photos.sqlite", "plaso-netusage/netusage.sqlite", ServeHarness.photos]
        let copies = try ServeHarness.copies(stores)
        var random = SeededGenerator(seed: 2_525)
        // The fourth copy: its first album gets every asset (and no other member), with orders
        // drawn from a few values and NULL; asset 1 gets 40 contributors, asset 2 gets 3.
        let queue = try DatabaseQueue(path: copies[3].path)
        let albumKey = try await queue.read { db in try Int64.fetchOne(db, sql: "SELECT MIN(Z_PK) FROM ZGENERICALBUM WHERE Z_ENT = 29") } ?? 0
        let orders: [Int64?] = (1...16).map { _ in [nil, 1024, 1024, 2048, 3072, 7][Int.random(in: 0..<6, using: &random)] }
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM Z_29ASSETS WHERE Z_29ALBUMS = ?", arguments: [albumKey])
            for (index, order) in orders.enumerated() {
                try db.execute(sql: "INSERT INTO Z_29ASSETS (Z_29ALBUMS, Z_3ASSETS, Z_FOK_3ASSETS) VALUES (?, ?, ?)", arguments: [albumKey, index + 1, order])
            }
            for pk in 1...43 {
                try db.execute(
                    sql: "INSERT INTO ZASSETCONTRIBUTOR (Z_PK, Z_ENT, Z_OPT, Z3LIBRARYSCOPEASSETCONTRIBUTORS) VALUES (?, 5, 1, ?)",
                    arguments: [pk, pk <= 40 ? 1 : 2])
            }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 43 WHERE Z_ENT = 5")
        }
        try queue.close()
        struct Case: Sendable {
            var store: Int
            var entity: String
            var pk: Int64
            var relationship: String
            var members: [String]
            var size: Int
        }
        var cases: [Case] = []
        var relationships = 0
        for (index, copy) in copies.enumerated() {
            let reader = try ObjectReader(snapshot: try StoreSnapshot(path: copy.path))
            for entity in reader.model.entities {
                for property in entity.properties {
                    guard case .relationship(let relationship) = property, relationship.isToMany,
                        relationship.isOrdered || relationship.inverseName == nil
                    else { continue }
                    relationships += 1
                    let dumped = CommandRunner.runInProcess(["dump", copy.path, entity.name, "--include", relationship.name, "--format", "ndjson"])
                    #expect(dumped.status == 0, "\(entity.name).\(relationship.name): \(dumped.stderr)")
                    var empty = 0
                    for line in dumped.stdout.split(separator: "\n") {
                        let object = try JSONValue(parsing: String(line))
                        let members = (object[relationship.name]?.array ?? []).compactMap(\.string)
                        if members.isEmpty {
                            empty += 1
                            if empty > 2 { continue }
                        }
                        let id = try #require(object["_id"]?.string)
                        let pk = try #require(Int64(id.split(separator: "/").last?.dropFirst() ?? ""))
                        let size = [1, 2, 3, 5, 7, 16, 50][Int.random(in: 0..<7, using: &random)]
                        cases.append(
                            Case(
                                store: index + 1, entity: try #require(object["_entity"]?.string), pk: pk, relationship: relationship.name,
                                members: members, size: size))
                    }
                }
            }
        }
        let planned = cases
        let listed = try await ServeHarness.withServer(copies) { client in
            var result: [[[String]]] = []
            for item in planned {
                var pages: [[String]] = []
                var uri: String? = "/stores/\(item.store)/entities/\(item.entity)/\(item.pk)/\(item.relationship).json?size=\(item.size)"
                while let next = uri, pages.count <= item.members.count {
                    let answer = try await ServeHarness.get(client, next)
                    #expect(answer.status == 200, "\(next): \(answer.body.prefix(300))")
                    #expect(try ServeHarness.problems(answer.body, schema: "serve-members.schema.json") == [], "\(next)")
                    pages.append(try answer.json["members"]?.array?.compactMap(\.string) ?? [])
                    uri = try answer.json["next"]?.string
                }
                result.append(pages)
            }
            return result
        }
        var compared = 0
        for (item, pages) in zip(cases, listed) {
            let expected = stride(from: 0, to: max(item.members.count, 1), by: item.size).map {
                Array(item.members[min($0, item.members.count)..<min($0 + item.size, item.members.count)])
            }
            #expect(pages == expected, "store \(item.store) \(item.entity) p\(item.pk).\(item.relationship), size \(item.size)")
            compared += item.members.count
        }
        // A token keeps its shape: an order value on an ordered list, none on the others, and the
        // reading the list was written with; anything else is a 400, as for every list.
        func token(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let album = "/stores/4/entities/Album/\(albumKey)/assets.json?size=3&after="
        let contributors = "/stores/4/entities/Asset/1/libraryScopeAssetContributors.json?size=3&after="
        let uris = [
            album + token("v1|@order,Z_PK|i1024|3"), album + token("v1|@order,Z_PK|n|3"), album + token("v1|@order,Z_PK||3"),
            album + token("v1|Z_PK||3"), album + token("v1|@order,Z_PK|i1,i2|3"), contributors + token("v1|@order,Z_PK||38"),
            contributors + token("v1|@order,Z_PK|i1|38"), contributors + "xyz",
        ]
        let tokens = try await ServeHarness.withServer(copies) { client in
            try await uris.asyncMap { try await ServeHarness.get(client, $0).status }
        }
        #expect(tokens == [200, 200, 400, 400, 400, 200, 400, 400])
        // Every such relationship was read; the lists were not all empty; the tricky ones came in.
        #expect(relationships >= 25)
        #expect(compared >= 100, "\(compared) members compared")
        #expect(cases.contains { $0.store == 4 && $0.relationship == "assets" && $0.members.count == 16 })
        #expect(cases.contains { $0.store == 4 && $0.relationship == "libraryScopeAssetContributors" && $0.members.count == 40 })
    }

    @Test func onlyGetAndHeadAreAnswered() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let answers = try await ServeHarness.withServer(copies) { client in
            var result: [(String, ServeHarness.Answer)] = []
            for method in [HTTPRequest.Method.post, .put, .delete, .patch, .options] {
                for uri in ["/", "/stores/1", "/stores/1/entities/Car/1", "/no/such/page"] {
                    result.append(("\(method) \(uri)", try await ServeHarness.get(client, uri, method: method)))
                }
            }
            result.append(("HEAD /stores/1", try await ServeHarness.get(client, "/stores/1", method: .head)))
            return result
        }
        for (request, answer) in answers.dropLast() {
            #expect(answer.status == 405, "\(request)")
            #expect(answer.header("Allow") == "GET, HEAD", "\(request)")
            #expect(answer.body.contains("read-only"), "\(request)")
            ServeHarness.expectSecurityHeaders(answer, request)
        }
        #expect(answers.last?.1.status == 200)
        #expect(answers.last?.1.body == "")
    }

    @Test func storeValuesAreEscaped() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let script = "<script>alert(1)</script>"
        let image = "\"><img src=x onerror=alert(1)>"
        // The copy is the test's own: write the hostile values into it as an app would.
        let queue = try DatabaseQueue(path: copies[0].path)
        try await queue.write { db in
            try db.execute(sql: "UPDATE ZPERSON SET ZFIRSTNAME = ?, ZLASTNAME = ? WHERE Z_PK = 7", arguments: [script, image])
            try db.execute(sql: "UPDATE ZCAR SET ZMAKER = ? WHERE Z_PK = 1", arguments: [image])
        }
        try queue.close()
        let filter = "firstName == '\(script)'".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let answers = try await ServeHarness.withServer(copies) { client in
            try await [
                "/stores/1/entities/Person", "/stores/1/entities/Person/7", "/stores/1/entities/Car", "/stores/1/entities/Car/1",
                "/stores/1/entities/Person?where=\(filter)", "/stores/1/entities/Person?where=\(filter)%20AND",
            ].asyncMap { uri in (uri, try await ServeHarness.get(client, uri)) }
        }
        for (uri, answer) in answers {
            #expect(!answer.body.contains("<script>alert") && !answer.body.contains("<img src=x"), "\(uri)")
            ServeHarness.expectSecurityHeaders(answer, uri)
        }
        #expect(answers[0].1.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(answers[1].1.body.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(answers[3].1.body.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(answers[4].1.status == 200 && answers[4].1.body.contains("value=\"firstName == &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;\""))
        #expect(answers[5].1.status == 400)
    }

    @Test func aWriteByTheAppIsShownOnTheNextPage() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let path = copies[0].path
        let pages = try await ServeHarness.withServer(copies) { client in
            let first = try await ServeHarness.get(client, "/stores/1/entities/Person/7")
            let again = try await ServeHarness.get(client, "/stores/1/entities/Person/7")
            // The app writes: a commit appended to the -wal while the server holds its sessions.
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in try db.execute(sql: "UPDATE ZPERSON SET ZFIRSTNAME = 'Alexandra' WHERE Z_PK = 7") }
            try queue.close()
            let changed = try await ServeHarness.get(client, "/stores/1/entities/Person/7")
            let after = try await ServeHarness.get(client, "/stores/1/entities/Person/7")
            return [first, again, changed, after]
        }
        #expect(pages.allSatisfy { $0.status == 200 })
        #expect(pages[0].body.contains(">Alex<") && pages[1].body.contains(">Alex<"))
        #expect(pages[2].body.contains(">Alexandra<") && pages[2].body.contains("this page shows its new version"))
        #expect(pages[3].body.contains(">Alexandra<") && !pages[3].body.contains("this page shows its new version"))
        #expect(!pages[1].body.contains("this page shows its new version"))
    }

    @Test func garbageGetsAFourHundredNeverAFiveHundred() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample, ServeHarness.sample])
        let directories = copies.map { $0.deletingLastPathComponent() }
        let before = try directories.map { try Checksums.of(directory: $0) }
        let cases: [(String, Int)] = [
            ("/stores", 404), ("/stores/", 404), ("/stores/99", 404), ("/stores/nope", 404), ("/stores/0", 404),
            ("/stores/SampleModel_V2", 400), ("/stores/1/entities", 404), ("/stores/1/entities/Nope", 404),
            ("/stores/1/entities/Nope.json", 404), ("/stores/1/entities/Car/abc", 400), ("/stores/1/entities/Car/0", 400),
            ("/stores/1/entities/Car/-1", 400), ("/stores/1/entities/Car/99999999", 404), ("/stores/1/entities/Car/1/nope", 404),
            ("/stores/1/entities/Person/7/firstName", 404), ("/stores/1/entities/Car/1/2/3", 404), ("/stores/1/entities/Car?size=0", 400),
            ("/stores/1/entities/Car?size=abc", 400), ("/stores/1/entities/Car?size=100000", 400), ("/stores/1/entities/Car?sort=nope", 400),
            ("/stores/1/entities/Car?sort=maker:sideways", 400), ("/stores/1/entities/Car?where=(((", 400),
            ("/stores/1/entities/Car.json?where=maker%20==", 400), ("/stores/1/entities/Car?where=nope%20==%201", 400),
            ("/stores/1/entities/Car?where=Person.where(:firstName).eq('x')", 400), ("/stores/1/entities/Car?after=garbage", 400),
            ("/stores/1/entities/Car?after=djF8fHw", 400), ("/stores/1/entities/Car?bogus=1", 400), ("/stores/1?x=1", 400),
            ("/stores/%ZZ", 400), ("/stores/1.csv", 400), ("/stores/1/entities/Car/1.ndjson", 400), ("/../etc/passwd", 404),
            ("/stores/..%2F..%2Fetc%2Fpasswd", 404), ("/-/nope.css", 404), ("/stores/1/entities/Car?where=%FF", 400),
            ("/stores/1/entities/Car?size=5&size=6", 400), ("/stores/1/entities/Car.csv?where=(", 400),
            ("/stores/1/entities/Car.json?sort=owner.nope", 400), ("/stores/1/entities/Person.json?sort=cars", 400),
            ("/stores/1/entities/Person/7/cars?after=xyz", 400), ("/favicon.ico", 404), ("/stores/1/entities/Car%00", 404),
        ]
        let answers = try await ServeHarness.withServer(copies) { client in
            var result: [(String, ServeHarness.Answer, ServeHarness.Answer)] = []
            for (uri, _) in cases {
                result.append((uri, try await ServeHarness.get(client, uri), try await ServeHarness.get(client, uri, accept: "application/json")))
            }
            return result
        }
        for ((uri, status), (_, html, json)) in zip(cases, answers) {
            #expect(html.status == status, "\(uri): \(html.status) \(html.body.prefix(200))")
            #expect(json.status == status, "\(uri) as JSON")
            #expect(try ServeHarness.problems(json.body, schema: "serve-error.schema.json") == [], "\(uri): \(json.body)")
            ServeHarness.expectSecurityHeaders(html, uri)
            ServeHarness.expectSecurityHeaders(json, uri)
        }
        // A predicate error shows the parser's caret, inline and in JSON.
        let caret = try #require(answers.first { $0.0 == "/stores/1/entities/Car.json?where=maker%20==" })
        #expect(try caret.2.json["error"]?["caret"]?.string?.hasSuffix("^") == true)
        #expect(try directories.map { try Checksums.of(directory: $0) } == before)
    }

    @Test func aSlowQueryIsStoppedAfterTheTimeLimit() async throws {
        let copies = try ServeHarness.copies([ServeHarness.photos])
        let answers = try await ServeHarness.withServer(copies, queryTimeout: 0.000_001) { client in
            try await ["/stores/1/entities/Asset", "/stores/1/entities/Asset.json"].asyncMap { try await ServeHarness.get(client, $0) }
        }
        for answer in answers {
            #expect(answer.status == 504, "\(answer.body.prefix(300))")
            #expect(answer.body.contains("--query-timeout"))
        }
    }

    @Test func staticFilesAreEmbeddedAndNothingIsLoadedFromElsewhere() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let answers = try await ServeHarness.withServer(copies) { client in
            try await ["/-/cdstore.css", "/-/cdstore.js", "/stores/1/entities/Car", "/stores/1/entities/Car/1"].asyncMap {
                try await ServeHarness.get(client, $0)
            }
        }
        #expect(answers[0].status == 200 && answers[0].header("Content-Type") == "text/css; charset=utf-8" && answers[0].body.contains("table"))
        #expect(answers[1].status == 200 && answers[1].header("Content-Type") == "text/javascript; charset=utf-8")
        for page in answers.dropFirst(2) {
            #expect(!page.body.contains("http://") && !page.body.contains("https://") && !page.body.contains("<script>"))
            #expect(!page.body.contains(" style=") && !page.body.contains(" onclick="))
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
