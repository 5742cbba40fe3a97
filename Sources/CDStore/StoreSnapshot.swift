import CDBase
import Foundation
import CReadOnlyVFS
import GRDB
import GRDBSQLite

/// A read-only view of a store that never changes a byte of the user's files.
///
/// Normally the store is read where it lies, through cdstore's read-only SQLite VFS
/// (`CReadOnlyVFS`): the main file and `-wal` are opened `O_RDONLY`, SQLite's WAL index is
/// rebuilt in memory from the `-wal` instead of being read from or written to the `-shm`, and no
/// lock is taken, so nothing is copied however big the store is. `immutable=1` would be wrong: it
/// ignores the WAL, where all of a store's content may live (docs/format/store-format.md §10).
///
/// Because no lock is taken, an app may write while cdstore reads: every ``read(_:)`` compares the
/// files with their state at opening (`StoreFileState`) and fails with "changed while reading"
/// rather than return a mix of two versions.
///
/// A store with a `-journal` beside it is read from a private copy instead (in
/// `$TMPDIR/cdstore-<pid>-<UUID>/`, removed on every way out, see `PrivateCopyRegistry`): a hot
/// rollback journal must be played back before the data is consistent, which is a write. The
/// copy is also the fallback where SQLite does not accept the VFS.
public final class StoreSnapshot: @unchecked Sendable {
    /// The user's files (not a copy).
    public let files: StoreFiles
    /// The main file's header, read before opening.
    public let header: SQLiteHeader
    /// The read-only connection.
    public let database: DatabaseQueue
    /// The SQL debug log this snapshot writes, if any.
    public let trace: SQLTrace?
    /// Whether the store is read where it lies (true) or from a private copy (false).
    public let readsInPlace: Bool
    /// The files' state when the view was taken; nil for a private copy, which nobody else writes.
    private let openingState: StoreFileState?
    private let copyDirectory: URL?
    /// The commit of the `-wal` the view reads the store as of (0: the main file alone); nil for
    /// the store as it is now.
    public let asOfCommit: Int?

    /// Opens `path` safely. Throws ``StoreError`` with a one-line reason for anything that is not
    /// a readable Core Data store.
    /// `trace` logs the opening as Core Data prints it, then the fetches (``SQLTrace``).
    /// `keepingThisVersion` reads a private copy even where the store could be read in place:
    /// for a caller that reads this version again after the app has written (`watch` compares
    /// each poll with the one before).
    /// `asOf` reads the store as it stood after that commit of its `-wal` (0: the main file
    /// alone, `cdstore wal` numbers them), in place with SQLite shown only the log up to that
    /// commit (store-format.md §10b); a private copy, where one is needed, has its `-wal` cut there.
    public convenience init(path: String, trace: SQLTrace? = nil, keepingThisVersion: Bool = false, asOf: Int? = nil) throws {
        try self.init(files: StoreFiles(path: path), trace: trace, keepingThisVersion: keepingThisVersion, asOf: asOf)
    }

    /// Opens the store made of `files` the same way as ``init(path:trace:keepingThisVersion:asOf:)``.
    public convenience init(files: StoreFiles, trace: SQLTrace? = nil, keepingThisVersion: Bool = false, asOf: Int? = nil) throws {
        try self.init(files: files, trace: trace, keepingThisVersion: keepingThisVersion, asOf: asOf, log: nil)
    }

    /// Opens the store as ``init(files:trace:keepingThisVersion:asOf:)`` does; `log` is the
    /// store's `-wal` already read, for a caller that opens many of its commits (`wal
    /// --changes`): each open then skips reading the whole log again.
    package init(files: StoreFiles, trace: SQLTrace?, keepingThisVersion: Bool = false, asOf: Int?, log: WriteAheadLog?) throws {
        self.trace = trace
        self.files = files
        asOfCommit = asOf
        let header = try Self.checkMainFile(files)
        self.header = header
        let walBytes = try asOf.map { try Self.logBytes(files, asOf: $0, log: log) }
        trace?.connecting(to: files.main.path, walMode: header.isWALMode)
        if !keepingThisVersion, !FileManager.default.fileExists(atPath: files.journal.path),
            let inPlace = try Self.openInPlace(files, header: header, trace: trace, walBytes: walBytes)
        {
            database = inPlace.database
            openingState = inPlace.state
            copyDirectory = nil
            readsInPlace = true
        } else {
            let copy = try Self.openPrivateCopy(files, header: header, trace: trace, walBytes: walBytes)
            database = copy.database
            copyDirectory = copy.directory
            openingState = nil
            readsInPlace = false
        }
    }

    deinit {
        try? database.close()
        if let copyDirectory {
            try? FileManager.default.removeItem(at: copyDirectory)
            PrivateCopyRegistry.unregister(copyDirectory)
        }
    }

    /// Fails when an app has changed the store since this view was taken, in a way that makes
    /// what was read a mix of two versions (`StoreFileState`). ``read(_:)`` calls it after
    /// every read; long reads may call it as they go.
    public func checkUnchanged() throws {
        if isOutdated { throw Self.changedWhileReading(files) }
    }

    /// Whether an app has changed the store since this view was taken in a way the view cannot
    /// read past (a checkpoint, a rewritten main file): its next read would fail. Frames an app
    /// only appended to the `-wal` do not count; the view goes on showing the older version.
    /// Never true for a private copy.
    public var isOutdated: Bool {
        openingState?.isInvalidated(by: StoreFileState.current(files)) ?? false
    }

    static func changedWhileReading(_ files: StoreFiles) -> StoreError {
        .changedWhileReading(path: files.main.path)
    }

    /// Runs `body` with the read-only connection, turning SQLite failures into ``StoreError``.
    /// An error already meant for the user (a `UserFacingError` thrown by `body`) passes unchanged.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            let value = try database.read(body)
            try checkUnchanged()
            return value
        } catch {
            // A page torn by an app's write reads as corruption or an I/O error: when the files
            // changed, that is the cause to report.
            try checkUnchanged()
            if let userFacing = error as? UserFacingError { throw userFacing }
            throw Self.describe(error, path: files.main.path)
        }
    }

    /// Checks the main file before opening: it exists, is a readable regular file, and is SQLite.
    private static func checkMainFile(_ files: StoreFiles) throws -> SQLiteHeader {
        let path = files.main.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreError.fileNotFound(path: path)
        }
        if isDirectory.boolValue {
            throw StoreError.isDirectory(path: path)
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError.permissionDenied(path: path)
        }
        let size = StoreFiles.size(of: files.main) ?? 0
        if size == 0 {
            throw StoreError.emptyFile(path: path)
        }
        guard let header = try SQLiteHeader.read(files.main) else {
            throw StoreError.noSQLiteHeader(path: path)
        }
        let walSize = StoreFiles.size(of: files.wal) ?? 0
        if header.isPageCountValid, walSize == 0, header.pageCount * header.pageSize > size {
            throw StoreError.truncated(path: path, expectedBytes: header.pageCount * header.pageSize, actualBytes: size)
        }
        if size % header.pageSize != 0, walSize == 0 {
            throw StoreError.partialPage(path: path, size: size, pageSize: header.pageSize)
        }
        return header
    }

    /// Attempts a whole opening (connection and signature check) this many times when an app
    /// changes the store meanwhile, before giving up with "changed while reading".
    private static let openingAttempts = 3

    /// Opens the store where it lies through the read-only VFS; nil where SQLite will not use
    /// the VFS (URI file names turned off in its build), so the caller falls back to a copy.
    private static func openInPlace(_ files: StoreFiles, header: SQLiteHeader, trace: SQLTrace?, walBytes: Int64?) throws
        -> (database: DatabaseQueue, state: StoreFileState)?
    {
        guard cdstore_read_only_vfs_register() == SQLITE_OK else { return nil }
        for _ in 0..<openingAttempts {
            let state = StoreFileState.current(files)
            let database: DatabaseQueue
            do {
                database = try DatabaseQueue(path: readOnlyURI(files.main, walBytes: walBytes), configuration: configuration(trace: trace))
            } catch {
                throw describe(error, path: files.main.path)
            }
            guard readsThroughVFS(database) else {
                try? database.close()
                return nil
            }
            do {
                try checkSignature(database, files: files, header: header)
            } catch {
                try? database.close()
                if state.isInvalidated(by: StoreFileState.current(files)) { continue }
                throw error is UserFacingError ? error : describe(error, path: files.main.path)
            }
            if !state.isInvalidated(by: StoreFileState.current(files)) { return (database, state) }
            try? database.close()
        }
        throw changedWhileReading(files)
    }

    /// The length of `files`' log through commit `asOf` (0 for none); throws
    /// ``StoreError/noSuchCommit(path:requested:commits:)`` past its last commit.
    private static func logBytes(_ files: StoreFiles, asOf: Int, log: WriteAheadLog?) throws -> Int64 {
        let commits = try (log ?? WriteAheadLog.read(files.wal))?.commits ?? []
        guard asOf >= 0, asOf <= commits.count else {
            throw StoreError.noSuchCommit(path: files.wal.path, requested: asOf, commits: commits.count)
        }
        return asOf == 0 ? 0 : commits[asOf - 1].logBytes
    }

    /// Whether `database` reads its main file through the read-only VFS (SQLite ignores `vfs=`
    /// where URI file names are turned off in its build).
    static func readsThroughVFS(_ database: DatabaseQueue) -> Bool {
        database.inDatabase { db in
            db.sqliteConnection.map { cdstore_read_only_vfs_in_use(UnsafeMutableRawPointer($0)) == 1 } ?? false
        }
    }

    /// `file:` URI of `url` for the read-only VFS: every byte outside the unreserved set and
    /// `/` percent-encoded, so `?`, `#` and `%` in a path stay part of it. `walBytes` adds the
    /// VFS's `walbytes` parameter: SQLite sees only that much of the `-wal`.
    static func readOnlyURI(_ url: URL, walBytes: Int64? = nil) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
        var path = ""
        for byte in url.path.utf8 {
            if unreserved.contains(byte) {
                path.append(Character(Unicode.Scalar(byte)))
            } else {
                path += String(format: "%%%02X", byte)
            }
        }
        let limit = walBytes.map { "&walbytes=\(max(0, $0))" } ?? ""
        return "file:\(path)?vfs=\(String(cString: cdstore_read_only_vfs_name))&mode=ro" + limit
    }

    /// Copies the main file, `-wal`, `-shm` and `-journal` into a private folder and opens the copy.
    private static func openPrivateCopy(_ files: StoreFiles, header: SQLiteHeader, trace: SQLTrace?, walBytes: Int64?) throws
        -> (database: DatabaseQueue, directory: URL)
    {
        let directory = PrivateCopyRegistry.newCopyDirectory()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.privateCopyFolder(reason: error.localizedDescription)
        }
        PrivateCopyRegistry.register(directory)
        let copy = directory.appendingPathComponent("store.sqlite")
        do {
            for (role, url) in files.existingFiles {
                let suffix = role == .main ? "" : "-\(role.rawValue)"
                try FileCopier.copy(from: url, to: URL(fileURLWithPath: copy.path + suffix))
            }
            if let walBytes, FileManager.default.fileExists(atPath: copy.path + "-wal") {
                // The copy's log ends after the commit asked for, and its index is rebuilt from it.
                try? FileManager.default.removeItem(atPath: copy.path + "-shm")
                let log = try FileHandle(forWritingTo: URL(fileURLWithPath: copy.path + "-wal"))
                try log.truncate(atOffset: UInt64(walBytes))
                try log.close()
            }
            if FileManager.default.fileExists(atPath: files.journal.path) {
                // A hot rollback journal must be rolled back before the data is consistent; do
                // it on the private copy, which is ours to write.
                let recovery = try DatabaseQueue(path: copy.path)
                try recovery.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
                try recovery.close()
            }
            let database = try DatabaseQueue(path: copy.path, configuration: configuration(trace: trace))
            try checkSignature(database, files: files, header: header)
            return (database, directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            PrivateCopyRegistry.unregister(directory)
            if let userFacing = error as? UserFacingError { throw userFacing }
            throw describe(error, path: files.main.path)
        }
    }

    static func configuration(trace: SQLTrace?) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(2)
        configuration.label = "cdstore"
        if let trace {
            configuration.prepareDatabase { db in trace.attach(to: db) }
        }
        return configuration
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
            throw StoreError.walMissing(path: path, walName: files.wal.lastPathComponent)
        }
        if !missing.isEmpty {
            throw StoreError.notACoreDataStore(path: path, missingTables: missing)
        }
    }

    /// SQLite errors become one line that names the file and the problem.
    static func describe(_ error: Error, path: String) -> StoreError {
        guard let dbError = error as? DatabaseError else {
            return .system(path: path, description: error.localizedDescription)
        }
        switch dbError.resultCode {
        case .SQLITE_NOTADB:
            return .notADatabase(path: path)
        case .SQLITE_CORRUPT:
            return .corrupt(path: path, sqliteMessage: dbError.message)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .locked(path: path)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return .cannotOpen(path: path, sqliteMessage: dbError.message)
        case .SQLITE_IOERR:
            return .ioError(path: path, sqliteMessage: dbError.message)
        default:
            return .sqlite(path: path, code: dbError.resultCode.rawValue, message: dbError.message)
        }
    }
}
