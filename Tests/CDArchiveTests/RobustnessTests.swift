import CDTestSupport
import CDArchive
import Foundation
import Testing

/// Damaged and hostile input must make the readers throw ``PropertyListError``: never trap,
/// never hang.
@Suite("Bad input")
struct RobustnessTests {
    static let momPath = "cdplus-samplemodel/SampleModel.momd/SampleModel2.mom"

    @Test func everyShortPrefixOfARealArchiveThrows() throws {
        let mom = try ArchiveTestFiles.corpusFile(Self.momPath)
        let lengths = Array(0...200) + [256, 1000, 2000, mom.count / 2, mom.count - 33, mom.count - 32, mom.count - 1]
        for length in lengths {
            let prefix = mom.prefix(length)
            #expect(throws: PropertyListError.self, "prefix of \(length) bytes") { try PropertyList.decode(prefix) }
            #expect(throws: PropertyListError.self, "prefix of \(length) bytes") { try KeyedArchive(data: prefix) }
        }
    }

    /// Seeded, so the same buffers every run. Random bytes never form a valid trailer (its
    /// count needs six leading zero bytes), with or without the `bplist00` magic.
    @Test func randomBytesThrow() {
        var generator = SeededGenerator(seed: 2001)
        for round in 0..<400 {
            let body = (0..<Int.random(in: 0...600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let data = Data(round.isMultiple(of: 2) ? Array("bplist00".utf8) + body : body)
            #expect(throws: PropertyListError.self, "round \(round)") { try PropertyList.decode(data) }
        }
    }

    enum TrailerField: Sendable { case offsetSize, referenceSize, count, top, tableStart }

    /// Each field of the 32-byte trailer set to a value it cannot take.
    @Test(arguments: [
        (TrailerField.offsetSize, UInt64(0)), (.offsetSize, 9), (.offsetSize, 255),
        (.referenceSize, 0), (.referenceSize, 9),
        (.count, 0), (.count, 1 << 40), (.count, UInt64.max),
        (.top, 1 << 20), (.top, UInt64.max),
        (.tableStart, 0), (.tableStart, 7), (.tableStart, 4100), (.tableStart, UInt64(Int64.max)), (.tableStart, UInt64.max),
    ])
    func corruptTrailerThrows(field: TrailerField, value: UInt64) throws {
        var bytes = [UInt8](try ArchiveTestFiles.corpusFile(Self.momPath))
        let trailer = bytes.count - 32
        switch field {
        case .offsetSize: bytes[trailer + 6] = UInt8(value)
        case .referenceSize: bytes[trailer + 7] = UInt8(value)
        case .count: bytes.replaceSubrange(trailer + 8..<trailer + 16, with: bigEndian(value))
        case .top: bytes.replaceSubrange(trailer + 16..<trailer + 24, with: bigEndian(value))
        case .tableStart: bytes.replaceSubrange(trailer + 24..<trailer + 32, with: bigEndian(value))
        }
        #expect(throws: PropertyListError.self) { try PropertyList.decode(Data(bytes)) }
    }

    /// Pointing an offset outside the object table (into the header, at the table itself, past
    /// the end) must throw whenever that object is used. CoreFoundation leaves some objects
    /// unreferenced (duplicate UIDs), and damage to those changes nothing: a walk from the top
    /// object in python reaches 261 of the 395.
    @Test func corruptOffsetsThrow() throws {
        let original = [UInt8](try ArchiveTestFiles.corpusFile(Self.momPath))
        let expected = try PropertyList.decode(Data(original))
        let trailer = original.count - 32
        let offsetSize = Int(original[trailer + 6])
        let count = Int(original[trailer + 8..<trailer + 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let tableStart = Int(original[trailer + 24..<trailer + 32].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        #expect(offsetSize == 2)
        #expect(count == 395)
        var used = 0
        for index in 0..<count {
            var outcomes: [Bool] = []
            for bad in [0, 7, tableStart, trailer, Int(UInt16.max)] {
                var bytes = original
                let entry = tableStart + index * offsetSize
                bytes[entry] = UInt8(bad >> 8)
                bytes[entry + 1] = UInt8(bad & 0xFF)
                do {
                    #expect(try PropertyList.decode(Data(bytes)) == expected, "object \(index) at \(bad)")
                    outcomes.append(false)
                } catch is PropertyListError {
                    outcomes.append(true)
                }
            }
            #expect(Set(outcomes).count == 1, "object \(index): an unused entry never matters, a used one always does")
            if outcomes.first == true { used += 1 }
        }
        #expect(used == 261)
    }

    /// Single objects no writer produces, each the whole plist.
    @Test(
        arguments: [
            [0xA2, 0, 0],  // an array holding itself twice
            [0xD1, 0, 0],  // a dictionary that is its own key
            [0xA1, 3],  // a reference past the object table
            [0x5F, 0x50, 0x41],  // a length that is not an integer
            [0x5F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // a length beyond the file
            [0x4F, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // a negative length
            [0x55, 0x61],  // a string running past the objects
            [0x62, 0x00, 0x41],  // UTF-16 running past the objects
            [0x15] + Array(repeating: 0, count: 32),  // a 32-byte integer
            [0x1F, 0x00],  // an integer of 2^15 bytes
            [0x21, 0x00, 0x00],  // a 2-byte real
            [0x2F, 0x00],  // a real of 2^15 bytes
            [0x34, 0, 0, 0, 0, 0, 0, 0, 0],  // a date that is not 8 bytes
            [0x00], [0x0F], [0x70], [0x90], [0xB0], [0xE0], [0xF0],  // null, fill and unused types
            [0x87, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // a UID beyond Int
            [0x8F] + Array(repeating: 0xFF, count: 16),  // a 16-byte UID
        ] as [[UInt8]])
    func impossibleObjectThrows(_ object: [UInt8]) {
        let data = handBuiltPlist([object])
        #expect(throws: PropertyListError.self) { try PropertyList.decode(data) }
    }

    @Test func referenceCyclesThrow() {
        let cases: [[[UInt8]]] = [
            [[0xA1, 1], [0xA1, 0]],  // two arrays holding each other
            [[0xD1, 1, 2], [0x51, 0x6B], [0xA2, 1, 0]],  // a dictionary whose value holds it
            [[0xA3, 1, 1, 2], [0x09], [0xC1, 2]],  // a set holding itself, after shared `true`s
        ]
        for objects in cases {
            let error = #expect(throws: PropertyListError.self) { try PropertyList.decode(handBuiltPlist(objects)) }
            #expect(error?.description == "binary property list has a reference cycle")
        }
    }

    @Test func referenceBeyondIntThrows() {
        let data = handBuiltPlist([[0xA1] + Array(repeating: 0xFF, count: 8)], referenceSize: 8)
        #expect(throws: PropertyListError.self) { try PropertyList.decode(data) }
    }

    @Test func dictionaryKeyMustBeAString() {
        let data = handBuiltPlist([[0xD1, 1, 1], [0x10, 0x05]])
        let error = #expect(throws: PropertyListError.self) { try PropertyList.decode(data) }
        #expect(error?.description == "binary property list has a non-string dictionary key")
    }

    /// 600 arrays, each holding the next: acyclic, but deeper than the reader recurses.
    @Test func deepNestingThrows() {
        var objects: [[UInt8]] = (1..<600).map { next in [0xA1, UInt8(next >> 8), UInt8(next & 0xFF)] }
        objects.append([0x09])
        let error = #expect(throws: PropertyListError.self) { try PropertyList.decode(handBuiltPlist(objects, referenceSize: 2)) }
        #expect(error?.description == "binary property list nests too deeply")
    }

    /// 64 arrays, each holding the next one twice: 2^64 paths to the last object, which a
    /// reader that decodes every reference anew would never finish.
    @Test func heavilySharedObjectsDecodeQuickly() throws {
        var objects: [[UInt8]] = (1..<65).map { next in [0xA2, UInt8(next), UInt8(next)] }
        objects.append([0x09])
        var value = try PropertyList.decode(handBuiltPlist(objects))
        for level in 0..<64 {
            let elements = try #require(value.arrayValue, "level \(level)")
            #expect(elements.count == 2)
            value = elements[1]
        }
        #expect(value == .boolean(true))
    }

    /// Random damage to a real archive: whatever survives parsing is walked completely, and
    /// nothing may trap. (Many damaged archives still parse, since a changed byte inside a
    /// string is still a string.)
    @Test func damagedArchivesNeverCrash() throws {
        let mom = [UInt8](try ArchiveTestFiles.corpusFile(Self.momPath))
        var generator = SeededGenerator(seed: 1984)
        var thrown = 0
        var parsed = 0
        for _ in 0..<400 {
            var bytes = mom
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                bytes[Int.random(in: 8..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            do {
                let archive = try KeyedArchive(data: Data(bytes))
                parsed += 1
                for index in archive.objects.indices {
                    guard let object = archive.object(for: .uid(index)) else { continue }
                    _ = object.decoded()
                    _ = object.dictionaryEntries
                    _ = (object.className, object.classHierarchy, object.stringContent, object.elements)
                }
            } catch is PropertyListError {
                thrown += 1
            }
        }
        #expect(thrown + parsed == 400)
        #expect(thrown > 0)
        #expect(parsed > 0)
    }

    /// `cyclic-archive.bplist` (from `make-fixtures.py`): the root NSArray holds itself, a
    /// dictionary that is its own key and value, and itself again. Repeats of an enclosing
    /// object come back as the `…` placeholder.
    @Test func cyclicArchiveDecodes() throws {
        let archive = try KeyedArchive(data: try ArchiveTestFiles.fixture("cyclic-archive.bplist"))
        let repeated = ArchivedValue.unexpanded
        #expect(archive.root.decoded() == .array([repeated, .dictionary([(repeated, repeated)]), repeated]))
        #expect(archive.object(for: .uid(2))?.decoded() == .dictionary([(repeated, repeated)]))
        #expect(archive.object(for: .uid(2))?.dictionaryEntries.isEmpty == true, "its key is no string")
    }

    /// `shared-archive.bplist`: 40 NSArrays, each holding the next twice, the last "bottom".
    /// Not a cycle, but 2^40 paths; the walk stops at its size limit and marks what it left out.
    @Test func heavilySharedArchiveStops() throws {
        let archive = try KeyedArchive(data: try ArchiveTestFiles.fixture("shared-archive.bplist"))
        let result = archive.root.decoded()
        var value = result
        for level in 0..<40 {
            let elements = try #require(value.arrayElements, "level \(level)")
            #expect(elements.count == 2)
            value = elements[0]
        }
        #expect(value == .string("bottom"))
        #expect(result.arrayElements?.last == .unexpanded)
    }
}

extension ArchivedValue {
    var arrayElements: [ArchivedValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
