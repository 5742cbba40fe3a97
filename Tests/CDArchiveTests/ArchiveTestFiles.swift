import Foundation
import Testing

/// Where the tests find their inputs: the read-only corpus beside the repository and the
/// fixtures committed under `Tests/Fixtures/archive`.
enum ArchiveTestFiles {
    /// The directory holding `Package.swift`, found by walking up from this file, so the tests
    /// work wherever the repository is checked out (`/work/main`, a worktree, `/tmp/ci/main`).
    static let repositoryRoot: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    }()

    /// `shared/corpus`, a sibling of the repository directory.
    static let corpus = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    static let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/archive")

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

func hex(_ string: String) -> Data {
    var data = Data()
    var index = string.startIndex
    while index < string.endIndex {
        let next = string.index(index, offsetBy: 2)
        data.append(UInt8(string[index..<next], radix: 16)!)
        index = next
    }
    return data
}

/// A seeded generator (SplitMix64), so "random" inputs are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Hex SHA-256 (FIPS 180-4), written out here so this test target needs no crypto package.
func sha256Hex(_ data: Data) -> String {
    let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
    var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    var message = [UInt8](data) + [0x80]
    while message.count % 64 != 56 { message.append(0) }
    message += bigEndian(UInt64(data.count) * 8)
    func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
    for block in stride(from: 0, to: message.count, by: 64) {
        var w = (0..<16).map { i in message[block + 4 * i..<block + 4 * i + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        for i in 16..<64 {
            let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ w[i - 15] >> 3
            let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ w[i - 2] >> 10
            w.append(w[i - 16] &+ s0 &+ w[i - 7] &+ s1)
        }
        var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
        for i in 0..<64 {
            let t1 = hh &+ (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) &+ (e & f ^ ~e & g) &+ k[i] &+ w[i]
            let t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) &+ (a & b ^ a & c ^ b & c)
            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
    }
    return h.map { word in (0..<4).map { String(format: "%02x", UInt8(truncatingIfNeeded: word >> (24 - 8 * $0))) }.joined() }.joined()
}
