import CDStore
import Foundation

/// One file or folder that belongs to a store on disk (store-format.md §2): the main file, its
/// `-wal`, `-shm` and `-journal`, and the `.<name>_SUPPORT/` folder. Nothing else beside the
/// store is ever a part of it, however alike its name.
package struct StorePart: Sendable, Codable, Equatable {
    /// What a part of a store is; the raw value is the word reports print and JSON holds.
    package enum Role: String, Sendable, Codable, Equatable {
        case main, wal, shm, journal
        /// The `.<name>_SUPPORT/` folder.
        case support

        init(_ file: StoreFileRole) {
            switch file {
            case .main: self = .main
            case .wal: self = .wal
            case .shm: self = .shm
            case .journal: self = .journal
            }
        }
    }

    package let role: Role
    package let url: URL
    package let isDirectory: Bool
    /// The file's size, or the total size of the regular files inside a folder.
    package let bytes: Int

    /// The name inside the store's directory (`Foo.sqlite-wal`, `.Foo_SUPPORT`).
    package var name: String { url.lastPathComponent }

    /// The parts of `files` that exist, main file first and the support folder last.
    package static func existing(of files: StoreFiles) -> [StorePart] {
        var parts = files.existingFiles.map { entry in
            StorePart(role: Role(entry.role), url: entry.url, isDirectory: false, bytes: StoreFiles.size(of: entry.url) ?? 0)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: files.supportFolder.path, isDirectory: &isDirectory), isDirectory.boolValue {
            parts.append(
                StorePart(
                    role: .support, url: files.supportFolder, isDirectory: true,
                    bytes: folderBytes(files.supportFolder)))
        }
        return parts
    }

    /// Total bytes of `parts`.
    package static func totalBytes(_ parts: [StorePart]) -> Int {
        parts.reduce(0) { $0 + $1.bytes }
    }

    private static func folderBytes(_ folder: URL) -> Int {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey]) else {
            return 0
        }
        var total = 0
        for case let url as URL in walker {
            guard let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey]), values.isRegularFile == true else { continue }
            total += values.fileSize ?? 0
        }
        return total
    }
}
