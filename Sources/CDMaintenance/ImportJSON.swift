import CDStore
import Foundation

/// A JSON value as the importer needs it: numbers keep their text, so an Integer 64 beyond
/// 2^53 or a Decimal is not rounded through a double before its attribute type is known, and
/// objects keep their keys in input order, so errors name the first offending key.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number exactly as written (RFC 8259 grammar checked).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)), (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// What the value is, for "expected …, got …" messages.
    var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A strict RFC 8259 reader over the bytes of an input file that yields one value at a time, so
/// the importer can walk a large array object by object instead of building it whole. (The
/// tests read whole documents with it too, to check `--json` output against its schema.)
package struct JSONScanner {
    private let bytes: [UInt8]
    private(set) var position = 0

    package init(_ data: Data) {
        bytes = [UInt8](data)
    }

    package var atEnd: Bool {
        mutating get {
            skipWhitespace()
            return position >= bytes.count
        }
    }

    /// The next non-whitespace byte, not consumed.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw error("expected '\(Character(Unicode.Scalar(byte)))'") }
        position += 1
    }

    /// Consumes `byte` if it comes next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    package mutating func value(depth: Int = 0) throws -> JSONValue {
        guard depth < 512 else { throw error("nested too deeply") }
        guard let byte = peek() else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"):
            position += 1
            var members: [(key: String, value: JSONValue)] = []
            if consume(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                guard peek() == UInt8(ascii: "\"") else { throw error("expected a key string") }
                let key = try string()
                try expect(UInt8(ascii: ":"))
                members.append((key, try value(depth: depth + 1)))
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
            return .object(members)
        case UInt8(ascii: "["):
            position += 1
            var items: [JSONValue] = []
            if consume(UInt8(ascii: "]")) { return .array(items) }
            repeat {
                items.append(try value(depth: depth + 1))
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
            return .array(items)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default:
            throw error("unexpected character '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    /// A string starting at the current `"`.
    mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        var utf8: [UInt8] = []
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw error("unterminated string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: try unicodeEscape())
                default: throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
            case 0..<0x20:
                throw error("control character in a string")
            default:
                utf8.append(byte)
            }
        }
    }

    /// `\uXXXX`, joining a surrogate pair; a lone surrogate becomes U+FFFD.
    private mutating func unicodeEscape() throws -> [UInt8] {
        var code = try hex4()
        if (0xD800..<0xDC00).contains(code), bytes[position...].starts(with: Array("\\u".utf8)) {
            let saved = position
            position += 2
            let low = try hex4()
            if (0xDC00..<0xE000).contains(low) {
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else {
                position = saved
            }
        }
        let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func hex4() throws -> UInt32 {
        guard position + 4 <= bytes.count,
            let code = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
        else {
            throw error("invalid \\u escape")
        }
        position += 4
        return code
    }

    private mutating func number() throws -> String {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - first
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let leading = position
        guard digits() > 0 else { throw error("invalid number") }
        if bytes[leading] == UInt8(ascii: "0"), position - leading > 1 { throw error("invalid number (leading zero)") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("invalid number") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error("invalid number") }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func literal(_ word: String) throws {
        let utf8 = Array(word.utf8)
        guard bytes[position...].starts(with: utf8) else { throw error("unexpected character") }
        position += utf8.count
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    /// A one-line error with the line and column of the current position.
    package func error(_ message: String) -> ImportError {
        let before = bytes[..<min(position, bytes.count)]
        let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let column = before.count - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return .malformedJSON(line: line, column: column, reason: message)
    }
}

/// One object of the import input, with where it came from for error messages.
package struct ImportObject: Sendable {
    package var entity: String
    /// Its local ID (`_id`), if it has one.
    package var id: String?
    /// Its keys other than `_entity` and `_id`, in input order.
    package var properties: [(key: String, value: JSONValue)]
    /// 1-based: the position in the input (array, NDJSON) or in its entity's array (keyed form).
    package var index: Int

    /// `Book #3` or `Book #3 (_id "b1")`: how error messages name the object.
    package var label: String {
        id.map { "\(entity) #\(index) (_id \"\($0)\")" } ?? "\(entity) #\(index)"
    }
}

/// The JSON given to `cdstore create --import`, in any of its three forms, read object by
/// object (each pass of the importer walks it again rather than keeping the objects):
///
/// - an array of objects, each with `_entity` and `_id` (what `cdstore dump --format json` prints);
/// - NDJSON, one such object per line (what `--format ndjson` prints);
/// - an object whose keys are entity names and whose values are arrays of objects (hand-written
///   seeds; `_id` optional, `_entity` optional and, if present, equal to the key).
package struct ImportInput: Sendable {
    package let data: Data

    package init(data: Data) {
        self.data = data
    }

    package init(contentsOf path: String) throws {
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ImportError.cannotRead(path: path, reason: error.localizedDescription)
        }
    }

    /// Calls `body` with each object of the array whose `[` the scanner has just read, through
    /// its `]`, numbering them from 1 for error messages.
    private static func forEachElement(
        _ scanner: inout JSONScanner, entity: String?,
        _ body: (ImportObject) throws -> Void
    ) throws {
        guard !scanner.consume(UInt8(ascii: "]")) else { return }
        var index = 0
        repeat {
            index += 1
            try body(try object(scanner.value(), index: index, entity: entity))
        } while scanner.consume(UInt8(ascii: ","))
        try scanner.expect(UInt8(ascii: "]"))
    }

    /// Calls `body` with every object in input order (none for an empty file, as NDJSON of an
    /// empty store is).
    package func forEachObject(_ body: (ImportObject) throws -> Void) throws {
        var scanner = JSONScanner(data)
        switch scanner.peek() {
        case UInt8(ascii: "["):
            try scanner.expect(UInt8(ascii: "["))
            try Self.forEachElement(&scanner, entity: nil, body)
        case UInt8(ascii: "{"):
            if try Self.startsWithReservedKey(scanner) {
                var index = 0
                while !scanner.atEnd {
                    index += 1
                    try body(try Self.object(scanner.value(), index: index, entity: nil))
                }
                return
            }
            try scanner.expect(UInt8(ascii: "{"))
            if !scanner.consume(UInt8(ascii: "}")) {
                repeat {
                    guard scanner.peek() == UInt8(ascii: "\"") else { throw scanner.error("expected an entity name") }
                    let entity = try scanner.string()
                    try scanner.expect(UInt8(ascii: ":"))
                    guard scanner.consume(UInt8(ascii: "[")) else {
                        throw ImportError.notAnArray(entity: entity)
                    }
                    try Self.forEachElement(&scanner, entity: entity, body)
                } while scanner.consume(UInt8(ascii: ","))
                try scanner.expect(UInt8(ascii: "}"))
            }
        case nil:
            return
        default:
            _ = try scanner.value()
            throw scanner.error("expected an array of objects, NDJSON objects or an object of entity arrays")
        }
        guard scanner.atEnd else { throw scanner.error("unexpected text after the JSON value") }
    }

    /// An NDJSON line has an `_entity` key; a keyed seed's keys are entity names, which cannot
    /// start with an underscore. Looks at the first top-level object only.
    private static func startsWithReservedKey(_ scanner: JSONScanner) throws -> Bool {
        var lookahead = scanner
        guard case .object(let members) = try lookahead.value() else { return false }
        return members.contains { $0.key == "_entity" }
    }

    private static func object(_ value: JSONValue, index: Int, entity: String?) throws -> ImportObject {
        let place = entity.map { "\($0) #\(index)" } ?? "object #\(index)"
        guard case .object(let members) = value else {
            throw ImportError.notAnObject(object: place, kind: value.kind)
        }
        var named = entity
        var id: String?
        var properties: [(key: String, value: JSONValue)] = []
        for member in members {
            switch member.key {
            case "_entity":
                guard case .string(let name) = member.value else {
                    throw ImportError.entityNotAString(object: place, kind: member.value.kind)
                }
                if let entity, entity != name {
                    throw ImportError.entityMismatch(object: place, named: name, array: entity)
                }
                named = name
            case "_id":
                guard case .string(let text) = member.value else {
                    throw ImportError.idNotAString(object: place, kind: member.value.kind)
                }
                id = text
            default:
                properties.append(member)
            }
        }
        guard let named else { throw ImportError.noEntity(object: place) }
        return ImportObject(entity: named, id: id, properties: properties, index: index)
    }
}
