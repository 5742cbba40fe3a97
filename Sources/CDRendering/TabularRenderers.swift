import CDArchive
import CDBase
import CDStore
import Foundation

/// Plain text for one value, as the line, table, expanded and CSV formats show it.
package struct PlainValues: Sendable {
    package var binary: BinaryMode
    /// Text for nil (sqlite3's `-nullvalue`); empty by default, as Ruby's `nil.to_s`.
    package var null: String

    package init(binary: BinaryMode = .summary, null: String = "") {
        self.binary = binary
        self.null = null
    }

    /// ``ObjectValue/text(binary:)`` with this output's binary mode and text for nil.
    package func text(_ value: ObjectValue) -> String {
        value.text(binary: binaryText) ?? null
    }

    package func binaryText(_ data: Data) -> String {
        switch binary {
        case .omit: return ""
        case .hex: return data.map { String(format: "%02x", $0) }.joined()
        case .base64: return data.base64EncodedString()
        case .summary:
            let head = data.prefix(8).map { String(format: "%02x", $0) }.joined()
            let digest = SHA256.hash(data: data).prefix(4).map { String(format: "%02x", $0) }.joined()
            return "<\(data.count) bytes \(head)\(data.count > 8 ? "…" : "") sha256:\(digest)>"
        }
    }
}

/// One block per object, property per line, like psql's `\x`.
package struct ExpandedRenderer: ObjectRenderer {
    package var values: PlainValues
    private var count = 0
    private var width = 0
    private var layouts = LayoutCache<ExpandedLayout>()
    /// Where a value with line breaks goes while they are escaped.
    private var scratch = OutputBuffer()

    package init(values: PlainValues = PlainValues()) {
        self.values = values
    }

    package mutating func beginSection(entity: String, properties: [String]) -> String {
        width = max(properties.map(\.count).max() ?? 0, 4)
        layouts.removeAll()
        return ""
    }

    package mutating func render(_ object: StoredObject) -> String {
        count += 1
        var out = "-[ RECORD \(count): \(object.id.entity) p\(object.id.pk) ]" + String(repeating: "-", count: 8) + "\n"
        for (name, value) in object.values {
            if values.binary == .omit, case .binary = value { continue }
            out += Self.key(name, width: width) + escaped(values.text(value)) + "\n"
        }
        return out
    }

    /// Writes the object in `row` exactly as ``render(_:)`` writes ``ObjectRow/object()``, with
    /// the common values read in place.
    package mutating func render(_ row: borrowing ObjectRow, into buffer: inout OutputBuffer) throws {
        let layout = layouts.prepared(for: row.layout) ?? layouts.add(ExpandedLayout(row.layout, width: width), for: row.layout)
        count += 1
        buffer.append(literal: "-[ RECORD ")
        buffer.append(Int64(count))
        buffer.append(layout.head)
        buffer.append(row.pk)
        buffer.append(literal: " ]--------\n")
        for index in layout.keys.indices {
            guard let value = try values.read(index, of: row) else { continue }
            buffer.append(layout.keys[index])
            let start = buffer.count
            values.append(value, of: row, property: index, targets: layout.targets, to: &buffer)
            escapeText(from: start, in: &buffer)
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    /// `name` padded (or cut) to `width`, then ` | `.
    static func key(_ name: String, width: Int) -> String {
        name.padding(toLength: width, withPad: " ", startingAt: 0) + " | "
    }

    private func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Rewrites the text written from `start` as ``escaped(_:)`` would: byte by byte when each
    /// character is one byte, through `String` otherwise.
    private mutating func escapeText(from start: Int, in buffer: inout OutputBuffer) {
        let found = buffer.withUnsafeBytes(from: start) { TextBytes($0) }
        guard found.contains(.lineFeed) else { return }
        guard found.isOneBytePerCharacter else {
            let text = buffer.withUnsafeBytes(from: start) { String(decoding: $0, as: UTF8.self) }
            buffer.removeSuffix(from: start)
            buffer.append(escaped(text))
            return
        }
        scratch.removeAll()
        buffer.withUnsafeBytes(from: start) { scratch.append($0) }
        buffer.removeSuffix(from: start)
        scratch.withUnsafeBytes { text in
            for byte in text {
                if byte == UInt8(ascii: "\n") {
                    buffer.append(literal: "\\n")
                } else {
                    buffer.append(byte)
                }
            }
        }
    }
}

/// What ``ExpandedRenderer`` writes for every object of one layout in the current section,
/// prepared once.
final class ExpandedLayout {
    /// `: <Entity> p`, between the record number and the `Z_PK`.
    let head: [UInt8]
    /// The padded name and ` | ` by property.
    let keys: [[UInt8]]
    let targets: TargetPrefixes

    init(_ layout: ObjectLayout, width: Int) {
        head = Array(": \(layout.entity) p".utf8)
        keys = layout.names.map { Array(ExpandedRenderer.key($0, width: width).utf8) }
        targets = TargetPrefixes(layout)
    }
}

/// RFC 4180 CSV: a header row per entity, fields quoted when they hold a comma, quote or line
/// break, quotes doubled, CRLF line ends.
package struct CSVRenderer: ObjectRenderer {
    package var values: PlainValues
    private var properties: [String] = []
    private var sections = 0
    private var layouts = LayoutCache<CSVLayout>()

    package init(values: PlainValues = PlainValues()) {
        self.values = values
    }

    package mutating func beginSection(entity: String, properties: [String]) -> String {
        self.properties = properties
        layouts.removeAll()
        sections += 1
        return (sections > 1 ? "\r\n" : "") + (["_entity", "_id"] + properties).map(Self.field).joined(separator: ",") + "\r\n"
    }

    package mutating func render(_ object: StoredObject) -> String {
        var buffer = OutputBuffer()
        render(object, into: &buffer)
        return buffer.text
    }

    package mutating func render(_ object: StoredObject, into buffer: inout OutputBuffer) {
        Self.appendField(object.id.entity, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        buffer.appendURI(object.id, escaping: .csvField)
        for name in properties {
            buffer.append(UInt8(ascii: ","))
            if let value = object.value(name) { append(value, to: &buffer) }
        }
        buffer.append(literal: "\r\n")
    }

    /// Writes the object in `row` exactly as the `StoredObject` version writes
    /// ``ObjectRow/object()``, with the common values read in place.
    package mutating func render(_ row: borrowing ObjectRow, into buffer: inout OutputBuffer) throws {
        let layout = layouts.prepared(for: row.layout) ?? layouts.add(prepare(row.layout), for: row.layout)
        buffer.append(layout.head)
        buffer.append(row.pk)
        buffer.append(layout.idSuffix)
        for column in layout.columns {
            buffer.append(UInt8(ascii: ","))
            guard let index = column else { continue }
            switch row.borrowedValue(index) {
            case .other: append(try row.value(index), to: &buffer)
            case .null: Self.appendField(values.null, to: &buffer)
            case .integer(let i): buffer.append(i)
            case .boolean(let b): buffer.append(UInt8(ascii: b ? "1" : "0"))
            case .decimal(let d), .double(let d): Self.appendField(ValueText.number(d), to: &buffer)
            case .date(let t): buffer.appendCoreDataDate(t)
            case .string(let utf8): Self.appendField(utf8, to: &buffer)
            case .uuid(let bytes): buffer.appendUUID(bytes)
            case .object(let ent, let pk): layout.targets.appendURI(row, property: index, ent: ent, pk: pk, to: &buffer)
            }
        }
        buffer.append(literal: "\r\n")
    }

    private func prepare(_ layout: ObjectLayout) -> CSVLayout {
        var head = OutputBuffer()
        Self.appendField(layout.entity, to: &head)
        head.append(UInt8(ascii: ","))
        let id = OutputBuffer.uriParts(storeUUID: layout.storeUUID, entity: layout.entity, escaping: .csvField)
        head.append(id.prefix)
        return CSVLayout(
            head: head.bytes, idSuffix: id.suffix, columns: properties.map { layout.names.firstIndex(of: $0) },
            targets: TargetPrefixes(layout, escaping: .csvField))
    }

    /// Numbers, dates and UUIDs never need quoting, so they are written directly; object IDs are
    /// quoted only when their entity's name needs it.
    private func append(_ value: ObjectValue, to buffer: inout OutputBuffer) {
        switch value {
        case .integer(let i): buffer.append(i)
        case .boolean(let b): buffer.append(UInt8(ascii: b ? "1" : "0"))
        case .date(let t): buffer.appendCoreDataDate(t)
        case .uuid(let u): buffer.append(u.uuidString)
        case .object(let target): buffer.appendURI(target, escaping: .csvField)
        case .string(let s): Self.appendField(s, to: &buffer)
        default: Self.appendField(values.text(value), to: &buffer)
        }
    }

    static func field(_ text: String) -> String {
        var buffer = OutputBuffer()
        appendField(text, to: &buffer)
        return buffer.text
    }

    static func appendField(_ text: String, to buffer: inout OutputBuffer) {
        var text = text
        text.withUTF8 { appendField($0, to: &buffer) }
    }

    /// Whether `utf8` holds a comma, quote or line break. All four are below 0x2D, so words of
    /// eight bytes without such a byte (most text) are passed over in one test.
    static func needsQuotes(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if let base = utf8.baseAddress {
            while utf8.count - index >= 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                // Some byte is below 0x2D (exact for bytes below 0x80; higher ones never count).
                if (word &- 0x2D2D_2D2D_2D2D_2D2D) & ~word & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
        }
        while index < utf8.count {
            let byte = utf8[index]
            if byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D { return true }
            index += 1
        }
        return false
    }

    /// Quotes only fields holding a comma, quote or line break, checked on the UTF-8 bytes.
    static func appendField(_ utf8: UnsafeBufferPointer<UInt8>, to buffer: inout OutputBuffer) {
        guard needsQuotes(utf8) else {
            buffer.append(utf8)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in utf8 {
            if byte == 0x22 { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }
}

/// What ``CSVRenderer`` writes for every object of one layout in the current section, prepared
/// once.
final class CSVLayout {
    /// `<Entity>,x-coredata://<uuid>/<Entity>/p`
    let head: [UInt8]
    /// What follows the `Z_PK` in `_id`: a closing quote when the entity's name needs quoting.
    let idSuffix: [UInt8]
    /// For each column of the section's header, the layout's property shown there, if it has it.
    let columns: [Int?]
    let targets: TargetPrefixes

    init(head: [UInt8], idSuffix: [UInt8], columns: [Int?], targets: TargetPrefixes) {
        self.head = head
        self.idSuffix = idSuffix
        self.columns = columns
        self.targets = targets
    }
}
