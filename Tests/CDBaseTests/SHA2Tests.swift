import CDBase
import CDTestSupport
import Foundation
import Testing

/// SHA-256 and SHA-512 against the system's `shasum` on generated messages: every length around
/// the block and padding boundaries (0 to 300 bytes), longer ones, and each message also fed in
/// random pieces, which must not change the digest.
@Suite(.temporaryDirectories) struct SHA2Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The seeded messages: lengths 0...300, then a few up to 200 KB.
    static func messages() -> [Data] {
        var generator = SeededGenerator(seed: 2)
        let lengths = Array(0...300) + [511, 512, 1000, 4096 + 7, 65_536, 200_001]
        return lengths.map { length in Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
    }

    /// The digests of `data` fed in pieces of random sizes.
    static func inPieces<Variant>(_ data: Data, _ hasher: SHA2<Variant>, using generator: inout SeededGenerator) -> [UInt8] {
        var hasher = hasher
        var offset = 0
        while offset < data.count {
            let size = min(Int.random(in: 0...150, using: &generator), data.count - offset)
            hasher.update(data: data.subdata(in: offset..<(offset + size)))
            offset += size
        }
        return hasher.finalize()
    }

    @Test(arguments: [256, 512]) func digestsEqualShasum(_ bits: Int) throws {
        let folder = try TemporaryDirectory.make()
        let messages = Self.messages()
        let paths = try messages.enumerated().map { index, message in
            let url = folder.appendingPathComponent("message-\(index)")
            try message.write(to: url)
            return url.path
        }
        let expected = try Checksums.shasum(paths, bits: bits)
        #expect(expected.count == messages.count)
        var generator = SeededGenerator(seed: UInt64(bits))
        for (index, message) in messages.enumerated() {
            let whole = bits == 256 ? SHA256.hash(data: message) : SHA512.hash(data: message)
            let pieces = bits == 256 ? Self.inPieces(message, SHA256(), using: &generator) : Self.inPieces(message, SHA512(), using: &generator)
            #expect(Self.hex(whole) == expected[index], "SHA-\(bits) of \(message.count) bytes")
            #expect(pieces == whole, "SHA-\(bits) of \(message.count) bytes in pieces")
        }
    }
}
