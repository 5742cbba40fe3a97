import CDStore

/// The text formats' values written in place: the same bytes as ``PlainValues/text(_:)`` and
/// ``DescriptionRenderer/plistString(_:)``, without a `String` per value.
extension PlainValues {
    /// Writes ``text(_:)`` of property `index` of `row`, read in place as `value`. Writes
    /// nothing for ``BorrowedValue/other``: callers decode that one with ``ObjectRow/value(_:)``
    /// and write its ``text(_:)``, after deciding whether to show it at all.
    func append(
        _ value: BorrowedValue, of row: borrowing ObjectRow, property index: Int, targets: TargetPrefixes,
        to buffer: inout OutputBuffer
    ) {
        switch value {
        case .other: break
        case .null: buffer.append(null)
        case .integer(let i): buffer.append(i)
        case .boolean(let b): buffer.append(UInt8(ascii: b ? "1" : "0"))
        case .decimal(let d), .double(let d): buffer.appendNumber(d)
        case .date(let t): buffer.appendCoreDataDate(t)
        case .string(let utf8): buffer.append(utf8)
        case .uuid(let bytes): buffer.appendUUID(bytes)
        case .object(let ent, let pk): targets.appendURI(row, property: index, ent: ent, pk: pk, to: &buffer)
        }
    }
}

/// A property's value as the text formats read it from a row: in place when it can be, decoded
/// otherwise (see ``BorrowedValue/other``).
enum PropertyValue {
    case inPlace(BorrowedValue)
    case decoded(ObjectValue)
}

extension PlainValues {
    /// Property `index` of `row`, or nil when it is binary data and ``binary`` is
    /// ``BinaryMode/omit`` (the formats that list properties by name leave those out).
    func read(_ index: Int, of row: borrowing ObjectRow) throws -> PropertyValue? {
        let value = row.borrowedValue(index)
        guard case .other = value else { return .inPlace(value) }
        let full = try row.value(index)
        if binary == .omit, case .binary = full { return nil }
        return .decoded(full)
    }

    /// Writes ``text(_:)`` of `value`, property `index` of `row`.
    func append(
        _ value: PropertyValue, of row: borrowing ObjectRow, property index: Int, targets: TargetPrefixes,
        to buffer: inout OutputBuffer
    ) {
        switch value {
        case .inPlace(let borrowed): append(borrowed, of: row, property: index, targets: targets, to: &buffer)
        case .decoded(let decoded): buffer.append(text(decoded))
        }
    }
}

/// What a piece of text holds, found in one pass over its UTF-8 bytes: enough to tell when a
/// text format may quote, escape or measure it byte by byte. A `String`'s characters are
/// grapheme clusters (`"\r\n"` is one, so is a space followed by a combining accent), so text
/// with bytes beyond ASCII, or with a carriage return, goes through `String` as it always did.
struct TextBytes: OptionSet {
    let rawValue: UInt8

    static let nonASCII = TextBytes(rawValue: 1)
    static let space = TextBytes(rawValue: 2)
    static let apostrophe = TextBytes(rawValue: 4)
    static let lineFeed = TextBytes(rawValue: 8)
    static let carriageReturn = TextBytes(rawValue: 16)

    init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    init(_ utf8: UnsafeBufferPointer<UInt8>) {
        var found: UInt8 = 0
        for byte in utf8 {
            if byte >= 0x80 {
                found |= Self.nonASCII.rawValue
            } else if byte <= 0x27 {
                switch byte {
                case 0x20: found |= Self.space.rawValue
                case 0x27: found |= Self.apostrophe.rawValue
                case 0x0A: found |= Self.lineFeed.rawValue
                case 0x0D: found |= Self.carriageReturn.rawValue
                default: break
                }
            }
        }
        rawValue = found
    }

    /// Whether every character of the text is one byte, so characters can be counted and cut
    /// as bytes.
    var isOneBytePerCharacter: Bool { isDisjoint(with: [.nonASCII, .carriageReturn]) }
}

extension OutputBuffer {
    /// ``DescriptionRenderer/plistString(_:)`` of valid UTF-8 (a ``BorrowedValue/string(_:)``):
    /// bare when purely ASCII letters and digits, otherwise quoted, escaped by UTF-16 unit.
    mutating func appendPlistString(_ utf8: UnsafeBufferPointer<UInt8>) {
        if !utf8.isEmpty && utf8.allSatisfy(Self.isASCIIAlphanumeric) {
            append(utf8)
            return
        }
        append(UInt8(ascii: "\""))
        var start = 0
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C {
                index += 1
                continue
            }
            append(UnsafeBufferPointer(rebasing: utf8[start..<index]))
            if byte < 0x80 {
                switch byte {
                case 0x22: append(literal: "\\\"")
                case 0x5C: append(literal: "\\\\")
                case 0x0A: append(literal: "\\n")
                case 0x09: append(literal: "\\t")
                case 0x0D: append(literal: "\\r")
                default: appendUnicodeEscape(UInt16(byte))
                }
                index += 1
            } else {
                let (scalar, length) = Self.decodeScalar(utf8, at: index)
                if scalar <= 0xFFFF {
                    appendUnicodeEscape(UInt16(scalar))
                } else {
                    let offset = scalar - 0x10000
                    appendUnicodeEscape(UInt16(0xD800 + (offset >> 10)))
                    appendUnicodeEscape(UInt16(0xDC00 + (offset & 0x3FF)))
                }
                index += length
            }
            start = index
        }
        append(UnsafeBufferPointer(rebasing: utf8[start...]))
        append(UInt8(ascii: "\""))
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }

    /// `\Uxxxx`: one UTF-16 unit in lower-case hex, as `String(format: "\\U%04x", unit)`.
    private mutating func appendUnicodeEscape(_ unit: UInt16) {
        append(literal: "\\U")
        for shift in stride(from: 12, through: 0, by: -4) {
            append(Self.hexDigits[Int(unit >> UInt16(shift) & 0xF)])
        }
    }

    /// The scalar starting at `index` of valid UTF-8 with a lead byte of 0xC2 or above, and
    /// its length in bytes.
    private static func decodeScalar(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int) {
        let lead = UInt32(utf8[index])
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        var scalar = lead & (0x7F >> UInt32(length))
        for offset in 1..<length {
            scalar = scalar << 6 | UInt32(utf8[index + offset] & 0x3F)
        }
        return (scalar, length)
    }
}
