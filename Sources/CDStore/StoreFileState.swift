import Foundation
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// What a store's files looked like at one moment, as far as a reader in place needs to know
/// whether an app has changed them since.
///
/// cdstore reads a store where it lies without taking the app's locks (``StoreSnapshot``), so it
/// cannot stop an app from writing. Appending frames to the `-wal` is harmless: the reader's WAL
/// index was built once and ignores later frames. What breaks a consistent view is a change to
/// the main file (a checkpoint, or any write to a store in rollback-journal mode) and a restart
/// of the `-wal` (new salts: old frames are overwritten). Each is caught by one of the values
/// kept here (SQLite's file format, "WAL file format" and "the WAL-index format").
struct StoreFileState: Equatable {
    /// The main file's identity, size and modification time.
    var main: FileIdentity?
    /// The `-wal` header's checkpoint sequence number and salts (bytes 12–23), or nil without a `-wal`.
    var walGeneration: [UInt8]?
    /// The `-wal`'s size: it may only grow while the generation stays the same.
    var walSize: Int64
    /// The `-shm` checkpoint counter `nBackfill` (bytes 96–99): it moves when an app copies
    /// frames into the main file, even within the main file's timestamp resolution. A `-shm`
    /// that appears (an app opened the store) or goes (it closed it) says nothing by itself.
    var backfill: [UInt8]?

    /// The identity, size and modification time of one file.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
    }

    /// Reads the current state of `files`; nothing is opened for writing.
    static func current(_ files: StoreFiles) -> StoreFileState {
        let walIdentity = identity(files.wal)
        return StoreFileState(
            main: identity(files.main),
            walGeneration: walIdentity == nil ? nil : bytes(of: files.wal, at: 12, count: 12),
            walSize: walIdentity?.size ?? 0,
            backfill: bytes(of: files.shm, at: 96, count: 4))
    }

    /// Whether a view taken at `self` is no longer consistent with the files as they are in `now`.
    func isInvalidated(by now: StoreFileState) -> Bool {
        main != now.main || walGeneration != now.walGeneration || now.walSize < walSize
            || (backfill != nil && now.backfill != nil && backfill != now.backfill)
    }

    private static func identity(_ url: URL) -> FileIdentity? {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return nil }
        #if canImport(Darwin)
            let modified = status.st_mtimespec
        #else
            let modified = status.st_mtim
        #endif
        return FileIdentity(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modifiedSeconds: Int64(modified.tv_sec), modifiedNanoseconds: Int64(modified.tv_nsec))
    }

    private static func bytes(of url: URL, at offset: Int, count: Int) -> [UInt8]? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        return read == count ? buffer : nil
    }
}
