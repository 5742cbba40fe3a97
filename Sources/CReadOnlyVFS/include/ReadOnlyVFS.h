#ifndef CDSTORE_READ_ONLY_VFS_H
#define CDSTORE_READ_ONLY_VFS_H

/// A SQLite VFS that reads a store in place without changing a byte of it.
///
/// It wraps the platform's default VFS: the main file and the `-wal` are opened with O_RDONLY,
/// every write, truncate and delete is refused, file locks are no-ops (the app that owns the store
/// is never blocked), and the WAL index lives in this process's memory instead of the `-shm`, so
/// SQLite rebuilds it from the `-wal` and never creates or touches the `-shm`
/// (reference/store-format.md §10). Temporary files SQLite needs for sorting go to the default VFS.
///
/// The URI parameter `walbytes=N` shows SQLite only the first N bytes of the `-wal`: its recovery
/// then ends there, and the store reads as it stood after the commit that ends at byte N
/// (store-format.md §10b, "State as of a commit"), with nothing copied or cut.
///
/// sqlite3.h is not included here, so that Swift sees SQLite's types only through GRDBSQLite.

/// The name to pass as `vfs=` in a `file:` URI.
extern const char *const cdstore_read_only_vfs_name;

/// Registers the VFS once per process (thread-safe) and returns a SQLite result code.
int cdstore_read_only_vfs_register(void);

/// 1 when the connection `database` (a `sqlite3 *`) reads its main database through this VFS.
int cdstore_read_only_vfs_in_use(void *database);

#endif
