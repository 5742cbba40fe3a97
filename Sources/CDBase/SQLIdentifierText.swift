import Foundation

extension String {
    /// The text as an SQL identifier in a statement cdstore runs itself: in double quotes, each
    /// double quote inside doubled (SQLite's rule).
    ///
    /// Table and column names come from the store's schema and model cache, which are untrusted.
    /// GRDB's `quotedSQLIdentifier` only wraps a name in quotes, so a name with a quote in
    /// it ended the identifier early and broke the statement, or changed what it reads.
    package var quotedSQLIdentifier: String { "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// Whether the text is a plain SQL name: ASCII letters, digits and underscores, not starting
    /// with a digit. Every name Core Data derives from a valid model is plain (`ZTITLE`,
    /// `Z_2TAGS`, `Z_FOK_OWNER`; store-format.md §7.1), and none is an SQL keyword: they all
    /// start with `Z`.
    package var isPlainSQLIdentifier: Bool {
        guard let first = unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else { return false }
        return unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }
    }

    /// The text as an SQL identifier in Core Data's style: bare when plain, as Core Data writes
    /// names in the SQL it logs and in `sqlite_master`, otherwise ``quotedSQLIdentifier``.
    ///
    /// The statements cdstore shows (`model --sql`, `query --sql`, the trace, serve's SQL) are
    /// Core Data's, so plain names stay bare; a name that needs quoting (a model whose entity
    /// name holds a space or a quote) is quoted, so that the statement still reads its table.
    package var renderedSQLIdentifier: String { isPlainSQLIdentifier ? self : quotedSQLIdentifier }
}
