import CDModel
import Foundation

/// Column groups in the order Core Data writes them (§7.3), each with its declared type.
///
/// Observed on every corpus store: integers (with booleans and keys), then doubles, floats and
/// dates sorted together, then decimals, strings, URIs, UUIDs, transformables, binary data.
enum ColumnGroup: Int, Comparable {
    case integer, real, decimal, string, uri, uuid, transformable, binary

    static func < (lhs: ColumnGroup, rhs: ColumnGroup) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `nil` for types that have no column: undefined, object ID, composite (§7.5).
    init?(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: self = .integer
        case .double, .float, .date: self = .real
        case .decimal: self = .decimal
        case .string: self = .string
        case .uri: self = .uri
        case .uuid: self = .uuid
        case .transformable: self = .transformable
        case .binary: self = .binary
        default: return nil
        }
    }

    static func sqlType(_ type: AttributeType) -> String {
        switch type {
        case .double, .float: return "FLOAT"
        case .date: return "TIMESTAMP"
        case .decimal: return "DECIMAL"
        case .string, .uri: return "VARCHAR"
        case .uuid, .transformable, .binary: return "BLOB"
        default: return "INTEGER"
        }
    }
}
