import CDBase
import CDFetch
import CDModel
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// `dump` takes `query`'s option group (`--where`, `--arg`, `--sort`, `--limit`, `--offset`) in
/// the same syntax: over generated cases on corpus stores (seeded predicates from the stores'
/// real values, random sort keys and modifiers, limits and offsets), `dump ENTITY` prints exactly
/// what `query --entity ENTITY` prints. A sorted dump is also checked against SQL written here
/// from the mapping: the same objects as the unsorted read, and the sort key's stored values in
/// the order SQLite's `ORDER BY` gives them.
@Suite(.temporaryDirectories) struct DumpFetchOptionsTests {
    /// Stores with inheritance (shared tables), many-to-many and ordered relationships, to-one
    /// key paths and many attribute types.
    static let stores = [
        "cdplus-samplemodel/SampleModel_V1.sqlite", "cdplus-samplemodel2/SampleModel2_V1.sqlite", "plaso-netusage/netusage.sqlite",
        "plaso-accounts3/Accounts3.sqlite", "plaso-notestore-ios/NoteStore.sqlite", "osxphotos-photosgraph-10.12.6/photosgraph.graphdb",
    ]
    static let casesPerStore = 25
    static let seed: UInt64 = 2_411

    static let sortableTypes: Set<AttributeType> = [.integer16, .integer32, .integer64, .decimal, .double, .float, .string, .boolean, .date]
    static let modifiers = ["", ":desc", ":asc", ":nocase", ":numeric", ":localized", ":standard", ":desc:nocase", ":localizednocase:desc"]

    /// One generated case: the options both commands get.
    struct Case: CustomStringConvertible {
        var entity: String
        var options: [String]
        var description: String { "\(entity) \(options.joined(separator: " "))" }
    }

    /// Sort keys of `entity`: its stored attributes of a sortable type, and an attribute of a
    /// to-one relationship's destination (`author.name`).
    static func sortKeys(of entity: String, in model: ManagedObjectModel) -> [String] {
        func attributes(_ name: String) -> [String] {
            model.allProperties(of: name).compactMap { property in
                guard case .attribute(let attribute) = property, !attribute.common.isTransient, sortableTypes.contains(attribute.type) else { return nil }
                return attribute.name
            }.sorted()
        }
        var keys = attributes(entity)
        for property in model.allProperties(of: entity) {
            guard case .relationship(let relationship) = property, !relationship.isToMany, !relationship.common.isTransient else { continue }
            keys += attributes(relationship.destinationEntity).prefix(2).map { relationship.name + "." + $0 }
        }
        return keys
    }

    static func generateCases(_ store: PredicateDifferential.Store, count: Int, seed: UInt64) -> [Case] {
        var predicates = PredicateGenerator(graph: store.graph, seed: seed)
        var random = SeededGenerator(seed: seed)
        var cases: [Case] = []
        while cases.count < count {
            let (entity, predicate) = predicates.next(from: store.entities)
            let keys = sortKeys(of: entity, in: store.graph.model)
            var options: [String] = []
            if Bool.random(using: &random) { options += ["--where", predicate.description] }
            for _ in 0..<(keys.isEmpty ? 0 : Int.random(in: options.isEmpty ? 1...2 : 0...2, using: &random)) {
                options += ["--sort", keys.randomElement(using: &random)! + modifiers.randomElement(using: &random)!]
            }
            guard !options.isEmpty else { continue }
            if Int.random(in: 0..<3, using: &random) == 0 { options += ["--limit", String(Int.random(in: 0...20, using: &random))] }
            if Int.random(in: 0..<4, using: &random) == 0 { options += ["--offset", String(Int.random(in: 0...5, using: &random))] }
            cases.append(Case(entity: entity, options: options))
        }
        return cases
    }

    @Test(arguments: stores)
    func dumpPrintsWhatQueryPrints(_ path: String) throws {
        let store = try #require(PredicateDifferential.openStores(matching: path).first { $0.path == path })
        let copy = store.runner.reader.snapshot.files.main.path
        var compared = 0
        var printedObjects = 0
        for testCase in Self.generateCases(store, count: Self.casesPerStore, seed: Self.seed ^ UInt64(path.utf8.count)) {
            let format = ["--format", "ndjson"]
            let dump = CommandRunner.runInProcess(["dump", copy, testCase.entity] + testCase.options + format)
            let query = CommandRunner.runInProcess(["query", copy, "--entity", testCase.entity] + testCase.options + format)
            #expect(dump.status == query.status, "\(path): \(testCase)\n\(dump.stderr)\(query.stderr)")
            #expect(dump.stdout == query.stdout, "\(path): \(testCase)")
            #expect(dump.stderr == query.stderr, "\(path): \(testCase)")
            if dump.status == 0 {
                compared += 1
                printedObjects += dump.stdout.split(separator: "\n").count
            }
        }
        // Most cases must run (a few predicates are refused by the fetch, in both commands alike).
        #expect(compared >= Self.casesPerStore * 2 / 3, "\(path): only \(compared) cases ran")
        #expect(printedObjects > 0, "\(path)")
    }

    /// The `Z_PK`s of an NDJSON dump, in order.
    static func primaryKeys(_ ndjson: String) throws -> [Int64] {
        try ndjson.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let id = try #require(object["_id"] as? String)
            let marker = try #require(id.lastIndex(of: "p"))
            return try #require(Int64(id[id.index(after: marker)...]))
        }
    }

    /// Sorting by one attribute with `compare:` (or `:desc`), against SQL of this test's own:
    /// the sorted dump holds the unsorted dump's objects (all of them, or the window of
    /// `--limit`/`--offset`), and their stored values come in the order `ORDER BY` gives.
    @Test(arguments: stores)
    func sortedDumpFollowsTheColumnOrder(_ path: String) throws {
        let copy = try Corpus.copyStore(path)
        let reader = try ObjectReader(snapshot: try StoreSnapshot(path: copy.path))
        var random = SeededGenerator(seed: Self.seed ^ UInt64(path.utf8.count))
        var checked = 0
        for entity in reader.dumpableEntities {
            let attributes = Self.sortKeys(of: entity, in: reader.model).filter { !$0.contains(".") }
            guard let key = attributes.randomElement(using: &random), let table = reader.mapping.table(forEntity: entity),
                let column = reader.mapping.columns(forProperty: key, ofEntity: entity).first(where: { $0.role == .attribute })?.name
            else { continue }
            let descending = Bool.random(using: &random)
            let window: (limit: Int, offset: Int)? =
                Bool.random(using: &random) ? (Int.random(in: 1...10, using: &random), Int.random(in: 0...3, using: &random)) : nil
            var options = ["--sort", key + (descending ? ":desc" : ""), "--format", "ndjson"]
            if let window { options += ["--limit", String(window.limit), "--offset", String(window.offset)] }
            let sorted = CommandRunner.runInProcess(["dump", copy.path, entity] + options)
            try #require(sorted.status == 0, "\(path) \(entity) \(options): \(sorted.stderr)")
            let unsorted = CommandRunner.runInProcess(["dump", copy.path, entity, "--format", "ndjson"])
            try #require(unsorted.status == 0)
            let keys = try Self.primaryKeys(sorted.stdout)
            let ents = reader.mapping.entityNumbers(includingSubentitiesOf: entity)
            let (expectedValues, actualValues) = try reader.snapshot.read { db in
                let placeholders = ents.map { _ in "?" }.joined(separator: ", ")
                var sql =
                    "SELECT \(column.quotedSQLIdentifier) FROM \(table.name.quotedSQLIdentifier) WHERE Z_ENT IN (\(placeholders))"
                    + " ORDER BY \(column.quotedSQLIdentifier)" + (descending ? " DESC" : "")
                var arguments = StatementArguments(ents)
                if let window {
                    sql += " LIMIT ? OFFSET ?"
                    arguments += [window.limit, window.offset]
                }
                let expected = try DatabaseValue.fetchAll(db, sql: sql, arguments: arguments)
                let statement = try db.makeStatement(
                    sql: "SELECT \(column.quotedSQLIdentifier) FROM \(table.name.quotedSQLIdentifier) WHERE Z_PK = ?")
                let actual = try keys.map { key in try DatabaseValue.fetchOne(statement, arguments: [key]) ?? .null }
                return (expected, actual)
            }
            #expect(actualValues == expectedValues, "\(path) \(entity) \(options)")
            let all = Set(try Self.primaryKeys(unsorted.stdout))
            #expect(Set(keys).isSubset(of: all), "\(path) \(entity) \(options)")
            if window == nil { #expect(keys.count == all.count, "\(path) \(entity) \(options)") }
            checked += 1
        }
        #expect(checked > 0, "\(path)")
    }

    /// Without ENTITY, a sorted dump fetches each entity alone (its sub-entities' objects under
    /// their own entity) and leaves out entities without objects, as the unsorted read does.
    @Test func sortedDumpOfEveryEntity() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel3/SampleModel3_V1.sqlite")
        let every = CommandRunner.runInProcess(["dump", copy.path, "--sort", "petName:desc", "--limit", "4", "--format", "ndjson"])
        let one = CommandRunner.runInProcess(["dump", copy.path, "User", "--sort", "petName:desc", "--limit", "4", "--format", "ndjson"])
        #expect(every.status == 0, "\(every.stderr)")
        #expect(every.stdout == one.stdout)
        #expect(try Self.primaryKeys(every.stdout).count == 4)

        let inheritance = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let missing = CommandRunner.runInProcess(["dump", inheritance.path, "--sort", "title"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("has no property \"title\""), "\(missing.stderr)")
    }

    @Test func sortSyntaxIsQuerys() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        for command in [["dump", copy.path, "Book"], ["query", copy.path, "--entity", "Book"]] {
            let bad = CommandRunner.runInProcess(command + ["--sort", "title:sideways"])
            #expect(bad.status == 64)
            #expect(
                bad.stderr.contains("--sort takes KEY with :desc, :nocase, :numeric, :localized or :standard after it, not \"title:sideways\""), "\(bad.stderr)"
            )
            let good = CommandRunner.runInProcess(command + ["--sort", "title:nocase:desc", "--limit", "2", "--format", "line", "--template", "{title}"])
            #expect(good.status == 0, "\(good.stderr)")
            #expect(good.stdout.split(separator: "\n").count == 2)
        }
    }
}
