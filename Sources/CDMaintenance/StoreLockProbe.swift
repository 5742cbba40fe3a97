import CDStore
import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells whether another process holds a store open, without changing a byte of it.
///
/// SQLite's Unix VFS takes POSIX advisory locks: on the main file, the pending, reserved and
/// shared bytes from offset 0x40000000 (while a transaction runs); in WAL mode, on the `-shm`
/// file, the eight WAL lock bytes from offset 120 and the byte after them, which every open
/// connection holds shared for as long as it is open. `fcntl(F_GETLK)` asks whether a write lock
/// on those bytes would conflict, and reports locks held by other processes only, so this
/// process's own connections are never seen.
///
/// Probe before this process opens the store itself: closing the probe's descriptor drops every
/// POSIX lock this process holds on the file, its own SQLite connections' locks included.
package enum StoreLockProbe {
    /// Where SQLite's lock bytes are.
    static let mainFileLockStart: off_t = 0x4000_0000
    /// Pending (1 byte), reserved (1 byte) and the shared range (510 bytes).
    static let mainFileLockLength: off_t = 512
    static let sharedMemoryLockStart: off_t = 120
    /// The eight WAL locks and the "dead man switch" byte every connection holds.
    static let sharedMemoryLockLength: off_t = 9

    /// A one-line description of the lock another process holds, or nil when none is held.
    package static func holder(of files: StoreFiles) -> String? {
        if let pid = lockingProcess(files.main, start: mainFileLockStart, length: mainFileLockLength) {
            return "process \(pid) has a transaction open on \(files.main.lastPathComponent)"
        }
        if let pid = lockingProcess(files.shm, start: sharedMemoryLockStart, length: sharedMemoryLockLength) {
            return "process \(pid) has \(files.main.lastPathComponent) open (a lock on \(files.shm.lastPathComponent))"
        }
        return nil
    }

    /// The process holding a lock that conflicts with a write lock on the range, if any.
    private static func lockingProcess(_ url: URL, start: off_t, length: off_t) -> pid_t? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var query = flock()
        query.l_type = Int16(F_WRLCK)
        query.l_whence = Int16(SEEK_SET)
        query.l_start = start
        query.l_len = length
        guard fcntl(descriptor, F_GETLK, &query) == 0, query.l_type != Int16(F_UNLCK) else { return nil }
        return query.l_pid
    }
}
