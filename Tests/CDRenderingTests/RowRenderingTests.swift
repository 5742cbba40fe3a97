@testable import CDRendering
import CDModel
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// The renderers write rows in place (``ObjectRow/borrowedValue(_:)``); on every corpus store
/// they must write exactly what they write for the row's ``StoredObject``.
@Suite(.temporaryDirectories, .tags(.corpusWide)) struct RowRenderingCorpusWideTests {
    /// The stores with a model cache: the others need a model from elsewhere, and
    /// CDCommandsTests dump those.
    static let cachedStores = Corpus.stores { store in
        try StoreInspector.inspect(path: Corpus.copyStore(store).path, counts: false).modelCache.present
    }

    /// Every store with a model cache takes part, so the tests below cannot pass by covering fewer.
    @Test func everyCachedStoreIsCovered() {
        #expect(Self.cachedStores.count == 31)
    }

    static func reader(_ store: String) throws -> ObjectReader {
        try ObjectReader(snapshot: StoreSnapshot(path: Corpus.copyStore(store).path))
    }

    /// Each row rendered both ways by two renderers of the same kind, all entities, sections
    /// opened and closed as the commands do; returns the in-place output.
    @discardableResult
    static func compare(_ reader: ObjectReader, query: ObjectQuery, makeRenderer: () -> any ObjectRenderer) throws -> String {
        var inPlace = makeRenderer(), viaObject = makeRenderer()
        var fast = OutputBuffer(), slow = OutputBuffer()
        var open = false
        try reader.readRows(
            query,
            section: { section in
                if open {
                    fast.append(inPlace.endSection())
                    slow.append(viaObject.endSection())
                }
                fast.append(inPlace.beginSection(entity: section.entity, properties: section.properties))
                slow.append(viaObject.beginSection(entity: section.entity, properties: section.properties))
                open = true
            },
            row: { row in
                try inPlace.render(row, into: &fast)
                viaObject.render(try row.object(), into: &slow)
            })
        if open {
            fast.append(inPlace.endSection())
            slow.append(viaObject.endSection())
        }
        fast.append(inPlace.finish())
        slow.append(viaObject.finish())
        let inPlaceBytes = fast.bytes, objectBytes = slow.bytes
        guard inPlaceBytes != objectBytes else { return fast.text }
        let offset = inPlaceBytes.indices.first { $0 >= objectBytes.count || inPlaceBytes[$0] != objectBytes[$0] } ?? inPlaceBytes.count
        func around(_ bytes: [UInt8]) -> String {
            String(decoding: bytes[max(offset - 80, 0)..<min(offset + 80, bytes.count)], as: UTF8.self).debugDescription
        }
        Issue.record(
            "\(type(of: inPlace)): in-place output differs from the objects' output at byte \(offset): \(around(inPlaceBytes)) instead of \(around(objectBytes))"
        )
        return fast.text
    }

    /// The properties of every entity of the store, and its to-many relationships.
    static func properties(_ reader: ObjectReader) -> (names: [String], toMany: Set<String>) {
        let all = reader.dumpableEntities.flatMap { reader.model.allProperties(of: $0) }
        let toMany = all.compactMap { property -> String? in
            if case .relationship(let relationship) = property, relationship.isToMany { return relationship.name }
            return nil
        }
        return (Set(all.map(\.name)).sorted(), Set(toMany))
    }

    @Test(arguments: cachedStores)
    func jsonInPlaceMatchesObjects(_ store: String) throws {
        let reader = try Self.reader(store)
        for binary in BinaryMode.allCases {
            try Self.compare(reader, query: ObjectQuery()) { NDJSONRenderer(values: JSONValues(binary: binary)) }
        }
        try Self.compare(reader, query: ObjectQuery()) { JSONRenderer() }
    }

    /// `serve`'s JSON entity page: the in-place list is each object's ``JSONValues/object(_:)``,
    /// in one array, over every entity of the store (one list across sections, so layouts
    /// change under it), with to-many relationships left out and counted.
    @Test(arguments: cachedStores)
    func jsonObjectListMatchesObjects(_ store: String) throws {
        let reader = try Self.reader(store)
        for query in [ObjectQuery(), ObjectQuery(countsToMany: true)] {
            for binary in BinaryMode.allCases {
                var list = JSONObjectList(values: JSONValues(binary: binary))
                var inPlace = JSONWriter()
                var objects: [String] = []
                inPlace.beginArray()
                try reader.readRows(query, section: { _ in }) { row in
                    try list.append(row, to: &inPlace)
                    objects.append(JSONValues(binary: binary).object(try row.object()))
                }
                inPlace.endArray()
                #expect(inPlace.text == "[" + objects.joined(separator: ",") + "]", "\(store), \(binary), counts to-many: \(query.countsToMany)")
            }
        }
    }

    @Test(arguments: cachedStores)
    func csvInPlaceMatchesObjects(_ store: String) throws {
        let reader = try Self.reader(store)
        for binary in BinaryMode.allCases {
            try Self.compare(reader, query: ObjectQuery(countsToMany: true)) {
                CSVRenderer(values: PlainValues(binary: binary, null: "a \"null\", quoted"))
            }
        }
    }

    /// Faults, counts and fetched members of to-many relationships, as `dump` asks for them.
    @Test(arguments: cachedStores)
    func descriptionInPlaceMatchesObjects(_ store: String) throws {
        let reader = try Self.reader(store)
        let toMany = Self.properties(reader).toMany
        for query in [ObjectQuery(), ObjectQuery(countsToMany: true), ObjectQuery(includes: toMany)] {
            try Self.compare(reader, query: query) { DescriptionRenderer() }
        }
        try Self.compare(reader, query: ObjectQuery(includes: toMany)) { DescriptionRenderer(listLimit: 1) }
    }

    /// The default line, and a template naming every property of the store (so each entity
    /// also meets names it does not have), the object keys and escaped braces.
    @Test(arguments: cachedStores)
    func lineInPlaceMatchesObjects(_ store: String) throws {
        let reader = try Self.reader(store)
        let (names, toMany) = Self.properties(reader)
        let template = "{_entity} {_id} {_pk} {{x}} }} {nope}: " + names.map { "\($0)={\($0)}" }.joined(separator: "|") + " é"
        for binary in BinaryMode.allCases {
            try Self.compare(reader, query: ObjectQuery(countsToMany: true)) {
                LineRenderer(values: PlainValues(binary: binary, null: "it's nil"))
            }
            try Self.compare(reader, query: ObjectQuery(countsToMany: true)) {
                LineRenderer(template: template, values: PlainValues(binary: binary))
            }
        }
        try Self.compare(reader, query: ObjectQuery(includes: toMany)) { LineRenderer() }
    }

    @Test(arguments: cachedStores)
    func expandedInPlaceMatchesObjects(_ store: String) throws {
        let reader = try Self.reader(store)
        for binary in BinaryMode.allCases {
            try Self.compare(reader, query: ObjectQuery(countsToMany: true)) {
                ExpandedRenderer(values: PlainValues(binary: binary, null: "∅"))
            }
        }
        try Self.compare(reader, query: ObjectQuery(includes: Self.properties(reader).toMany)) { ExpandedRenderer() }
    }

    /// Widths from a page of rows, then rows written to those widths: with the default page,
    /// and with pages of a few rows on a narrow terminal, so most sections cut cells.
    @Test(arguments: cachedStores)
    func tableInPlaceMatchesObjects(_ store: String) throws {
        let reader = try Self.reader(store)
        for binary in BinaryMode.allCases {
            try Self.compare(reader, query: ObjectQuery(countsToMany: true)) {
                TableRenderer(values: PlainValues(binary: binary, null: "∅"), terminalWidth: 60, batchSize: 3)
            }
        }
        try Self.compare(reader, query: ObjectQuery(countsToMany: true)) { TableRenderer() }
    }
}

/// Values the corpus may lack, written into a copy of a store: text where the in-place writers
/// must leave bytes for `String` (characters beyond ASCII beside spaces, quotes and line
/// breaks, `"\r\n"`, a space or quote with a combining accent, surrogate pairs, control
/// characters), text SQLite holds but a `String` repairs (NUL, bad UTF-8), and numbers, dates
/// and keys of the wrong type.
@Suite(.temporaryDirectories) struct RowRenderingEdgeTests {
    static let texts = [
        "", "plain", "with space", "it's", "multi\nline", "crlf\r\nend", "cr\ronly", "\n",
        " \u{301}accented", "'\u{301}", "é'ü x", "naïve", "emoji 👩‍👩‍👧 and 𝄞",
        "tab\tquote\"back\\slash", "\u{1}\u{7F}control", "日本語のテキスト\n二行目",
        String(repeating: "long ascii text ", count: 20), String(repeating: "ünïcödé ", count: 20),
    ]

    static func store() throws -> ObjectReader {
        let store = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let queue = try DatabaseQueue(path: store.path)
        try queue.write { db in
            for (offset, text) in texts.enumerated() {
                try db.execute(sql: "UPDATE ZPOST SET ZPOSTID = ? WHERE Z_PK = ?", arguments: [text, offset + 1])
            }
            try db.execute(sql: "UPDATE ZPOST SET ZPOSTID = CAST(x'610062' AS TEXT) WHERE Z_PK = 100")
            try db.execute(sql: "UPDATE ZPOST SET ZPOSTID = CAST(x'ff61' AS TEXT) WHERE Z_PK = 101")
            try db.execute(sql: "UPDATE ZPOST SET ZPOSTID = 42, ZDATE = 'soon', ZCOLOR = 'red' WHERE Z_PK = 102")
            try db.execute(sql: "UPDATE ZPOST SET ZPOSTID = NULL, ZDATE = 9e999, ZCOLOR = NULL WHERE Z_PK = 103")
            try db.execute(sql: "UPDATE ZPOST SET ZDATE = -1e12, ZCOLOR = 99999 WHERE Z_PK = 104")
            try db.execute(sql: "UPDATE ZPOST SET ZDATE = 0.25, ZCOLOR = 1.5 WHERE Z_PK = 105")
        }
        try queue.close()
        return try ObjectReader(snapshot: StoreSnapshot(path: store.path))
    }

    @Test func textFormatsInPlaceMatchObjects() throws {
        let reader = try Self.store()
        let query = ObjectQuery(entity: "Post", limit: 110, countsToMany: true)
        let makers: [() -> any ObjectRenderer] = [
            { DescriptionRenderer() },
            { LineRenderer(values: PlainValues(null: "it's nil")) },
            { LineRenderer(template: "{_pk}: {postID}|{date}|{color}") },
            { ExpandedRenderer() },
            { TableRenderer(terminalWidth: 40, batchSize: 50) },
            { TableRenderer(terminalWidth: 200) },
            { CSVRenderer() },
            { NDJSONRenderer() },
        ]
        for makeRenderer in makers {
            try RowRenderingCorpusWideTests.compare(reader, query: query, makeRenderer: makeRenderer)
        }
    }

    /// A few of those values, in place, to the byte.
    @Test func escapesInPlace() throws {
        let reader = try Self.store()
        var description = DescriptionRenderer(), line = LineRenderer(), expanded = ExpandedRenderer()
        var descriptions = OutputBuffer(), lines = OutputBuffer(), blocks = OutputBuffer()
        try reader.readRows(
            ObjectQuery(entity: "Post", limit: 13),
            section: { section in
                _ = expanded.beginSection(entity: section.entity, properties: section.properties)
            },
            row: { row in
                try description.render(row, into: &descriptions)
                try line.render(row, into: &lines)
                try expanded.render(row, into: &blocks)
            })
        func holds(_ buffer: OutputBuffer, _ text: String) -> Bool {
            let bytes = buffer.bytes, wanted = Array(text.utf8)
            return bytes.indices.contains { bytes[$0...].starts(with: wanted) }
        }
        #expect(holds(descriptions, "    postID = \"\";\n"))
        #expect(holds(descriptions, "    postID = plain;\n"))
        #expect(holds(descriptions, "    postID = \"crlf\\r\\nend\";\n"))
        #expect(holds(descriptions, "    postID = \"emoji \\Ud83d\\Udc69\\U200d\\Ud83d\\Udc69\\U200d\\Ud83d\\Udc67 and \\Ud834\\Udd1e\";\n"))
        #expect(holds(lines, " postID=''\n"))
        #expect(holds(lines, " postID='it\\'s'\n"))
        // A space with an accent on it is one character, and not a space.
        #expect(holds(lines, " postID= \u{301}accented\n"))
        #expect(holds(lines, " postID='é\\'ü x'\n"))
        #expect(holds(blocks, "postID | multi\\nline\n"))
    }
}

/// The byte-level writers behind the in-place path, against the standard library's text.
@Suite struct OutputBufferTests {
    @Test func integersMatchStringConversion() {
        var values: [Int64] = [
            0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, -1, -9, -10, -100,
            Int64.max, Int64.min, Int64.max - 1, Int64.min + 1,
        ]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power]
        }
        var generator = SystemRandomNumberGenerator()
        values += (0..<1000).map { _ in Int64.random(in: Int64.min...Int64.max, using: &generator) }
        for value in values {
            var buffer = OutputBuffer(capacity: 1)
            buffer.append(value)
            #expect(buffer.text == String(value))
        }
    }

    @Test func uuidsMatchFoundation() {
        for _ in 0..<100 {
            let uuid = UUID()
            var buffer = OutputBuffer()
            withUnsafeBytes(of: uuid.uuid) { buffer.appendUUID($0) }
            #expect(buffer.text == uuid.uuidString)
        }
    }

    /// Growing past the first capacity, and copies that keep their own bytes.
    @Test func growsAndCopiesOnWrite() {
        var buffer = OutputBuffer(capacity: 1)
        for index in 0..<1000 { buffer.append(Int64(index)) }
        let copy = buffer
        buffer.append(literal: "end")
        buffer.removeAll()
        buffer.append("x")
        #expect(buffer.text == "x")
        #expect(copy.text == (0..<1000).map(String.init).joined())
    }

    /// The word-at-a-time scan against a byte-at-a-time escape: every byte that needs an escape
    /// (and bytes next to them in value) at every position of a 20-byte string, then random
    /// strings of ASCII, control characters and multi-byte characters.
    @Test func jsonStringsEscapedWhereverTheSpecialByteIs() {
        func reference(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = [0x22]
            for byte in bytes {
                switch byte {
                case 0x22: out += Array(#"\""#.utf8)
                case 0x5C: out += Array(#"\\"#.utf8)
                case 0x0A: out += Array(#"\n"#.utf8)
                case 0x0D: out += Array(#"\r"#.utf8)
                case 0x09: out += Array(#"\t"#.utf8)
                case 0..<0x20: out += Array(#"\u00"#.utf8) + Array(String(format: "%02x", byte).utf8)
                default: out.append(byte)
                }
            }
            return out + [0x22]
        }
        func escaped(_ bytes: [UInt8]) -> [UInt8] {
            var buffer = OutputBuffer()
            bytes.withUnsafeBufferPointer { buffer.appendJSONString($0) }
            return buffer.bytes
        }
        for special: UInt8 in [0x00, 0x01, 0x09, 0x0A, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0xC3] {
            for position in 0..<20 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 20)
                bytes[position] = special
                #expect(escaped(bytes) == reference(bytes), "byte \(special) at \(position)")
            }
        }
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [[0x22], [0x5C], [0x0A], [0x01], [0x41], [0x20], Array("é".utf8), Array("😀".utf8)]
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).flatMap { _ in pieces.randomElement(using: &generator) ?? [] }
            #expect(escaped(text) == reference(text), "\(text)")
        }
    }

    @Test func csvFieldsQuotedWhereverTheSpecialByteIs() {
        for special in [",", "\"", "\n", "\r"] {
            for position in 0..<20 {
                let text = String(repeating: "a", count: position) + special + String(repeating: "b", count: 19 - position)
                var buffer = OutputBuffer()
                CSVRenderer.appendField(text, to: &buffer)
                #expect(buffer.text == "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
            }
        }
        var plain = OutputBuffer()
        CSVRenderer.appendField("plain text, only at the end", to: &plain)
        #expect(plain.text == "\"plain text, only at the end\"")
        var unquoted = OutputBuffer()
        CSVRenderer.appendField("Ünïcode text without separators - 0123456789", to: &unquoted)
        #expect(unquoted.text == "Ünïcode text without separators - 0123456789")
    }
}
