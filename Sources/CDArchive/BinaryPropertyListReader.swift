import Foundation

/// A reader for Apple's binary property list format (`bplist00`).
///
/// Layout: an 8-byte header, the object table, an offset table, and a 32-byte trailer that
/// gives the offset-entry size, the object-reference size, the object count, the top object
/// and the offset table's position. Every offset and count is checked, so truncated or corrupt
/// input throws ``PropertyListError`` instead of trapping.
struct BinaryPropertyListReader {
    private let bytes: [UInt8]
    private var offsetSize = 0
    private var referenceSize = 0
    private var objectCount = 0
    private var offsetTableStart = 0
    /// Guards against reference cycles, which a valid plist cannot have.
    private var depth = 0

    init(data: Data) {
        bytes = [UInt8](data)
    }

    mutating func read() throws -> PropertyListValue {
        guard bytes.count >= 8 + 32 else { throw PropertyListError("binary property list is truncated") }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = try readUInt(at: trailer + 8, size: 8)
        let top = try readUInt(at: trailer + 16, size: 8)
        let tableStart = try readUInt(at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              count > 0, count < UInt64(bytes.count), top < count,
              tableStart >= 8, tableStart + count * UInt64(offsetSize) <= UInt64(trailer)
        else { throw PropertyListError("binary property list has a corrupt trailer") }
        objectCount = Int(count)
        offsetTableStart = Int(tableStart)
        return try object(Int(top))
    }

    private func readUInt(at offset: Int, size: Int) throws -> UInt64 {
        guard offset >= 0, size > 0, offset + size <= bytes.count else {
            throw PropertyListError("binary property list is truncated")
        }
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    private func offset(ofObject index: Int) throws -> Int {
        guard index >= 0, index < objectCount else {
            throw PropertyListError("binary property list refers to a missing object")
        }
        let value = try readUInt(at: offsetTableStart + index * offsetSize, size: offsetSize)
        guard value >= 8, value < UInt64(offsetTableStart) else {
            throw PropertyListError("binary property list has a corrupt offset table")
        }
        return Int(value)
    }

    /// The length that follows a marker: the low nibble, or an integer object after it when the
    /// nibble is 0xF. Returns the length and the position of the payload.
    private func length(marker: UInt8, at position: Int) throws -> (Int, Int) {
        let nibble = Int(marker & 0x0F)
        if nibble != 0x0F { return (nibble, position + 1) }
        guard position + 1 < bytes.count else { throw PropertyListError("binary property list is truncated") }
        let intMarker = bytes[position + 1]
        guard intMarker >> 4 == 0x1 else { throw PropertyListError("binary property list has a corrupt length") }
        let size = 1 << Int(intMarker & 0x0F)
        let value = try readUInt(at: position + 2, size: size)
        guard value < UInt64(bytes.count) else { throw PropertyListError("binary property list has a corrupt length") }
        return (Int(value), position + 2 + size)
    }

    private func slice(_ start: Int, _ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, start >= 0, start + count <= bytes.count else {
            throw PropertyListError("binary property list is truncated")
        }
        return bytes[start..<start + count]
    }

    private mutating func references(at start: Int, count: Int) throws -> [Int] {
        guard count >= 0, count <= objectCount * 2 + 16 else {
            throw PropertyListError("binary property list has a corrupt collection size")
        }
        return try (0..<count).map { Int(try readUInt(at: start + $0 * referenceSize, size: referenceSize)) }
    }

    private mutating func object(_ index: Int) throws -> PropertyListValue {
        depth += 1
        defer { depth -= 1 }
        guard depth < 512 else { throw PropertyListError("binary property list nests too deeply") }
        let position = try offset(ofObject: index)
        let marker = bytes[position]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default: throw PropertyListError("binary property list has an unsupported value (0x\(String(marker, radix: 16)))")
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            guard size <= 16 else { throw PropertyListError("binary property list has a corrupt integer") }
            // 16-byte integers carry the value in their low 8 bytes.
            let raw = try readUInt(at: position + 1 + max(0, size - 8), size: min(size, 8))
            return .integer(size >= 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x2:
            let size = 1 << Int(marker & 0x0F)
            let raw = try readUInt(at: position + 1, size: size)
            switch size {
            case 4: return .real(Double(Float(bitPattern: UInt32(raw))))
            case 8: return .real(Double(bitPattern: raw))
            default: throw PropertyListError("binary property list has a corrupt real")
            }
        case 0x3:
            guard marker == 0x33 else { throw PropertyListError("binary property list has a corrupt date") }
            return .date(Double(bitPattern: try readUInt(at: position + 1, size: 8)))
        case 0x4:
            let (count, start) = try length(marker: marker, at: position)
            return .data(Data(try slice(start, count)))
        case 0x5:
            let (count, start) = try length(marker: marker, at: position)
            let raw = try slice(start, count)
            return .string(String(decoding: raw, as: UTF8.self))
        case 0x6:
            let (count, start) = try length(marker: marker, at: position)
            let raw = try slice(start, count * 2)
            var units = [UInt16]()
            units.reserveCapacity(count)
            var i = raw.startIndex
            while i < raw.endIndex {
                units.append(UInt16(raw[i]) << 8 | UInt16(raw[i + 1]))
                i += 2
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            return .uid(Int(try readUInt(at: position + 1, size: size)))
        case 0xA, 0xC:
            let (count, start) = try length(marker: marker, at: position)
            let refs = try references(at: start, count: count)
            return .array(try refs.map { try object($0) })
        case 0xD:
            let (count, start) = try length(marker: marker, at: position)
            let keyRefs = try references(at: start, count: count)
            let valueRefs = try references(at: start + count * referenceSize, count: count)
            var entries: [(key: String, value: PropertyListValue)] = []
            entries.reserveCapacity(count)
            for (k, v) in zip(keyRefs, valueRefs) {
                guard case .string(let key) = try object(k) else {
                    throw PropertyListError("binary property list has a non-string dictionary key")
                }
                entries.append((key, try object(v)))
            }
            return .dictionary(entries)
        default:
            throw PropertyListError("binary property list has an unknown object type (0x\(String(marker, radix: 16)))")
        }
    }
}
