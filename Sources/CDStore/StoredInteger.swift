import CDBase
import Foundation
import GRDB

/// A value read from a column that Core Data fills with integers (`Z_PK`, `Z_ENT`, `Z_MAX`, a
/// to-one key), checked for its SQLite type instead of trusted.
///
/// GRDB's `row[index]` traps when a value cannot become the requested type, and its fast path
/// turns text into `0` without a word; a damaged store would crash cdstore or make it invent an
/// object ID. Reading through this type makes a wrong type a value the caller must handle.
public enum StoredInteger: Sendable, Equatable {
    /// An integer, or a real with no fractional part.
    case integer(Int64)
    /// SQL NULL.
    case null
    /// Text, a blob or a fractional real where an integer belongs; `description` shows it.
    case wrongType(description: String)

    /// Classifies `value`; a whole real such as `3.0` counts as the integer 3.
    public init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let real):
            if let whole = Int64(exactly: real) { self = .integer(whole) } else { self = .wrongType(description: "real \(real)") }
        case .string(let text):
            self = .wrongType(description: "text \(Self.quoted(text))")
        case .blob(let data):
            self = .wrongType(description: "blob of \(plural(data.count, "byte"))")
        }
    }

    /// Reads column `index` of `row`.
    public init(_ row: Row, _ index: Int) {
        self.init(row[index] as DatabaseValue)
    }

    /// The integer, or nil for NULL and for a wrong type.
    public var value: Int64? {
        if case .integer(let integer) = self { return integer }
        return nil
    }

    /// The integer as an `Int` when it lies in `range`; nil otherwise.
    public func value(in range: ClosedRange<Int64>) -> Int? {
        guard let integer = value, range.contains(integer) else { return nil }
        return Int(integer)
    }

    /// Text for a one-line warning about a value that is not a usable integer.
    public var problem: String? {
        if case .wrongType(let description) = self { return description }
        return nil
    }

    private static func quoted(_ text: String) -> String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "'" + shown.replacingOccurrences(of: "\n", with: "\\n") + "'"
    }
}
