import CDStore
import Foundation
import GRDB
import GRDBSQLite

/// One ordered scan of a SELECT: the current row is read in place from the SQLite statement,
/// so a merge of two scans holds two rows at a time, whatever the tables' sizes.
final class OrderedScan {
    let statement: Statement
    private let cursor: RowCursor
    /// The SQLite statement, for reading the current row's columns.
    let sqlite: SQLiteStatement
    /// Whether there is a current row.
    private(set) var hasRow: Bool

    init(_ db: Database, sql: String, arguments: StatementArguments) throws {
        statement = try db.makeStatement(sql: sql)
        cursor = try Row.fetchCursor(statement, arguments: arguments)
        sqlite = statement.sqliteStatement
        hasRow = try cursor.next() != nil
    }

    func advance() throws { hasRow = try cursor.next() != nil }

    /// Column `index` of the current row as an integer (0 for NULL).
    func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(sqlite, index) }

    func type(_ index: Int32) -> Int32 { sqlite3_column_type(sqlite, index) }

    /// Column `index` of the current row as SQLite gives it, for decoding with the model.
    func raw(_ index: Int32) -> ValueDecoder.Raw {
        switch sqlite3_column_type(sqlite, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(sqlite, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(sqlite, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(sqlite, index) else { return .null }
            return .text(String(cString: text))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(sqlite, index))
            guard count > 0, let bytes = sqlite3_column_blob(sqlite, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

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

    private func bytes(_ index: Int32, text: Bool) -> [UInt8] {
        let base: UnsafeRawPointer? = text ? UnsafeRawPointer(sqlite3_column_text(sqlite, index)) : sqlite3_column_blob(sqlite, index)
        let count = Int(sqlite3_column_bytes(sqlite, index))
        guard let base, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Whether column `index` here and column `other` of `scan` hold the same SQLite value:
    /// same storage class and the same number or bytes.
    func sameRaw(_ index: Int32, as scan: OrderedScan, _ other: Int32) -> Bool {
        let type = sqlite3_column_type(sqlite, index)
        guard type == sqlite3_column_type(scan.sqlite, other) else { return false }
        switch type {
        case SQLITE_NULL: return true
        case SQLITE_INTEGER: return sqlite3_column_int64(sqlite, index) == sqlite3_column_int64(scan.sqlite, other)
        case SQLITE_FLOAT: return sqlite3_column_double(sqlite, index).bitPattern == sqlite3_column_double(scan.sqlite, other).bitPattern
        default:
            let isText = type == SQLITE_TEXT
            // Asking for the text or blob pointer first, then the size, is SQLite's documented order.
            let left: UnsafeRawPointer? = isText ? UnsafeRawPointer(sqlite3_column_text(sqlite, index)) : sqlite3_column_blob(sqlite, index)
            let leftCount = sqlite3_column_bytes(sqlite, index)
            let right: UnsafeRawPointer? = isText ? UnsafeRawPointer(sqlite3_column_text(scan.sqlite, other)) : sqlite3_column_blob(scan.sqlite, other)
            let rightCount = sqlite3_column_bytes(scan.sqlite, other)
            guard leftCount == rightCount else { return false }
            guard leftCount > 0, let left, let right else { return true }
            return memcmp(left, right, Int(leftCount)) == 0
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
