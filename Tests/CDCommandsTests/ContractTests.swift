import CDTestSupport
import Foundation
import GRDB
import Testing

/// The JSON that later tools rely on, and how errors reach the user.
@Suite(.temporaryDirectories) struct ContractTests {
    private func json(_ arguments: [String]) throws -> [String: Any] {
        let result = CommandRunner.runInProcess(arguments)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func inspectJSONContract() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let report = try json(["inspect", "--json", copy.path])
        let metadata = try #require(report["metadata"] as? [String: Any])
        let hashes = try #require(metadata["versionHashes"] as? [String: String])
        #expect(hashes["GraphicNovel"]?.hasPrefix("a6863b3ebf06bded") == true)
        #expect(hashes.values.allSatisfy { $0.count == 64 && $0 == $0.lowercased() })
        #expect(metadata["versionIdentifiers"] as? [String] == [])
        #expect(metadata["frameworkVersion"] as? Int == 1344)
        #expect((metadata["storeUUID"] as? String)?.count == 36)
        let entities = try #require(report["entities"] as? [[String: Any]])
        let novel = try #require(entities.first { $0["name"] as? String == "GraphicNovel" })
        #expect(novel["ent"] as? Int == 2)
        #expect(novel["superEntity"] as? String == "Book")
        #expect(novel["table"] as? String == "ZBOOK")
        #expect(novel["rows"] as? Int == 1)
        let root = try #require(entities.first { $0["name"] as? String == "Book" })
        #expect(root["superEntity"] is NSNull || root["superEntity"] == nil)
        let cache = try #require(report["modelCache"] as? [String: Any])
        #expect(cache["present"] as? Bool == true)
        #expect(cache["hashesMatch"] as? Bool == true)
        #expect(report["warnings"] as? [String] == [])
    }

    /// `superEntity` is present as null on roots (the contract names it "name or null").
    @Test func rootsHaveNullSuperEntity() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let result = CommandRunner.runInProcess(["inspect", "--json", copy.path])
        #expect(result.stdout.contains("\"superEntity\" : null"))
    }

    @Test func modelHashesContract() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let report = try json(["model", "--hashes", "--json", copy.path])
        let versions = try #require(report["versions"] as? [[String: Any]])
        #expect(versions.count == 1)
        #expect(versions[0]["name"] as? String == "cache")
        #expect(versions[0]["current"] as? Bool == true)
        let hashes = try #require(versions[0]["entityHashes"] as? [String: String])
        #expect(
            hashes == [
                "Color": "c42610dacb82dfd67d8281d49d82916bd02493cb4cc897db9ca097fe7c9cb9e7",
                "Post": "8a55fd4ce6c31444313d4c97e0247ac5d3ed2528c484daeb70b4e481d36e2345",
            ])
    }

    // MARK: bad input: exit status 2, one line on stderr, no backtrace

    private func expectCleanFailure(_ arguments: [String], message: String) throws {
        let result = CommandRunner.runInProcess(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "cdstore: error: \(message)\n")
    }

    @Test func plainSQLiteFile() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("app.db")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY)") }
        try queue.close()
        try expectCleanFailure(
            ["inspect", url.path],
            message: "\(url.path) is a SQLite database but not a Core Data store: missing table Z_PRIMARYKEY")
    }

    @Test func emptyFile() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Empty.sqlite")
        try Data().write(to: url)
        try expectCleanFailure(["inspect", url.path], message: "\(url.path) is empty (0 bytes), not a SQLite database")
    }

    @Test func truncatedCopy() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel3/SampleModel3_V1.sqlite")
        try? FileManager.default.removeItem(atPath: copy.path + "-wal")
        try? FileManager.default.removeItem(atPath: copy.path + "-shm")
        let data = try Data(contentsOf: copy)
        try data.prefix(4096 + 100).write(to: copy)
        let result = CommandRunner.runInProcess(["inspect", copy.path])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("cdstore: error: \(copy.path) is truncated"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func randomBytes() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("noise.sqlite")
        var state: UInt64 = 0x9E3779B97F4A7C15
        let bytes = (0..<4096).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        try Data(bytes).write(to: url)
        try expectCleanFailure(["inspect", "--json", url.path], message: "\(url.path) is not a SQLite database (no SQLite header)")
    }

    @Test func directory() throws {
        let url = try TemporaryDirectory.make()
        try expectCleanFailure(["inspect", url.path], message: "\(url.path) is a directory, not a store file")
    }

    @Test func missingFile() throws {
        let path = try TemporaryDirectory.make().appendingPathComponent("gone.sqlite").path
        try expectCleanFailure(["model", "--hashes", path], message: "\(path): no such file")
    }

    @Test func storeWithoutModelCache() throws {
        let copy = try Corpus.copyStore("apple-recipes/Recipes.sqlite")
        try expectCleanFailure(
            ["model", "--hashes", copy.path],
            message: "\(copy.path) has no model cache (Z_MODELCACHE): it was written before framework 754; pass the app's model file instead")
    }

    @Test func usageErrorsKeepArgumentParserStatus() throws {
        let result = CommandRunner.runInProcess(["inspect"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Missing expected argument '<store>'"))
    }
}
