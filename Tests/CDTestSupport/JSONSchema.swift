import CDMaintenance
import Foundation

extension JSONValue {
    /// One whole JSON document, read with the importer's strict RFC 8259 scanner; anything but
    /// white space after it is an error.
    package init(parsing text: String) throws {
        var scanner = JSONScanner(Data(text.utf8))
        self = try scanner.value()
        guard scanner.atEnd else { throw scanner.error("text after the document") }
    }

    /// The JSON Schema type names that describe this value (a whole number is also an `integer`).
    var typeNames: Set<String> {
        switch self {
        case .null: return ["null"]
        case .bool: return ["boolean"]
        case .number(let text): return Double(text).map { $0.rounded(.towardZero) == $0 } == true ? ["number", "integer"] : ["number"]
        case .string: return ["string"]
        case .array: return ["array"]
        case .object: return ["object"]
        }
    }

    /// An object's members by key (the first of a repeated key), or nil for any other value.
    package var members: [String: JSONValue]? {
        guard case .object(let pairs) = self else { return nil }
        return Dictionary(pairs.map { ($0.key, $0.value) }) { first, _ in first }
    }

    /// Equality as JSON Schema sees it: numbers by value, objects whatever their key order.
    func same(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.number(let a), .number(let b)): return Double(a) == Double(b)
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.same(as: $1) }
        case (.object, .object):
            guard let a = members, let b = other.members, a.count == b.count else { return false }
            return a.allSatisfy { key, value in b[key].map { value.same(as: $0) } ?? false }
        default: return self == other
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
package struct JSONSchemaValidator {
    /// A schema that cannot be used: bad JSON, a keyword outside the subset, a `$ref` that leads
    /// nowhere.
    package struct SchemaError: Error, CustomStringConvertible {
        package let description: String
    }

    static let annotations: Set<String> = ["$schema", "$id", "$defs", "title", "description"]
    static let keywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "minItems",
        "enum", "const", "oneOf", "anyOf", "minimum", "maximum", "minLength", "pattern", "$ref",
    ]

    /// Reads the sibling schema file a `$ref` names; nil when the schema stands alone.
    private let load: ((String) throws -> JSONValue)?
    private let root: JSONValue
    private let rootName: String
    private let patterns = PatternCache()

    /// A validator for `schema`; `load` returns the sibling schema file of a given name.
    package init(schema: JSONValue, name: String = "schema", load: ((String) throws -> JSONValue)? = nil) {
        root = schema
        rootName = name
        self.load = load
    }

    /// A validator for the schema file `name` in `folder`, or for the part of it at `pointer`
    /// (`/$defs/object`: one line of NDJSON output). `$ref`s to other files resolve in the same
    /// folder.
    package init(file name: String, in folder: URL, at pointer: String = "") throws {
        let read: (String) throws -> JSONValue = { file in
            try JSONValue(parsing: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
        if pointer.isEmpty {
            self.init(schema: try read(name), name: name, load: read)
        } else {
            self.init(schema: .object([("$ref", .string("\(name)#\(pointer)"))]), name: "\(name)#\(pointer)", load: read)
        }
    }

    /// Every way `document` breaks the schema, as `path: problem` lines; empty when it conforms.
    /// Throws when the schema itself is unusable.
    package func problems(in document: JSONValue) throws -> [String] {
        var found: [String] = []
        try check(document, against: root, in: (rootName, root), at: "$", into: &found)
        return found
    }

    private func check(
        _ value: JSONValue, against schema: JSONValue, in file: (name: String, document: JSONValue),
        at path: String, into found: inout [String]
    ) throws {
        if case .bool(let allowed) = schema {
            if !allowed { found.append("\(path): no value is allowed here") }
            return
        }
        guard let keywords = schema.members else { throw SchemaError(description: "\(file.name): a schema must be an object or a boolean, at \(path)") }
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
        if let constant = keywords["const"], !value.same(as: constant) {
            found.append("\(path): expected \(Self.summary(constant)), found \(Self.summary(value))")
        }
        if case .array(let choices)? = keywords["enum"], !choices.contains(where: value.same(as:)) {
            found.append("\(path): \(Self.summary(value)) is not one of \(choices.map(Self.summary).joined(separator: ", "))")
        }
        try checkNumber(value, keywords, at: path, into: &found)
        try checkString(value, keywords, file: file.name, at: path, into: &found)
        try checkArray(value, keywords, in: file, at: path, into: &found)
        try checkObject(value, keywords, in: file, at: path, into: &found)
        try checkAlternatives(value, keywords, in: file, at: path, into: &found)
    }

    private func checkNumber(_ value: JSONValue, _ keywords: [String: JSONValue], at path: String, into found: inout [String]) throws {
        guard case .number(let text) = value, let number = Double(text) else { return }
        if case .number(let minimum)? = keywords["minimum"], let bound = Double(minimum), number < bound {
            found.append("\(path): \(text) is below the minimum \(minimum)")
        }
        if case .number(let maximum)? = keywords["maximum"], let bound = Double(maximum), number > bound {
            found.append("\(path): \(text) is above the maximum \(maximum)")
        }
    }

    private func checkString(
        _ value: JSONValue, _ keywords: [String: JSONValue], file: String, at path: String,
        into found: inout [String]
    ) throws {
        guard case .string(let text) = value else { return }
        if case .number(let length)? = keywords["minLength"], let bound = Int(length), text.count < bound {
            found.append("\(path): \(Self.summary(value)) is shorter than \(bound) characters")
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

    private func checkArray(
        _ value: JSONValue, _ keywords: [String: JSONValue], in file: (name: String, document: JSONValue),
        at path: String, into found: inout [String]
    ) throws {
        guard case .array(let elements) = value else { return }
        if case .number(let count)? = keywords["minItems"], let bound = Int(count), elements.count < bound {
            found.append("\(path): \(elements.count) items, fewer than \(bound)")
        }
        if let items = keywords["items"] {
            for (index, element) in elements.enumerated() {
                try check(element, against: items, in: file, at: "\(path)[\(index)]", into: &found)
            }
        }
    }

    private func checkObject(
        _ value: JSONValue, _ keywords: [String: JSONValue], in file: (name: String, document: JSONValue),
        at path: String, into found: inout [String]
    ) throws {
        guard case .object(let pairs) = value, let members = value.members else { return }
        var seen: Set<String> = []
        for pair in pairs where !seen.insert(pair.key).inserted {
            found.append("\(path): the key \"\(pair.key)\" appears twice")
        }
        if case .array(let required)? = keywords["required"] {
            for case .string(let key) in required where members[key] == nil {
                found.append("\(path): the key \"\(key)\" is missing")
            }
        }
        let declared = keywords["properties"]?.members ?? [:]
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

    private func checkAlternatives(
        _ value: JSONValue, _ keywords: [String: JSONValue], in file: (name: String, document: JSONValue),
        at path: String, into found: inout [String]
    ) throws {
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
            guard let next = node.members?[String(token)] else {
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
        case .number(let text): return text
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
