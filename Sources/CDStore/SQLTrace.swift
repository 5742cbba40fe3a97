import Foundation
import GRDB

/// Core Data's SQL debug log (`-com.apple.CoreData.SQLDebug N`), written by cdstore for the SQL
/// it runs itself, in Core Data's line format (reference/sqldebug.md §2, §3):
///
/// * level 1: `CoreData: sql: <statement>` for every statement (cdstore's own metadata queries
///   included), `CoreData: annotation: sql connection fetch time: …s`, `total fetch execution
///   time: …s for N rows.`, `total count request execution time: …s for count of N.`;
/// * level 2 adds `CoreData: details: SQLite bind[i] = …` and the `fetch using … returned N rows`
///   annotation;
/// * level 3 adds the fetched objects;
/// * level 4 adds `CoreData: details: SQLite: EXPLAIN QUERY PLAN …` and the plan rows.
///
/// Statements that cdstore runs on its own behalf (metadata, entity registry, schema) are logged
/// by a connection hook with their `sql execution time`; fetches log themselves through
/// ``fetch(sql:arguments:entity:in:rows:)`` so they can report binds and rows, and the hook keeps
/// quiet while they run.
public final class SQLTrace: @unchecked Sendable {
    /// 1 to 4; 0 logs nothing. The console changes it between statements (`.trace`), so a
    /// snapshot keeps one trace whose hook is installed once.
    public var level: Int {
        didSet { level = max(0, min(level, 4)) }
    }
    private let write: @Sendable (String) -> Void
    /// Set while a fetch logs itself, so the connection hook does not log its statements again.
    private var quiet = false

    /// `write` receives each line without its line break; the default writes to standard error.
    public init(level: Int, write: (@Sendable (String) -> Void)? = nil) {
        self.level = max(0, min(level, 4))
        self.write = write ?? { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    package func sql(_ statement: String) { line("sql", statement) }
    package func annotation(_ text: String) { line("annotation", text) }
    package func details(_ text: String) { line("details", text) }

    private func line(_ category: String, _ message: String) {
        guard level > 0 else { return }
        write("CoreData: \(category): \(message)")
    }

    /// Seconds with four decimals, as Core Data prints them.
    package static func seconds(_ duration: TimeInterval) -> String {
        String(format: "%.4f", duration)
    }

    /// Installs the hook that logs every statement run on `db` while the level is 1 and up.
    package func attach(to db: Database) {
        db.trace(options: .profile) { [self] event in
            guard !quiet, level > 0, case let .profile(statement, duration) = event else { return }
            sql(statement.sql)
            annotation("sql execution time: \(Self.seconds(duration))s")
        }
    }

    /// Logs one bound value the way Core Data does: integers and reals bare, strings quoted,
    /// NULL as `nil`, blobs by size.
    package static func bindText(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "nil"
        case .int64(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return "\"\(s)\""
        case .blob(let data): return "<\(data.count) bytes>"
        }
    }

    /// What a traced fetch reports back: its rows, the time SQLite spent stepping them, and (at
    /// level 3) the rows as Core Data would describe them.
    package struct FetchOutcome {
        /// Rows the fetch returned.
        package var rows: Int
        /// Seconds spent stepping the statement in SQLite (`sql connection fetch time`).
        package var sqliteTime: TimeInterval
        /// Row descriptions for level 3; ``rowValueLimit`` at most, so memory stays bounded.
        package var values: [String]

        package init(rows: Int, sqliteTime: TimeInterval, values: [String] = []) {
            self.rows = rows
            self.sqliteTime = sqliteTime
            self.values = values
        }
    }

    /// Level 3 lists at most this many rows; Core Data lists all, but cdstore streams and does
    /// not keep a whole table for its log.
    package static let rowValueLimit = 100

    /// Runs `body` as one traced fetch: logs the statement and (level 2) its binds, lets `body`
    /// step the rows, then logs the timings, (level 2) the statement annotation with (level 3)
    /// the row values, and (level 4) the query plan.
    package func fetch(sql statement: String, arguments: [DatabaseValue], entity: String, in db: Database,
                      rows body: () throws -> FetchOutcome) throws {
        guard level > 0 else {
            _ = try body()
            return
        }
        quiet = true
        defer { quiet = false }
        sql(statement)
        logBinds(arguments)
        let start = Date()
        let outcome = try body()
        let total = Date().timeIntervalSince(start)
        annotation("sql connection fetch time: \(Self.seconds(outcome.sqliteTime))s")
        annotation("total fetch execution time: \(Self.seconds(total))s for \(outcome.rows) rows.")
        if level >= 2 {
            var text = "fetch using NSSQLiteStatement <\(Self.statementAddress(statement))> on entity '\(entity)'"
                + " with sql text '\(statement)' returned \(outcome.rows) rows"
            if level >= 3 {
                var values = outcome.values.map { "    \"" + $0 + "\"" }
                if outcome.rows > outcome.values.count {
                    values.append("    \"(...and \(outcome.rows - outcome.values.count) more...)\"")
                }
                text += " with values: (\n" + values.joined(separator: ",\n") + "\n)"
            }
            annotation(text)
        }
        if level >= 4 { try explain(statement, arguments: arguments, in: db) }
    }

    /// A count request: `total count request execution time: …s for count of N.`
    package func count(sql statement: String, arguments: [DatabaseValue], in db: Database,
                      run body: () throws -> Int) throws -> Int {
        guard level > 0 else { return try body() }
        quiet = true
        defer { quiet = false }
        sql(statement)
        logBinds(arguments)
        let start = Date()
        let count = try body()
        annotation("total count request execution time: \(Self.seconds(Date().timeIntervalSince(start)))s for count of \(count).")
        if level >= 4 { try explain(statement, arguments: arguments, in: db) }
        return count
    }

    private func logBinds(_ arguments: [DatabaseValue]) {
        guard level >= 2 else { return }
        for (index, value) in arguments.enumerated() {
            details("SQLite bind[\(index)] = \(Self.bindText(value))")
        }
    }

    /// `EXPLAIN QUERY PLAN` of the statement and its rows (`id parent detail`).
    private func explain(_ statement: String, arguments: [DatabaseValue], in db: Database) throws {
        details("SQLite: EXPLAIN QUERY PLAN \(statement)")
        let rows = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement, arguments: StatementArguments(arguments))
        for row in rows {
            let id: Int = row["id"] ?? 0
            let parent: Int = row["parent"] ?? 0
            let detail: String = row["detail"] ?? ""
            details("\(id) \(parent) 0 \(detail)")
        }
    }

    /// Core Data prints the statement object's address; cdstore derives a stable stand-in from
    /// the SQL text so logs compare across runs.
    static func statementAddress(_ statement: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in statement.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "0x6000" + String(hash & 0xFFFF_FFFF, radix: 16)
    }
}
