import CDStore

/// Output bytes under construction. Renderers append to it directly: building millions of small
/// `String`s was most of a dump's run time (scripts/bench-dump.sh).
public struct ByteBuffer: Sendable {
    public var bytes: [UInt8] = []

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    public mutating func append(_ bytes: [UInt8]) {
        self.bytes.append(contentsOf: bytes)
    }

    public mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    public mutating func append(_ integer: Int64) {
        if integer >= 0 && integer < 10 {
            bytes.append(UInt8(48 + integer))
            return
        }
        append(upTo: 20) { out in
            var magnitude = integer.magnitude
            var digits = 0
            var rest = magnitude
            repeat { digits += 1; rest /= 10 } while rest > 0
            let sign = integer < 0 ? 1 : 0
            if sign == 1 { out[0] = UInt8(ascii: "-") }
            var index = sign + digits
            repeat {
                index -= 1
                out[index] = UInt8(48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            return sign + digits
        }
    }

    /// Appends the bytes `body` writes to a scratch area of `capacity` bytes on the stack (it
    /// returns how many): a number or a date then costs one append instead of one per digit.
    @inline(__always)
    mutating func append(upTo capacity: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            let start = scratch.baseAddress!
            bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: body(start)))
        }
    }

    /// `value` with at least `width` digits, zero-padded (dates and times).
    mutating func append(padded value: Int64, width: Int) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        while UInt64(divisor) > magnitude && divisor > 1 {
            bytes.append(UInt8(ascii: "0"))
            divisor /= 10
        }
        append(Int64(magnitude))
    }

    /// A JSON string literal (RFC 8259): quotes, backslashes and control characters escaped,
    /// everything else copied as UTF-8.
    public mutating func appendJSONString(_ text: String) {
        var text = text
        text.withUTF8 { appendJSONString($0) }
    }

    /// A JSON string literal of UTF-8 bytes, escaped as for a `String`.
    public mutating func appendJSONString(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            switch byte {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            default:
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            }
            start = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        bytes.append(UInt8(ascii: "\""))
    }

    static let hexDigits = Array("0123456789abcdef".utf8)

    public mutating func appendHex(_ data: some Sequence<UInt8>) {
        for byte in data {
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0xF)])
        }
    }

    /// A UUID's 16 bytes as `UUID.uuidString` spells them: upper-case hex, 8-4-4-4-12.
    public mutating func appendUUID(_ uuid: UnsafeRawBufferPointer) {
        append(upTo: 36) { out in
            var count = 0
            for (index, byte) in uuid.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[count] = UInt8(ascii: "-")
                    count += 1
                }
                out[count] = Self.upperHexDigits[Int(byte >> 4)]
                out[count + 1] = Self.upperHexDigits[Int(byte & 0xF)]
                count += 2
            }
            return count
        }
    }

    static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// `x-coredata://<uuid>/<Entity>/p<pk>`, written without building the string.
    public mutating func appendURI(_ id: ObjectID) {
        append("x-coredata://")
        append(id.storeUUID)
        append(UInt8(ascii: "/"))
        append(id.entity)
        append("/p")
        append(id.pk)
    }

    /// `x-coredata://<uuid>/<Entity>/p`: an object ID's URI up to its `Z_PK`.
    static func uriPrefix(storeUUID: String, entity: String) -> [UInt8] {
        Array("x-coredata://\(storeUUID)/\(entity)/p".utf8)
    }
}
