import CDTestSupport
import Foundation
import Testing

/// `cdstore compat` end to end: the JSON contract, the text report, exit statuses and bad input.
@Suite(.temporaryDirectories) struct CompatTests {
    static let wibosco = "wibosco-migration/CoreDataMigration_Example.xcdatamodeld"

    private func json(_ arguments: [String], status: Int32) throws -> [String: Any] {
        let result = CommandRunner.runInProcess(["compat", "--json"] + arguments)
        #expect(result.status == status, "stderr: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func contractKeysAreAlwaysPresent() throws {
        let store = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_WAL.sqlite").path
        let report = try json([store, "--model", Corpus.url(Self.wibosco).path], status: 0)
        #expect(
            Set(report.keys) == [
                "store", "model", "options", "matchedVersion", "currentVersion", "oldModel",
                "compatible", "opens", "migration", "expectedError", "reason", "changes", "mappingModels",
            ])
        #expect(report["matchedVersion"] as? String == "CoreDataMigration_Example 4")
        #expect(report["compatible"] as? Bool == true)
        #expect(report["opens"] as? Bool == true)
        #expect(report["migration"] as? String == "none")
        #expect(report["expectedError"] is NSNull)
        let mappings = try #require(report["mappingModels"] as? [[String: Any]])
        #expect(mappings.count == 2)
        #expect(mappings.allSatisfy { Set($0.keys) == ["path", "sourceVersion", "destinationVersion", "connectsStoreToCurrent"] })
    }

    @Test func incompatibleStoreExitsOne() throws {
        let store = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_1.sqlite").path
        let report = try json([store, "--model", Corpus.url(Self.wibosco).path], status: 1)
        #expect(report["matchedVersion"] as? String == "CoreDataMigration_Example")
        #expect(report["currentVersion"] as? String == "CoreDataMigration_Example 4")
        #expect(report["compatible"] as? Bool == false)
        #expect(report["opens"] as? Bool == false)
        #expect(report["migration"] as? String == "impossible")
        #expect(report["expectedError"] as? Int == 134110)
        let changes = try #require(report["changes"] as? [[String: Any]])
        #expect(changes.allSatisfy { Set($0.keys) == ["entity", "property", "kind", "detail", "inferable", "fix"] })
        #expect(changes.contains { $0["kind"] as? String == "entityAdded" && $0["entity"] as? String == "Color" && $0["property"] is NSNull })
    }

    @Test func optionsAndVersion() throws {
        let store = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite").path
        let model = Corpus.url(Self.wibosco).path
        let inferred = try json([store, "--model", model], status: 0)
        #expect(inferred["expectedError"] is NSNull)
        #expect(inferred["opens"] as? Bool == true)
        #expect(inferred["compatible"] as? Bool == false)
        for (options, error) in [("migrate", 134140), ("none", 134100)] {
            let report = try json([store, "--model", model, "--options", options], status: 1)
            #expect(report["expectedError"] as? Int == error)
            #expect(report["opens"] as? Bool == false)
            #expect(report["migration"] as? String == "lightweight")
        }
        let asThree = try json([store, "--model", model, "--version", "CoreDataMigration_Example 3"], status: 0)
        #expect(asThree["compatible"] as? Bool == true)
    }

    @Test func textReport() throws {
        let store = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite").path
        let result = CommandRunner.runInProcess([
            "compat", store, "--model", Corpus.url("cdplus-samplemodel/SampleModel.xcdatamodeld").path,
            "--version", "SampleModel3",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout.hasPrefix(
                "Opens: yes, after migration with the mapping model V2toV3.xcmappingmodel (needs NSMigratePersistentStoresAutomaticallyOption)\n\nStore:"))
        #expect(result.stdout.contains("Written by:       SampleModel2\n"))
        #expect(result.stdout.contains("Options assumed:  infer\n"))
        #expect(result.stdout.contains("V2toV3.xcmappingmodel: SampleModel2 → SampleModel3 (maps the store to the current version)"))
    }

    struct Case: Sendable, CustomStringConvertible {
        let store: String
        let model: String
        var version: String? = nil
        var options = "infer"
        let headline: String
        let status: Int32
        var description: String { "\(store) → \(version ?? "current") with \(options)" }
    }

    static let lightweight =
        "Opens: yes, after lightweight migration (needs NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption)"
    static let samples = "cdplus-samplemodel/SampleModel.xcdatamodeld"

    /// The first line answers "will my app open this store?" for the options given, and the
    /// exit status agrees with it (man/cdstore.1's table for compat).
    @Test(arguments: [
        Case(
            store: "wibosco-migration/CoreDataMigration_Example_WAL.sqlite", model: wibosco,
            headline: "Opens: yes (the model matches the store)", status: 0),
        Case(
            store: "wibosco-migration/CoreDataMigration_Example_WAL.sqlite", model: wibosco, options: "none",
            headline: "Opens: yes (the model matches the store)", status: 0),
        Case(store: "wibosco-migration/CoreDataMigration_Example_3.sqlite", model: wibosco, headline: lightweight, status: 0),
        Case(
            store: "wibosco-migration/CoreDataMigration_Example_3.sqlite", model: wibosco, options: "migrate",
            headline:
                "Opens: no — error 134140: no mapping model from CoreDataMigration_Example 3 to CoreDataMigration_Example 4, and the app does not pass NSInferMappingModelAutomaticallyOption",
            status: 1),
        Case(
            store: "wibosco-migration/CoreDataMigration_Example_3.sqlite", model: wibosco, options: "none",
            headline: "Opens: no — error 134100: the store needs lightweight migration, and the app passes no migration options", status: 1),
        Case(store: "bookmigration/Model1.sqlite", model: "bookmigration/Model.xcdatamodeld", headline: lightweight, status: 0),
        Case(
            store: "cdplus-samplemodel/SampleModel_V2.sqlite", model: samples, version: "SampleModel3", options: "migrate",
            headline: "Opens: yes, after migration with the mapping model V2toV3.xcmappingmodel (needs NSMigratePersistentStoresAutomaticallyOption)", status: 0
        ),
        Case(
            store: "cdplus-samplemodel/SampleModel_V2.sqlite", model: samples, version: "SampleModel3", options: "none",
            headline:
                "Opens: no — error 134100: the store needs migration with the mapping model V2toV3.xcmappingmodel, and the app passes no migration options",
            status: 1),
        Case(
            store: "wibosco-migration/CoreDataMigration_Example_1.sqlite", model: wibosco,
            headline: "Opens: no — error 134110: the migrated rows fail validation", status: 1),
        Case(
            store: "wibosco-migration/CoreDataMigration_Example_1.sqlite", model: wibosco, options: "none",
            headline: "Opens: no — error 134100: the store needs a migration that cannot be done either (see below), and the app passes no migration options",
            status: 1),
        Case(
            store: "wibosco-migration/CoreDataMigration_Example_2.sqlite", model: "wibosco-revised/CoreDataMigration_Example.xcdatamodeld",
            headline: "Opens: no — error 134130: no version of the model wrote the store", status: 1),
    ])
    func headlineAndExitStatus(_ test: Case) throws {
        let store = try Corpus.copyStore(test.store).path
        let arguments =
            ["compat", store, "--model", Corpus.url(test.model).path, "--options", test.options]
            + (test.version.map { ["--version", $0] } ?? [])
        let text = CommandRunner.runInProcess(arguments)
        #expect(text.status == test.status, "stderr: \(text.stderr)")
        #expect(text.stdout.split(separator: "\n").first.map(String.init) == test.headline)
        let report = try json(Array(arguments.dropFirst()), status: test.status)
        #expect(report["opens"] as? Bool == (test.status == 0))
    }

    /// A store written by Recipes 2, whose Recipe.type is to-many, opened with Recipes, where it
    /// is to-one: not inferable.
    @Test func toManyToToOneIsImpossible() throws {
        let model = Corpus.url("recipes-migration/Recipes.xcdatamodeld").path
        let store = try TemporaryDirectory.make().appendingPathComponent("Recipes2.sqlite").path
        let create = CommandRunner.runInProcess(["create", store, "--model", model, "--version", "Recipes 2"])
        #expect(create.status == 0, "\(create.stderr)")
        let text = CommandRunner.runInProcess(["compat", store, "--model", model, "--version", "Recipes"])
        #expect(text.status == 1)
        #expect(text.stdout.hasPrefix("Opens: no — error 134190: lightweight migration cannot be inferred\n"))
        let report = try json([store, "--model", model, "--version", "Recipes"], status: 1)
        #expect(report["migration"] as? String == "impossible")
        #expect(report["expectedError"] as? Int == 134190)
    }

    @Test(arguments: [
        (["compat", "/nonexistent.sqlite", "--model", "/nonexistent.xcdatamodeld"], "no such file"),
        (["compat", "STORE", "--model", "MODEL", "--version", "Nope"], "has no version named \"Nope\""),
        (["compat", "CONTENTS", "--model", "MODEL"], "is not a SQLite database"),
    ])
    func badInputIsOneLine(_ arguments: [String], _ message: String) throws {
        let store = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V1.sqlite").path
        let contents = Corpus.url("cdplus-samplemodel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel/contents").path
        let model = Corpus.url("cdplus-samplemodel/SampleModel.xcdatamodeld").path
        let placeholders = ["STORE": store, "CONTENTS": contents, "MODEL": model]
        let resolved = arguments.map { placeholders[$0] ?? $0 }
        let result = CommandRunner.runInProcess(resolved)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("cdstore: error: "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        #expect(result.stdout.isEmpty)
    }

    @Test func missingModelIsAUsageError() throws {
        let result = CommandRunner.runInProcess(["compat", "store.sqlite"])
        #expect(result.status == 64)
    }
}
