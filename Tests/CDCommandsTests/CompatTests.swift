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
        #expect(Set(report.keys) == ["store", "model", "options", "matchedVersion", "currentVersion", "oldModel",
                                     "compatible", "expectedError", "reason", "changes", "mappingModels"])
        #expect(report["matchedVersion"] as? String == "CoreDataMigration_Example 4")
        #expect(report["compatible"] as? Bool == true)
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
        #expect(report["expectedError"] as? Int == 134110)
        let changes = try #require(report["changes"] as? [[String: Any]])
        #expect(changes.allSatisfy { Set($0.keys) == ["entity", "property", "kind", "detail", "inferable", "fix"] })
        #expect(changes.contains { $0["kind"] as? String == "entityAdded" && $0["entity"] as? String == "Color" && $0["property"] is NSNull })
    }

    @Test func optionsAndVersion() throws {
        let store = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite").path
        let model = Corpus.url(Self.wibosco).path
        #expect(try json([store, "--model", model], status: 1)["expectedError"] is NSNull)
        #expect(try json([store, "--model", model, "--options", "migrate"], status: 1)["expectedError"] as? Int == 134140)
        #expect(try json([store, "--model", model, "--options", "none"], status: 1)["expectedError"] as? Int == 134100)
        let asThree = try json([store, "--model", model, "--version", "CoreDataMigration_Example 3"], status: 0)
        #expect(asThree["compatible"] as? Bool == true)
    }

    @Test func textReport() throws {
        let store = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite").path
        let result = CommandRunner.runInProcess(["compat", store, "--model", Corpus.url("cdplus-samplemodel/SampleModel.xcdatamodeld").path,
                                            "--version", "SampleModel3"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("Written by:       SampleModel2\n"))
        #expect(result.stdout.contains("Expected error:   none\n"))
        #expect(result.stdout.contains("V2toV3.xcmappingmodel: SampleModel2 → SampleModel3 (maps the store to the current version)"))
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
