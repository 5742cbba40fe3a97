import Foundation

/// SHA-256 and SHA-512 (FIPS 180-4), for Core Data's version hashes (SHA-256 of each entity's
/// and property's description, SHA-256 and SHA-512 over all of them: docs/format/model-format.md)
/// and the `sha256` of a binary value in dumps. Written here rather than taken from swift-crypto:
/// on Linux that package compiles BoringSSL (hundreds of C files) into every build, for two hash
/// functions of a few dozen lines.
///
/// One implementation serves both: the variants differ only in word size, round count,
/// constants and rotation amounts. Its methods are inlinable, so that each caller gets code
/// specialized to its word type.
package struct SHA2<Variant: SHA2Variant> {
    @usableFromInline var state: [Variant.Word]
    @usableFromInline var pending: [UInt8] = []
    @usableFromInline var byteCount: UInt64 = 0

    /// Sixteen words.
    @inlinable static var blockBytes: Int { Variant.Word.bitWidth * 2 }

    @inlinable package init() {
        state = Variant.initialState
        pending.reserveCapacity(Self.blockBytes)
    }

    /// The digest of `data` in one call.
    @inlinable package static func hash(data: Data) -> [UInt8] {
        var hasher = Self()
        hasher.update(data: data)
        return hasher.finalize()
    }

    @inlinable package mutating func update(data: Data) {
        data.withUnsafeBytes { update(bytes: $0) }
    }

    @inlinable package mutating func update(bytes: UnsafeRawBufferPointer) {
        byteCount &+= UInt64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = min(Self.blockBytes - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(taken))
            rest = rest.dropFirst(taken)
            guard pending.count == Self.blockBytes else { return }
            pending.withUnsafeBytes { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        while rest.count >= Self.blockBytes {
            compress(UnsafeRawBufferPointer(rebasing: rest.prefix(Self.blockBytes)))
            rest = rest.dropFirst(Self.blockBytes)
        }
        pending.append(contentsOf: rest)
    }

    /// The digest: the message padded with a 1 bit, zeros and its length in bits in the last two
    /// words of the last block (FIPS 180-4 §5.1), then the state's words big-endian.
    @inlinable package mutating func finalize() -> [UInt8] {
        let bitCount = byteCount &* 8
        let lengthBytes = Variant.Word.bitWidth / 4
        var padding: [UInt8] = [0x80]
        while (pending.count + padding.count) % Self.blockBytes != Self.blockBytes - lengthBytes { padding.append(0) }
        padding.append(contentsOf: repeatElement(0, count: lengthBytes - 8))
        for shift in stride(from: 56, through: 0, by: -8) { padding.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift))) }
        padding.withUnsafeBytes { update(bytes: $0) }
        var digest: [UInt8] = []
        digest.reserveCapacity(state.count * Variant.Word.bitWidth / 8)
        for word in state {
            for shift in stride(from: Variant.Word.bitWidth - 8, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return digest
    }

    @inlinable static func rotate(_ value: Variant.Word, _ count: Int) -> Variant.Word {
        (value >> count) | (value << (Variant.Word.bitWidth - count))
    }

    /// Σ or σ of FIPS 180-4 §4.1.2–4.1.3: two rotations, then a third rotation (Σ) or a shift (σ).
    @inlinable static func sigma(_ value: Variant.Word, _ amounts: (Int, Int, Int), shiftsLast: Bool) -> Variant.Word {
        rotate(value, amounts.0) ^ rotate(value, amounts.1) ^ (shiftsLast ? value >> amounts.2 : rotate(value, amounts.2))
    }

    /// One block of `blockBytes` bytes into the state (FIPS 180-4 §6.2.2, §6.4.2). The message
    /// schedule lives on the stack: a heap array per block made a dump's digests of large values
    /// several times slower.
    @inlinable mutating func compress(_ block: UnsafeRawBufferPointer) {
        let wordBytes = Variant.Word.bitWidth / 8
        let constants = Variant.roundConstants
        let rounds = constants.count
        var (a, b, c, d) = (state[0], state[1], state[2], state[3])
        var (e, f, g, h) = (state[4], state[5], state[6], state[7])
        withUnsafeTemporaryAllocation(of: Variant.Word.self, capacity: rounds) { schedule in
            for index in 0..<16 {
                var word: Variant.Word = 0
                for offset in (index * wordBytes)..<((index + 1) * wordBytes) { word = word << 8 | Variant.Word(block[offset]) }
                schedule[index] = word
            }
            for index in 16..<rounds {
                schedule[index] =
                    Self.sigma(schedule[index - 2], Variant.smallSigma1, shiftsLast: true) &+ schedule[index - 7]
                    &+ Self.sigma(schedule[index - 15], Variant.smallSigma0, shiftsLast: true) &+ schedule[index - 16]
            }
            for index in 0..<rounds {
                let choice = (e & f) ^ (~e & g)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let first = h &+ Self.sigma(e, Variant.bigSigma1, shiftsLast: false) &+ choice &+ constants[index] &+ schedule[index]
                let second = Self.sigma(a, Variant.bigSigma0, shiftsLast: false) &+ majority
                (h, g, f, e) = (g, f, e, d &+ first)
                (d, c, b, a) = (c, b, a, first &+ second)
            }
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }
}

/// What tells SHA-256 from SHA-512: word type, constants and rotation amounts (FIPS 180-4 §4.1.2,
/// §4.1.3, §4.2, §5.3). The constants are the first bits of the fractional parts of the square
/// roots (initial state) and of the cube roots (round constants) of the first primes.
package protocol SHA2Variant {
    associatedtype Word: FixedWidthInteger & UnsignedInteger
    static var initialState: [Word] { get }
    static var roundConstants: [Word] { get }
    static var bigSigma0: (Int, Int, Int) { get }
    static var bigSigma1: (Int, Int, Int) { get }
    static var smallSigma0: (Int, Int, Int) { get }
    static var smallSigma1: (Int, Int, Int) { get }
}

/// SHA-256: 32-bit words, 64 rounds.
package typealias SHA256 = SHA2<SHA256Variant>
/// SHA-512: 64-bit words, 80 rounds.
package typealias SHA512 = SHA2<SHA512Variant>

/// SHA-256's words and constants.
package enum SHA256Variant: SHA2Variant {
    package static let initialState: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]
    package static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
    package static let bigSigma0 = (2, 13, 22)
    package static let bigSigma1 = (6, 11, 25)
    package static let smallSigma0 = (7, 18, 3)
    package static let smallSigma1 = (17, 19, 10)
}

/// SHA-512's words and constants.
package enum SHA512Variant: SHA2Variant {
    package static let initialState: [UInt64] = [
        0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
        0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
    ]
    package static let roundConstants: [UInt64] = [
        0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
        0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
        0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
        0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
        0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
        0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
        0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
        0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
        0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
        0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
        0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
        0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
        0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
        0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
        0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
        0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
        0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
        0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
        0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
        0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
    ]
    package static let bigSigma0 = (28, 34, 39)
    package static let bigSigma1 = (14, 18, 41)
    package static let smallSigma0 = (1, 8, 7)
    package static let smallSigma1 = (19, 61, 6)
}
