import CDTestSupport
import Foundation
import GRDB
import Testing

/// `cdstore reset` and `cdstore clean` as a user runs them: exact text, JSON field by field,
/// one-line errors.
@Suite(.temporaryDirectories) struct MaintenanceCommandTests {
    static let walStore = "wibosco-migration/CoreDataMigration_Example_WAL.sqlite"
    static let historyStore = "plaso-notestore-ios/NoteStore.sqlite"

    /// The output with the copy's directory written as `<dir>`.
    static func normalized(_ text: String, _ copy: URL) -> String {
        text.replacingOccurrences(of: copy.deletingLastPathComponent().path, with: "<dir>")
    }

    static func golden(_ name: String, _ result: CommandRunner.Result, _ copy: URL) throws {
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        let actual = normalized(result.stdout, copy)
        let expected = try Golden.expected("maintenance/\(name)", actual: actual)
        #expect(expected != nil, "missing golden file maintenance/\(name); run with CDSTORE_UPDATE_GOLDEN=1")
        #expect(actual == expected, "output differs from Tests/Fixtures/maintenance/\(name)")
    }

    static func json(_ result: CommandRunner.Result) throws -> [String: Any] {
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func resetDryRunText() throws {
        let copy = try Corpus.copyStore(Self.walStore)
        try Self.golden("reset-dry-run.txt", CommandRunner.runInProcess(["reset", copy.path, "--dry-run"]), copy)
    }

    @Test func resetText() throws {
        let copy = try Corpus.copyStore(Self.walStore)
        try Self.golden("reset-no-backup.txt", CommandRunner.runInProcess(["reset", copy.path, "--no-backup"]), copy)
        #expect(try FileManager.default.contentsOfDirectory(atPath: copy.deletingLastPathComponent().path).isEmpty)
    }

    @Test func resetJSON() throws {
        let copy = try Corpus.copyStore(Self.walStore)
        let report = try Self.json(CommandRunner.runInProcess(["reset", copy.path, "--json"]))
        #expect(Set(report.keys) == ["store", "dryRun", "parts", "totalBytes", "backup", "removed", "recreated"])
        #expect(report["recreated"] is NSNull)
        #expect(report["store"] as? String == copy.path)
        #expect(report["dryRun"] as? Bool == false)
        #expect(report["removed"] as? Bool == true)
        #expect(report["totalBytes"] as? Int == 1_800_256)
        let parts = try #require(report["parts"] as? [[String: Any]])
        #expect(parts.map { $0["role"] as? String } == ["main", "wal"])
        #expect(parts.map { $0["path"] as? String } == [copy.path, copy.path + "-wal"])
        #expect(parts.map { $0["bytes"] as? Int } == [36_864, 1_763_392])
        #expect(parts.map { $0["directory"] as? Bool } == [false, false])
        let backup = try #require(report["backup"] as? String)
        #expect(backup.hasPrefix(copy.path + ".cdstore-backup-"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: backup).sorted() == [copy.lastPathComponent, copy.lastPathComponent + "-wal"])
        let missing = CommandRunner.runInProcess(["reset", copy.path, "--json"])
        #expect(missing.status == 2 && missing.stderr.contains("no such file"))
    }

    @Test func cleanDryRunText() throws {
        let copy = try Corpus.copyStore(Self.historyStore)
        try Self.golden(
            "clean-dry-run.txt",
            CommandRunner.runInProcess(
                ["clean", copy.path, "--dry-run", "--history-before", "2023-05-01", "--repair-primary-keys", "--vacuum"]), copy)
    }

    @Test func cleanText() throws {
        let copy = try Corpus.copyStore(Self.walStore)
        try Self.golden("clean-no-backup.txt", CommandRunner.runInProcess(["clean", copy.path, "--no-backup", "--repair-primary-keys"]), copy)
    }

    /// Total bytes of the main file and its sidecars.
    static func storeBytes(_ copy: URL) throws -> Int {
        try ["", "-wal", "-shm", "-journal"].reduce(0) { total, suffix in
            let path = copy.path + suffix
            guard FileManager.default.fileExists(atPath: path) else { return total }
            return total + (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0)
        }
    }

    @Test func cleanJSON() throws {
        let copy = try Corpus.copyStore(Self.historyStore)
        let bytesBefore = try Self.storeBytes(copy)
        let report = try Self.json(
            CommandRunner.runInProcess(
                ["clean", copy.path, "--json", "--no-backup", "--history-before", "2023-06-01T00:00:00Z", "--vacuum"]))
        #expect(
            Set(report.keys) == [
                "store", "dryRun", "backup", "checkpoint", "externalData", "history", "primaryKeys",
                "vacuum", "bytesBefore", "bytesAfter", "bytesReclaimed",
            ])
        #expect(report["store"] as? String == copy.path)
        #expect(report["dryRun"] as? Bool == false)
        #expect(report["backup"] is NSNull)
        #expect(report["primaryKeys"] is NSNull)
        #expect(report["vacuum"] as? Bool == true)
        let checkpoint = try #require(report["checkpoint"] as? [String: Any])
        #expect(checkpoint["walMode"] as? Bool == true)
        #expect(checkpoint["walBytesBefore"] as? Int == 0)
        #expect(checkpoint["framesToCheckpoint"] as? Int == 0)
        #expect(checkpoint["walBytesAfter"] as? Int == 0)
        let external = try #require(report["externalData"] as? [String: Any])
        #expect(external["folder"] as? String == copy.deletingLastPathComponent().path + "/.NoteStore_SUPPORT/_EXTERNAL_DATA")
        #expect((external["orphans"] as? [String]) == [])
        #expect(external["removed"] as? Int == 0)
        #expect(external["skipped"] is NSNull)
        let history = try #require(report["history"] as? [String: Any])
        #expect(history["before"] as? String == "2023-06-01T00:00:00.000Z")
        #expect(history["present"] as? Bool == true)
        #expect(history["transactions"] as? Int == 84)
        #expect(history["changes"] as? Int == 298)
        let before = try #require(report["bytesBefore"] as? Int)
        let after = try #require(report["bytesAfter"] as? Int)
        #expect(before == bytesBefore)
        #expect(after == (try Self.storeBytes(copy)))
        #expect(after < before)
        #expect(report["bytesReclaimed"] as? Int == before - after)
    }

    @Test func cleanDryRunJSONHasNullsWhereNothingHappened() throws {
        let copy = try Corpus.copyStore(Self.walStore)
        let report = try Self.json(CommandRunner.runInProcess(["clean", copy.path, "--json", "--dry-run"]))
        #expect(report["dryRun"] as? Bool == true)
        for key in ["backup", "history", "primaryKeys", "bytesAfter", "bytesReclaimed"] {
            #expect(report[key] is NSNull, "\(key)")
        }
        let checkpoint = try #require(report["checkpoint"] as? [String: Any])
        #expect(checkpoint["framesToCheckpoint"] as? Int == 428)
        #expect(checkpoint["walBytesAfter"] is NSNull)
    }

    static func badStores() throws -> [(String, URL)] {
        let directory = try TemporaryDirectory.make()
        let plain = directory.appendingPathComponent("plain.sqlite")
        let queue = try DatabaseQueue(path: plain.path)
        try queue.write { try $0.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY)") }
        try queue.close()
        let store = Corpus.url(walStore)
        let truncated = directory.appendingPathComponent("truncated.sqlite")
        try Data(try Data(contentsOf: store).prefix(10_000)).write(to: truncated)
        return [("not Core Data", plain), ("truncated", truncated)]
    }

    @Test(arguments: [["reset"], ["reset", "--force", "--no-backup"], ["clean"], ["clean", "--vacuum", "--force"]])
    func badStoresGiveOneLineAndChangeNothing(_ command: [String]) throws {
        for (kind, url) in try Self.badStores() {
            let before = try Checksums.of(directory: url.deletingLastPathComponent())
            let result = CommandRunner.runInProcess([command[0], url.path] + command.dropFirst())
            #expect(result.status == 2, "\(kind)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("cdstore: error: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(kind): \(result.stderr)")
            #expect(result.stderr.contains(kind == "truncated" ? "truncated" : "not a Core Data store: missing table Z_PRIMARYKEY"))
            #expect(try Checksums.of(directory: url.deletingLastPathComponent()) == before)
        }
    }

    @Test func aBadDateIsAUsageError() throws {
        let copy = try Corpus.copyStore(Self.walStore)
        let result = CommandRunner.runInProcess(["clean", copy.path, "--history-before", "last week"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--history-before takes an ISO 8601 date"))
    }

    /// `reset --recreate --json`: the old parts, the backup and the new store; the new store
    /// hashes like the old one (inspect says the digest matches) and holds no objects.
    @Test func resetRecreateJSON() throws {
        let copy = try Corpus.copyStore(Self.walStore)
        let report = try Self.json(CommandRunner.runInProcess(["reset", copy.path, "--recreate", "--json"]))
        #expect(report["removed"] as? Bool == true)
        let recreated = try #require(report["recreated"] as? [String: Any])
        #expect(recreated["path"] as? String == copy.path)
        #expect(recreated["frameworkVersion"] as? Int == 847)
        #expect(recreated["entities"] as? Int == 2)
        #expect(recreated["versionIdentifiers"] as? [String] == [""])
        let inspection = try Self.json(CommandRunner.runInProcess(["inspect", copy.path, "--json"]))
        let metadata = try #require(inspection["metadata"] as? [String: Any])
        #expect(metadata["storeUUID"] as? String == recreated["storeUUID"] as? String)
        let hashes = try #require(metadata["versionHashes"] as? [String: String])
        #expect(hashes["Post"] == "d81901642c2396baa3d6f7548e957afb0e4bf63471ceeb709312aa1dbda395b5")
        let entities = try #require(inspection["entities"] as? [[String: Any]])
        #expect(entities.map { $0["rows"] as? Int } == [0, 0])
    }

    @Test func recreateOptionsNeedRecreate() throws {
        let copy = try Corpus.copyStore(Self.walStore)
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        let result = CommandRunner.runInProcess(["reset", copy.path, "--model", "Samples/schemas/ToDo"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--model, --version and --framework-version need --recreate"))
        let version = CommandRunner.runInProcess(["reset", copy.path, "--recreate", "--version", "x"])
        #expect(version.status == 64 && version.stderr.contains("--version needs --model"))
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
    }
}
