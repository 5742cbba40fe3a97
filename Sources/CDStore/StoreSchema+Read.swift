import CDMapping
import Foundation
import GRDB

extension StoreSchema {
    /// Reads `sqlite_master` and each table's `PRAGMA table_info` (through GRDB, which quotes
    /// the table name; no value is spliced into SQL). A table SQLite cannot describe, such as a
    /// virtual table whose module this SQLite lacks, is listed without columns.
    public static func read(_ db: Database) throws -> StoreSchema {
        let rows = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
        var schema = StoreSchema(tables: [], indexes: [], triggers: [])
        for row in rows {
            let type: String = row[0] ?? ""
            let name: String = row[1] ?? ""
            let table: String = row[2] ?? ""
            let sql: String? = row[3]
            switch type {
            case "table":
                let columns = (try? db.columns(in: name)) ?? []
                schema.tables.append(
                    Table(
                        name: name, sql: sql,
                        columns: columns.map { Column(name: $0.name, type: $0.type) }))
            case "index":
                schema.indexes.append(Index(name: name, table: table, sql: sql))
            case "trigger":
                schema.triggers.append(Trigger(name: name, table: table, sql: sql))
            default:
                continue
            }
        }
        return schema
    }
}
