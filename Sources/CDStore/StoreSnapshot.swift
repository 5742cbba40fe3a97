import CDBase
import Foundation
import GRDB

/// A read-only view of a store, opened on a private copy so the user's files never change.
///
/// The main file is copied with its `-wal` and `-shm` into a temporary directory and the copy is
/// opened with `SQLITE_OPEN_READONLY`. `immutable=1` would be wrong: it ignores the WAL, where
/// all of a store's content may live (reference/store-format.md §10). A read-write open of the
/// original would checkpoint the WAL and delete it, changing the user's files.
public final class StoreSnapshot: @unchecked Sendable {
    /// The user's files (not the copy).
    public let files: StoreFiles
    /// The main file's header, read before the copy was made.
    public let header: SQLiteHeader
    /// The connection to the private copy.
    public let database: DatabaseQueue
    /// The SQL debug log this snapshot writes, if any.
    public let trace: SQLTrace?
    private let copyDirectory: URL

    /// Opens `path` safely. Throws ``StoreError`` with a one-line reason for anything that is not
    /// a readable Core Data store.
    /// `trace` logs every statement run on the copy, from the first one (``SQLTrace``).
    public convenience init(path: String, trace: SQLTrace? = nil) throws {
        try self.init(files: StoreFiles(path: path), trace: trace)
    }

    /// Opens the store made of `files` the same way as ``init(path:trace:)``.
    public init(files: StoreFiles, trace: SQLTrace? = nil) throws {
        self.trace = trace
        self.files = files
        let header = try Self.checkMainFile(files)
        self.header = header
        let directory = PrivateCopyRegistry.newCopyDirectory()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError("cannot create a temporary directory for the private copy: \(error.localizedDescription)")
        }
        PrivateCopyRegistry.register(directory)
        copyDirectory = directory
        let copy = directory.appendingPathComponent("store.sqlite")
        do {
            for (role, url) in files.existingFiles {
                let suffix = role == "main" ? "" : "-\(role)"
                try FileCopier.copy(from: url, to: URL(fileURLWithPath: copy.path + suffix))
            }
            database = try Self.open(copy: copy, hasJournal: FileManager.default.fileExists(atPath: files.journal.path), trace: trace)
            try Self.checkSignature(database, files: files, header: header)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            PrivateCopyRegistry.unregister(directory)
            if let storeError = error as? StoreError { throw storeError }
            throw Self.describe(error, path: files.main.path)
        }
    }

    deinit {
        try? database.close()
        try? FileManager.default.removeItem(at: copyDirectory)
        PrivateCopyRegistry.unregister(copyDirectory)
    }

    /// Runs `body` with the read-only connection, turning SQLite failures into ``StoreError``.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.describe(error, path: files.main.path)
        }
    }

    /// Checks the main file before copying: it exists, is a readable regular file, and is SQLite.
    private static func checkMainFile(_ files: StoreFiles) throws -> SQLiteHeader {
        let path = files.main.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreError("\(path): no such file")
        }
        if isDirectory.boolValue {
            throw StoreError("\(path) is a directory, not a store file")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError("\(path): permission denied")
        }
        let size = StoreFiles.size(of: files.main) ?? 0
        if size == 0 {
            throw StoreError("\(path) is empty (0 bytes), not a SQLite database")
        }
        guard let header = try SQLiteHeader.read(files.main) else {
            throw StoreError("\(path) is not a SQLite database (no SQLite header)")
        }
        let walSize = StoreFiles.size(of: files.wal) ?? 0
        if header.isPageCountValid, walSize == 0, header.pageCount * header.pageSize > size {
            throw StoreError("\(path) is truncated: the header expects \(grouped(header.pageCount * header.pageSize)) bytes, the file has \(grouped(size))")
        }
        if size % header.pageSize != 0, walSize == 0 {
            throw StoreError("\(path) is truncated: \(grouped(size)) bytes is not a whole number of \(grouped(header.pageSize))-byte pages")
        }
        return header
    }

    private static func open(copy: URL, hasJournal: Bool, trace: SQLTrace?) throws -> DatabaseQueue {
        if hasJournal {
            // A hot rollback journal must be rolled back before the data is consistent; do it
            // on the private copy, which is ours to write.
            let recovery = try DatabaseQueue(path: copy.path)
            try recovery.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
            try recovery.close()
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(2)
        configuration.label = "cdstore"
        if let trace {
            configuration.prepareDatabase { db in trace.attach(to: db) }
        }
        return try DatabaseQueue(path: copy.path, configuration: configuration)
    }

    /// A Core Data store has both `Z_METADATA` and `Z_PRIMARYKEY` (store-format.md §1).
    /// A WAL-mode main file copied without its `-wal` may hold no table at all: then the missing
    /// `-wal` is the likely cause, not a file of another kind.
    private static func checkSignature(_ database: DatabaseQueue, files: StoreFiles, header: SQLiteHeader) throws {
        let path = files.main.path
        let tables = try database.read { db in
            try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        let missing = ["Z_METADATA", "Z_PRIMARYKEY"].filter { !tables.contains($0) }
        if !missing.isEmpty, header.isWALMode, !FileManager.default.fileExists(atPath: files.wal.path) {
            throw StoreError("\(path) is in WAL mode but has no \(files.wal.lastPathComponent) beside it, and it lacks the Core Data tables: the data is probably in the missing -wal file; copy the store together with its -wal and -shm files")
        }
        if !missing.isEmpty {
            throw StoreError("\(path) is a SQLite database but not a Core Data store: missing table\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", "))")
        }
    }

    /// SQLite errors become one line that names the file and the problem.
    static func describe(_ error: Error, path: String) -> StoreError {
        guard let dbError = error as? DatabaseError else {
            return StoreError("\(path): \(error.localizedDescription)")
        }
        switch dbError.resultCode {
        case .SQLITE_NOTADB:
            return StoreError("\(path) is not a SQLite database (file is encrypted or not a database)")
        case .SQLITE_CORRUPT:
            return StoreError("\(path) is corrupt: \(dbError.message ?? "database disk image is malformed")")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError("\(path) is locked by another process (database is locked); try again when the app has closed it")
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return StoreError("\(path): cannot open (\(dbError.message ?? "permission denied"))")
        case .SQLITE_IOERR:
            return StoreError("\(path): I/O error while reading (\(dbError.message ?? "disk I/O error")); the file may be truncated")
        default:
            return StoreError("\(path): SQLite error \(dbError.resultCode.rawValue): \(dbError.message ?? "unknown")")
        }
    }
}
