import CDTestSupport
import CDArchive
import Foundation
import Testing

@Suite("Raw DEFLATE")
struct RawInflateTests {
    /// `cb48cdc9c90700` is python's raw DEFLATE of "hello" (`zlib.compressobj(9, DEFLATED, -15)`).
    @Test func smallStream() throws {
        #expect(try RawInflate.inflate(Data(hex: "cb48cdc9c90700")) == Data("hello".utf8))
    }

    /// The same stream with zlib's header and checksum (`zlib.compress(b"hello")`) is not raw
    /// DEFLATE: its first byte reads as a stored block whose length check fails.
    @Test func zlibWrappedStreamIsRejected() {
        #expect(throws: PropertyListError.self) { try RawInflate.inflate(Data(hex: "789ccb48cdc9c90700062c0215")) }
    }

    @Test func modelCacheInflatesToTheSizePythonReports() throws {
        let blob = try ArchiveTestFiles.fixture("wibosco-1-modelcache.deflate")
        #expect(blob.count == 1341)
        #expect(try Checksums.sha256Hex(blob) == "d1fe9276cf8d5433fbce26ac0f89f1b8ac5e53a917931a7a3c04a8fe5b097361")
        let inflated = try RawInflate.inflate(blob)
        #expect(inflated.count == 2033)
        #expect(try Checksums.sha256Hex(inflated) == "dc2477c59806a7c3a641f53789a420aa693fe62e365456f1385df9a54e0f01a3")
        #expect(try RawInflate.inflate(blob, limit: 2033) == inflated)
    }

    @Test func outputOverTheLimitThrows() throws {
        let blob = try ArchiveTestFiles.fixture("wibosco-1-modelcache.deflate")
        let error = #expect(throws: PropertyListError.self) { try RawInflate.inflate(blob, limit: 2032) }
        #expect(error?.description == "compressed data is too large")
    }

    /// No strict prefix of a DEFLATE stream reaches its end-of-stream marker.
    @Test func everyTruncationThrows() throws {
        let blob = try ArchiveTestFiles.fixture("wibosco-1-modelcache.deflate")
        for length in 0..<blob.count {
            #expect(throws: PropertyListError.self, "prefix of \(length) bytes") {
                try RawInflate.inflate(blob.prefix(length))
            }
        }
    }

    /// Inputs that cannot be DEFLATE: the reserved block type 3, a stored block whose length
    /// and its complement disagree, a distance reaching before the start of the output.
    @Test(arguments: ["07", "ff", "0100000000", "010500fbff", "030200"])
    func corruptStreamThrows(_ bytes: String) {
        #expect(throws: PropertyListError.self) { try RawInflate.inflate(Data(hex: bytes)) }
    }

    /// Corrupting the real stream must never crash. DEFLATE has no checksum, so some corrupted
    /// streams still decode; the rest must throw.
    @Test func corruptedModelCacheNeverCrashes() throws {
        let blob = try ArchiveTestFiles.fixture("wibosco-1-modelcache.deflate")
        var generator = SeededGenerator(seed: 1951)
        var failures = 0
        for _ in 0..<500 {
            var corrupted = [UInt8](blob)
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                corrupted[Int.random(in: 0..<corrupted.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            do { _ = try RawInflate.inflate(Data(corrupted)) } catch is PropertyListError { failures += 1 }
        }
        #expect(failures > 0)
    }
}
