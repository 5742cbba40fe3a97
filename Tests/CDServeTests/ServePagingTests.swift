import CDMaintenance
import CDModel
import CDServe
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Keyset pages and filters against `cdstore query`, on generated cases: following `next`
/// through every page gives exactly the objects of one straight fetch, in the same order of
/// sort values, whatever the sort and the page size; a `where` filter gives exactly the objects
/// `cdstore query` gives for the same predicate, and counts them as `query --count` does.
@Suite(.temporaryDirectories) struct ServePagingTests {
    /// Every page of `uri` (a `.json` entity or member page), following `next`.
    /// `counts` are the `count` of each page (the same on every page of one filter).
    static func allPages(_ client: ServeClient, _ uri: String) async throws -> (
        objects: [JSONValue], status: Int, body: String, counts: [JSONValue]
    ) {
        var objects: [JSONValue] = []
        var counts: [JSONValue] = []
        var next: String? = uri
        var pages = 0
        while let current = next {
            let answer = try await ServeHarness.get(client, current)
            guard answer.status == 200 else { return (objects, answer.status, answer.body, counts) }
            let json = try answer.json
            objects += json["objects"]?.array ?? []
            counts.append(json["count"] ?? .null)
            next = json["next"]?.string
            pages += 1
            if pages > 10_000 { break }
        }
        return (objects, 200, "", counts)
    }

    /// `query --count` run in process: the number it prints, or nil when it fails.
    static func queryCount(_ store: URL, entity: String, predicate: String) -> Int? {
        let result = CommandRunner.runInProcess(["query", store.path, "--entity", entity, "--where", predicate, "--count"])
        guard result.status == 0 else { return nil }
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The objects of `query` run in process, one JSON object per line.
    static func query(_ store: URL, entity: String, predicate: String? = nil, sort: [String] = []) -> (objects: [JSONValue], status: Int32, stderr: String) {
        var arguments = ["query", store.path, "--entity", entity, "--format", "ndjson"]
        if let predicate { arguments += ["--where", predicate] }
        for key in sort { arguments += ["--sort", key] }
        let result = CommandRunner.runInProcess(arguments)
        let objects = result.stdout.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
        return (objects, result.status, result.stderr)
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    @Test func pagesEqualAStraightFetchForGeneratedSortsAndSizes() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample, ServeHarness.photos])
        var random = SeededGenerator(seed: 25)
        struct Case: Sendable {
            var store: Int
            var entity: String
            var sort: [String]
            var size: Int
        }
        var cases: [Case] = []
        for (index, copy) in copies.enumerated() {
            let reader = try ObjectReader(snapshot: try StoreSnapshot(path: copy.path))
            let counts = try ServeRouteTests.sqlCounts(of: copy)
            let entities = reader.dumpableEntities.filter { (1...1500).contains(counts[$0] ?? 0) }.sorted()
            #expect(entities.count >= (index == 0 ? 3 : 20))
            for _ in 0..<(index == 0 ? 10 : 14) {
                let entity = entities[Int.random(in: 0..<entities.count, using: &random)]
                let attributes = reader.model.allProperties(of: entity).compactMap { property -> String? in
                    if case .attribute(let attribute) = property, !attribute.common.isTransient { return attribute.name }
                    return nil
                }
                var sort: [String] = []
                for _ in 0..<Int.random(in: 0...2, using: &random) where !attributes.isEmpty {
                    let key = attributes[Int.random(in: 0..<attributes.count, using: &random)]
                    if !sort.contains(where: { $0.hasPrefix(key + ":") || $0 == key }) { sort.append(key + (Bool.random(using: &random) ? ":desc" : "")) }
                }
                cases.append(Case(store: index + 1, entity: entity, sort: sort, size: [1, 2, 3, 7, 50, 1000][Int.random(in: 0..<6, using: &random)]))
            }
        }
        let planned = cases
        let paged = try await ServeHarness.withServer(copies) { client in
            var result: [[JSONValue]] = []
            for item in planned {
                let parameters = item.sort.map { "sort=" + Self.encode($0) } + ["size=\(item.size)"]
                let pages = try await Self.allPages(client, "/stores/\(item.store)/entities/\(item.entity).json?" + parameters.joined(separator: "&"))
                #expect(pages.status == 200, "\(item): \(pages.body)")
                result.append(pages.objects)
            }
            return result
        }
        for (item, objects) in zip(cases, paged) {
            let straight = Self.query(copies[item.store - 1], entity: item.entity, sort: item.sort)
            #expect(straight.status == 0, "\(straight.stderr)")
            let ids = objects.compactMap { $0["_id"]?.string }
            #expect(ids.count == straight.objects.count, "\(item): \(ids.count) paged, \(straight.objects.count) straight")
            #expect(Set(ids).count == ids.count, "\(item): an object on two pages")
            #expect(Set(ids) == Set(straight.objects.compactMap { $0["_id"]?.string }), "\(item)")
            // Ties may come in another order, but the sequence of sort values is the same.
            let keys = item.sort.map { String($0.split(separator: ":")[0]) }
            let pagedValues = objects.map { object in keys.map { object[$0] ?? .null } }
            let straightValues = straight.objects.map { object in keys.map { object[$0] ?? .null } }
            #expect(pagedValues == straightValues, "\(item)")
        }
    }

    @Test func filtersEqualQueryForGeneratedPredicates() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample, "cdplus-samplemodel2/SampleModel2_V1.sqlite"])
        var cases: [(store: Int, entity: String, predicate: String)] = []
        for (index, copy) in copies.enumerated() {
            let reader = try ObjectReader(snapshot: try StoreSnapshot(path: copy.path))
            var generator = PredicateGenerator(graph: try LoadedGraph(reader: reader), seed: 2500 + UInt64(index))
            let entities = generator.fetchableEntities
            #expect(!entities.isEmpty)
            for _ in 0..<20 {
                let (entity, predicate) = generator.next(from: entities)
                cases.append((index + 1, entity, predicate.description))
            }
        }
        let planned = cases
        // A generated predicate may take long on a loaded machine; `query` has no time limit.
        let served = try await ServeHarness.withServer(copies, queryTimeout: 600) { client in
            var result: [(objects: [JSONValue], status: Int, body: String, counts: [JSONValue])] = []
            for item in planned {
                result.append(
                    try await Self.allPages(client, "/stores/\(item.store)/entities/\(item.entity).json?size=13&where=" + Self.encode(item.predicate)))
            }
            return result
        }
        var compared = 0
        for (item, answer) in zip(cases, served) {
            let expected = Self.query(copies[item.store - 1], entity: item.entity, predicate: item.predicate)
            guard expected.status == 0 else {
                #expect(answer.status == 400, "\(item.entity) where \(item.predicate): query refused it (\(expected.stderr)), serve said \(answer.status)")
                continue
            }
            #expect(answer.status == 200, "\(item.entity) where \(item.predicate): \(answer.body)")
            let ids = answer.objects.compactMap { $0["_id"]?.string }
            #expect(
                ids.count == expected.objects.count && Set(ids) == Set(expected.objects.compactMap { $0["_id"]?.string }),
                "\(item.entity) where \(item.predicate)")
            // Every page counts the filter's objects: as `query --count` counts them, and as many
            // as the pages hold.
            let counted = Self.queryCount(copies[item.store - 1], entity: item.entity, predicate: item.predicate)
            #expect(counted == expected.objects.count, "\(item.entity) where \(item.predicate)")
            #expect(
                !answer.counts.isEmpty && answer.counts.allSatisfy { $0.integer == ids.count } && counted == ids.count,
                "\(item.entity) where \(item.predicate): pages say \(answer.counts), query --count \(counted ?? -1), \(ids.count) rows")
            compared += 1
        }
        #expect(compared >= 25)
    }

    @Test func exportsEqualQueryOutput() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let filter = "maker BEGINSWITH 'A' OR maker == nil"
        let exports = try await ServeHarness.withServer(copies) { client in
            try await [
                "/stores/1/entities/Car.ndjson", "/stores/1/entities/Car.csv",
                "/stores/1/entities/Car.ndjson?where=" + Self.encode(filter) + "&sort=maker:desc",
            ].asyncMap { try await ServeHarness.get(client, $0) }
        }
        for export in exports { #expect(export.status == 200) }
        #expect(exports[0].header("Content-Type") == "application/x-ndjson; charset=utf-8")
        let all = CommandRunner.runInProcess(["query", copies[0].path, "--entity", "Car", "--sort", "numberPlate", "--format", "ndjson"])
        #expect(Set(exports[0].body.split(separator: "\n")) == Set(all.stdout.split(separator: "\n")))
        #expect(exports[0].body.split(separator: "\n").count == 125)
        let csv = CommandRunner.runInProcess(["query", copies[0].path, "--entity", "Car", "--format", "csv"])
        #expect(exports[1].body == csv.stdout)
        let filtered = CommandRunner.runInProcess(["query", copies[0].path, "--entity", "Car", "--where", filter, "--sort", "maker:desc", "--format", "ndjson"])
        let filteredLines = filtered.stdout.split(separator: "\n")
        #expect(Set(exports[2].body.split(separator: "\n")) == Set(filteredLines) && !filteredLines.isEmpty)
    }
}
