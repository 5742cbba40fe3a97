/// The backslash escapes of a Ruby double-quoted string, decoded as Ruby does, for the two Ruby
/// readers (CDQ queries and ruby-xcdm schemas):
/// * `\n \t \r \s \e \a \b \f \v`, `\0`;
/// * `\x41` (one or two hex digits) and `\101` (one to three octal digits) are bytes: below
///   0x80 the character itself, above it part of a UTF-8 sequence (`"\xC3\xA9"` is `é`);
/// * `\u0041` (exactly four hex digits) and `\u{41}`, `\u{41 1F600}` (code points in braces);
/// * a backslash before a line break continues the line; before anything else it stands for
///   that character (`\\`, `\"`, `\#`, `\q`).
package enum RubyStringEscape {
    /// What one escape stands for.
    package enum Decoded: Equatable, Sendable {
        case text(String)
        /// A byte from `\x` or an octal escape, 0x80 or above: part of a UTF-8 sequence.
        case byte(UInt8)
        /// A backslash before a line break: nothing.
        case lineContinuation
    }

    /// An escape Ruby refuses, such as `\x` without a hex digit.
    package struct Failure: Error, Equatable, Sendable {
        package let message: String

        package init(message: String) {
            self.message = message
        }
    }

    /// Decodes the escape that follows a backslash. `unit(i)` is the i-th unit of the text after
    /// the backslash as one scalar, or nil past the end (a reader that works on Characters gives
    /// nil for a Character of several scalars, which no escape reads). Returns what the escape
    /// stands for and how many units it takes.
    package static func decode(_ unit: (Int) -> Unicode.Scalar?) throws(Failure) -> (Decoded, length: Int) {
        guard let escaped = unit(0) else { throw Failure(message: "a backslash must be followed by a character") }
        func digits(from start: Int, upTo count: Int, radix: Int) -> String {
            var digits = ""
            while digits.count < count, let scalar = unit(start + digits.count), scalar.isASCII,
                Int(String(scalar), radix: radix) != nil
            {
                digits.unicodeScalars.append(scalar)
            }
            return digits
        }
        switch escaped {
        case "n": return (.text("\n"), 1)
        case "t": return (.text("\t"), 1)
        case "\r" where unit(1) == "\n": return (.lineContinuation, 2)
        case "r": return (.text("\r"), 1)
        case "s": return (.text(" "), 1)
        case "e": return (.text("\u{1B}"), 1)
        case "a": return (.text("\u{07}"), 1)
        case "b": return (.text("\u{08}"), 1)
        case "f": return (.text("\u{0C}"), 1)
        case "v": return (.text("\u{0B}"), 1)
        case "\n": return (.lineContinuation, 1)
        case "x":
            let hex = digits(from: 1, upTo: 2, radix: 16)
            guard let value = UInt8(hex, radix: 16) else { throw Failure(message: "invalid hex escape: expected hexadecimal digits after \\x") }
            return (byteOrText(value), 1 + hex.count)
        case "0"..."7":
            let octal = digits(from: 0, upTo: 3, radix: 8)
            // Ruby keeps the low eight bits of `\400` … `\777`.
            let value = UInt8(truncatingIfNeeded: Int(octal, radix: 8) ?? 0)
            return (byteOrText(value), octal.count)
        case "u":
            return try unicodeEscape(unit)
        default:
            return (.text(String(escaped)), 1)
        }
    }

    private static func byteOrText(_ value: UInt8) -> Decoded {
        value < 0x80 ? .text(String(Unicode.Scalar(value))) : .byte(value)
    }

    /// `\uXXXX`, or `\u{…}` with code points separated by spaces or tabs.
    private static func unicodeEscape(_ unit: (Int) -> Unicode.Scalar?) throws(Failure) -> (Decoded, length: Int) {
        func scalar(_ hex: String) throws(Failure) -> Unicode.Scalar {
            guard let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                throw Failure(message: "invalid Unicode escape: \\u\(hex) is not a Unicode scalar value")
            }
            return scalar
        }
        func isHex(_ scalar: Unicode.Scalar?) -> Bool { scalar?.properties.isASCIIHexDigit == true }
        guard unit(1) == "{" else {
            var hex = ""
            while hex.count < 4, let next = unit(1 + hex.count), isHex(next) { hex.unicodeScalars.append(next) }
            guard hex.count == 4 else { throw Failure(message: "invalid Unicode escape: expected four hexadecimal digits after \\u") }
            return (.text(String(try scalar(hex))), 5)
        }
        var length = 2
        var text = ""
        var codePoints = 0
        while true {
            while unit(length) == " " || unit(length) == "\t" { length += 1 }
            if unit(length) == "}" { break }
            var hex = ""
            while hex.count <= 6, let next = unit(length), isHex(next) {
                hex.unicodeScalars.append(next)
                length += 1
            }
            guard !hex.isEmpty, hex.count <= 6 else {
                throw Failure(
                    message: unit(length) == nil
                        ? "unterminated Unicode escape: no closing }"
                        : "invalid Unicode escape: expected hex digits in \\u{…}")
            }
            text.unicodeScalars.append(try scalar(hex))
            codePoints += 1
        }
        guard codePoints > 0 else { throw Failure(message: "invalid Unicode escape: \\u{} holds no code point") }
        return (.text(text), length + 1)
    }
}

/// A Ruby string being decoded: text and escaped bytes in order, each remembering the source
/// offset it came from. Escaped bytes must form UTF-8 together with what surrounds them.
package struct RubyStringBuffer: Sendable {
    private var utf8: [UInt8] = []
    private var sources: [Int] = []

    package init() {}

    package mutating func append(_ text: String, from source: Int) {
        for byte in text.utf8 {
            utf8.append(byte)
            sources.append(source)
        }
    }

    package mutating func append(_ decoded: RubyStringEscape.Decoded, from source: Int) {
        switch decoded {
        case .text(let text): append(text, from: source)
        case .byte(let byte):
            utf8.append(byte)
            sources.append(source)
        case .lineContinuation: break
        }
    }

    /// The string and, for each of its Characters, the source offset of its first byte; nil
    /// when escaped bytes do not form valid UTF-8.
    package func decoded() -> (value: String, characterSources: [Int])? {
        guard let value = String(validating: utf8, as: UTF8.self) else { return nil }
        var characterSources: [Int] = []
        var byteIndex = 0
        for character in value {
            characterSources.append(sources[byteIndex])
            byteIndex += character.utf8.count
        }
        return (value, characterSources)
    }
}
