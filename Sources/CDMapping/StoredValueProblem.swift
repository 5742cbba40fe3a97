import Foundation

/// A value of the store with the wrong SQLite type or out of range: what `validate` reports as
/// an integrity finding and other commands as a one-line warning.
public struct StoredValueProblem: Sendable, Equatable {
    /// What is wrong with the value.
    public enum Kind: String, Sendable {
        /// Text, a blob or a fraction in an integer column.
        case wrongType
        /// An integer no store can hold there (an entity number of 2^40, say).
        case outOfRange
    }

    /// What is wrong with the value.
    public let kind: Kind
    /// The table holding the value.
    public let table: String
    /// The column holding the value.
    public let column: String
    /// The entity the row belongs to, when known.
    public let entity: String?
    /// The row's `Z_PK`, when the table has one.
    public let pk: Int64?
    /// The value as found, for the message.
    public let value: String

    package init(kind: Kind, table: String, column: String, entity: String?, pk: Int64?, value: String) {
        self.kind = kind
        self.table = table
        self.column = column
        self.entity = entity
        self.pk = pk
        self.value = value
    }

    /// One line: where the value is and what is wrong with it.
    public var message: String {
        let row = [entity.map { "entity \($0)" }, pk.map { "Z_PK \($0)" }].compactMap { $0 }.joined(separator: ", ")
        let place = "\(table).\(column)" + (row.isEmpty ? "" : " (\(row))")
        switch kind {
        case .wrongType: return "\(place) holds \(value), not an integer"
        case .outOfRange: return "\(place) holds \(value), out of range"
        }
    }
}
