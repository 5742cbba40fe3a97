import CDStore
import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file-system calls `reset` and `clean` make on the user's files.
///
/// Every change to the directory beside a store goes through one of these, so a test can put a
/// failing implementation in its place and interrupt a reset or a clean at each step.
package protocol FileOperations: AnyObject {
    /// Whether entries can be added to and removed from `directory` by this process.
    func isWritableDirectory(_ directory: URL) -> Bool
    /// Creates `directory`; fails if anything exists at that path.
    func createDirectory(_ directory: URL) throws
    /// Copies a file, or a folder with everything in it.
    func copyItem(_ source: URL, to destination: URL) throws
    /// Renames within one file system, atomically; never falls back to copying.
    func moveItem(_ source: URL, to destination: URL) throws
    /// Removes a file, or a folder with everything in it.
    func removeItem(_ url: URL) throws
}

/// The real file system.
package final class SystemFileOperations: FileOperations {
    package init() {}

    /// `access(2)`: as root this says yes even for a folder without write permission, where root
    /// can indeed write.
    package func isWritableDirectory(_ directory: URL) -> Bool {
        access(directory.path, W_OK | X_OK) == 0
    }

    package func createDirectory(_ directory: URL) throws {
        guard mkdir(directory.path, 0o755) == 0 else { throw FileError.cannotCreate(path: directory.path, reason: String(cString: strerror(errno))) }
    }

    package func copyItem(_ source: URL, to destination: URL) throws {
        do {
            try FileManager.default.copyItem(at: source, to: destination)
        } catch {
            throw FileError.cannotCopy(path: source.path, destination: destination.path, reason: error.localizedDescription)
        }
    }

    package func moveItem(_ source: URL, to destination: URL) throws {
        guard rename(source.path, destination.path) == 0 else { throw FileError.cannotMove(path: source.path, reason: String(cString: strerror(errno))) }
    }

    package func removeItem(_ url: URL) throws {
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw FileError.cannotRemove(path: url.path, reason: error.localizedDescription)
        }
    }
}
