@testable import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// Stores are read where they lie, through the read-only VFS: no copy, no file created or
/// changed beside them, WAL content seen, and an app writing meanwhile either goes unseen (a
/// snapshot) or makes the read fail with "changed while reading", never a mix of two versions.
@Suite(.temporaryDirectories) struct InPlaceReadingTests {
    /// A WAL store whose 84 posts live in its `-wal` (main file 36,864 bytes).
    static let walStore = "wibosco-migration/CoreDataMigration_Example_WAL.sqlite"

    static func count(_ snapshot: StoreSnapshot, _ table: String = "ZPOST") throws -> Int {
        try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1 }
    }

    static func listing(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func aWALStoreIsReadInPlaceWithItsWALContent() throws {
        let store = try Corpus.copyStore(Self.walStore)
        let before = try Checksums.of(directory: store.deletingLastPathComponent())
        let snapshot = try StoreSnapshot(path: store.path)
        #expect(snapshot.readsInPlace)
        #expect(try Self.count(snapshot) == 84)
        #expect(try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Post'") } == 84)
        #expect(try Checksums.of(directory: store.deletingLastPathComponent()) == before)
    }

    /// The same rows as a private copy shows, on a store whose main file is a single page.
    @Test func inPlaceAndCopyAgreeOnAWALOnlyStore() throws {
        let inPlace = try StoreSnapshot(path: Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite").path)
        let copied = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        try Data().write(to: URL(fileURLWithPath: copied.path + "-journal"))
        let fromCopy = try StoreSnapshot(path: copied.path)
        #expect(inPlace.readsInPlace && !fromCopy.readsInPlace)
        let sql = "SELECT * FROM ZENTRY ORDER BY Z_PK"
        let rows = try inPlace.read { db in try Row.fetchAll(db, sql: sql) }
        #expect(rows.count == 2)
        #expect(try fromCopy.read { db in try Row.fetchAll(db, sql: sql) } == rows)
    }

    /// A WAL-mode header without a `-wal` (a clean close): SQLite would create the `-wal` and
    /// `-shm`; the VFS gives it an empty one that exists only in memory.
    @Test func noSidecarIsCreatedForAStoreWithoutAWAL() throws {
        let store = try Corpus.copyStore("plaso-netusage/netusage.sqlite")
        let folder = store.deletingLastPathComponent()
        #expect(try Self.listing(folder) == ["netusage.sqlite"])
        let snapshot = try StoreSnapshot(path: store.path)
        #expect(snapshot.header.isWALMode && snapshot.readsInPlace)
        #expect(try Self.count(snapshot, "Z_PRIMARYKEY") == 18)
        #expect(try Self.listing(folder) == ["netusage.sqlite"])
    }

    /// `?`, `#`, `%`, spaces and non-ASCII letters in a path stay part of the `file:` URI's path.
    @Test func pathsWithURICharacters() throws {
        let source = try Corpus.copyStore(Self.walStore)
        let folder = source.deletingLastPathComponent().appendingPathComponent("a?b#c%20d é&vfs=unix", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: folder.appendingPathComponent("s?.sqlite" + suffix).path)
        }
        let snapshot = try StoreSnapshot(path: folder.appendingPathComponent("s?.sqlite").path)
        #expect(snapshot.readsInPlace)
        #expect(try Self.count(snapshot) == 84)
        #expect(
            StoreSnapshot.readOnlyURI(URL(fileURLWithPath: "/t/a?b#c%d é"))
                == "file:/t/a%3Fb%23c%25d%20%C3%A9?vfs=cdstore-read-only&mode=ro")
    }

    @Test func writesAreRefused() throws {
        let store = try Corpus.copyStore(Self.walStore)
        let before = try Checksums.of(directory: store.deletingLastPathComponent())
        let snapshot = try StoreSnapshot(path: store.path)
        #expect(throws: (any Error).self) {
            try snapshot.database.writeWithoutTransaction { db in try db.execute(sql: "DELETE FROM ZPOST") }
        }
        #expect(try Self.count(snapshot) == 84)
        #expect(try Checksums.of(directory: store.deletingLastPathComponent()) == before)
    }

    /// Frames an app appends after the view was taken are not seen, and do not spoil it.
    @Test func laterCommitsAreNotSeen() throws {
        let store = try Corpus.copyStore(Self.walStore)
        let writer = try SQLiteWriter(store)
        defer { writer.close() }
        let snapshot = try StoreSnapshot(path: store.path)
        #expect(try Self.count(snapshot) == 84)
        try writer.run(SQLiteWriter.insertPair(1))
        #expect(try writer.query("SELECT COUNT(*) FROM ZPOST;") == "86")
        #expect(try Self.count(snapshot) == 84)
        #expect(try Self.count(StoreSnapshot(path: store.path)) == 86)
    }

    /// A checkpoint changes the main file under the view: the next read fails, with the message
    /// that tells the user what happened and what to do.
    @Test func aCheckpointMakesTheNextReadFail() throws {
        let store = try Corpus.copyStore(Self.walStore)
        let writer = try SQLiteWriter(store)
        defer { writer.close() }
        let snapshot = try StoreSnapshot(path: store.path)
        #expect(try Self.count(snapshot) == 84)
        try writer.run(SQLiteWriter.insertPair(1) + "PRAGMA wal_checkpoint(TRUNCATE);")
        let message = "\(store.path) changed while cdstore was reading it (an app is writing to it); run the command again"
        let error = #expect(throws: StoreError.changedWhileReading(path: store.path)) { try Self.count(snapshot) }
        #expect(error?.message == message)
    }

    /// An app writing pairs of rows in one transaction, checkpointing as it goes, while cdstore
    /// dumps the table again and again: every dump either succeeds with whole pairs only, or
    /// fails with the one-line "changed while reading" error. The writer is never blocked.
    @Test func dumpsUnderAWritingAppAreConsistentOrFail() throws {
        let store = try Corpus.copyStore(Self.walStore)
        let writer = try SQLiteWriter(store)
        defer { writer.close() }
        let stop = Locked(false)
        let writerFailure = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var pair = 0
            while !stop.value {
                pair += 1
                do {
                    try writer.run(SQLiteWriter.insertPair(pair) + (pair % 20 == 0 ? "PRAGMA wal_checkpoint(RESTART);" : ""))
                } catch {
                    writerFailure.value = "pair \(pair): \(error)"
                    break
                }
            }
            done.signal()
        }
        var outcomes: [Int32: Int] = [:]
        for _ in 0..<12 {
            let result = try CommandRunner.run(["dump", store.path, "Post", "--format", "ndjson"])
            outcomes[result.status, default: 0] += 1
            if result.status == 0 {
                let ids = Set(
                    result.stdout.split(separator: "\n").compactMap { line -> String? in
                        guard let range = line.range(of: #""postID":"pair-"#) else { return nil }
                        return String(line[range.upperBound...].prefix { $0 != "\"" })
                    })
                let unmatched = ids.filter { $0.hasSuffix("-a") ? !ids.contains(String($0.dropLast()) + "b") : !ids.contains(String($0.dropLast()) + "a") }
                #expect(unmatched.isEmpty, "half-seen transactions: \(unmatched.sorted().prefix(5))")
                #expect(result.stdout.split(separator: "\n").count >= 84)
            } else {
                #expect(result.status == 2)
                #expect(
                    result.stderr == "cdstore: error: \(store.path) changed while cdstore was reading it (an app is writing to it); run the command again\n")
            }
        }
        stop.value = true
        done.wait()
        #expect(writerFailure.value == nil)
        #expect(outcomes.keys.allSatisfy { [0, 2].contains($0) }, "\(outcomes)")
    }
}

/// A value shared between the test and its writer thread.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Another process writing to a store, as an app would: the sqlite3 shell, fed statements on its
/// standard input, with automatic checkpoints off so that the test decides when the main file
/// changes.
final class SQLiteWriter: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending: [UInt8] = []

    init(_ store: URL) throws {
        // The shell buffers its output on a pipe; stdbuf makes it write each line at once, so
        // the marker that ends a batch arrives when the batch is done.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = ["-oL", SQLiteShell.path, "-bail", "-batch", store.path]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Only the shell may hold the output's write end, so that its exit reads as the end.
        try output.fileHandleForWriting.close()
        try run("PRAGMA wal_autocheckpoint = 0; PRAGMA busy_timeout = 5000;")
    }

    /// SQL for one transaction that adds two posts, `pair-N-a` and `pair-N-b`.
    static func insertPair(_ pair: Int) -> String {
        """
        BEGIN IMMEDIATE;
        INSERT INTO ZPOST (Z_PK, Z_ENT, Z_OPT, ZPOSTID) VALUES ((SELECT Z_MAX + 1 FROM Z_PRIMARYKEY WHERE Z_ENT = 2), 2, 1, 'pair-\(pair)-a');
        INSERT INTO ZPOST (Z_PK, Z_ENT, Z_OPT, ZPOSTID) VALUES ((SELECT Z_MAX + 2 FROM Z_PRIMARYKEY WHERE Z_ENT = 2), 2, 1, 'pair-\(pair)-b');
        UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 2 WHERE Z_ENT = 2;
        COMMIT;
        """
    }

    /// Runs `sql` and waits until the shell has finished it; throws with the shell's output when
    /// a statement failed.
    func run(_ sql: String) throws {
        _ = try query(sql)
    }

    /// Runs `sql` and returns what the shell printed for it.
    func query(_ sql: String) throws -> String {
        let marker = Array("-- done \(UUID().uuidString)\n".utf8)
        input.fileHandleForWriting.write(Data((sql + "\n.print '\(String(decoding: marker.dropLast(), as: UTF8.self))'\n").utf8))
        while true {
            if pending.count >= marker.count,
                let start = (0...(pending.count - marker.count)).first(where: { pending[$0..<$0 + marker.count].elementsEqual(marker) })
            {
                let printed = String(decoding: pending[..<start], as: UTF8.self)
                pending.removeFirst(start + marker.count)
                return printed.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                throw WriterStopped(output: String(decoding: pending, as: UTF8.self))
            }
            pending += Array(chunk)
        }
    }

    func close() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// The `sqlite3` process behind ``SQLiteWriter`` ended; `output` is what it printed last.
private struct WriterStopped: Error, CustomStringConvertible {
    let output: String
    var description: String { "sqlite3 writer stopped: \(output)" }
}
