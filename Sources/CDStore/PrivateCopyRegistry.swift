import Foundation
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The private copies (`$TMPDIR/cdstore-<pid>-<UUID>/`) this process has open, so that they are
/// removed on every way out: normal exit, an error, a closed pipe, Ctrl-C, `kill`, a hang-up.
///
/// A ``StoreSnapshot`` removes its copy when it is released, but `exit()` releases nothing and a
/// signal ends the process where it stands. So each copy's paths are kept here as C strings
/// prepared in advance: the signal handlers only call `unlink`, `rmdir` and `_exit`, which are
/// async-signal-safe, and touch no Swift object that could be half-updated. The pid in the folder
/// name lets a later run remove the copies of a process that died too hard for any of this
/// (SIGKILL, a power cut): see ``removeStaleCopies()``.
package enum PrivateCopyRegistry {
    /// Files SQLite may create beside the copy, removed before the folder itself.
    static let fileNames = ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite-journal"]
    /// Live copies a process can have registered at once; a copy beyond that is still removed
    /// when its snapshot is released, only not from a signal handler.
    static let capacity = 64
    /// Paths per copy: its files, then the folder.
    private static let pathsPerCopy = fileNames.count + 1
    /// `capacity` groups of `pathsPerCopy` C strings; a group whose first entry is nil is free.
    /// Allocated once and never freed, so a signal handler can always read it.
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let pointer = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity * pathsPerCopy)
        pointer.initialize(repeating: nil, count: capacity * pathsPerCopy)
        return pointer
    }()
    private static let lock = NSLock()

    /// The folder name prefix of every private copy, followed by the owner's pid and a UUID.
    package static let folderPrefix = "cdstore-"

    /// A new, unique folder for a private copy owned by this process.
    package static func newCopyDirectory() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("\(folderPrefix)\(getpid())-\(UUID().uuidString)", isDirectory: true)
    }

    /// Remembers `directory` so that it is removed however the process ends.
    static func register(_ directory: URL) {
        let paths = fileNames.map { directory.appendingPathComponent($0).path } + [directory.path]
        lock.lock()
        defer { lock.unlock() }
        for slot in 0..<capacity where slots[slot * pathsPerCopy] == nil {
            // The folder is stored last and the first file first, so the handler never sees a
            // half-filled group as live.
            for index in (0..<pathsPerCopy).reversed() {
                slots[slot * pathsPerCopy + index] = strdup(paths[index])
            }
            return
        }
    }

    /// Forgets `directory` (after its snapshot has removed it).
    static func unregister(_ directory: URL) {
        let path = directory.path
        lock.lock()
        defer { lock.unlock() }
        for slot in 0..<capacity {
            let base = slot * pathsPerCopy
            guard let folder = slots[base + pathsPerCopy - 1], slots[base] != nil, String(cString: folder) == path else { continue }
            for index in 0..<pathsPerCopy {
                let pointer = slots[base + index]
                slots[base + index] = nil
                free(pointer)
            }
            return
        }
    }

    /// Removes every registered copy from disk. Async-signal-safe: only `unlink` and `rmdir`.
    static func removeAllFromDisk() {
        for slot in 0..<capacity where slots[slot * pathsPerCopy] != nil {
            for index in 0..<pathsPerCopy {
                guard let path = slots[slot * pathsPerCopy + index] else { continue }
                if index == pathsPerCopy - 1 { rmdir(path) } else { unlink(path) }
            }
        }
    }

    /// Installs the handlers that remove the private copies before the process ends: SIGINT,
    /// SIGTERM and SIGHUP exit with 128 + the signal's number, as a shell reports them; SIGPIPE
    /// (the reader of the output went away, as in `| head`) exits quietly with 141. `exit()`
    /// also removes them. Call once, at start-up, before any store is opened.
    ///
    /// SIGPIPE gets a handler rather than being ignored: ignored, a write to the closed pipe
    /// fails with EPIPE, and Foundation's `FileHandle.write` traps on that error.
    package static func installSignalHandlers() {
        _ = slots
        atexit { PrivateCopyRegistry.removeAllFromDisk() }
        // A parent may hand down a mask that blocks these (a test runner's worker thread does):
        // a blocked SIGTERM would leave the process stuck on a full pipe.
        var handled = sigset_t()
        sigemptyset(&handled)
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] {
            sigaddset(&handled, signalNumber)
            signal(signalNumber) { received in
                PrivateCopyRegistry.removeAllFromDisk()
                _exit(128 + received)
            }
        }
        sigprocmask(SIG_UNBLOCK, &handled, nil)
    }

    /// Ends the process because its output was closed (EPIPE): the copies go, the status is
    /// 141, as if SIGPIPE had ended it.
    package static func exitAfterClosedOutput() -> Never {
        removeAllFromDisk()
        _exit(128 + SIGPIPE)
    }

    /// Removes the private copies of cdstore processes that are gone (killed with SIGKILL, say).
    /// Only folders named `cdstore-<pid>-<UUID>` are considered, and only when no process has
    /// that pid; anything else in the temporary directory is left alone.
    package static func removeStaleCopies() {
        let temporary = FileManager.default.temporaryDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names {
            guard let pid = ownerPID(ofFolderNamed: name), pid != getpid(), !isRunning(pid) else { continue }
            let folder = temporary.appendingPathComponent(name, isDirectory: true)
            for file in fileNames { unlink(folder.appendingPathComponent(file).path) }
            rmdir(folder.path)
        }
    }

    /// The pid in `cdstore-<pid>-<UUID>`, or nil for any other name.
    static func ownerPID(ofFolderNamed name: String) -> pid_t? {
        guard name.hasPrefix(folderPrefix) else { return nil }
        let rest = name.dropFirst(folderPrefix.count)
        guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0,
            UUID(uuidString: String(rest[rest.index(after: dash)...])) != nil
        else { return nil }
        return pid
    }

    /// `kill(pid, 0)` fails with ESRCH only when no such process exists; EPERM means it runs
    /// under another user.
    private static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }
}
