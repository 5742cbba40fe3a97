import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Copies a file as fast as the system allows, for the private copy every read starts with.
///
/// Foundation's `FileManager.copyItem` on Linux took three times as long as `cp` on a 67 MB store
/// and was most of `inspect`'s run time (scripts/bench-inspect.sh). `sendfile` copies inside the
/// kernel, as `cp` does; a 1 MiB read/write loop is the fallback where it is refused. On macOS,
/// `copyfile` clones the file on APFS, which costs nothing.
enum FileCopier {
    static func copy(from source: URL, to destination: URL) throws {
        #if canImport(Darwin)
            guard copyfile(source.path, destination.path, nil, copyfile_flags_t(COPYFILE_CLONE | COPYFILE_DATA)) == 0 else {
                throw FileError.cannotCopy(path: source.path, destination: nil, reason: String(cString: strerror(errno)))
            }
        #else
            let input = open(source.path, O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { throw FileError.cannotOpen(path: source.path, reason: String(cString: strerror(errno))) }
            defer { close(input) }
            let output = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard output >= 0 else { throw FileError.cannotCreate(path: destination.path, reason: String(cString: strerror(errno))) }
            defer { close(output) }
            while true {
                let sent = sendfile(output, input, nil, 1 << 30)
                if sent > 0 { continue }
                if sent == 0 { return }
                guard [EINVAL, ENOSYS, EOPNOTSUPP].contains(errno) else {
                    throw FileError.cannotCopy(path: source.path, destination: nil, reason: String(cString: strerror(errno)))
                }
                try copyWithBuffer(input, output, source: source)
                return
            }
        #endif
    }

    #if !canImport(Darwin)
        private static func copyWithBuffer(_ input: Int32, _ output: Int32, source: URL) throws {
            let size = 1 << 20
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = read(input, buffer, size)
                if count == 0 { return }
                guard count > 0 else { throw FileError.cannotRead(path: source.path, reason: String(cString: strerror(errno))) }
                var written = 0
                while written < count {
                    let result = write(output, buffer + written, count - written)
                    guard result > 0 else { throw FileError.cannotWritePrivateCopy(reason: String(cString: strerror(errno))) }
                    written += result
                }
            }
        }
    #endif
}
