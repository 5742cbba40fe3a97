import CDArchive
import CDTestSupport
import Foundation
import Testing

/// `BinaryPropertyListWriter`: what it writes reads back through cdstore's reader unchanged,
/// and Foundation's own reader agrees on everything but UIDs (which it does not surface).
@Suite("Property list writer")
struct PropertyListWriterTests {
    /// One value of every case, with the encodings' edge cases (UTF-16 strings, negative and
    /// 8-byte integers, lengths that need a separate integer object).
    static let everyCase = PropertyListValue.dictionary([
        ("ascii", .string("Core Data")),
        ("unicode", .string("Grüße, 世界 🦊")),
        ("empty", .string("")),
        ("long", .string(String(repeating: "x", count: 300))),
        (
            "integers",
            .array([
                .integer(0), .integer(14), .integer(255), .integer(256), .integer(65535), .integer(65536),
                .integer(4_294_967_295), .integer(4_294_967_296), .integer(-1), .integer(-300),
                .integer(Int64.min), .integer(Int64.max),
            ])
        ),
        ("reals", .array([.real(3.141592653589793), .real(-0.5), .real(1e300), .real(0)])),
        ("flags", .dictionary([("yes", .boolean(true)), ("no", .boolean(false))])),
        ("dates", .array([.date(730_902_615), .date(-31_622_401)])),
        ("data", .data(Data([0x00, 0x01, 0xFE, 0xFF]))),
        ("emptyData", .data(Data())),
        (
            "nested",
            .dictionary([
                ("list", .array([.dictionary([("deep", .dictionary([("deeper", .array([.string("x"), .integer(7)]))]))])])),
                ("emptyList", .array([])),
                ("emptyDict", .dictionary([])),
            ])
        ),
    ])

    private func roundTrip(_ value: PropertyListValue) throws -> PropertyListValue {
        let data = try BinaryPropertyListWriter.data(for: value)
        #expect(data.starts(with: Array("bplist00".utf8)))
        return try PropertyList.decode(data)
    }

    @Test func everyCaseRoundTrips() throws {
        #expect(try roundTrip(Self.everyCase) == Self.everyCase)
    }

    @Test func scalarsAtTheTopRoundTrip() throws {
        for value: PropertyListValue in [
            .string("a"), .string("ü"), .integer(-5), .real(2.5), .boolean(false),
            .date(0), .data(Data([1])), .uid(3), .array([]), .dictionary([]),
        ] {
            #expect(try roundTrip(value) == value)
        }
    }

    @Test func uidsOfEveryWidthRoundTrip() throws {
        let value = PropertyListValue.dictionary([("uids", .array([.uid(0), .uid(255), .uid(256), .uid(70000), .uid(1 << 40)]))])
        #expect(try roundTrip(value) == value)
    }

    /// More than 255 objects need 2-byte references; data over 65535 bytes needs 4-byte offsets.
    @Test func largeCollectionsWidenReferencesAndOffsets() throws {
        var generator = SeededGenerator(seed: 42)
        let big = Data((0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let value = PropertyListValue.array((0..<300).map { .string("item \($0)") } + [.data(big), .integer(1)])
        let data = try BinaryPropertyListWriter.data(for: value)
        let trailer = data.count - 32
        #expect(data[trailer + 7] == 2, "reference size")
        #expect(data[trailer + 6] == 4, "offset size")
        #expect(try PropertyList.decode(data) == value)
    }

    @Test func smallPlistsUseOneByteSizes() throws {
        let data = try BinaryPropertyListWriter.data(for: .array([.integer(1), .string("a")]))
        let trailer = data.count - 32
        #expect(data[trailer + 6] == 1 && data[trailer + 7] == 1)
        #expect(data.count == 8 + 1 + 2 + 2 + 2 + 3 + 32)
    }

    /// Equal strings are stored once, so an archive's repeated class names cost one object.
    @Test func equalScalarsAreShared() throws {
        let one = try BinaryPropertyListWriter.data(for: .array([.string("name")]))
        let many = try BinaryPropertyListWriter.data(for: .array(Array(repeating: .string("name"), count: 10)))
        let count = { (data: Data) in data.suffix(32).dropFirst(8).prefix(8).reduce(0) { $0 << 8 | Int($1) } }
        #expect(count(one) == 2 && count(many) == 2)
    }

    @Test func dictionariesKeepTheirOrder() throws {
        let value = PropertyListValue.dictionary([("b", .integer(1)), ("a", .integer(2)), ("c", .integer(3))])
        #expect(try roundTrip(value).dictionaryEntries?.map(\.key) == ["b", "a", "c"])
    }

    @Test func repeatedKeysAreRefused() {
        #expect(throws: PropertyListError.self) {
            try BinaryPropertyListWriter.data(for: .dictionary([("a", .integer(1)), ("a", .integer(2))]))
        }
    }

    /// Foundation reads our output as the same values (dictionaries come back unordered, so
    /// the comparison goes through cdstore's XML path, which sorts keys).
    @Test func foundationReadsTheOutput() throws {
        let data = try BinaryPropertyListWriter.data(for: Self.everyCase)
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        #expect(format == .binary)
        let xml = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
        #expect(try PropertyList.decode(xml) == sortedKeys(Self.everyCase))
    }

    private func sortedKeys(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let items): return .array(items.map(sortedKeys))
        case .dictionary(let entries):
            return .dictionary(entries.sorted { $0.key < $1.key }.map { ($0.key, sortedKeys($0.value)) })
        default: return value
        }
    }
}

/// `RawDeflate`: what it compresses, `RawInflate` restores byte for byte.
@Suite("Raw deflate")
struct RawDeflateTests {
    @Test func emptyInputRoundTrips() throws {
        let compressed = try RawDeflate.deflate(Data())
        #expect(!compressed.isEmpty)
        #expect(try RawInflate.inflate(compressed) == Data())
    }

    @Test func oneMegabyteOfRandomBytesRoundTrips() throws {
        var generator = SeededGenerator(seed: 2001)
        let input = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        #expect(try RawInflate.inflate(try RawDeflate.deflate(input)) == input)
    }

    /// Repetitive text (like a keyed archive) shrinks, and the stream has no zlib header: a
    /// zlib header's first byte is 0x78 for the default window.
    @Test func compressesAndWritesNoHeader() throws {
        let input = Data(String(repeating: "NSAttributeDescription NSPropertyName ", count: 500).utf8)
        let compressed = try RawDeflate.deflate(input)
        #expect(compressed.count < input.count / 10)
        #expect(compressed.first != 0x78)
        #expect(try RawInflate.inflate(compressed) == input)
    }

    /// A real model cache, inflated and compressed again, inflates to the same archive.
    @Test func realModelCacheRecompresses() throws {
        let archive = try RawInflate.inflate(try ArchiveTestFiles.fixture("wibosco-1-modelcache.deflate"))
        #expect(try RawInflate.inflate(try RawDeflate.deflate(archive)) == archive)
    }

    /// Every compiled `.mom` of the corpus (the same archives model caches hold, uncompressed).
    @Test func corpusModelsRoundTrip() throws {
        let moms = Corpus.files(endingWith: ".mom")
        #expect(moms.count == Self.corpusMomCount)
        for mom in moms {
            let archive = try ArchiveTestFiles.corpusFile(mom)
            #expect(try RawInflate.inflate(try RawDeflate.deflate(archive)) == archive, "\(mom)")
        }
    }

    static let corpusMomCount = 9
}

/// `KeyedArchiveWriter`: archives that `KeyedArchive` reads back, cycles included.
@Suite("Keyed archive writer")
struct KeyedArchiveWriterTests {
    @Test func cyclicObjectsReadBack() throws {
        var writer = KeyedArchiveWriter()
        let parent = writer.reserve()
        let child = writer.object(
            className: "Node", classes: ["Node", "NSObject"],
            fields: [("name", writer.string("child")), ("parent", parent)])
        let children = writer.collection([child], className: "NSMutableArray")
        let info = writer.dictionary([("b", writer.string("2")), ("a", writer.value(.integer(1)))])
        writer.fill(
            parent, className: "Node", classes: ["Node", "NSObject"],
            fields: [
                ("name", writer.string("parent")), ("children", children), ("info", info),
                ("flag", .boolean(true)), ("none", KeyedArchiveWriter.null),
            ])
        let archive = try KeyedArchive(data: try writer.data(root: parent))
        let root = archive.root
        #expect(root.className == "Node" && root.classHierarchy == ["Node", "NSObject"])
        #expect(root.string("name") == "parent")
        #expect(root.bool("flag") == true)
        #expect(root.object("none") == nil)
        let members = root.elements("children")
        #expect(members.map { $0.string("name") } == ["child"])
        #expect(members.first?.object("parent")?.index == root.index)
        #expect(root.object("children")?.classHierarchy == ["NSMutableArray", "NSArray", "NSObject"])
        #expect(root.dictionary("info").map(\.key) == ["b", "a"])
        #expect(archive.decode(root.value("info")) == .dictionary([(.string("b"), .string("2")), (.string("a"), .integer(1))]))
        // One class description per class name, and `$objects[0]` is `$null`.
        #expect(archive.objects.filter { $0["$classname"]?.stringValue == "Node" }.count == 1)
        #expect(archive.objects.first == .string("$null"))
    }

    @Test func topLevelKeysAreApples() throws {
        var writer = KeyedArchiveWriter()
        let root = writer.string("x")
        let plist = try PropertyList.decode(try writer.data(root: root))
        #expect(plist["$archiver"] == .string("NSKeyedArchiver"))
        #expect(plist["$version"] == .integer(100_000))
        #expect(plist["$top"] == .dictionary([("root", .uid(1))]))
        #expect(plist["$objects"] == .array([.string("$null"), .string("x")]))
    }

    @Test func unfilledReservationThrows() {
        var writer = KeyedArchiveWriter()
        let root = writer.reserve()
        #expect(throws: PropertyListError.self) { try writer.data(root: root) }
    }
}
