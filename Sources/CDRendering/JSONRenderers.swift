import CDArchive
import CDStore
import Crypto
import Foundation

/// JSON text for object values, written directly (no `JSONEncoder`) so keys keep the model's
/// order and millions of rows stream quickly.
public struct JSONValues: Sendable {
    public var binary: BinaryMode

    public init(binary: BinaryMode = .summary) {
        self.binary = binary
    }

    /// The object as one JSON object: `_entity`, `_id`, then each property. To-many
    /// relationships appear only when fetched (`--include`), as arrays of object-ID URIs.
    public func object(_ object: StoredObject) -> String {
        var out = "{\"_entity\":" + Self.string(object.id.entity) + ",\"_id\":" + Self.string(object.id.uri)
        for (name, value) in object.values {
            guard let text = json(value) else { continue }
            out += "," + Self.string(name) + ":" + text
        }
        return out + "}"
    }

    /// `nil` means the key is left out (omitted binaries, unfetched to-many relationships).
    public func json(_ value: ObjectValue) -> String? {
        switch value {
        case .null: return "null"
        case .integer(let i): return String(i)
        case .boolean(let b): return b ? "true" : "false"
        case .decimal(let d), .double(let d): return Self.number(d)
        case .string(let s): return Self.string(s)
        case .date(let t): return Self.string(ValueText.isoDate(t))
        case .binary(let d), .transformableData(let d): return binaryJSON(d)
        case .uuid(let u): return Self.string(u.uuidString)
        case .uri(let u): return Self.string(u)
        case .transformable(let archived, _): return Self.archived(archived)
        case .externalReference(let file, let exists):
            return "{\"externalFile\":" + Self.string(file) + ",\"exists\":" + (exists ? "true" : "false") + "}"
        case .object(let target): return Self.string(target.uri)
        case .objects(nil): return nil
        case .objectCount(let count): return "{\"count\":\(count)}"
        case .objects(let members?): return "[" + members.map { Self.string($0.uri) }.joined(separator: ",") + "]"
        case .unexpected(let text): return Self.string(text)
        }
    }

    private func binaryJSON(_ data: Data) -> String? {
        switch binary {
        case .omit: return nil
        case .hex: return "\"" + data.map { String(format: "%02x", $0) }.joined() + "\""
        case .base64: return "\"" + data.base64EncodedString() + "\""
        case .summary:
            let digest = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            return "{\"size\":\(data.count),\"sha256\":\"\(digest)\"}"
        }
    }

    static func number(_ value: Double) -> String {
        value.isFinite ? ValueText.number(value) : "null"
    }

    static func archived(_ value: ArchivedValue) -> String {
        switch value {
        case .null: return "null"
        case .string(let s): return string(s)
        case .integer(let i): return String(i)
        case .real(let r): return number(r)
        case .boolean(let b): return b ? "true" : "false"
        case .date(let t): return string(ValueText.isoDate(t))
        case .data(let d): return string(d.base64EncodedString())
        case .uuid(let u): return string(u.uuidString)
        case .url(let u): return string(u)
        case .array(let items), .set(let items): return "[" + items.map(archived).joined(separator: ",") + "]"
        case .dictionary(let pairs):
            return "{" + pairs.map { pair -> String in
                let key: String
                if case .string(let s) = pair.key { key = s } else { key = PlainValues.compact(pair.key) }
                return string(key) + ":" + archived(pair.value)
            }.joined(separator: ",") + "}"
        case .object(let className, let size): return "{\"$class\":" + string(className) + ",\"keys\":\(size)}"
        }
    }

    /// A JSON string literal (RFC 8259 escapes; other characters as UTF-8).
    public static func string(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// A JSON array of objects, one per line.
public struct JSONRenderer: ObjectRenderer {
    public var values: JSONValues
    private var first = true

    public init(values: JSONValues = JSONValues()) {
        self.values = values
    }

    public mutating func render(_ object: StoredObject) -> String {
        defer { first = false }
        return (first ? "[\n" : ",\n") + values.object(object)
    }

    public mutating func finish() -> String { first ? "[]\n" : "\n]\n" }
}

/// Newline-delimited JSON: one object per line.
public struct NDJSONRenderer: ObjectRenderer {
    public var values: JSONValues

    public init(values: JSONValues = JSONValues()) {
        self.values = values
    }

    public mutating func render(_ object: StoredObject) -> String { values.object(object) + "\n" }
}
