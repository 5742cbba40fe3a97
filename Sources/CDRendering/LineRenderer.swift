import CDStore
import Foundation

/// One line per object: a `to_s`-style template such as
/// `Priority: {priority} Completed: {completed} Description: '{task_description}'`, or by default
/// `Entity p1: key=value …`. `{_entity}`, `{_id}` (the URI) and `{_pk}` are also available;
/// `{{` and `}}` write braces.
package struct LineRenderer: ObjectRenderer {
    package var template: String?
    package var values: PlainValues
    private var layouts = LayoutCache<LineLayout>()
    /// Where a value that must be quoted goes while it is rewritten.
    private var scratch = OutputBuffer()

    package init(template: String? = nil, values: PlainValues = PlainValues()) {
        self.template = template
        self.values = values
    }

    package mutating func beginSection(entity: String, properties: [String]) -> String {
        layouts.removeAll()
        return ""
    }

    package mutating func render(_ object: StoredObject) -> String {
        guard let template else {
            let pairs = object.values.filter { !isOmitted($0.value) }.map { "\($0.name)=\(quoted(values.text($0.value)))" }
            return "\(object.id.entity) p\(object.id.pk): " + pairs.joined(separator: " ") + "\n"
        }
        return Self.fill(template, object: object, values: values) + "\n"
    }

    /// Writes the object in `row` exactly as ``render(_:)`` writes ``ObjectRow/object()``, with
    /// the common values read in place and the template's parts prepared once per layout.
    package mutating func render(_ row: borrowing ObjectRow, into buffer: inout OutputBuffer) throws {
        let layout = layouts.prepared(for: row.layout) ?? layouts.add(LineLayout(row.layout, template: template), for: row.layout)
        if let pieces = layout.template {
            for piece in pieces {
                switch piece {
                case .literal(let bytes): buffer.append(bytes)
                case .pk: buffer.append(row.pk)
                case .property(let index):
                    let value = row.borrowedValue(index)
                    if case .other = value {
                        buffer.append(values.text(try row.value(index)))
                    } else {
                        values.append(value, of: row, property: index, targets: layout.targets, to: &buffer)
                    }
                }
            }
            buffer.append(UInt8(ascii: "\n"))
            return
        }
        buffer.append(layout.head)
        buffer.append(row.pk)
        buffer.append(literal: ": ")
        var first = true
        for index in layout.keys.indices {
            guard let value = try values.read(index, of: row) else { continue }
            if !first { buffer.append(UInt8(ascii: " ")) }
            first = false
            buffer.append(layout.keys[index])
            let start = buffer.count
            values.append(value, of: row, property: index, targets: layout.targets, to: &buffer)
            quoteText(from: start, in: &buffer)
        }
        buffer.append(UInt8(ascii: "\n"))
    }

    private func isOmitted(_ value: ObjectValue) -> Bool {
        if values.binary == .omit, case .binary = value { return true }
        return false
    }

    private func quoted(_ text: String) -> String {
        text.isEmpty || text.contains(where: { $0 == " " || $0 == "'" }) ? "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" : text
    }

    /// Rewrites the text written from `start` as ``quoted(_:)`` would: byte by byte when it is
    /// ASCII (where no character is more than one of these bytes), through `String` otherwise.
    private mutating func quoteText(from start: Int, in buffer: inout OutputBuffer) {
        let found = buffer.withUnsafeBytes(from: start) { TextBytes($0) }
        guard buffer.count == start || !found.isDisjoint(with: [.space, .apostrophe]) else { return }
        if found.contains(.nonASCII) {
            let text = buffer.withUnsafeBytes(from: start) { String(decoding: $0, as: UTF8.self) }
            buffer.removeSuffix(from: start)
            buffer.append(quoted(text))
            return
        }
        scratch.removeAll()
        buffer.withUnsafeBytes(from: start) { scratch.append($0) }
        buffer.removeSuffix(from: start)
        buffer.append(UInt8(ascii: "'"))
        scratch.withUnsafeBytes { text in
            for byte in text {
                if byte == UInt8(ascii: "'") { buffer.append(UInt8(ascii: "\\")) }
                buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "'"))
    }

    /// The names besides property names a template may use: the entity, the URI and the primary key.
    package static let objectKeys: Set<String> = ["_entity", "_id", "_pk"]

    /// The `{name}` placeholders of `template`, in order, so a command can check them against
    /// the entity's properties before printing anything.
    package static func placeholders(in template: String) -> [String] {
        var keys: [String] = []
        walk(template, literal: { _ in }, key: { keys.append($0) })
        return keys
    }

    /// Replaces `{name}` placeholders; an unknown name is left as written (commands check the
    /// names first with ``placeholders(in:)``).
    static func fill(_ template: String, object: StoredObject, values: PlainValues) -> String {
        var out = ""
        walk(
            template, literal: { out.append($0) },
            key: { key in
                switch key {
                case "_entity": out += object.id.entity
                case "_id": out += object.id.uri
                case "_pk": out += String(object.id.pk)
                default:
                    if let value = object.value(key) { out += values.text(value) } else { out += "{\(key)}" }
                }
            })
        return out
    }

    /// `template` as ``fill(_:object:values:)`` reads it, for every object of `layout`: the
    /// text that is the same for all of them (literals, the entity, the URI up to its `Z_PK`,
    /// unknown names) joined, between the primary keys and values that change.
    static func pieces(of template: String, layout: ObjectLayout) -> [TemplatePiece] {
        var pieces: [TemplatePiece] = []
        var literal = ""
        func flush() {
            if !literal.isEmpty { pieces.append(.literal(Array(literal.utf8))) }
            literal = ""
        }
        walk(
            template, literal: { literal.append($0) },
            key: { key in
                switch key {
                case "_entity": literal += layout.entity
                case "_id":
                    literal += "x-coredata://\(layout.storeUUID)/\(layout.entity)/p"
                    flush()
                    pieces.append(.pk)
                case "_pk":
                    flush()
                    pieces.append(.pk)
                default:
                    if let index = layout.names.firstIndex(of: key) {
                        flush()
                        pieces.append(.property(index))
                    } else {
                        literal += "{\(key)}"
                    }
                }
            })
        flush()
        return pieces
    }

    /// Splits `template` into literal characters (`{{` and `}}` give one brace) and placeholder names.
    private static func walk(_ template: String, literal: (Character) -> Void, key: (String) -> Void) {
        var index = template.startIndex
        while index < template.endIndex {
            let character = template[index]
            let next = template.index(after: index)
            if character == "{", next < template.endIndex, template[next] == "{" {
                literal("{"); index = template.index(after: next); continue
            }
            if character == "}", next < template.endIndex, template[next] == "}" {
                literal("}"); index = template.index(after: next); continue
            }
            if character == "{", let close = template[next...].firstIndex(of: "}") {
                key(String(template[next..<close]))
                index = template.index(after: close)
                continue
            }
            literal(character)
            index = next
        }
    }
}

/// A part of a template, as ``LineRenderer`` writes it for a row.
enum TemplatePiece {
    case literal([UInt8])
    /// The object's `Z_PK`.
    case pk
    /// The value of the layout's property at this position.
    case property(Int)
}

/// What ``LineRenderer`` writes for every object of one layout, prepared once.
final class LineLayout {
    /// `<Entity> p`, before the `Z_PK`.
    let head: [UInt8]
    /// `<name>=` by property.
    let keys: [[UInt8]]
    /// The template's pieces, when there is a template.
    let template: [TemplatePiece]?
    let targets: TargetPrefixes

    init(_ layout: ObjectLayout, template: String?) {
        head = Array("\(layout.entity) p".utf8)
        keys = layout.names.map { Array("\($0)=".utf8) }
        self.template = template.map { LineRenderer.pieces(of: $0, layout: layout) }
        targets = TargetPrefixes(layout)
    }
}
