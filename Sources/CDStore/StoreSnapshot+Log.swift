import CReadOnlyVFS
import Foundation
import GRDB
import GRDBSQLite

extension StoreSnapshot {
    /// A read-only connection to the store as it stood when its `-wal` ended at byte `walBytes`
    /// (the end of a commit, ``WriteAheadLog/Commit/logBytes``; 0: the main file alone), through
    /// the read-only VFS's `walbytes` parameter: nothing is copied, cut or written, no lock is
    /// taken (store-format.md §10b, "State as of a commit").
    ///
    /// No Core Data check is made: the main file alone of a store whose data all sit in the log
    /// holds no table, and `wal` says so. Nil where SQLite does not accept the VFS.
    package static func logState(_ files: StoreFiles, walBytes: Int64) throws -> DatabaseQueue? {
        guard cdstore_read_only_vfs_register() == SQLITE_OK else { return nil }
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: readOnlyURI(files.main, walBytes: walBytes), configuration: configuration(trace: nil))
        } catch {
            throw describe(error, path: files.main.path)
        }
        guard readsThroughVFS(database) else {
            try? database.close()
            return nil
        }
        return database
    }
}
