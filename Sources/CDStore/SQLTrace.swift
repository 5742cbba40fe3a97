import Foundation
import GRDB

/// Core Data's SQL debug log (`-com.apple.CoreData.SQLDebug N`) for the request cdstore runs, in
/// Core Data's line format (docs/format/sqldebug.md §2, §3). It holds only what Core Data itself
/// would print, so that it reads like the app's own log:
///
/// * level 1: the lines Core Data prints when it opens a store (`connecting(to:walMode:)`),
///   `CoreData: sql: <statement>` for each fetch, `CoreData: annotation: sql connection fetch
///   time: …s`, `total fetch execution time: …s for N rows.`, `total count request execution
///   time: …s for count of N.`;
/// * level 2 adds `CoreData: details: SQLite bind[i] = …` and the `fetch using … returned N rows`
///   annotation;
/// * level 3 adds the fetched objects;
/// * level 4 adds `CoreData: details: SQLite: EXPLAIN QUERY PLAN …` and the plan rows.
///
/// The statements cdstore runs on its own behalf (signature check, metadata, entity registry,
/// schema, model cache) are none of Core Data's: a connection hook logs them under a `cdstore:`
/// prefix, at level 4 only, so no reader of the log takes them for Core Data's. Fetches log
/// themselves through `fetch(sql:arguments:entity:in:rows:)` so they can report binds and rows,
/// and the hook keeps quiet while they run.
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

    private func line(_ category: String, _ message: String, prefix: String = "CoreData") {
        guard level > 0 else { return }
        write("\(prefix): \(category): \(message)")
    }

    /// The lines Core Data prints at level 1 when it opens the store at `path`: the `Connecting to`
    /// annotation and the statements of its connection set-up, as recorded from a real log
    /// (docs/format/sqldebug.md §4 and §8 block 5). `pragma journal_mode=wal` is printed for a
    /// store in WAL mode only, the one mode the recorded log shows. cdstore reads the same
    /// tables its own way; these lines stand for Core Data's opening so that a trace compares
    /// line for line with the app's log.
    package func connecting(to path: String, walMode: Bool) {
        guard level > 0 else { return }
        annotation("Connecting to sqlite database file at \"\(path)\"")
        for statement in Self.connectionStatements(walMode: walMode) { sql(statement) }
    }

    /// Core Data's connection statements in the order of docs/format/sqldebug.md §8 block 5.
    static func connectionStatements(walMode: Bool) -> [String] {
        let probe = { (table: String) in "SELECT TBL_NAME FROM SQLITE_MASTER WHERE TBL_NAME = '\(table)'" }
        return [probe("Z_METADATA"), "pragma recursive_triggers=1"]
            + (walMode ? ["pragma journal_mode=wal"] : [])
            + ["SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA"]
            + ["Z_METADATA", "Z_MODELCACHE", "ACHANGE", "ATRANSACTION"].map(probe)
    }

    /// Seconds with four decimals, as Core Data prints them.
    package static func seconds(_ duration: TimeInterval) -> String {
        String(format: "%.4f", duration)
    }

    /// Installs the hook that logs the statements cdstore runs on `db` for itself: at level 4
    /// only, under the `cdstore:` prefix (they are not Core Data's).
    package func attach(to db: Database) {
        db.trace(options: .profile) { [self] event in
            guard !quiet, level >= 4, case let .profile(statement, duration) = event else { return }
            line("sql", statement.sql, prefix: "cdstore")
            line("annotation", "sql execution time: \(Self.seconds(duration))s", prefix: "cdstore")
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
    package func fetch(
        sql statement: String, arguments: [DatabaseValue], entity: String, in db: Database,
        rows body: () throws -> FetchOutcome
    ) throws {
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
            var text =
                "fetch using NSSQLiteStatement <\(Self.statementAddress(statement))> on entity '\(entity)'"
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
    package func count(
        sql statement: String, arguments: [DatabaseValue], in db: Database,
        run body: () throws -> Int
    ) throws -> Int {
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
