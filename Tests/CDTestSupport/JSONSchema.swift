import Foundation

/// A parsed JSON document, kept exact enough to validate: booleans stay apart from numbers (which
/// `JSONSerialization` merges on some platforms), and object keys keep no order.
public indirect enum JSONValue: Equatable, Sendable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses one JSON document.
    public init(parsing text: String) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    public init(from decoder: Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
        } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [String: JSONValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(members)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? single.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
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

    /// A validator for `schema`; `load` returns the sibling schema file of a given name.
    public init(schema: JSONValue, name: String = "schema", load: ((String) throws -> JSONValue)? = nil) {
        root = schema
        rootName = name
        self.load = load
    }

    /// A validator for the schema file `name` in `folder`, whose `$ref`s to other files resolve
    /// in the same folder.
    public init(file name: String, in folder: URL) throws {
        let read: (String) throws -> JSONValue = { file in
            try JSONValue(parsing: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
        self.init(schema: try read(name), name: name, load: read)
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
            guard let expression = try? NSRegularExpression(pattern: pattern) else {
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
