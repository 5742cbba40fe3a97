import CDStore
import Foundation
import GRDB
import GRDBSQLite

extension OrderedScan {
    /// Column `index` as a sort key in SQLite's order.
    func keyValue(_ index: Int32) -> KeyValue {
        switch sqlite3_column_type(sqlite, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(sqlite, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(sqlite, index))
        case SQLITE_TEXT: return .text(bytes(index, text: true))
        case SQLITE_BLOB: return .blob(bytes(index, text: false))
        default: return .null
        }
    }

    /// Column `index` of the current row exactly as stored, for hashing.
    func storedValue(_ index: Int32) -> StoredValue {
        switch sqlite3_column_type(sqlite, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(sqlite, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(sqlite, index).bitPattern)
        case SQLITE_TEXT: return .text(bytes(index, text: true))
        case SQLITE_BLOB: return .blob(bytes(index, text: false))
        default: return .null
        }
    }
}

/// A value of a key column, ordered as SQLite's `ORDER BY` orders it with the BINARY
/// collation: NULL, then numbers by value, then text, then blobs, each by their bytes.
enum KeyValue: Comparable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text([UInt8])
    case blob([UInt8])

    private var storageClass: Int {
        switch self {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }

    static func < (lhs: KeyValue, rhs: KeyValue) -> Bool {
        guard lhs.storageClass == rhs.storageClass else { return lhs.storageClass < rhs.storageClass }
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b
        case (.integer(let a), .real(let b)): return Double(a) < b
        case (.real(let a), .integer(let b)): return a < Double(b)
        case (.real(let a), .real(let b)): return a < b
        case (.text(let a), .text(let b)), (.blob(let a), .blob(let b)): return a.lexicographicallyPrecedes(b)
        default: return false
        }
    }

    static func == (lhs: KeyValue, rhs: KeyValue) -> Bool { !(lhs < rhs) && !(rhs < lhs) }

    /// The value as the uniqueness error shows it.
    var text: String {
        switch self {
        case .null: "nil"
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .text(let bytes): "\"" + String(decoding: bytes, as: UTF8.self) + "\""
        case .blob(let bytes): "<" + bytes.map { String(format: "%02x", $0) }.joined() + ">"
        }
    }
}

/// The `--key` columns of a scan, compared where SQLite holds them: ordering two stores' rows
/// and finding a key that is not unique cost no allocation per row. The previous row's key
/// is copied into storage reused from row to row, since the next step overwrites it.
final class ScanKey {
    let scan: OrderedScan
    let columns: [Int32]
    /// The previous row's key: per column its storage class, number, and bytes at
    /// `starts[i]..<ends[i]` in `storage`.
    private var types: [Int32]
    private var integers: [Int64]
    private var reals: [Double]
    private var starts: [Int]
    private var ends: [Int]
    private var storage: UnsafeMutableRawPointer
    private var capacity = 256
    private var hasPrevious = false

    init(scan: OrderedScan, columns: [Int32]) {
        self.scan = scan
        self.columns = columns
        types = Array(repeating: SQLITE_NULL, count: columns.count)
        integers = Array(repeating: 0, count: columns.count)
        reals = Array(repeating: 0, count: columns.count)
        starts = Array(repeating: 0, count: columns.count)
        ends = Array(repeating: 0, count: columns.count)
        storage = .allocate(byteCount: capacity, alignment: 1)
    }

    deinit { storage.deallocate() }

    /// Whether the current row's key equals the previous row's (SQLite's `ORDER BY` would
    /// put them side by side as equals); then remembers the current one.
    func repeatsPrevious() -> Bool {
        var same = hasPrevious
        if same {
            for index in columns.indices where Self.compare(part(index), previous(index)) != 0 {
                same = false
                break
            }
        }
        remember()
        return same
    }

    /// The current row's key values, for an error message.
    var values: [KeyValue] { columns.map(scan.keyValue) }

    /// The order of `a`'s current row against `b`'s by their keys: -1, 0 or 1, as
    /// ``KeyValue``'s order (SQLite's `ORDER BY` with the BINARY collation).
    /// Keys of different lengths (a key attribute one store has no column for) compare as
    /// arrays do: the shorter first when it is a prefix of the other.
    static func order(_ a: ScanKey, _ b: ScanKey) -> Int {
        let shared = min(a.columns.count, b.columns.count)
        for index in 0..<shared {
            let order = compare(a.part(index), b.part(index))
            if order != 0 { return order }
        }
        return a.columns.count < b.columns.count ? -1 : a.columns.count > b.columns.count ? 1 : 0
    }

    /// One key value, its bytes wherever they are (SQLite's row or the copy).
    struct Part {
        var type: Int32
        var integer: Int64 = 0
        var real: Double = 0
        var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// Column `index` of the key in the current row. Text or blob pointer first, then the size,
    /// SQLite's documented order.
    private func part(_ index: Int) -> Part {
        let sqlite = scan.sqlite, column = columns[index]
        let type = sqlite3_column_type(sqlite, column)
        switch type {
        case SQLITE_INTEGER: return Part(type: type, integer: sqlite3_column_int64(sqlite, column))
        case SQLITE_FLOAT: return Part(type: type, real: sqlite3_column_double(sqlite, column))
        case SQLITE_TEXT, SQLITE_BLOB:
            let base: UnsafeRawPointer? =
                type == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_column_text(sqlite, column)) : sqlite3_column_blob(sqlite, column)
            let count = Int(sqlite3_column_bytes(sqlite, column))
            return Part(type: type, bytes: UnsafeRawBufferPointer(start: count > 0 ? base : nil, count: count > 0 && base != nil ? count : 0))
        default: return Part(type: SQLITE_NULL)
        }
    }

    private func previous(_ index: Int) -> Part {
        Part(
            type: types[index], integer: integers[index], real: reals[index],
            bytes: UnsafeRawBufferPointer(start: storage + starts[index], count: ends[index] - starts[index]))
    }

    private func remember() {
        var end = 0
        for index in columns.indices {
            let part = part(index)
            types[index] = part.type
            integers[index] = part.integer
            reals[index] = part.real
            if end + part.bytes.count > capacity {
                // Grows to the largest key seen (twice, to grow rarely); at most two rows' keys.
                let grown = max(capacity * 2, end + part.bytes.count)
                let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 1)
                larger.copyMemory(from: storage, byteCount: end)
                storage.deallocate()
                storage = larger
                capacity = grown
            }
            if let base = part.bytes.baseAddress { (storage + end).copyMemory(from: base, byteCount: part.bytes.count) }
            starts[index] = end
            end += part.bytes.count
            ends[index] = end
        }
        hasPrevious = true
    }

    /// -1, 0 or 1: NULL, then numbers by value, then text, then blobs, each by their bytes.
    static func compare(_ a: Part, _ b: Part) -> Int {
        let classA = storageClass(a.type), classB = storageClass(b.type)
        guard classA == classB else { return classA < classB ? -1 : 1 }
        switch classA {
        case 0: return 0
        case 1:
            if a.type == SQLITE_INTEGER, b.type == SQLITE_INTEGER { return a.integer < b.integer ? -1 : a.integer > b.integer ? 1 : 0 }
            let left = a.type == SQLITE_INTEGER ? Double(a.integer) : a.real
            let right = b.type == SQLITE_INTEGER ? Double(b.integer) : b.real
            return left < right ? -1 : left > right ? 1 : 0
        default:
            let shared = min(a.bytes.count, b.bytes.count)
            if shared > 0, let left = a.bytes.baseAddress, let right = b.bytes.baseAddress {
                let order = memcmp(left, right, shared)
                if order != 0 { return order < 0 ? -1 : 1 }
            }
            return a.bytes.count < b.bytes.count ? -1 : a.bytes.count > b.bytes.count ? 1 : 0
        }
    }

    private static func storageClass(_ type: Int32) -> Int {
        switch type {
        case SQLITE_NULL: 0
        case SQLITE_INTEGER, SQLITE_FLOAT: 1
        case SQLITE_TEXT: 2
        default: 3
        }
    }
}
