import CDArchive
import CDBase
import CDStore
import Foundation

/// JSON text for object values, written directly (no `JSONEncoder`) so keys keep the model's
/// order and millions of rows stream quickly.
package struct JSONValues: Sendable {
    package var binary: BinaryMode

    package init(binary: BinaryMode = .summary) {
        self.binary = binary
    }

    /// The object as one JSON object: `_entity`, `_id`, then each property. To-many
    /// relationships appear only when fetched (`--include`), as arrays of object-ID URIs.
    package func object(_ object: StoredObject) -> String {
        var buffer = OutputBuffer()
        append(object, to: &buffer)
        return buffer.text
    }

    package func append(_ object: StoredObject, to buffer: inout OutputBuffer) {
        buffer.append("{\"_entity\":")
        buffer.appendJSONString(object.id.entity)
        buffer.append(",\"_id\":")
        appendURI(object.id, to: &buffer)
        for (name, value) in object.values where !isOmitted(value) {
            buffer.append(UInt8(ascii: ","))
            buffer.appendJSONString(name)
            buffer.append(UInt8(ascii: ":"))
            append(value, to: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes the object in `row` exactly as ``append(_:to:)`` writes ``ObjectRow/object()``,
    /// with the common values read in place. `layout` is the row's, from ``prepare(_:)``.
    func append(_ row: borrowing ObjectRow, layout: JSONLayout, to buffer: inout OutputBuffer) throws {
        buffer.append(layout.head)
        buffer.append(row.pk)
        buffer.append(UInt8(ascii: "\""))
        for index in layout.keys.indices {
            switch row.borrowedValue(index) {
            case .other:
                let value = try row.value(index)
                guard !isOmitted(value) else { continue }
                buffer.append(layout.keys[index])
                append(value, to: &buffer)
            case .null:
                buffer.append(layout.keys[index])
                buffer.append(literal: "null")
            case .integer(let i):
                buffer.append(layout.keys[index])
                buffer.append(i)
            case .boolean(let b):
                buffer.append(layout.keys[index])
                buffer.append(literal: b ? "true" : "false")
            case .decimal(let d), .double(let d):
                buffer.append(layout.keys[index])
                Self.appendNumber(d, to: &buffer)
            case .date(let t):
                buffer.append(layout.keys[index])
                Self.appendDate(t, to: &buffer)
            case .string(let utf8):
                buffer.append(layout.keys[index])
                buffer.appendJSONString(utf8)
            case .uuid(let bytes):
                buffer.append(layout.keys[index])
                buffer.append(UInt8(ascii: "\""))
                buffer.appendUUID(bytes)
                buffer.append(UInt8(ascii: "\""))
            case .object(let ent, let pk):
                buffer.append(layout.keys[index])
                buffer.append(UInt8(ascii: "\""))
                layout.targets.appendURI(row, property: index, ent: ent, pk: pk, to: &buffer)
                buffer.append(UInt8(ascii: "\""))
            }
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// The bytes every object of `layout` shares: its start up to the `Z_PK` in `_id`, and
    /// `,"name":` for each property.
    static func prepare(_ layout: ObjectLayout) -> JSONLayout {
        var head = OutputBuffer()
        head.append("{\"_entity\":")
        head.appendJSONString(layout.entity)
        head.append(",\"_id\":\"")
        head.append(OutputBuffer.uriParts(storeUUID: layout.storeUUID, entity: layout.entity, escaping: .jsonString).prefix)
        let keys = layout.names.map { name -> [UInt8] in
            var key = OutputBuffer()
            key.append(UInt8(ascii: ","))
            key.appendJSONString(name)
            key.append(UInt8(ascii: ":"))
            return key.bytes
        }
        return JSONLayout(head: head.bytes, keys: keys, targets: TargetPrefixes(layout, escaping: .jsonString))
    }

    /// Left out: omitted binaries and to-many relationships that were not fetched.
    private func isOmitted(_ value: ObjectValue) -> Bool {
        switch value {
        case .objects(nil): return true
        case .binary, .transformableData: return binary == .omit
        default: return false
        }
    }

    /// The object as ``object(_:)`` writes it, as the next value of `json`.
    package func write(_ object: StoredObject, to json: inout JSONWriter) {
        json.value { append(object, to: &$0) }
    }

    /// The value as ``json(_:)`` writes it, or `null` when there is none or it is left out.
    /// `"name":{"old":…,"new":…` — one changed property as `watch` and `diff` write it; the
    /// object stays open for the caller's own members, and the caller ends it.
    package func beginChange(_ name: String, old: ObjectValue?, new: ObjectValue?, to json: inout JSONWriter) {
        json.key(name)
        json.beginObject()
        json.key("old")
        write(old, to: &json)
        json.key("new")
        write(new, to: &json)
    }

    package func write(_ value: ObjectValue?, to json: inout JSONWriter) {
        guard let value, !isOmitted(value) else { return json.null() }
        json.value { append(value, to: &$0) }
    }

    /// JSON text of one value; `nil` when the value is left out.
    package func json(_ value: ObjectValue) -> String? {
        guard !isOmitted(value) else { return nil }
        var buffer = OutputBuffer()
        append(value, to: &buffer)
        return buffer.text
    }

    private func appendURI(_ id: ObjectID, to buffer: inout OutputBuffer) {
        buffer.append(UInt8(ascii: "\""))
        buffer.appendURI(id, escaping: .jsonString)
        buffer.append(UInt8(ascii: "\""))
    }

    private func append(_ value: ObjectValue, to buffer: inout OutputBuffer) {
        switch value {
        case .null: buffer.append("null")
        case .integer(let i): buffer.append(i)
        case .boolean(let b): buffer.append(b ? "true" : "false")
        case .decimal(let d), .double(let d): Self.appendNumber(d, to: &buffer)
        case .string(let s): buffer.appendJSONString(s)
        case .date(let t): Self.appendDate(t, to: &buffer)
        case .binary(let d), .transformableData(let d): appendBinary(d, to: &buffer)
        case .uuid(let u): buffer.appendJSONString(u.uuidString)
        case .uri(let u): buffer.appendJSONString(u)
        case .transformable(let archived, _):
            var json = JSONWriter()
            Self.write(archived, to: &json)
            json.buffer.withUnsafeBytes(from: 0) { buffer.append($0) }
        case .externalReference(let file, let exists):
            buffer.append("{\"externalFile\":")
            buffer.appendJSONString(file)
            buffer.append(exists ? ",\"exists\":true}" : ",\"exists\":false}")
        case .largeValue(let bytes):
            buffer.append("{\"size\":")
            buffer.append(Int64(bytes))
            buffer.append(",\"notRead\":true}")
        case .object(let target): appendURI(target, to: &buffer)
        case .objects(nil): buffer.append("null")
        case .objects(let members?):
            buffer.append(UInt8(ascii: "["))
            for (index, member) in members.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                appendURI(member, to: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .objectCount(let count):
            buffer.append("{\"count\":")
            buffer.append(Int64(count))
            buffer.append(UInt8(ascii: "}"))
        case .unexpected(let text): buffer.appendJSONString(text)
        }
    }

    private func appendBinary(_ data: Data, to buffer: inout OutputBuffer) {
        switch binary {
        case .omit: buffer.append("null")
        case .hex:
            buffer.append(UInt8(ascii: "\""))
            buffer.appendHex(data)
            buffer.append(UInt8(ascii: "\""))
        case .base64:
            buffer.append(UInt8(ascii: "\""))
            buffer.append(data.base64EncodedString())
            buffer.append(UInt8(ascii: "\""))
        case .summary:
            buffer.append("{\"size\":")
            buffer.append(Int64(data.count))
            buffer.append(",\"sha256\":\"")
            buffer.appendHex(SHA256.hash(data: data))
            buffer.append("\"}")
        }
    }

    /// ``ValueText/number(_:)``, or `null` when the number is not finite, written in place.
    private static func appendNumber(_ d: Double, to buffer: inout OutputBuffer) {
        if d.isFinite {
            buffer.appendNumber(d)
        } else {
            buffer.append(literal: "null")
        }
    }

    private static func appendDate(_ t: Double, to buffer: inout OutputBuffer) {
        buffer.append(UInt8(ascii: "\""))
        buffer.appendISODate(t)
        buffer.append(UInt8(ascii: "\""))
    }

    /// A value of an archive (a transformable's) as JSON: a dictionary's keys as text, an
    /// object that could not be decoded as its class and number of keys.
    static func write(_ value: ArchivedValue, to json: inout JSONWriter) {
        switch value {
        case .null: json.null()
        case .string(let s): json.string(s)
        case .integer(let i): json.int(i)
        case .real(let r): json.number(r)
        case .boolean(let b): json.bool(b)
        case .date(let t): json.string(ValueText.isoDate(t))
        case .data(let d): json.string(d.base64EncodedString())
        case .uuid(let u): json.string(u.uuidString)
        case .url(let u): json.string(u)
        case .array(let items), .set(let items):
            json.beginArray()
            for item in items { write(item, to: &json) }
            json.endArray()
        case .dictionary(let pairs):
            json.beginObject()
            for pair in pairs {
                if case .string(let s) = pair.key { json.key(s) } else { json.key(pair.key.text) }
                write(pair.value, to: &json)
            }
            json.endObject()
        case .object(let className, let size):
            json.beginObject()
            json.member("$class", className)
            json.member("keys", size)
            json.endObject()
        }
    }
}

/// What ``JSONValues`` writes for every object of one layout, prepared once.
final class JSONLayout {
    /// `{"_entity":"<Entity>","_id":"x-coredata://<uuid>/<Entity>/p`
    let head: [UInt8]
    /// `,"<name>":` by property.
    let keys: [[UInt8]]
    let targets: TargetPrefixes

    init(head: [UInt8], keys: [[UInt8]], targets: TargetPrefixes) {
        self.head = head
        self.keys = keys
        self.targets = targets
    }
}

/// Objects written into a ``JSONWriter`` (`serve`'s entity page puts them in an array of its
/// own): each exactly as ``JSONValues/object(_:)`` writes it, read in place from the row instead
/// of through a ``StoredObject`` and a `String` per object.
package struct JSONObjectList {
    package var values: JSONValues
    private var layouts = LayoutCache<JSONLayout>()

    package init(values: JSONValues = JSONValues()) {
        self.values = values
    }

    /// Writes the object in `row` as the next value of `json`.
    package mutating func append(_ row: borrowing ObjectRow, to json: inout JSONWriter) throws {
        let layout = layouts.prepared(for: row.layout) ?? layouts.add(JSONValues.prepare(row.layout), for: row.layout)
        try json.value { try values.append(row, layout: layout, to: &$0) }
    }
}

/// A JSON array of objects, one per line.
package struct JSONRenderer: ObjectRenderer {
    package var values: JSONValues
    private var first = true
    private var layouts = LayoutCache<JSONLayout>()

    package init(values: JSONValues = JSONValues()) {
        self.values = values
    }

    package mutating func render(_ object: StoredObject) -> String {
        var buffer = OutputBuffer()
        render(object, into: &buffer)
        return buffer.text
    }

    package mutating func render(_ object: StoredObject, into buffer: inout OutputBuffer) {
        buffer.append(first ? "[\n" : ",\n")
        first = false
        values.append(object, to: &buffer)
    }

    package mutating func render(_ row: borrowing ObjectRow, into buffer: inout OutputBuffer) throws {
        let layout = layouts.prepared(for: row.layout) ?? layouts.add(JSONValues.prepare(row.layout), for: row.layout)
        buffer.append(first ? "[\n" : ",\n")
        first = false
        try values.append(row, layout: layout, to: &buffer)
    }

    package mutating func beginSection(entity: String, properties: [String]) -> String {
        layouts.removeAll()
        return ""
    }

    package mutating func finish() -> String { first ? "[]\n" : "\n]\n" }
}

/// Newline-delimited JSON: one object per line.
package struct NDJSONRenderer: ObjectRenderer {
    package var values: JSONValues
    private var layouts = LayoutCache<JSONLayout>()

    package init(values: JSONValues = JSONValues()) {
        self.values = values
    }

    package mutating func render(_ object: StoredObject) -> String { values.object(object) + "\n" }

    package mutating func render(_ object: StoredObject, into buffer: inout OutputBuffer) {
        values.append(object, to: &buffer)
        buffer.append(UInt8(ascii: "\n"))
    }

    package mutating func render(_ row: borrowing ObjectRow, into buffer: inout OutputBuffer) throws {
        let layout = layouts.prepared(for: row.layout) ?? layouts.add(JSONValues.prepare(row.layout), for: row.layout)
        try values.append(row, layout: layout, to: &buffer)
        buffer.append(UInt8(ascii: "\n"))
    }

    package mutating func beginSection(entity: String, properties: [String]) -> String {
        layouts.removeAll()
        return ""
    }
}
