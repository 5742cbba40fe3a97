import CDBase
import CDModel
import CDPredicate
import CDStore
import GRDB

/// A fetch request translated into one SQL statement, written the way Core Data writes it
/// (reference/sqldebug.md §5), with every value bound.
package struct FetchStatement: Sendable, Equatable {
    /// What the statement's rows are.
    package enum Kind: Sendable, Equatable {
        /// Objects: `SELECT 0|t0.Z_ENT, t0.Z_PK, t0.Z_OPT, <columns> …`.
        case objects
        /// One row with one integer: `SELECT COUNT(*) …` or `COUNT(DISTINCT t0.Z_PK)`.
        case count
        /// Rows of plain values: distinct values or one aggregate.
        case values
    }

    package var kind: Kind
    /// The fetched entity (sub-entities included).
    package var entity: String
    package var sql: String
    package var arguments: [DatabaseValue]
    /// For object fetches: the table column read at each position (position 0 is `Z_ENT`, or
    /// the constant `0` when the table holds one entity, given here as `nil`).
    package var columns: [String?]
    /// For value fetches: a name per selected value (key path, or `sum(price)`) and the
    /// attribute type that decodes it (`nil`: shown as SQLite gives it).
    package var valueColumns: [(name: String, type: AttributeType?)]

    /// The statement and its bound values as `cdstore sql` prints them: the SQL, then
    /// `bind[i] = value` lines in the SQL debug log's notation.
    package var text: String {
        ([sql] + arguments.map(SQLTrace.bindText).enumerated().map { "bind[\($0.offset)] = \($0.element)" })
            .joined(separator: "\n")
    }

    package static func == (lhs: FetchStatement, rhs: FetchStatement) -> Bool {
        lhs.kind == rhs.kind && lhs.entity == rhs.entity && lhs.sql == rhs.sql && lhs.arguments == rhs.arguments
            && lhs.columns == rhs.columns && lhs.valueColumns.map(\.name) == rhs.valueColumns.map(\.name)
            && lhs.valueColumns.map(\.type) == rhs.valueColumns.map(\.type)
    }
}

/// Why a fetch request cannot be translated: an unknown entity or key, a key path Core Data
/// cannot run in SQL, a value of the wrong kind. One line.
package struct FetchSQLError: UserFacingError, Equatable, Sendable {
    package let message: String
    package init(_ message: String) { self.message = message }
}

/// Why a fetch or a `--raw` statement cannot run, once the request itself translated: SQLite's
/// limits, a raw statement that is not one read-only statement, values that do not fit its
/// placeholders. `sqliteMessage` is SQLite's own text.
package enum FetchError: UserFacingError, Equatable, Sendable {
    /// The statement is beyond SQLite's compile-time limits (thousands of chained ORs).
    case predicateTooComplex(sqliteMessage: String?)
    /// A request for objects or a count was given to the method that reads values.
    case notForValues
    /// A request for values or a count was given to the method that reads objects.
    case notForObjects
    /// The `--raw` text holds no statement.
    case rawSQLEmpty
    /// The `--raw` text holds more than one statement.
    case rawSQLSeveralStatements
    /// SQLite cannot prepare the `--raw` statement.
    case rawSQLInvalid(sqliteMessage: String?)
    /// The `--raw` statement would change the store.
    case rawSQLWrites
    /// The statement's `?` placeholders do not match the `given` values.
    case rawSQLArgumentCount(given: Int)

    package var message: String {
        switch self {
        case .predicateTooComplex(let message):
            return "the predicate is too complex for SQLite (\(message ?? "")): list values with IN {…} instead of chaining OR, or split the fetch"
        case .notForValues: return "not a request for values"
        case .notForObjects: return "not a request for objects"
        case .rawSQLEmpty: return "--raw needs one SQL statement; the text holds none"
        case .rawSQLSeveralStatements: return "--raw runs exactly one read-only statement; this text holds more than one"
        case .rawSQLInvalid(let message): return "SQL error: \(message ?? "cannot prepare the statement")"
        case .rawSQLWrites: return "--raw runs read-only SQL; this statement would change the store"
        case .rawSQLArgumentCount(let given):
            return "the statement's ? placeholders and the \(given) value(s) given with --arg do not match"
        }
    }
}
