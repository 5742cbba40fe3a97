import CDBase
import Foundation

/// What a store's `sqlite_master` actually holds: tables with their columns, indexes, triggers.
public struct StoreSchema: Sendable, Codable, Equatable {
    /// A column as `PRAGMA table_info` reports it.
    public struct Column: Sendable, Codable, Equatable {
        /// The column's name.
        public var name: String
        /// The declared type, as `PRAGMA table_info` reports it.
        public var type: String

        package init(name: String, type: String) {
            self.name = name
            self.type = type
        }
    }

    /// A `sqlite_master` table row with its columns.
    public struct Table: Sendable, Codable, Equatable {
        /// The table's name.
        public var name: String
        /// The CREATE statement as SQLite keeps it; nil for tables SQLite creates without one.
        @NullEncoded public var sql: String?
        /// In declaration order; empty when SQLite cannot describe the table.
        public var columns: [Column]

        package init(name: String, sql: String?, columns: [Column]) {
            self.name = name
            self.sql = sql
            self.columns = columns
        }

        /// Columns added by `ALTER TABLE … ADD COLUMN`, which Core Data's lightweight migration
        /// uses. SQLite splices each new definition in before the closing parenthesis, so the
        /// text reads `ZLENSMODEL VARCHAR , ZSLUSHVERSION INTEGER)`: Core Data itself never
        /// writes a space before a comma.
        public var appendedColumns: [String] {
            guard let sql, let open = sql.firstIndex(of: "("), let close = sql.lastIndex(of: ")"), open < close,
                let splice = sql[sql.index(after: open)..<close].range(of: " , ")
            else { return [] }
            return sql[splice.upperBound..<close].split(separator: ",").compactMap {
                $0.split(separator: " ").first.map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            }
        }

        /// `ALTER TABLE … RENAME TO` rewrites the statement with the new name quoted
        /// (`CREATE TABLE "Z_3SUGGESTIONS…"`), which Core Data never writes.
        public var wasRenamed: Bool {
            sql?.hasPrefix("CREATE TABLE \"") ?? false
        }
    }

    /// A `sqlite_master` row of an index or a trigger: the object's name, the table it belongs to
    /// (the table indexed, or whose changes fire the trigger) and its CREATE statement.
    public struct SchemaObject: Sendable, Codable, Equatable {
        /// The index's or trigger's name.
        public var name: String
        /// The table it indexes, or whose changes fire it.
        public var table: String
        /// The CREATE statement; `nil` for SQLite's automatic indexes (`sqlite_autoindex_…`).
        @NullEncoded public var sql: String?

        package init(name: String, table: String, sql: String?) {
            self.name = name
            self.table = table
            self.sql = sql
        }
    }

    /// A `sqlite_master` index row.
    public typealias Index = SchemaObject
    /// A `sqlite_master` trigger row.
    public typealias Trigger = SchemaObject

    /// In `sqlite_master` order.
    public var tables: [Table]
    /// In `sqlite_master` order, SQLite's automatic indexes included.
    public var indexes: [Index]
    /// In `sqlite_master` order.
    public var triggers: [Trigger]

    package init(tables: [Table], indexes: [Index], triggers: [Trigger]) {
        self.tables = tables
        self.indexes = indexes
        self.triggers = triggers
    }

    /// The table called exactly `name`.
    public func table(named name: String) -> Table? {
        tables.first { $0.name == name }
    }

    /// The index called exactly `name`.
    public func index(named name: String) -> Index? {
        indexes.first { $0.name == name }
    }

    /// Signs that migrations reshaped the store after Core Data created it: renamed tables,
    /// appended columns, indexes on renamed tables. Such stores keep objects of earlier model
    /// versions, so differences there are explained rather than failed.
    public var showsMigrationHistory: Bool {
        tables.contains { $0.wasRenamed || !$0.appendedColumns.isEmpty }
            || indexes.contains { $0.sql?.contains(" ON \"") ?? false }
    }
}
