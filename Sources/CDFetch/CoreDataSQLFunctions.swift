import CDPredicate
import Foundation
import GRDB
import GRDBSQLite

/// Stand-ins for the SQL functions and collations Core Data registers on its connections
/// (store-format.md §7.9, sqldebug.md §5), so the SQL cdstore generates — and SQL pasted from an
/// app's SQLDebug log — runs on a plain SQLite connection.
///
/// Their exact behaviour inside Core Data is not documented; these are cdstore's definitions:
///
/// * `NSCoreDataLike(value, pattern, flags)`: NSPredicate's `LIKE`: `*` matches any run of
///   characters, `?` exactly one, `\` escapes the next character; the whole value must match.
/// * `NSCoreDataMatches(value, regex, flags)`: NSPredicate's `MATCHES`: an ICU regular expression
///   that must match the whole value.
/// * `NSCoreDataStringSearch(value, search, flags, operation)`: a string comparison whose fourth
///   argument says which (cdstore's convention; a real log shows `1` for a contains search):
///   0 equal, 1 contains, 2 begins with, 3 ends with.
///
/// `flags` (from the predicate's options): `0x1` case-insensitive (`[c]`), `0x80`
/// diacritic-insensitive (`[d]`), `0x20` locale-sensitive (`[l]`); Core Data logs `[c]` as
/// `0x101`, `[d]` as `0x180` and `[l]` as `0x120`. A NULL value or pattern gives NULL (false).
///
/// Collations order text for sort descriptors: `NSCollateNoCase` (`caseInsensitiveCompare:`),
/// `NSCollateNumericallyNoCase` (case-insensitive, digit runs by value),
/// `NSCollateLocaleSensitive` (`localizedCompare:`), `NSCollateLocaleSensitiveNoCase`
/// (`localizedCaseInsensitiveCompare:`) and `NSCollateFinderlike` (`localizedStandardCompare:`).
package enum CoreDataSQLFunctions {
    /// Option bits of the functions' `flags` argument.
    package typealias Flag = StringMatching.Flag

    /// The fourth argument of `NSCoreDataStringSearch`.
    package typealias SearchOperation = StringMatching.SearchOperation

    /// Registers every function and collation on `db`.
    ///
    /// The functions are registered through SQLite's C API rather than GRDB's `DatabaseFunction`,
    /// which would make a String of every argument of every row: they read the argument bytes in
    /// place and keep the prepared pattern with the statement (``StringMatcher``). Registration
    /// fails only when SQLite is out of memory; a statement that uses a function then fails with
    /// SQLite's own "no such function" error.
    package static func register(in db: Database) {
        let connection = db.sqliteConnection
        let textRepresentation = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(connection, "NSCoreDataLike", 3, textRepresentation, nil, like, nil, nil, nil)
        sqlite3_create_function_v2(connection, "NSCoreDataMatches", 3, textRepresentation, nil, matches, nil, nil, nil)
        sqlite3_create_function_v2(connection, "NSCoreDataStringSearch", 4, textRepresentation, nil, stringSearch, nil, nil, nil)
        let collations: [(String, @Sendable (String, String) -> ComparisonResult)] = [
            ("NSCollateNoCase", { $0.compare($1, options: .caseInsensitive) }),
            ("NSCollateNumericallyNoCase", { $0.compare($1, options: [.caseInsensitive, .numeric]) }),
            ("NSCollateLocaleSensitive", { $0.compare($1, options: [], range: nil, locale: .current) }),
            ("NSCollateLocaleSensitiveNoCase", { $0.compare($1, options: .caseInsensitive, range: nil, locale: .current) }),
            ("NSCollateFinderlike", { $0.compare($1, options: [.caseInsensitive, .numeric, .widthInsensitive], range: nil, locale: .current) }),
        ]
        for (name, compare) in collations {
            db.add(collation: DatabaseCollation(name, function: compare))
        }
    }

    private typealias Function = @convention(c) (OpaquePointer?, CInt, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    private static let like: Function = { context, _, arguments in
        guard let arguments else { return }
        match(context, arguments, flags: integer(arguments[2]) ?? 0, kind: .like)
    }

    private static let stringSearch: Function = { context, _, arguments in
        guard let arguments else { return }
        let operation = SearchOperation(rawValue: integer(arguments[3]) ?? 1) ?? .contains
        match(context, arguments, flags: integer(arguments[2]) ?? 0, kind: .search(operation))
    }

    private static let matches: Function = { context, _, arguments in
        guard let arguments else { return }
        guard let value = text(arguments[0]), let pattern = text(arguments[1]) else { return sqlite3_result_null(context) }
        do throws(StringMatching.InvalidPattern) {
            let matched = try StringMatching.matches(value, pattern: pattern, flags: integer(arguments[2]) ?? 0)
            sqlite3_result_int(context, matched ? 1 : 0)
        } catch {
            sqlite3_result_error(context, "MATCHES: invalid regular expression \"\(error.pattern)\"", -1)
        }
    }

    /// `LIKE` and the string searches: the value (argument 0) against the pattern (argument 1).
    /// The pattern's ``StringMatcher`` is kept as SQLite's auxiliary data of argument 1, which
    /// SQLite keeps for as long as that argument stays the same (a bound `?` or a literal: every
    /// row of a statement) and drops when it changes.
    private static func match(
        _ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>, flags: Int,
        kind: StringMatcher.Operator
    ) {
        let value = arguments[0], pattern = arguments[1]
        guard sqlite3_value_type(value) != SQLITE_NULL, sqlite3_value_type(pattern) != SQLITE_NULL else {
            return sqlite3_result_null(context)
        }
        if let saved = sqlite3_get_auxdata(context, 1) {
            // SQLite holds the matcher for the whole call: no retain and release a row.
            let answered = Unmanaged<StringMatcher>.fromOpaque(saved)._withUnsafeGuaranteedRef { matcher in
                guard matcher.flags == flags, matcher.kind == kind else { return false }
                sqlite3_result_int(context, matches(value, matcher) ? 1 : 0)
                return true
            }
            if answered { return }
        }
        let matcher = StringMatcher(pattern: text(pattern) ?? "", flags: flags, kind: kind)
        sqlite3_result_int(context, matches(value, matcher) ? 1 : 0)
        // Last, as SQLite asks: it may release the matcher before this call returns.
        sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(matcher).toOpaque(), releaseMatcher)
    }

    private static func matches(_ value: OpaquePointer?, _ matcher: StringMatcher) -> Bool {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let bytes = sqlite3_value_text(value) else {
            return matcher.matches(text(value) ?? "")
        }
        // The byte path declines text with a NUL in it, which `text` (String(cString:)) has always
        // read up to the NUL only.
        if let answer = matcher.asciiMatch(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))) {
            return answer
        }
        let length = bytes.withMemoryRebound(to: CChar.self, capacity: 1) { strlen($0) }
        return matcher.matches(utf8: UnsafeBufferPointer(start: bytes, count: length))
    }

    private static let releaseMatcher: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        if let pointer { Unmanaged<StringMatcher>.fromOpaque(pointer).release() }
    }

    /// An integer argument as GRDB's `Int.fromDatabaseValue` reads it: a float rounds toward
    /// zero, text and blobs give nil.
    private static func integer(_ value: OpaquePointer?) -> Int? {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return Int(exactly: sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            let number = sqlite3_value_double(value)
            guard number >= Double(Int64.min), number < Double(Int64.max) else { return nil }
            return Int(exactly: Int64(number))
        default: return nil
        }
    }

    /// Text of a value as SQLite would convert it; NULL stays nil.
    private static func text(_ value: OpaquePointer?) -> String? {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return String(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return String(sqlite3_value_double(value))
        case SQLITE_TEXT: return sqlite3_value_text(value).map { String(cString: $0) }
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            return String(decoding: UnsafeRawBufferPointer(start: sqlite3_value_blob(value), count: count), as: UTF8.self)
        default: return nil
        }
    }
}
