import Foundation
import GRDB
import GRDBSQLite

/// One ordered scan of a SELECT: the current row is read in place from the SQLite statement,
/// so a merge of two scans holds two rows at a time, whatever the tables' sizes (`diff`
/// merges two stores' tables, `watch` two snapshots' `Z_PK`/`Z_OPT`).
package final class OrderedScan {
    package let statement: Statement
    private let cursor: RowCursor
    /// The SQLite statement, for reading the current row's columns.
    package let sqlite: SQLiteStatement
    /// Whether there is a current row.
    package private(set) var hasRow: Bool

    /// Prepares the SELECT and, unless `started` is false, reads its first row. A scan made
    /// with `started: false` has no row until ``advance()``: the first step of a sorted SELECT
    /// is its whole sort, which the caller may then run on another thread.
    package init(_ db: Database, sql: String, arguments: StatementArguments, started: Bool = true) throws {
        statement = try db.makeStatement(sql: sql)
        cursor = try Row.fetchCursor(statement, arguments: arguments)
        sqlite = statement.sqliteStatement
        hasRow = false
        if started { try advance() }
    }

    package func advance() throws { hasRow = try cursor.next() != nil }

    /// Column `index` of the current row as an integer (0 for NULL).
    package func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(sqlite, index) }

    package func type(_ index: Int32) -> Int32 { sqlite3_column_type(sqlite, index) }

    /// Column `index` of the current row as SQLite gives it, for decoding with the model.
    package func raw(_ index: Int32) -> ValueDecoder.Raw {
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

    /// Column `index` of the current row's text or blob bytes, copied.
    package func bytes(_ index: Int32, text: Bool) -> [UInt8] {
        let base: UnsafeRawPointer? = text ? UnsafeRawPointer(sqlite3_column_text(sqlite, index)) : sqlite3_column_blob(sqlite, index)
        let count = Int(sqlite3_column_bytes(sqlite, index))
        guard let base, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Whether column `index` here and column `other` of `scan` hold the same SQLite value:
    /// same storage class and the same number or bytes.
    package func sameRaw(_ index: Int32, as scan: OrderedScan, _ other: Int32) -> Bool {
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
