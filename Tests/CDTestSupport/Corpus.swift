import Foundation
import Testing

/// The real Core Data files in `../shared/corpus`, and safe ways to use them in tests.
public enum Corpus {
    /// The repository root, found from this file's location.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `shared/corpus` beside the repository (as CI and developers have it).
    public static let root: URL = repositoryRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/corpus", isDirectory: true)

    public static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    /// Every SQLite store in the corpus (main files only), found by walking the whole tree and
    /// reading each file's header: no hand-picked list. Paths are relative to ``root``.
    public static let stores: [String] = {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return []
        }
        var result: [String] = []
        let magic = Data("SQLite format 3\u{0}".utf8)
        for case let url as URL in walker {
            let name = url.lastPathComponent
            guard !name.hasSuffix("-wal"), !name.hasSuffix("-shm"), !name.hasSuffix("-journal"),
                (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let handle = try? FileHandle(forReadingFrom: url)
            else { continue }
            let head = (try? handle.read(upToCount: 16)) ?? Data()
            try? handle.close()
            if head == magic {
                result.append(String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)))
            }
        }
        return result.sorted()
    }()

    /// What `read` finds in each store, for the stores where it finds something: the cases of a
    /// test that covers only some stores, chosen up front instead of returning early in the test.
    /// `read` gets the store's relative path and runs in its own temporary scope, so the copies
    /// it makes are removed. A store whose `read` throws is left out like one that does not
    /// apply: pair the cases with a test of their exact number, so that a corpus change or a
    /// store that stops loading cannot shrink the test unnoticed.
    public static func facts<Facts>(_ read: (String) throws -> Facts?) -> [String: Facts] {
        var result: [String: Facts] = [:]
        for store in stores {
            result[store] = try? TemporaryDirectory.withScope { try read(store) }
        }
        return result
    }

    /// The stores where `applies` is true, sorted; see ``facts(_:)``.
    public static func stores(where applies: (String) throws -> Bool) -> [String] {
        facts { try applies($0) ? true : nil }.keys.sorted()
    }

    /// Every file of the corpus whose name ends in `suffix`, relative to ``root``.
    public static func files(endingWith suffix: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) }.sorted()
    }

    /// Copies a corpus store with its sidecars (`-wal`, `-shm`, `-journal`, `_SUPPORT`) into a
    /// fresh folder from ``TemporaryDirectory/make()``, so tests never touch the corpus and the
    /// copy goes when the test ends. Returns the copy's main file.
    public static func copyStore(_ relativePath: String) throws -> URL {
        let source = url(relativePath)
        let directory = try TemporaryDirectory.make()
        let target = directory.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let file = URL(fileURLWithPath: source.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.copyItem(at: file, to: URL(fileURLWithPath: target.path + suffix))
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path + suffix)
            }
        }
        return target
    }
}

/// SHA-256 checksums of files, to prove that reading a store changed nothing. Computed by the
/// system's `shasum`, not by the product's own SHA-256 (CDBase's `SHA2`), which they also check.
public enum Checksums {
    /// `shasum` failed or printed what is not its listing.
    public struct ShasumFailed: Error, CustomStringConvertible {
        public var output: String
        public var description: String { "shasum failed: \(output.prefix(300))" }
    }

    /// Lowercase hex SHA-256 of `data`.
    public static func sha256Hex(_ data: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cdstore-shasum-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        guard let digest = try shasum([file.path]).first else { throw ShasumFailed(output: "no digest") }
        return digest
    }

    /// Hex SHA-256 of every regular file in `directory` (recursively), by relative path.
    public static func of(directory: URL) throws -> [String: String] {
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [:] }
        var relativePaths: [String] = []
        for case let relative as String in walker {
            var isDirectory: ObjCBool = false
            let path = directory.appendingPathComponent(relative).path
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            relativePaths.append(relative)
        }
        guard !relativePaths.isEmpty else { return [:] }
        let digests = try shasum(relativePaths.map { directory.appendingPathComponent($0).path })
        guard digests.count == relativePaths.count else { throw ShasumFailed(output: "\(digests.count) digests for \(relativePaths.count) files") }
        return Dictionary(uniqueKeysWithValues: zip(relativePaths, digests))
    }

    /// Lowercase hex digests of the files at `paths` by `shasum -a bits` (256 or 512), in their
    /// order (its listing is one `digest  path` line each; the paths hold no newline).
    public static func shasum(_ paths: [String], bits: Int = 256) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/shasum")
        process.arguments = ["-a", String(bits), "--"] + paths
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: bytes, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw ShasumFailed(output: text) }
        return text.split(separator: "\n").map { String($0.prefix(bits / 4)) }
    }
}

/// Golden files under `Tests/Fixtures`. Set `CDSTORE_UPDATE_GOLDEN=1` to rewrite them from the
/// current output (then review the diff before committing).
public enum Golden {
    public static let fixtures = Corpus.repositoryRoot.appendingPathComponent("Tests/Fixtures", isDirectory: true)

    /// The expected text, or `nil` when the file does not exist yet. In update mode it rewrites
    /// the file and records an issue, so that an update run is never mistaken for a passing one.
    public static func expected(_ name: String, actual: String) throws -> String? {
        let url = fixtures.appendingPathComponent(name)
        let existing = FileManager.default.fileExists(atPath: url.path) ? try String(contentsOf: url, encoding: .utf8) : nil
        guard ProcessInfo.processInfo.environment["CDSTORE_UPDATE_GOLDEN"] == "1" else { return existing }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try actual.write(to: url, atomically: true, encoding: .utf8)
        let change = existing == actual ? "unchanged" : existing == nil ? "created" : "changed"
        Issue.record("CDSTORE_UPDATE_GOLDEN=1 rewrote \(name) (\(change)): review the diff, then run the tests without it")
        return actual
    }
}

extension Data {
    /// Bytes from a hex string written in a test (`"cb48cdc9"`); traps on malformed input.
    public init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}

/// A seeded SplitMix64 generator, so "random" test inputs are the same on every run.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
