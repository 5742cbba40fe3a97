import CDTestSupport
import Foundation
import Testing

/// Where the tests find their inputs: the read-only corpus beside the repository and the
/// fixtures committed under `Tests/Fixtures/archive`.
enum ArchiveTestFiles {
    static let corpus = Corpus.root
    static let fixtures = Golden.fixtures.appendingPathComponent("archive")

    /// The bytes of a corpus file; fails the test with the path when the corpus is missing.
    static func corpusFile(_ relativePath: String) throws -> Data {
        let url = corpus.appendingPathComponent(relativePath)
        try #require(FileManager.default.fileExists(atPath: url.path), "corpus file missing: \(url.path)")
        return try Data(contentsOf: url)
    }

    static func fixture(_ name: String) throws -> Data {
        let url = fixtures.appendingPathComponent(name)
        try #require(FileManager.default.fileExists(atPath: url.path), "fixture missing: \(url.path)")
        return try Data(contentsOf: url)
    }
}

/// Builds small binary plists byte by byte, for inputs no plist writer would produce
/// (cycles, oversized references). Each object is given already encoded; references inside
/// it are object indexes of `referenceSize` bytes.
func handBuiltPlist(_ objects: [[UInt8]], top: Int = 0, referenceSize: UInt8 = 1) -> Data {
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
        offsets.append(bytes.count)
        bytes += object
    }
    let tableStart = bytes.count
    for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
    bytes += [0, 0, 0, 0, 0, 0, 2, referenceSize]
    bytes += bigEndian(UInt64(objects.count)) + bigEndian(UInt64(top)) + bigEndian(UInt64(tableStart))
    return Data(bytes)
}

func bigEndian(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
}
