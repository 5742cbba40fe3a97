import CDBase
import Foundation

extension String {
    /// The text as an SQL identifier in a statement cdstore runs itself: in double quotes, each
    /// double quote inside doubled (SQLite's rule).
    ///
    /// Table and column names come from the store's schema and model cache, which are untrusted.
    /// GRDB's `quotedSQLIdentifier` only wraps a name in quotes, so a name with a quote in
    /// it ended the identifier early and broke the statement, or changed what it reads.
    package var quotedSQLIdentifier: String { "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
