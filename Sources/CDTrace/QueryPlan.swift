import CDFetch
import CDStore
import Foundation
import GRDB
import GRDBSQLite

/// `EXPLAIN QUERY PLAN` of logged statements: read from a level-4 log, or run on the store.
package enum QueryPlan {
    /// The first plan row in `rows` that scans the table of `t0` without an index, or nil. Rows
    /// come as cdstore logs them (`2 0 0 SCAN t0`), as SQLite prints them today (`SCAN t0`,
    /// `SCAN t0 USING COVERING INDEX …`) and as older SQLite did (`SCAN TABLE ZPERSON AS t0`).
    package static func scan(in rows: [String], shape: StatementShape) -> String? {
        let main = shape.tables.first { $0.alias == "t0" } ?? shape.tables.first
        guard let main else { return nil }
        for row in rows {
            guard let match = row.firstMatch(of: /SCAN (?:TABLE )?([A-Za-z_][A-Za-z0-9_]*)(?: AS ([A-Za-z_][A-Za-z0-9_]*))?(.*)/) else { continue }
            let name = String(match.output.1)
            let alias = match.output.2.map(String.init)
            guard !match.output.3.contains("USING"), name == main.alias || name == main.table || alias == main.alias else { continue }
            return String(row[match.range.lowerBound...])
        }
        return nil
    }

    /// Runs EXPLAIN QUERY PLAN of `sql` on the read-only snapshot and returns its detail rows.
    /// Core Data's functions and collations are registered (as for a fetch) so its statements
    /// prepare; an intarray subquery (`IN (SELECT * FROM _Z_intarray0)`, a table that exists only
    /// on Core Data's connection) is planned as an `IN` list of one bound value, which SQLite
    /// plans the same way (a lookup per key). Nil when SQLite cannot prepare the statement (a
    /// statement from another store or model).
    package static func explain(_ sql: String, on snapshot: StoreSnapshot) -> [String]? {
        let runnable = sql.replacing(/IN\s*\(\s*SELECT \* FROM _Z_intarray\d+\s*\)/, with: "IN (?)")
        snapshot.database.inDatabase { db in CoreDataSQLFunctions.register(in: db) }
        return try? snapshot.read { db in
            let statement = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + runnable)
            let count = Int(sqlite3_bind_parameter_count(statement.sqliteStatement))
            let rows = try Row.fetchAll(statement, arguments: StatementArguments(Array(repeating: DatabaseValue.null, count: count)))
            return rows.map { row in row["detail"] ?? "" }
        }
    }
}
