import CDBase
import CDMaintenance
import CDStore
import CDTestSupport
import Foundation
import GRDB

/// Corpus stores the maintenance tests work on, always as private copies.
enum Stores {
    /// WAL mode; all 84 posts still in the `-wal` (store-format.md §10).
    static let walOnly = "wibosco-migration/CoreDataMigration_Example_WAL.sqlite"
    /// WAL mode with `-wal` and `-shm`.
    static let walAndShm = "failedbankcd-seed/2013-12-12-wal/CoreDataTutorial2.sqlite"
    /// Rollback journal mode.
    static let rollback = "cdplus-samplemodel/SampleModel_V2.sqlite"
    /// Persistent history: 84 transactions, 298 changes.
    static let history = "plaso-notestore-ios/NoteStore.sqlite"
    /// Book (with GraphicNovel), Page, Feedback, Writer; history tables.
    static let books = "cdplus-samplemodel2/SampleModel2_V1.sqlite"

    /// A copy of a corpus store, with `sql` run on the copy first.
    static func copy(_ store: String, sql: String? = nil) throws -> URL {
        let copy = try Corpus.copyStore(store)
        if let sql {
            let queue = try DatabaseQueue(path: copy.path)
            try queue.write { try $0.execute(sql: sql) }
            try queue.close()
        }
        return copy
    }

    /// The books store with Book.cover stored externally: p2's cover is the file `COVER-2` in
    /// `.SampleModel2_V1_SUPPORT/_EXTERNAL_DATA` (marker 0x02, the name, a NUL; §9).
    static func withExternalData() throws -> URL {
        let copy = try copy(books, sql: "UPDATE ZBOOK SET ZCOVER = X'02434F5645522D3200' WHERE Z_PK = 2")
        let folder = StoreFiles(path: copy.path).externalDataFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("cover".utf8).write(to: folder.appendingPathComponent("COVER-2"))
        return copy
    }

    /// Checksums of every file beside the store, leaving out backup and staging folders.
    static func checksums(beside store: URL) throws -> [String: String] {
        try Checksums.of(directory: store.deletingLastPathComponent()).filter { path, _ in
            !path.contains(".cdstore-backup-") && !path.contains(".cdstore-removing-")
        }
    }

    /// Names in the store's directory.
    static func entries(beside store: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.deletingLastPathComponent().path).sorted()
    }
}

/// File operations that fail once, at a chosen step, or report directories as read-only.
final class FaultyFileOperations: FileOperations {
    private let system = SystemFileOperations()
    /// The 1-based number of the changing call that fails.
    let failingStep: Int?
    let readOnly: Bool
    private(set) var steps = 0

    init(failingStep: Int? = nil, readOnly: Bool = false) {
        self.failingStep = failingStep
        self.readOnly = readOnly
    }

    func isWritableDirectory(_ directory: URL) -> Bool { !readOnly && system.isWritableDirectory(directory) }

    func createDirectory(_ directory: URL) throws {
        try step("createDirectory")
        try system.createDirectory(directory)
    }

    func copyItem(_ source: URL, to destination: URL) throws {
        try step("copyItem")
        try system.copyItem(source, to: destination)
    }

    func moveItem(_ source: URL, to destination: URL) throws {
        try step("moveItem")
        try system.moveItem(source, to: destination)
    }

    func removeItem(_ url: URL) throws {
        try step("removeItem")
        try system.removeItem(url)
    }

    private func step(_ name: String) throws {
        steps += 1
        if steps == failingStep { throw InjectedFailure(step: steps, operation: name) }
    }

    /// The failure ``FaultyFileOperations`` throws, told to the user as a real one would be.
    struct InjectedFailure: UserFacingError {
        let step: Int
        let operation: String
        var message: String { "injected failure at step \(step) (\(operation))" }
    }
}

/// Another process (the `sqlite3` shell) holding a store open, as an app would.
final class HeldStore {
    private let process = Process()
    private let input = Pipe()

    /// Opens `store` in `sqlite3` and runs `commands`, then waits until the lock shows.
    init(_ store: URL, commands: String) throws {
        process.executableURL = URL(fileURLWithPath: SQLiteShell.path)
        process.arguments = [store.path]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(commands.utf8))
        let files = StoreFiles(path: store.path)
        let deadline = Date().addingTimeInterval(10)
        while StoreLockProbe.holder(of: files) == nil, Date() < deadline { usleep(20_000) }
    }

    /// Ends the transaction and the process.
    func release() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    static var isAvailable: Bool { SQLiteShell.isAvailable }
}
