import Foundation

/// Writes a ``PropertyListValue`` as a binary property list (`bplist00`), the format of
/// `Z_METADATA.Z_PLIST` and of keyed archives (docs/format/store-format.md §5, §6).
///
/// Layout, mirroring ``BinaryPropertyListReader``: the 8-byte header, every object once, an
/// offset table and a 32-byte trailer. Offsets and object references use the fewest bytes that
/// can hold the largest value. Strings, integers, reals, dates and UIDs that are equal share
/// one object, as Apple's writer shares them; collections are never shared, so the output
/// keeps the shape of the input. Dictionaries keep their entries in the given order.
public enum BinaryPropertyListWriter {
    /// The binary property list for `value`.
    ///
    /// Throws when a dictionary key is repeated (a plist reader would keep only one entry).
    public static func data(for value: PropertyListValue) throws -> Data {
        var table = ObjectTable()
        let top = try table.add(value)
        return table.encode(top: top)
    }
}

/// The objects of one plist in file order, each a marker and payload with the indexes of the
/// objects it refers to (collections only).
private struct ObjectTable {
    /// A scalar that can be shared by every reference to an equal value.
    private enum ScalarKey: Hashable {
        case string(String)
        case integer(Int64)
        case real(UInt64)
        case date(UInt64)
        case boolean(Bool)
        case uid(Int)
    }

    private enum Object {
        /// Marker and payload, complete.
        case bytes([UInt8])
        /// A marker-and-length header, then references written once their width is known.
        case collection(header: [UInt8], references: [Int])
    }

    private var objects: [Object] = []
    private var shared: [ScalarKey: Int] = [:]

    /// Appends `value` (and, first, what it contains) and returns its index.
    mutating func add(_ value: PropertyListValue) throws -> Int {
        switch value {
        case .string(let s): return scalar(.string(s)) { Self.string(s) }
        case .integer(let i): return scalar(.integer(i)) { Self.integer(i) }
        case .real(let r): return scalar(.real(r.bitPattern)) { [0x23] + Self.bigEndian(r.bitPattern, size: 8) }
        case .date(let d): return scalar(.date(d.bitPattern)) { [0x33] + Self.bigEndian(d.bitPattern, size: 8) }
        case .boolean(let b): return scalar(.boolean(b)) { [b ? 0x09 : 0x08] }
        case .uid(let u): return scalar(.uid(u)) { Self.uid(u) }
        case .data(let d):
            return append(.bytes(Self.header(0x4, count: d.count) + d))
        case .array(let items):
            let index = reserve()
            let references = try items.map { try add($0) }
            objects[index] = .collection(header: Self.header(0xA, count: items.count), references: references)
            return index
        case .dictionary(let entries):
            guard Set(entries.map(\.key)).count == entries.count else {
                throw PropertyListError.repeatedKey
            }
            let index = reserve()
            let keys = entries.map { entry in scalar(.string(entry.key)) { Self.string(entry.key) } }
            let values = try entries.map { try add($0.value) }
            objects[index] = .collection(header: Self.header(0xD, count: entries.count), references: keys + values)
            return index
        }
    }

    /// The file: header, objects, offset table, trailer.
    func encode(top: Int) -> Data {
        let referenceSize = Self.byteCount(for: UInt64(max(objects.count - 1, 0)))
        var body: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(body.count)
            switch object {
            case .bytes(let bytes):
                body += bytes
            case .collection(let header, let references):
                body += header
                for reference in references { body += Self.bigEndian(UInt64(reference), size: referenceSize) }
            }
        }
        let tableStart = body.count
        let offsetSize = Self.byteCount(for: UInt64(offsets.last ?? 0))
        for offset in offsets { body += Self.bigEndian(UInt64(offset), size: offsetSize) }
        // Trailer: 5 unused bytes, the sort version, the two sizes, then three 8-byte numbers.
        body += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        body += Self.bigEndian(UInt64(objects.count), size: 8)
        body += Self.bigEndian(UInt64(top), size: 8)
        body += Self.bigEndian(UInt64(tableStart), size: 8)
        return Data(body)
    }

    private mutating func scalar(_ key: ScalarKey, _ bytes: () -> [UInt8]) -> Int {
        if let index = shared[key] { return index }
        let index = append(.bytes(bytes()))
        shared[key] = index
        return index
    }

    /// A collection's index is taken before its members', so the top object comes first.
    private mutating func reserve() -> Int { append(.bytes([])) }

    private mutating func append(_ object: Object) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    /// ASCII strings are stored as bytes (type 5), all others as UTF-16BE (type 6).
    private static func string(_ s: String) -> [UInt8] {
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            return header(0x5, count: s.utf8.count) + Array(s.utf8)
        }
        let units = Array(s.utf16)
        return header(0x6, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// Non-negative integers take 1, 2, 4 or 8 bytes; negative ones always 8, as Apple writes
    /// them (the reader treats only 8-byte and longer integers as signed).
    private static func integer(_ i: Int64) -> [UInt8] {
        let size = i < 0 ? 8 : byteCount(for: UInt64(i))
        let power = size == 1 ? 0 : size == 2 ? 1 : size <= 4 ? 2 : 3
        return [0x10 | UInt8(power)] + bigEndian(UInt64(bitPattern: i), size: 1 << power)
    }

    /// UIDs are 1–8 bytes; the marker's low nibble is the size minus one.
    private static func uid(_ u: Int) -> [UInt8] {
        let size = byteCount(for: UInt64(u))
        return [0x80 | UInt8(size - 1)] + bigEndian(UInt64(u), size: size)
    }

    /// A marker whose low nibble is the count, or 0xF followed by an integer object.
    private static func header(_ type: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0x0F] + integer(Int64(count))
    }

    /// 1, 2, 4 or 8: the smallest of these widths that holds `value`.
    private static func byteCount(for value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
