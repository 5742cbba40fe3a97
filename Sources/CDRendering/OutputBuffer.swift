import CDBase
import CDStore

/// Output bytes under construction. Renderers append to it directly: building millions of small
/// `String`s was most of a dump's run time (scripts/bench-dump.sh).
///
/// The bytes live in memory of its own rather than in an `[UInt8]`: a dump appends ten or so
/// pieces per object, and `Array`'s generic append path cost more than formatting them. Numbers
/// and dates are written straight into reserved room (``append(upTo:_:)``). Copies share the
/// memory until one of them writes, like an array's.
package struct OutputBuffer: @unchecked Sendable {
    /// Fixed-size heap memory. Immutable apart from the bytes themselves, which only a buffer
    /// holding the sole reference writes; the count lives in the buffer, so that copies may
    /// share a storage.
    private final class Storage {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        deinit { base.deallocate() }
    }

    private var storage: Storage
    package private(set) var count = 0

    package init(capacity: Int = 256) {
        storage = Storage(capacity: max(capacity, 16))
    }

    package var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    package var text: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: storage.base, count: count))
    }

    /// Drops the bytes from `offset` on: a renderer that wrote a value in place and finds it must
    /// be quoted or escaped rewrites it from there.
    mutating func removeSuffix(from offset: Int) {
        count = min(max(offset, 0), count)
    }

    /// The bytes from `offset` on.
    func withUnsafeBytes<Result>(from offset: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage.base + offset, count: count - offset))
    }

    /// Empties the buffer, keeping its memory.
    package mutating func removeAll() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(capacity: storage.capacity) }
        count = 0
    }

    /// Room for `extra` more bytes after the current ones, in memory this buffer alone holds.
    @inline(__always)
    private mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if count + extra > storage.capacity || !isKnownUniquelyReferenced(&storage) {
            moveToNewStorage(minimumCapacity: count + extra)
        }
        return storage.base + count
    }

    private mutating func moveToNewStorage(minimumCapacity: Int) {
        let new = Storage(capacity: max(minimumCapacity, storage.capacity * 2))
        new.base.update(from: storage.base, count: count)
        storage = new
    }

    /// Appends the bytes `body` writes at the end of the buffer, where it has room for
    /// `capacity` of them (`body` returns how many): a number or a date is written in place.
    @inline(__always)
    mutating func append(upTo capacity: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        count += body(reserve(capacity))
    }

    package mutating func append(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let source = utf8.baseAddress, !utf8.isEmpty else { return }
        reserve(utf8.count).update(from: source, count: utf8.count)
        count += utf8.count
    }

    package mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// A literal's bytes, without the `String` that `append(_:)` would go through.
    package mutating func append(literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    package mutating func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    mutating func append(repeating byte: UInt8, count repeats: Int) {
        guard repeats > 0 else { return }
        reserve(repeats).update(repeating: byte, count: repeats)
        count += repeats
    }

    package mutating func append(_ integer: Int64) {
        if integer >= 0 && integer < 10 {
            append(UInt8(48 + integer))
            return
        }
        append(upTo: 20) { out in
            var magnitude = integer.magnitude
            var digits = 1
            var rest = magnitude / 10
            while rest > 0 { digits += 1; rest /= 10 }
            let sign = integer < 0 ? 1 : 0
            if sign == 1 { out[0] = UInt8(ascii: "-") }
            var index = sign + digits
            while magnitude >= 10 {
                index -= 2
                Self.writeTwoDigits(Int(magnitude % 100), to: out + index)
                magnitude /= 100
            }
            if index > sign { out[sign] = UInt8(48 + magnitude) }
            return sign + digits
        }
    }

    /// A double as ``ValueText/number(_:)`` writes it: whole numbers below 10^15 without a
    /// fraction, others (and infinities and NaN) in their shortest form, without the libm
    /// rounding call and the `String` that function goes through.
    mutating func appendNumber(_ value: Double) {
        if value.isFinite, abs(value) < 1e15, Double(Int64(value)) == value {
            append(Int64(value))
        } else {
            append(value.description)
        }
    }

    /// `value` in lower-case hex without leading zeros, as `String(value, radix: 16)` writes it.
    mutating func appendHex(_ value: UInt64) {
        let digits = (64 - min(value.leadingZeroBitCount, 63) + 3) / 4
        let hex = Self.lowerHexDigits.utf8Start
        append(upTo: 16) { out in
            var rest = value
            for index in stride(from: digits - 1, through: 0, by: -1) {
                out[index] = hex[Int(rest & 0xF)]
                rest >>= 4
            }
            return digits
        }
    }

    /// "00" to "99" back to back: two digits per lookup. A `StaticString` so that reading it
    /// needs no lazy initialization or bounds checks.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// Writes `value` (0...99) as two digits at `out`.
    @inline(__always)
    static func writeTwoDigits(_ value: Int, to out: UnsafeMutablePointer<UInt8>) {
        let pair = digitPairs.utf8Start + 2 * value
        out[0] = pair[0]
        out[1] = pair[1]
    }

    /// A date in Core Data's description form (``ValueText/coreDataDate(_:)``), written in place.
    mutating func appendCoreDataDate(_ secondsSince2001: Double) {
        let time = CivilTime(secondsSince2001: secondsSince2001)
        append(upTo: CivilTime.maximumTextLength) { time.writeCoreData(to: $0) }
    }

    /// A date in ISO 8601 (``ValueText/isoDate(_:)``), written in place.
    mutating func appendISODate(_ secondsSince2001: Double) {
        let time = CivilTime(secondsSince2001: secondsSince2001)
        append(upTo: CivilTime.maximumTextLength) { time.writeISO(to: $0) }
    }

    /// A JSON string literal (RFC 8259): quotes, backslashes and control characters escaped,
    /// everything else copied as UTF-8; `htmlSafe` as in the `UnsafeBufferPointer` variant.
    package mutating func appendJSONString(_ text: String, htmlSafe: Bool = false) {
        var text = text
        text.withUTF8 { appendJSONString($0, htmlSafe: htmlSafe) }
    }

    /// A JSON string literal of UTF-8 bytes, escaped as for a `String`. Most values need no
    /// escape at all, so the bytes are checked eight at a time and a word without a control
    /// character, quote or backslash is passed over whole.
    ///
    /// `htmlSafe` (for `serve`'s JSON, never `dump`'s hot path: it checks byte by byte) also
    /// writes `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`, so no value can close a
    /// `<script>` element or start markup, and U+2028 and U+2029 as `\u2028`, `\u2029`, which
    /// older JavaScript reads as line ends inside a string.
    package mutating func appendJSONString(_ utf8: UnsafeBufferPointer<UInt8>, htmlSafe: Bool = false) {
        append(UInt8(ascii: "\""))
        var start = 0
        var index = 0
        while index < utf8.count {
            if !htmlSafe, utf8.count - index >= 8, let base = utf8.baseAddress,
                !Self.needsJSONEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = utf8[index]
            index += 1
            if Self.needsJSONEscape(byte: byte) {
                append(UnsafeBufferPointer(rebasing: utf8[start..<index - 1]))
                append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22: append(UInt8(ascii: "\""))
                case 0x5C: append(UInt8(ascii: "\\"))
                case 0x0A: append(UInt8(ascii: "n"))
                case 0x0D: append(UInt8(ascii: "r"))
                case 0x09: append(UInt8(ascii: "t"))
                default:
                    append("u00")
                    append(Self.hexDigits[Int(byte >> 4)])
                    append(Self.hexDigits[Int(byte & 0xF)])
                }
            } else if htmlSafe, byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&") {
                append(UnsafeBufferPointer(rebasing: utf8[start..<index - 1]))
                append("\\u00")
                append(Self.hexDigits[Int(byte >> 4)])
                append(Self.hexDigits[Int(byte & 0xF)])
            } else if htmlSafe, byte == 0xE2, index + 1 < utf8.count, utf8[index] == 0x80, utf8[index + 1] == 0xA8 || utf8[index + 1] == 0xA9 {
                append(UnsafeBufferPointer(rebasing: utf8[start..<index - 1]))
                append(utf8[index + 1] == 0xA8 ? "\\u2028" : "\\u2029")
                index += 2
            } else {
                continue
            }
            start = index
        }
        append(UnsafeBufferPointer(rebasing: utf8[start...]))
        append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes in `word` is below 0x20, a quote or a backslash (exact,
    /// with the usual "has a zero byte" bit tricks: a byte below n borrows into its high bit).
    @inline(__always)
    private static func needsJSONEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highBits != 0 }
        let belowSpace = (word &- ones &* 0x20) & ~word & highBits != 0
        return belowSpace || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }

    /// Whether `byte` is escaped in a JSON string: a control character, a quote or a backslash.
    @inline(__always)
    static func needsJSONEscape(byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C
    }

    static let hexDigits = Array("0123456789abcdef".utf8)

    package mutating func appendHex(_ data: some Sequence<UInt8>) {
        for byte in data {
            append(Self.hexDigits[Int(byte >> 4)])
            append(Self.hexDigits[Int(byte & 0xF)])
        }
    }

    /// A UUID's 16 bytes as `UUID.uuidString` spells them: upper-case hex, 8-4-4-4-12.
    package mutating func appendUUID(_ uuid: UnsafeRawBufferPointer) {
        let digits = Self.upperHexDigits.utf8Start
        append(upTo: 36) { out in
            out[8] = UInt8(ascii: "-")
            out[13] = UInt8(ascii: "-")
            out[18] = UInt8(ascii: "-")
            out[23] = UInt8(ascii: "-")
            for index in 0..<16 {
                // Two digits per byte, after the dashes that precede it.
                let dashes = (index >= 4 ? 1 : 0) + (index >= 6 ? 1 : 0) + (index >= 8 ? 1 : 0) + (index >= 10 ? 1 : 0)
                let byte = uuid.load(fromByteOffset: index, as: UInt8.self)
                out[2 * index + dashes] = digits[Int(byte >> 4)]
                out[2 * index + dashes + 1] = digits[Int(byte & 0xF)]
            }
            return 36
        }
    }

    private static let upperHexDigits: StaticString = "0123456789ABCDEF"
    private static let lowerHexDigits: StaticString = "0123456789abcdef"

    /// `x-coredata://<uuid>/<Entity>/p<pk>`, escaped as `escaping` says; written without building
    /// the string when the entity's name needs no escaping (every name a valid model has).
    package mutating func appendURI(_ id: ObjectID, escaping: URIEscaping = .none) {
        guard !escaping.isNeeded(by: id.entity) else {
            let parts = Self.uriParts(storeUUID: id.storeUUID, entity: id.entity, escaping: escaping)
            append(parts.prefix)
            append(id.pk)
            append(parts.suffix)
            return
        }
        append("x-coredata://")
        append(id.storeUUID)
        append(UInt8(ascii: "/"))
        append(id.entity)
        append("/p")
        append(id.pk)
    }

    /// An object ID's URI as `escaping` writes it: the bytes before its `Z_PK` (from
    /// `x-coredata://<uuid>/<Entity>/p` on) and after it.
    static func uriParts(storeUUID: String, entity: String, escaping: URIEscaping) -> (prefix: [UInt8], suffix: [UInt8]) {
        let raw = "x-coredata://\(storeUUID)/\(entity)/p"
        switch escaping {
        case .jsonString where escaping.isNeeded(by: entity):
            var escaped = OutputBuffer()
            escaped.appendJSONString(raw)
            return (Array(escaped.bytes.dropFirst().dropLast()), [])
        case .csvField where escaping.isNeeded(by: entity):
            return ([UInt8(ascii: "\"")] + Array(raw.replacingOccurrences(of: "\"", with: "\"\"").utf8), [UInt8(ascii: "\"")])
        default:
            return (Array(raw.utf8), [])
        }
    }
}

/// How an output format writes an object ID's URI. The entity name inside it comes from the
/// store's model cache, which is untrusted: a name with a quote, comma, backslash or control
/// character would end a JSON string or a CSV field early. Core Data's own model editor does not
/// allow such names, so the common path writes URIs as they are after one scan of the name.
package enum URIEscaping: Sendable {
    /// Written as is (the description, line, table and expanded formats show text).
    case none
    /// Inside a JSON string whose quotes the writer adds: JSON's escapes.
    case jsonString
    /// A whole CSV field: quoted, quotes doubled, when the name holds a comma, quote or line break.
    case csvField

    /// Whether `entity`'s name has a byte this escaping changes: the JSON writer's and the CSV
    /// writer's own tests.
    func isNeeded(by entity: String) -> Bool {
        switch self {
        case .none: return false
        case .jsonString: return entity.utf8.contains(where: OutputBuffer.needsJSONEscape(byte:))
        case .csvField:
            var name = entity
            return name.withUTF8(CSVRenderer.needsQuotes)
        }
    }
}
