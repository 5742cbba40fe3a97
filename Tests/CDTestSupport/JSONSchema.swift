import Foundation

/// A parsed JSON document, kept exact enough to validate: booleans stay apart from numbers (which
/// `JSONSerialization` merges on some platforms), and object keys keep no order.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// JSON text that does not parse, with the byte offset where it stops making sense.
    public struct SyntaxError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parses one JSON document (RFC 8259); anything but white space after it is an error.
    public init(parsing text: String) throws {
        var parser = JSONParser(bytes: Array(text.utf8))
        self = try parser.document()
    }

    /// The JSON Schema type names that describe this value (a whole number is also a `number`).
    var typeNames: Set<String> {
        switch self {
        case .null: return ["null"]
        case .bool: return ["boolean"]
        case .number(let value): return value.rounded(.towardZero) == value && value.isFinite ? ["number", "integer"] : ["number"]
        case .string: return ["string"]
        case .array: return ["array"]
        case .object: return ["object"]
        }
    }
}

/// A validator for the part of JSON Schema (draft 2020-12) that `schemas/*.schema.json` use:
/// `type`, `properties`, `required`, `additionalProperties`, `items`, `minItems`, `enum`,
/// `const`, `oneOf`, `anyOf`, `minimum`, `maximum`, `minLength`, `pattern` and `$ref` to
/// `#/$defs/…` in the same file or to a sibling file (`other.schema.json#/$defs/…`).
///
/// Any other keyword is reported as an error instead of being ignored, so a schema cannot seem
/// to check something this validator does not. `$schema`, `$id`, `$defs`, `title` and
/// `description` are annotations and are accepted.
public struct JSONSchemaValidator {
    /// A schema that cannot be used: bad JSON, a keyword outside the subset, a `$ref` that leads
    /// nowhere.
    public struct SchemaError: Error, CustomStringConvertible {
        public let description: String
    }

    static let annotations: Set<String> = ["$schema", "$id", "$defs", "title", "description"]
    static let keywords: Set<String> = ["type", "properties", "required", "additionalProperties", "items", "minItems",
                                        "enum", "const", "oneOf", "anyOf", "minimum", "maximum", "minLength", "pattern", "$ref"]

    /// Reads the sibling schema file a `$ref` names; nil when the schema stands alone.
    private let load: ((String) throws -> JSONValue)?
    private let root: JSONValue
    private let rootName: String
    private let patterns = PatternCache()

    /// A validator for `schema`; `load` returns the sibling schema file of a given name.
    public init(schema: JSONValue, name: String = "schema", load: ((String) throws -> JSONValue)? = nil) {
        root = schema
        rootName = name
        self.load = load
    }

    /// A validator for the schema file `name` in `folder`, or for the part of it at `pointer`
    /// (`/$defs/object`: one line of NDJSON output). `$ref`s to other files resolve in the same
    /// folder.
    public init(file name: String, in folder: URL, at pointer: String = "") throws {
        let read: (String) throws -> JSONValue = { file in
            try JSONValue(parsing: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
        if pointer.isEmpty {
            self.init(schema: try read(name), name: name, load: read)
        } else {
            self.init(schema: .object(["$ref": .string("\(name)#\(pointer)")]), name: "\(name)#\(pointer)", load: read)
        }
    }

    /// Every way `document` breaks the schema, as `path: problem` lines; empty when it conforms.
    /// Throws when the schema itself is unusable.
    public func problems(in document: JSONValue) throws -> [String] {
        var found: [String] = []
        try check(document, against: root, in: (rootName, root), at: "$", into: &found)
        return found
    }

    private func check(_ value: JSONValue, against schema: JSONValue, in file: (name: String, document: JSONValue),
                       at path: String, into found: inout [String]) throws {
        if case .bool(let allowed) = schema {
            if !allowed { found.append("\(path): no value is allowed here") }
            return
        }
        guard case .object(let keywords) = schema else { throw SchemaError(description: "\(file.name): a schema must be an object or a boolean, at \(path)") }
        for keyword in keywords.keys where !Self.keywords.contains(keyword) && !Self.annotations.contains(keyword) {
            throw SchemaError(description: "\(file.name): keyword \(keyword) is not supported by this validator")
        }
        if case .string(let reference)? = keywords["$ref"] {
            let (target, targetFile) = try resolve(reference, from: file)
            try check(value, against: target, in: targetFile, at: path, into: &found)
        }
        if let type = keywords["type"] {
            let allowed: [String]
            switch type {
            case .string(let name): allowed = [name]
            case .array(let names): allowed = names.compactMap { if case .string(let name) = $0 { return name } else { return nil } }
            default: throw SchemaError(description: "\(file.name): type must be a name or a list of names")
            }
            if value.typeNames.isDisjoint(with: allowed) {
                found.append("\(path): expected \(allowed.joined(separator: " or ")), found \(Self.summary(value))")
                return
            }
        }
        if let constant = keywords["const"], value != constant {
            found.append("\(path): expected \(Self.summary(constant)), found \(Self.summary(value))")
        }
        if case .array(let choices)? = keywords["enum"], !choices.contains(value) {
            found.append("\(path): \(Self.summary(value)) is not one of \(choices.map(Self.summary).joined(separator: ", "))")
        }
        try checkNumber(value, keywords, at: path, into: &found)
        try checkString(value, keywords, file: file.name, at: path, into: &found)
        try checkArray(value, keywords, in: file, at: path, into: &found)
        try checkObject(value, keywords, in: file, at: path, into: &found)
        try checkAlternatives(value, keywords, in: file, at: path, into: &found)
    }

    private func checkNumber(_ value: JSONValue, _ keywords: [String: JSONValue], at path: String, into found: inout [String]) throws {
        guard case .number(let number) = value else { return }
        if case .number(let minimum)? = keywords["minimum"], number < minimum {
            found.append("\(path): \(Self.summary(value)) is below the minimum \(Self.summary(.number(minimum)))")
        }
        if case .number(let maximum)? = keywords["maximum"], number > maximum {
            found.append("\(path): \(Self.summary(value)) is above the maximum \(Self.summary(.number(maximum)))")
        }
    }

    private func checkString(_ value: JSONValue, _ keywords: [String: JSONValue], file: String, at path: String,
                             into found: inout [String]) throws {
        guard case .string(let text) = value else { return }
        if case .number(let length)? = keywords["minLength"], Double(text.count) < length {
            found.append("\(path): \(Self.summary(value)) is shorter than \(Int(length)) characters")
        }
        if case .string(let pattern)? = keywords["pattern"] {
            guard let expression = patterns.expression(pattern) else {
                throw SchemaError(description: "\(file): pattern \(pattern) is not a regular expression")
            }
            let whole = NSRange(text.startIndex..., in: text)
            if expression.firstMatch(in: text, range: whole) == nil {
                found.append("\(path): \(Self.summary(value)) does not match \(pattern)")
            }
        }
    }

    private func checkArray(_ value: JSONValue, _ keywords: [String: JSONValue], in file: (name: String, document: JSONValue),
                            at path: String, into found: inout [String]) throws {
        guard case .array(let elements) = value else { return }
        if case .number(let count)? = keywords["minItems"], Double(elements.count) < count {
            found.append("\(path): \(elements.count) items, fewer than \(Int(count))")
        }
        if let items = keywords["items"] {
            for (index, element) in elements.enumerated() {
                try check(element, against: items, in: file, at: "\(path)[\(index)]", into: &found)
            }
        }
    }

    private func checkObject(_ value: JSONValue, _ keywords: [String: JSONValue], in file: (name: String, document: JSONValue),
                             at path: String, into found: inout [String]) throws {
        guard case .object(let members) = value else { return }
        if case .array(let required)? = keywords["required"] {
            for case .string(let key) in required where members[key] == nil {
                found.append("\(path): the key \"\(key)\" is missing")
            }
        }
        var declared: [String: JSONValue] = [:]
        if case .object(let properties)? = keywords["properties"] { declared = properties }
        for (key, member) in members.sorted(by: { $0.key < $1.key }) {
            if let property = declared[key] {
                try check(member, against: property, in: file, at: "\(path).\(key)", into: &found)
            } else if let additional = keywords["additionalProperties"] {
                if case .bool(false) = additional {
                    found.append("\(path): the key \"\(key)\" is not allowed")
                } else {
                    try check(member, against: additional, in: file, at: "\(path).\(key)", into: &found)
                }
            }
        }
    }

    private func checkAlternatives(_ value: JSONValue, _ keywords: [String: JSONValue], in file: (name: String, document: JSONValue),
                                   at path: String, into found: inout [String]) throws {
        if case .array(let choices)? = keywords["oneOf"] {
            let matching = try choices.filter { try conforms(value, to: $0, in: file, at: path) }.count
            if matching != 1 {
                found.append("\(path): \(matching) of the oneOf alternatives match, not exactly one")
            }
        }
        if case .array(let choices)? = keywords["anyOf"], try !choices.contains(where: { try conforms(value, to: $0, in: file, at: path) }) {
            found.append("\(path): none of the anyOf alternatives match")
        }
    }

    private func conforms(_ value: JSONValue, to schema: JSONValue, in file: (name: String, document: JSONValue), at path: String) throws -> Bool {
        var found: [String] = []
        try check(value, against: schema, in: file, at: path, into: &found)
        return found.isEmpty
    }

    /// `#/$defs/name` in `file`, or `other.json` / `other.json#/$defs/name` beside it.
    private func resolve(_ reference: String, from file: (name: String, document: JSONValue)) throws -> (JSONValue, (name: String, document: JSONValue)) {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var target = file
        if !parts[0].isEmpty {
            if parts[0] == rootName {
                target = (rootName, root)
            } else if let load {
                target = (parts[0], try load(parts[0]))
            } else {
                throw SchemaError(description: "\(file.name): $ref \(reference) names another file, and none can be loaded")
            }
        }
        var node = target.document
        let pointer = parts.count > 1 ? parts[1] : ""
        for token in pointer.split(separator: "/") {
            guard case .object(let members) = node, let next = members[String(token)] else {
                throw SchemaError(description: "\(file.name): $ref \(reference) leads nowhere")
            }
            node = next
        }
        return (node, target)
    }

    /// A short rendering of a value for messages.
    static func summary(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let bool): return String(bool)
        case .number(let number): return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .string(let text): return "\"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
        case .array(let elements): return "an array of \(elements.count)"
        case .object: return "an object"
        }
    }
}

/// Each `pattern` compiled once: a schema applies the same few to thousands of values.
private final class PatternCache {
    private var compiled: [String: NSRegularExpression] = [:]

    func expression(_ pattern: String) -> NSRegularExpression? {
        if let known = compiled[pattern] { return known }
        let expression = try? NSRegularExpression(pattern: pattern)
        compiled[pattern] = expression
        return expression
    }
}

/// A recursive-descent JSON parser over UTF-8 bytes: the documents the tests check are up to a
/// few megabytes, which `JSONDecoder` walks far more slowly through `Decodable`.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    mutating func document() throws -> JSONValue {
        let value = try self.value()
        skipSpace()
        guard index == bytes.count else { throw failure("text after the document") }
        return value
    }

    private func failure(_ problem: String) -> JSONValue.SyntaxError {
        JSONValue.SyntaxError(description: "not JSON at byte \(index): \(problem)")
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func value() throws -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw failure("the document ends early") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: String) throws {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw failure("expected \(word)")
        }
        index += expected.count
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { throw failure("expected \(Character(UnicodeScalar(byte)))") }
        index += 1
    }

    /// Whether the next byte (after white space) is `byte`; consumes it if so.
    private mutating func next(is byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func object() throws -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        if next(is: UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            try expect(UInt8(ascii: ":"))
            guard members.updateValue(try value(), forKey: key) == nil else { throw failure("the key \"\(key)\" appears twice") }
        } while next(is: UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
        return .object(members)
    }

    private mutating func array() throws -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        if next(is: UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            elements.append(try value())
        } while next(is: UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
        return .array(elements)
    }

    private mutating func string() throws -> String {
        index += 1
        var utf8: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: try unicodeEscape())
                default: throw failure("unknown escape \\\(Character(UnicodeScalar(escaped)))")
                }
            case 0..<0x20:
                throw failure("a control character inside a string")
            default:
                utf8.append(byte)
            }
        }
        throw failure("a string that does not end")
    }

    /// The UTF-8 of `\uXXXX`, or of a surrogate pair `\uD83D\uDE00`.
    private mutating func unicodeEscape() throws -> [UInt8] {
        var unit = try hexUnit()
        if (0xD800..<0xDC00).contains(unit) {
            try literal("\\u")
            let low = try hexUnit()
            guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = UnicodeScalar(unit) else { throw failure("a lone surrogate") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func hexUnit() throws -> UInt32 {
        guard index + 4 <= bytes.count, let unit = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw failure("expected four hex digits")
        }
        index += 4
        return unit
    }

    private mutating func number() throws -> Double {
        let start = index
        let allowed = Set("+-.eE0123456789".utf8)
        while index < bytes.count, allowed.contains(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard !text.isEmpty, text.first != "+", !text.hasPrefix("."), let number = Double(text) else {
            throw failure("expected a value")
        }
        return number
    }
}
