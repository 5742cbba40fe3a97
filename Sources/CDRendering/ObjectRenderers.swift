import CDArchive
import CDBase
import CDStore
import Foundation

/// How binary values appear in output (`--binary`).
package enum BinaryMode: String, Sendable, CaseIterable {
    /// Left out.
    case omit
    /// Size, the first bytes in hex and a SHA-256 prefix.
    case summary
    case hex
    case base64
}

/// Turns a stream of objects into text, one section per entity. Renderers keep no more than
/// one object (or one small batch, for tables) so output streams as rows arrive.
package protocol ObjectRenderer {
    /// Text that starts a section of objects of one entity with these property names.
    mutating func beginSection(entity: String, properties: [String]) -> String
    mutating func render(_ object: StoredObject) -> String
    /// Appends the object's text to `buffer`; renderers on hot paths write bytes directly.
    mutating func render(_ object: StoredObject, into buffer: inout OutputBuffer)
    /// Appends the text of the object in `row`, the same text as for ``ObjectRow/object()``.
    /// Renderers read the row's values in place instead of building the object: with millions
    /// of rows, the allocations of a ``StoredObject`` per row cost more than all the rest.
    mutating func render(_ row: borrowing ObjectRow, into buffer: inout OutputBuffer) throws
    /// Text that ends a section.
    mutating func endSection() -> String
    /// Text after the last section.
    mutating func finish() -> String
}

extension ObjectRenderer {
    package mutating func render(_ object: StoredObject, into buffer: inout OutputBuffer) {
        buffer.append(render(object))
    }

    package mutating func beginSection(entity: String, properties: [String]) -> String { "" }
    package mutating func endSection() -> String { "" }
    package mutating func finish() -> String { "" }
}

/// Core Data's own `-[NSManagedObject description]` (docs/format/rendering-and-cli.md §1).
///
/// The pointer-like numbers Core Data prints are memory addresses; cdstore derives them from
/// the entity number and `Z_PK` so the output is reproducible:
/// object `0x6<Z_ENT, 5 hex digits><Z_PK, 8 hex digits>`, object ID
/// `0xd<Z_PK << 18 | Z_ENT, 15 hex digits>`, relationship fault object address + property index.
package struct DescriptionRenderer: ObjectRenderer {
    /// To-many members listed before `(...and N more...)`.
    package var listLimit: Int
    private var layouts = LayoutCache<DescriptionLayout>()

    package init(listLimit: Int = 10) {
        self.listLimit = listLimit
    }

    package static func objectAddress(_ id: ObjectID) -> UInt64 {
        objectAddress(ent: id.ent, pk: id.pk)
    }

    static func objectAddress(ent: Int, pk: Int64) -> UInt64 {
        0x6 << 52 | UInt64(ent & 0xFFFFF) << 32 | UInt64(truncatingIfNeeded: pk) & 0xFFFF_FFFF
    }

    package static func objectIDValue(_ id: ObjectID) -> UInt64 {
        objectIDValue(ent: id.ent, pk: id.pk)
    }

    static func objectIDValue(ent: Int, pk: Int64) -> UInt64 {
        0xD << 60 | (UInt64(truncatingIfNeeded: pk) << 18 | UInt64(ent & 0x3FFFF)) & 0x0FFF_FFFF_FFFF_FFFF
    }

    /// An object as the level-3 SQL debug log lists it: its description without line breaks
    /// around it.
    package static let logDescription: @Sendable (StoredObject) -> String = { object in
        var renderer = DescriptionRenderer()
        return renderer.render(object).trimmingCharacters(in: .newlines)
    }

    static func idText(_ id: ObjectID) -> String {
        "0x" + String(objectIDValue(id), radix: 16) + " <\(id.uri)>"
    }

    package mutating func render(_ object: StoredObject) -> String {
        var out =
            "<\(object.className): 0x\(String(Self.objectAddress(object.id), radix: 16))> (entity: \(object.id.entity); id: \(Self.idText(object.id)); data: {\n"
        for (index, entry) in object.values.sorted(by: { $0.name < $1.name }).enumerated() {
            out += "    \(Self.plistString(entry.name)) = \(value(entry.value, name: entry.name, owner: object.id, index: index));\n"
        }
        return out + "})\n"
    }

    /// Writes the object in `row` exactly as ``render(_:)`` writes ``ObjectRow/object()``, with
    /// the common values, and to-many faults, written in place.
    package mutating func render(_ row: borrowing ObjectRow, into buffer: inout OutputBuffer) throws {
        let layout = layouts.prepared(for: row.layout) ?? layouts.add(DescriptionLayout(row.layout), for: row.layout)
        let pk = row.pk
        let address = Self.objectAddress(ent: row.layout.ent, pk: pk)
        buffer.append(layout.classPrefix)
        buffer.appendHex(address)
        buffer.append(layout.entityPrefix)
        buffer.appendHex(Self.objectIDValue(ent: row.layout.ent, pk: pk))
        buffer.append(layout.uriPrefix)
        buffer.append(pk)
        buffer.append(literal: ">; data: {\n")
        for (position, index) in layout.order.enumerated() {
            buffer.append(layout.keys[position])
            switch row.borrowedValue(index) {
            case .other:
                let value = try row.value(index)
                if case .objects(nil) = value {
                    buffer.append(literal: "\"<relationship fault: 0x")
                    buffer.appendHex(address + 8 * UInt64(position + 1))
                    buffer.append(layout.faultNames[position])
                } else {
                    buffer.append(self.value(value, name: row.layout.names[index], owner: row.id, index: position))
                }
            case .null: buffer.append(literal: "nil")
            case .integer(let i): buffer.append(i)
            case .boolean(let b): buffer.append(UInt8(ascii: b ? "1" : "0"))
            case .decimal(let d), .double(let d): buffer.appendNumber(d)
            case .date(let t):
                buffer.append(UInt8(ascii: "\""))
                buffer.appendCoreDataDate(t)
                buffer.append(UInt8(ascii: "\""))
            case .string(let utf8): buffer.appendPlistString(utf8)
            case .uuid(let bytes):
                buffer.append(UInt8(ascii: "\""))
                buffer.appendUUID(bytes)
                buffer.append(UInt8(ascii: "\""))
            case .object(let ent, let pk):
                buffer.append(literal: "\"0x")
                buffer.appendHex(Self.objectIDValue(ent: ent, pk: pk))
                buffer.append(literal: " <")
                layout.targets.appendURI(row, property: index, ent: ent, pk: pk, to: &buffer)
                buffer.append(literal: ">\"")
            }
            buffer.append(literal: ";\n")
        }
        buffer.append(literal: "})\n")
    }

    package mutating func beginSection(entity: String, properties: [String]) -> String {
        layouts.removeAll()
        return ""
    }

    private func value(_ value: ObjectValue, name: String, owner: ObjectID, index: Int) -> String {
        switch value {
        case .null: return "nil"
        case .integer(let i): return String(i)
        case .boolean(let b): return b ? "1" : "0"
        case .decimal(let d), .double(let d): return ValueText.number(d)
        case .string(let s): return Self.plistString(s)
        case .date(let t): return "\"\(ValueText.coreDataDate(t))\""
        case .binary(let d), .transformableData(let d): return ValueText.dataDescription(d)
        case .uuid(let u): return Self.plistString(u.uuidString)
        case .uri(let u): return Self.plistString(u)
        case .transformable(let archived, _): return Self.archived(archived, indent: 4)
        case .externalReference(let file, let exists):
            return Self.plistString("<external data: \(file)\(exists ? "" : ", missing")>")
        case .largeValue(let bytes): return "{length = \(bytes), bytes not read}"
        case .object(let target): return "\"\(Self.idText(target))\""
        case .objects(nil):
            let address = Self.objectAddress(owner) + 8 * UInt64(index + 1)
            return "\"<relationship fault: 0x\(String(address, radix: 16)) '\(name)'>\""
        case .objectCount(let count):
            return "\"<relationship with \(plural(count, "object"))>\""
        case .objects(let members?):
            var items = members.prefix(listLimit).map { "\"\(Self.idText($0))\"" }
            if members.count > listLimit { items.append("\"(...and \(members.count - listLimit) more...)\"") }
            guard !items.isEmpty else { return "    (\n    )" }
            return "    (\n" + items.map { "        " + $0 }.joined(separator: ",\n") + "\n    )"
        case .unexpected(let text): return Self.plistString(text)
        }
    }

    /// One property value in a line of a change report (`watch`, `diff`): strings in the
    /// description's quoting, binaries by their bytes, NULL as `nil`, and `(no object)` where
    /// the object did not exist.
    package static func changeText(_ value: ObjectValue?) -> String {
        guard let value else { return "(no object)" }
        guard let text = value.text(binary: ValueText.dataDescription) else { return "nil" }
        if case .string = value { return plistString(text) }
        return text
    }

    /// Old-style plist strings: bare when purely alphanumeric, otherwise quoted with `\"`,
    /// `\\`, `\n` escapes and non-ASCII as `\Uxxxx` (lower-case hex, UTF-16 units).
    package static func plistString(_ text: String) -> String {
        if !text.isEmpty && text.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }) {
            return text
        }
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x20...0x7E: out.append(Character(Unicode.Scalar(unit)!))
            default: out += String(format: "\\U%04x", unit)
            }
        }
        return out + "\""
    }

    static func archived(_ value: ArchivedValue, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        switch value {
        case .null: return "\"<null>\""
        case .string(let s): return plistString(s)
        case .integer(let i): return String(i)
        case .real(let r): return ValueText.number(r)
        case .boolean(let b): return b ? "1" : "0"
        case .date(let t): return "\"\(ValueText.coreDataDate(t))\""
        case .data(let d): return ValueText.dataDescription(d)
        case .uuid(let u): return plistString(u.uuidString)
        case .url(let u): return plistString(u)
        case .array(let items), .set(let items):
            let open = value.isSet ? "{(" : "("
            let close = value.isSet ? ")}" : ")"
            guard !items.isEmpty else { return open + "\n" + pad + close }
            return open + "\n" + items.map { pad + "    " + archived($0, indent: indent + 4) }.joined(separator: ",\n") + "\n" + pad + close
        case .dictionary(let pairs):
            guard !pairs.isEmpty else { return "{\n" + pad + "}" }
            return "{\n"
                + pairs.map { pair in
                    pad + "    " + archived(pair.key, indent: indent + 4) + " = " + archived(pair.value, indent: indent + 4) + ";"
                }.joined(separator: "\n") + "\n" + pad + "}"
        case .object(let className, _): return "\"<\(className)>\""
        }
    }
}

/// What ``DescriptionRenderer`` writes for every object of one layout, prepared once.
final class DescriptionLayout {
    /// `<ClassName: 0x`, before the object's address.
    let classPrefix: [UInt8]
    /// `> (entity: Entity; id: 0x`, before the object ID's number.
    let entityPrefix: [UInt8]
    /// ` <x-coredata://<uuid>/<Entity>/p`, before the `Z_PK`.
    let uriPrefix: [UInt8]
    /// The layout's properties in the order the description lists them, sorted by name.
    let order: [Int]
    /// `    <name> = ` by position in `order`.
    let keys: [[UInt8]]
    /// ` '<name>'>"`, which ends a to-many fault, by position in `order`.
    let faultNames: [[UInt8]]
    let targets: TargetPrefixes

    init(_ layout: ObjectLayout) {
        classPrefix = Array("<\(layout.className): 0x".utf8)
        entityPrefix = Array("> (entity: \(layout.entity); id: 0x".utf8)
        uriPrefix = Array(" <".utf8) + OutputBuffer.uriParts(storeUUID: layout.storeUUID, entity: layout.entity, escaping: .none).prefix
        order = layout.names.indices.sorted { layout.names[$0] < layout.names[$1] }
        keys = order.map { Array("    \(DescriptionRenderer.plistString(layout.names[$0])) = ".utf8) }
        faultNames = order.map { Array(" '\(layout.names[$0])'>\"".utf8) }
        targets = TargetPrefixes(layout)
    }
}

extension ArchivedValue {
    var isSet: Bool {
        if case .set = self { return true }
        return false
    }
}
