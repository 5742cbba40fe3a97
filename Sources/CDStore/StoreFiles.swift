import Foundation

/// The files that make up one store on disk (docs/format/store-format.md §2).
public struct StoreFiles: Sendable {
    /// The main database file, as the user named it (made absolute); when that name is a
    /// symbolic link, its target, beside which the sidecars are looked for.
    public let main: URL

    /// The files of the store whose main file is at `path` (relative paths are resolved against
    /// the current directory); nothing is read yet.
    public init(path: String) {
        let main = Self.followingLinks(URL(fileURLWithPath: path).standardizedFileURL)
        let folder = main.deletingLastPathComponent()
        let support = folder.appendingPathComponent(".\(main.deletingPathExtension().lastPathComponent)_SUPPORT", isDirectory: true)
        self.main = main
        wal = folder.appendingPathComponent(main.lastPathComponent + "-wal")
        shm = folder.appendingPathComponent(main.lastPathComponent + "-shm")
        journal = folder.appendingPathComponent(main.lastPathComponent + "-journal")
        supportFolder = support
        externalDataFolder = support.appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    /// Follows `url` while it is a symbolic link (up to 32 hops, against loops); a relative
    /// target is relative to the link's folder.
    private static func followingLinks(_ url: URL) -> URL {
        var current = url
        for _ in 0..<32 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current.path) else { break }
            current = URL(fileURLWithPath: target, relativeTo: current.deletingLastPathComponent()).standardizedFileURL
        }
        return current
    }

    // The other files' URLs are built once, here: every read checks the sidecars
    // (`StoreFileState`), and building a URL from path components was the largest cost of that
    // check under `cdstore serve` (perf on scripts/bench-serve.sh's JSON page).

    /// `<main>-wal`: the write-ahead log, which may hold changes not yet in the main file.
    public let wal: URL
    /// `<main>-shm`: the WAL's shared-memory index.
    public let shm: URL
    /// `<main>-journal`: the rollback journal of a store not in WAL mode.
    public let journal: URL
    /// `.<name without extension>_SUPPORT/` beside the store.
    public let supportFolder: URL
    /// Externally stored attribute values live here (§9).
    public let externalDataFolder: URL

    /// The main file and the sidecars that exist, each with its role.
    public var existingFiles: [(role: StoreFileRole, url: URL)] {
        [(StoreFileRole.main, main), (.wal, wal), (.shm, shm), (.journal, journal)]
            .filter { FileManager.default.fileExists(atPath: $0.1.path) }
    }

    /// Size in bytes, or `nil` when the file does not exist.
    public static func size(of url: URL) -> Int? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }
}

/// What one file of a store is (store-format.md §2): the database or one of SQLite's sidecars.
/// The raw value is the word reports print and JSON holds.
public enum StoreFileRole: String, Sendable, Codable {
    /// The database file itself.
    case main
    /// `-wal`: the write-ahead log.
    case wal
    /// `-shm`: the write-ahead log's shared-memory index.
    case shm
    /// `-journal`: the rollback journal of a store not in WAL mode.
    case journal
}
