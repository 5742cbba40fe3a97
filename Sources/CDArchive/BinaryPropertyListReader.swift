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
    /// Where the object table ends: no object's bytes may run into the offset table.
    private var offsetTableStart = 0
    /// Objects already decoded, by index. Writers store each distinct value once and refer to
    /// it from everywhere it occurs, and decoding each reference anew would take exponential
    /// time on a file that shares deeply.
    private var decoded: [Int: PropertyListValue] = [:]
    /// Objects being decoded: meeting one again is a reference cycle, which a valid plist
    /// cannot have. Their number is the recursion depth.
    private var active: Set<Int> = []

    init(data: Data) {
        bytes = [UInt8](data)
    }

    mutating func read() throws -> PropertyListValue {
        guard bytes.count >= 8 + 32 else { throw PropertyListError.truncated }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Self.bigEndian(bytes[trailer + 8..<trailer + 16])
        let top = Self.bigEndian(bytes[trailer + 16..<trailer + 24])
        let tableStart = Self.bigEndian(bytes[trailer + 24..<trailer + 32])
        // `tableStart` is compared before any arithmetic on it, which could overflow.
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            count > 0, count < UInt64(bytes.count), top < count,
            tableStart >= 8, tableStart <= UInt64(trailer),
            count * UInt64(offsetSize) <= UInt64(trailer) - tableStart
        else { throw PropertyListError.corruptTrailer }
        objectCount = Int(count)
        offsetTableStart = Int(tableStart)
        return try object(Int(top))
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The position of an object; `index` is below `objectCount`, so its entry is in the table.
    private func offset(ofObject index: Int) throws -> Int {
        let entry = offsetTableStart + index * offsetSize
        let value = Self.bigEndian(bytes[entry..<entry + offsetSize])
        guard value >= 8, value < UInt64(offsetTableStart) else {
            throw PropertyListError.corruptOffsetTable
        }
        return Int(value)
    }

    /// `count` bytes of an object starting at `start`; they must end before the offset table.
    private func payload(_ start: Int, _ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, start >= 0, start <= offsetTableStart, count <= offsetTableStart - start else {
            throw PropertyListError.truncated
        }
        return bytes[start..<start + count]
    }

    /// The length that follows a marker: the low nibble, or an integer object after it when the
    /// nibble is 0xF. Returns the length and the position of the payload.
    private func length(marker: UInt8, at position: Int) throws -> (Int, Int) {
        let nibble = Int(marker & 0x0F)
        if nibble != 0x0F { return (nibble, position + 1) }
        guard let intMarker = try payload(position + 1, 1).first, intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
            throw PropertyListError.corruptLength
        }
        let size = 1 << Int(intMarker & 0x0F)
        let value = Self.bigEndian(try payload(position + 2, size))
        guard value < UInt64(offsetTableStart) else { throw PropertyListError.corruptLength }
        return (Int(value), position + 2 + size)
    }

    /// `count` object references starting at `start`, each checked against the object table.
    private func references(at start: Int, count: Int) throws -> [Int] {
        let raw = try payload(start, count * referenceSize)
        return try stride(from: raw.startIndex, to: raw.endIndex, by: referenceSize).map { i in
            let index = Self.bigEndian(raw[i..<i + referenceSize])
            guard index < UInt64(objectCount) else {
                throw PropertyListError.missingObject
            }
            return Int(index)
        }
    }

    private mutating func object(_ index: Int) throws -> PropertyListValue {
        if let value = decoded[index] { return value }
        guard active.insert(index).inserted else { throw PropertyListError.referenceCycle }
        defer { active.remove(index) }
        guard active.count <= 512 else { throw PropertyListError.nestsTooDeeply }
        let value = try parse(at: try offset(ofObject: index))
        decoded[index] = value
        return value
    }

    private mutating func parse(at position: Int) throws -> PropertyListValue {
        let marker = bytes[position]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default: throw PropertyListError.unsupportedValue(marker: marker)
            }
        case 0x1:
            guard marker & 0x0F <= 4 else { throw PropertyListError.corruptInteger }
            let size = 1 << Int(marker & 0x0F)
            // 16-byte integers carry the value in their low 8 bytes.
            let raw = Self.bigEndian(try payload(position + 1, size).suffix(8))
            return .integer(size >= 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x2:
            switch marker & 0x0F {
            case 2: return .real(Double(Float(bitPattern: UInt32(Self.bigEndian(try payload(position + 1, 4))))))
            case 3: return .real(Double(bitPattern: Self.bigEndian(try payload(position + 1, 8))))
            default: throw PropertyListError.corruptReal
            }
        case 0x3:
            guard marker == 0x33 else { throw PropertyListError.corruptDate }
            return .date(Double(bitPattern: Self.bigEndian(try payload(position + 1, 8))))
        case 0x4:
            let (count, start) = try length(marker: marker, at: position)
            return .data(Data(try payload(start, count)))
        case 0x5:
            let (count, start) = try length(marker: marker, at: position)
            return .string(String(decoding: try payload(start, count), as: UTF8.self))
        case 0x6:
            let (count, start) = try length(marker: marker, at: position)
            let raw = try payload(start, count * 2)
            let units = stride(from: raw.startIndex, to: raw.endIndex, by: 2).map { UInt16(raw[$0]) << 8 | UInt16(raw[$0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            // UIDs index `$objects`, so one wider than 8 bytes or beyond `Int` cannot be right.
            let size = Int(marker & 0x0F) + 1
            guard size <= 8, let uid = Int(exactly: Self.bigEndian(try payload(position + 1, size))) else {
                throw PropertyListError.corruptUID
            }
            return .uid(uid)
        case 0xA, 0xC:
            let (count, start) = try length(marker: marker, at: position)
            return .array(try references(at: start, count: count).map { try object($0) })
        case 0xD:
            let (count, start) = try length(marker: marker, at: position)
            let refs = try references(at: start, count: count * 2)
            var entries: [(key: String, value: PropertyListValue)] = []
            entries.reserveCapacity(count)
            for (k, v) in zip(refs[..<count], refs[count...]) {
                guard case .string(let key) = try object(k) else {
                    throw PropertyListError.nonStringKey
                }
                entries.append((key, try object(v)))
            }
            return .dictionary(entries)
        default:
            throw PropertyListError.unknownObjectType(marker: marker)
        }
    }
}
