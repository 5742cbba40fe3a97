import CDTestSupport
import Foundation
import GRDB
import Testing

/// `find`, `history` and `watch` as a user runs them.
@Suite(.temporaryDirectories) struct ChangesCommandTests {
    @Test func findListsAStoreWithItsDetails() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let folder = copy.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = try CommandRunner.run(["find", folder.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains(copy.lastPathComponent))
        #expect(text.stdout.contains("framework 1344"))
        #expect(text.stdout.contains("6 entities"))
        #expect(text.stdout.contains("persistent history"))
        #expect(text.stdout.hasSuffix(" in 1 folder\n") && text.stdout.contains("1 store ("))
        let json = try CommandRunner.run(["find", folder.path, "--json", "--sort", "size"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((report["stores"] as? [[String: Any]])?.first?["entityCount"] as? Int == 6)
    }

    @Test func historyPrintsTransactionsAndJSONLines() throws {
        let copy = try Corpus.copyStore("plaso-notestore-ios/NoteStore.sqlite")
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let text = try CommandRunner.run(["history", copy.path, "--since", "83"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("Transaction 84  "))
        #expect(text.stdout.contains("1 transaction, "))
        let json = try CommandRunner.run(["history", copy.path, "--json", "--author", "8597"])
        let lines = json.stdout.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["author"] as? String == "8597")
        }
        let bad = try CommandRunner.run(["history", copy.path, "--since", "yesterday"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--since yesterday"))
    }

    /// A writer (this test, through SQLite) changes a WAL copy of a store with persistent
    /// history as Core Data does — the object row, Z_MAX, a transaction and its change rows —
    /// while `cdstore watch` runs; watch reports exactly those changes, in order, each within
    /// two polling intervals, and Ctrl-C leaves no private copy behind.
    @Test func watchReportsAWritersChangesInOrder() throws {
        guard let executable = CommandRunner.executable else { Issue.record("no cdstore executable"); return }
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let privateTemporary = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: privateTemporary) }
        // The store's triggers for derived attributes call functions Core Data registers; this
        // writer's stand-ins do nothing (the derived values are not what the test watches).
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            for name in ["NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", "NSCoreDataDATriggerUpdatedAffectedObjectValue"] {
                db.add(function: DatabaseFunction(name, argumentCount: nil, pure: false) { _ in nil })
            }
        }
        let writer = try DatabaseQueue(path: copy.path, configuration: configuration)
        defer { try? writer.close() }
        #expect(try writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")

        let interval = 1.0
        let process = Process()
        process.executableURL = executable
        process.arguments = ["watch", copy.path, "Book", "--interval", String(interval), "--json"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": privateTemporary.path]) { _, new in new }
        let output = LineCollector()
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
        try process.run()
        Thread.sleep(forTimeInterval: 2 * interval)

        var writes: [(kind: String, at: Date)] = []
        let pk = try writer.write { db -> Int64 in
            let pk = (try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'") ?? 0) + 1
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'Book'", arguments: [pk])
            try db.execute(sql: "INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZPRICE, ZPAGESCOUNT) VALUES (?, 1, 1, 'Watched', 9.5, 0)", arguments: [pk])
            try Self.record(db, type: 0, pk: pk)
            return pk
        }
        writes.append(("insert", Date()))
        Thread.sleep(forTimeInterval: 2.5 * interval)
        try writer.write { db in
            try db.execute(sql: "UPDATE ZBOOK SET ZTITLE = 'Renamed', Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", arguments: [pk])
            try Self.record(db, type: 1, pk: pk)
        }
        writes.append(("update", Date()))
        Thread.sleep(forTimeInterval: 2.5 * interval)
        try writer.write { db in
            try db.execute(sql: "DELETE FROM ZBOOK WHERE Z_PK = ?", arguments: [pk])
            try Self.record(db, type: 2, pk: pk)
        }
        writes.append(("delete", Date()))
        Thread.sleep(forTimeInterval: 2.5 * interval)
        process.interrupt()
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil

        #expect(process.terminationStatus == 0)
        let lines = output.lines
        #expect(lines.map { $0.object["type"] as? String } == ["insert", "update", "delete"])
        for line in lines { try JSONSchemaContractTests.expectConforms(line.text, to: "watch.schema.json") }
        for (line, write) in zip(lines, writes) {
            #expect(line.object["objectID"] as? String == "x-coredata://\(try Self.storeUUID(writer))/Book/p\(pk)")
            #expect(line.arrived.timeIntervalSince(write.at) <= 2 * interval, "\(write.kind) took \(line.arrived.timeIntervalSince(write.at)) s")
        }
        #expect((lines.first?.object["object"] as? [String: Any])?["title"] as? String == "Watched")
        let title = (lines.dropFirst().first?.object["changes"] as? [String: Any])?["title"] as? [String: Any]
        #expect(title?["old"] as? String == "Watched")
        #expect(title?["new"] as? String == "Renamed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: privateTemporary.path).isEmpty)
    }

    /// One history transaction with one change, as Core Data records a save.
    static func record(_ db: Database, type: Int, pk: Int64) throws {
        let transaction = (try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") ?? 0) + 1
        let change = (try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ACHANGE") ?? 0) + 1
        try db.execute(
            sql: "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZTIMESTAMP) VALUES (?, 16002, 1, ?)",
            arguments: [transaction, Date().timeIntervalSinceReferenceDate])
        try db.execute(
            sql: "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES (?, 16001, 1, ?, 1, ?, ?)",
            arguments: [change, type, pk, transaction])
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = 16002", arguments: [transaction])
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = 16001", arguments: [change])
    }

    static func storeUUID(_ queue: DatabaseQueue) throws -> String {
        try queue.read { db in try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA") } ?? ""
    }

    /// With `--model`, `watch` reads a store that has no model cache (Apple's Recipes sample,
    /// framework 241) with that model: sqlite3's insert, update and delete in one commit come
    /// out as exactly those three changes, named by the model's entities. Without the model it
    /// stops at once with the reason on one line.
    @Test func watchReadsAStoreWithoutModelCacheWithTheGivenModel() throws {
        guard let executable = CommandRunner.executable else { Issue.record("no cdstore executable"); return }
        let copy = try Corpus.copyStore("apple-recipes/Recipes.sqlite")
        let model = Corpus.url("apple-recipes/Recipes.xcdatamodel").path
        let without = try CommandRunner.run(["watch", copy.path, "--interval", "0.1"])
        #expect(without.status != 0 && without.stderr.contains("no model cache") && without.stderr.split(separator: "\n").count == 1, "\(without.stderr)")

        let privateTemporary = try TemporaryDirectory.make()
        let process = Process()
        process.executableURL = executable
        process.arguments = ["watch", copy.path, "--model", model, "--interval", "0.2", "--json"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": privateTemporary.path]) { _, new in new }
        let output = LineCollector()
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
        try process.run()
        defer {
            if process.isRunning { process.interrupt() }
            process.waitUntilExit()
            pipe.fileHandleForReading.readabilityHandler = nil
        }
        Thread.sleep(forTimeInterval: 2)
        try SQLiteShell.run(
            copy,
            """
            BEGIN;
            UPDATE Z_PRIMARYKEY SET Z_MAX = 11 WHERE Z_ENT = 3;
            INSERT INTO ZRECIPE (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (11, 3, 1, 'Watched');
            UPDATE ZRECIPE SET ZNAME = 'Cake', Z_OPT = Z_OPT + 1 WHERE Z_PK = 1;
            DELETE FROM ZINGREDIENT WHERE Z_PK = 2;
            COMMIT;
            """)
        let deadline = Date(timeIntervalSinceNow: 60)
        while output.lines.count < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        Thread.sleep(forTimeInterval: 1)
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let uuid = try SQLiteShell.run(copy, "SELECT Z_UUID FROM Z_METADATA;").trimmingCharacters(in: .newlines)
        let changes = Set(output.lines.map { "\($0.object["type"] as? String ?? "?") \($0.object["objectID"] as? String ?? "?")" })
        #expect(
            changes == [
                "insert x-coredata://\(uuid)/Recipe/p11", "update x-coredata://\(uuid)/Recipe/p1", "delete x-coredata://\(uuid)/Ingredient/p2",
            ])
        #expect(output.lines.count == 3)
        let updated = output.lines.first { $0.object["type"] as? String == "update" }?.object["changes"] as? [String: Any]
        #expect((updated?["name"] as? [String: Any])?["new"] as? String == "Cake")
        for line in output.lines { try JSONSchemaContractTests.expectConforms(line.text, to: "watch.schema.json") }
    }
}

/// Lines of a child's standard output as they arrive, each with its arrival time.
private final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var collected: [(text: String, object: [String: Any], arrived: Date)] = []

    func append(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: 0x0A) {
            let line = buffer[buffer.startIndex..<newline]
            buffer = Data(buffer[(newline + 1)...])
            if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] {
                collected.append((String(decoding: line, as: UTF8.self), object, Date()))
            }
        }
    }

    var lines: [(text: String, object: [String: Any], arrived: Date)] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }
}
