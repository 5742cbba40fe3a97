import CDBase
import CDTestSupport
import Foundation
import GRDB
import Testing

/// `cdstore dump` end to end: every format on four kinds of real store, against golden files.
@Suite(.temporaryDirectories) struct DumpGoldenTests {
    /// name → arguments after the store (plus the store and an optional model).
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let store: String
        let arguments: [String]
        var description: String { name }
    }

    static let stores: [Case] = [
        // Apple's 2009 Recipes sample (framework 241): no model cache, read with its Xcode 3 model.
        Case(
            name: "recipes-241", store: "apple-recipes/Recipes.sqlite",
            arguments: ["Recipe", "--limit", "2", "--include", "ingredients", "--model", Corpus.url("apple-recipes/Recipes.xcdatamodel").path]),
        // A migration fixture: a one-to-one relationship, dates, WAL content.
        Case(
            name: "wibosco-wal-847", store: "wibosco-migration/CoreDataMigration_Example_WAL.sqlite",
            arguments: ["Post", "--limit", "3", "--sort", "date:desc"]),
        // Photos: inheritance (Album under GenericAlbum), an ordered many-to-many, binaries.
        Case(
            name: "photos-1447", store: "osxphotos-photos-15.4.1/Photos.sqlite",
            arguments: ["Album", "--limit", "2", "--include", "assets"]),
        // Persistent history, a sub-entity, a derived attribute and transformables.
        Case(
            name: "samplemodel2-1344", store: "cdplus-samplemodel2/SampleModel2_V1.sqlite",
            arguments: ["Book", "Author", "--limit", "2", "--offset", "1", "--include", "pages"]),
    ]

    static let formats = ["description", "line", "table", "expanded", "json", "ndjson", "csv"]

    static let cases: [(Case, String)] = stores.flatMap { store in formats.map { (store, $0) } }

    @Test(arguments: cases)
    func formatMatchesGolden(_ testCase: Case, _ format: String) throws {
        let copy = try Corpus.copyStore(testCase.store)
        let result = CommandRunner.runInProcess(["dump", copy.path] + testCase.arguments + ["--format", format])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        let name = "dump/\(testCase.name).\(format)"
        let expected = try Golden.expected(name, actual: result.stdout)
        #expect(expected != nil, "missing golden file \(name); run with CDSTORE_UPDATE_GOLDEN=1")
        #expect(result.stdout == expected, "output differs from Tests/Fixtures/\(name)")
    }

    /// A seed-style `to_s` line from a template.
    @Test func templateLine() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let result = CommandRunner.runInProcess([
            "dump", copy.path, "Post", "--limit", "3",
            "--template", "Post: {postID} Date: '{date}' Color: {color}",
        ])
        #expect(result.status == 0)
        let expected = try Golden.expected("dump/wibosco-3.template", actual: result.stdout)
        #expect(result.stdout == expected)
        #expect(result.stdout.split(separator: "\n").count == 3)
    }

    @Test func jsonIsValid() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let result = CommandRunner.runInProcess(["dump", copy.path, "Page", "--format", "json", "--limit", "5"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == 5)
        #expect(array.allSatisfy { $0["_entity"] as? String == "Page" && ($0["_id"] as? String)?.hasPrefix("x-coredata://") == true })
    }
}

/// `dump --format ndjson` of every corpus store prints exactly one object per row of each
/// concrete entity, counted independently with SQL.
@Suite(.temporaryDirectories, .tags(.corpusWide)) struct DumpCountCorpusWideTests {
    /// Models for the stores that have no model cache (see ModelPairTests).
    static let models: [String: String] = [
        "apple-coredatabooks/CoreDataBooks.sqlite": "apple-coredatabooks/CoreDataBooks.xcdatamodeld",
        "apple-recipes/Recipes.sqlite": "apple-recipes/Recipes.xcdatamodel",
        "recipes-migration/Recipes.sqlite": "recipes-migration/Recipes.xcdatamodeld",
        "bookmigration/Model1.sqlite": "bookmigration/Model.xcdatamodeld",
        "failedbankcd-seed/2013-12-12-wal/CoreDataTutorial2.sqlite": "failedbankcd-seed/FailedBankCD.xcdatamodeld",
        "failedbankcd-seed/2013-12-13-single/CoreDataTutorial2.sqlite": "failedbankcd-seed/FailedBankCD.xcdatamodeld",
    ]

    @Test(arguments: Corpus.stores)
    func oneObjectPerRow(_ store: String) throws {
        let copy = try Corpus.copyStore(store)
        let model = Self.models[store].map { ["--model", Corpus.url($0).path] } ?? []
        let result = CommandRunner.runInProcess(["dump", copy.path, "--format", "ndjson", "--binary", "omit"] + model)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        var dumped: [String: Int] = [:]
        for line in result.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            dumped[object["_entity"] as? String ?? "?", default: 0] += 1
        }
        // Rows per concrete entity, straight from the tables Z_PRIMARYKEY names.
        let queue = try DatabaseQueue(
            path: copy.path,
            configuration: {
                var c = Configuration(); c.readonly = true; return c
            }())
        let counted = try queue.read { db -> [String: Int] in
            var result: [String: Int] = [:]
            let tables = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
            let superOf = Dictionary(uniqueKeysWithValues: entities.map { ($0[0] as Int, $0[2] as Int) })
            let nameOf = Dictionary(uniqueKeysWithValues: entities.map { ($0[0] as Int, $0[1] as String) })
            for (ent, name) in nameOf {
                var root = ent
                while let parent = superOf[root], parent != 0, nameOf[parent] != nil { root = parent }
                let table = "Z" + nameOf[root]!.uppercased()
                guard tables.contains(table) else { continue }
                let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedSQLIdentifier) WHERE Z_ENT = ?", arguments: [ent]) ?? 0
                if rows > 0 { result[name] = rows }
            }
            return result
        }
        try queue.close()
        // Renamed entities keep their old name in Z_PRIMARYKEY; compare counts by entity number order.
        #expect(dumped.values.sorted() == counted.values.sorted(), "\(store): dumped \(dumped), counted \(counted)")
        #expect(dumped.values.reduce(0, +) == counted.values.reduce(0, +))
    }
}
