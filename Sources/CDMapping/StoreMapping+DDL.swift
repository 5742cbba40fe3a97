import CDBase
import Foundation

extension MappedTable {
    /// The CREATE TABLE statement in Core Data's text, as `sqlite_master.sql` keeps it (no
    /// trailing semicolon): `CREATE TABLE ZPOST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, … )`.
    ///
    /// Entity, join and history tables put a space inside the parentheses; the bookkeeping
    /// tables of §3 do not.
    public var createStatement: String {
        let name = self.name.renderedSQLIdentifier
        let definitions = columns.map { column -> String in
            var text = column.name.renderedSQLIdentifier + " " + column.type
            if primaryKey == [column.name] && kind != .manyToMany { text += " PRIMARY KEY" }
            if column.unique { text += " UNIQUE" }
            return text
        }
        switch kind {
        case .rtree:
            let bounds = columns.map { column in
                column.name.renderedSQLIdentifier + " " + column.type + (column.role == .primaryKey ? " PRIMARY KEY" : "")
            }
            return "CREATE VIRTUAL TABLE \(name) USING RTREE (\(bounds.joined(separator: ", ")))"
        case .bookkeeping:
            return "CREATE TABLE \(name) (\(definitions.joined(separator: ", ")))"
        case .manyToMany:
            let key = "PRIMARY KEY (" + primaryKey.map(\.renderedSQLIdentifier).joined(separator: ", ") + ")"
            return "CREATE TABLE \(name) ( \((definitions + [key]).joined(separator: ", ")) )"
        case .entity, .history:
            return "CREATE TABLE \(name) ( \(definitions.joined(separator: ", ")) )"
        }
    }
}

extension MappedIndex {
    /// The CREATE INDEX statement in Core Data's text: plain for key indexes
    /// (`ON ZPAGE (ZBOOK)`), `COLLATE BINARY ASC|DESC` per column for fetch indexes and
    /// uniqueness constraints, then ` WHERE …` for a partial index.
    public var createStatement: String {
        let elements = columns.enumerated().map { offset, column -> String in
            let name = column.renderedSQLIdentifier
            guard let order, offset < order.count else { return name }
            return "\(name) COLLATE BINARY \(order[offset])"
        }
        var text =
            "CREATE \(unique ? "UNIQUE " : "")INDEX \(name.renderedSQLIdentifier) ON \(table.renderedSQLIdentifier) ("
            + elements.joined(separator: ", ") + ")"
        if let whereClause { text += " WHERE " + whereClause }
        return text
    }
}

extension StoreMapping {
    /// Every CREATE statement in the order Core Data runs them for a new store, which is the
    /// order `sqlite_master` lists them in: model tables (each entity table followed by its join
    /// tables); then per entity table its key and `Z_ENT` indexes, its join tables' indexes, its
    /// fetch and uniqueness indexes; the bookkeeping tables; the history tables and indexes.
    ///
    /// The text equals `sqlite_master` for every corpus store no migration reshaped. Where it
    /// cannot: SQLite rewrites statements on `ALTER TABLE` (renamed tables come back quoted,
    /// added columns after ` , `; Photos); framework 977 writes two spaces after `WHERE` in a
    /// to-one `!= nil` partial index (Photos 10.15.4); framework 754 creates the `Z_ENT` index
    /// before the key indexes (photosgraph); a store written by a migration lists the
    /// bookkeeping tables first. Derived-attribute triggers (§7.8) are not generated.
    public var createStatements: [String] { createStatements(indexesAfterEachTable: false) }

    /// The statements in the order a given framework writes them: frameworks up to 481 create
    /// each table's indexes right after the table (Recipes, FailedBankCD, BookMigration); 754
    /// and later create all tables first (see ``createStatements``).
    public func createStatements(indexesAfterEachTable: Bool) -> [String] {
        let model = tables.filter { $0.kind == .entity || $0.kind == .manyToMany }
        let bookkeeping = tables.filter { $0.kind == .bookkeeping }
        let history = tables.filter { $0.kind == .history }
        let framework =
            tables.filter { $0.kind == .rtree }.flatMap { [$0.createStatement] + $0.triggers }
            + bookkeeping.map(\.createStatement)
            + history.map(\.createStatement)
            + history.flatMap(\.indexes).map(\.createStatement)
        if indexesAfterEachTable {
            return model.flatMap { [$0.createStatement] + $0.indexes.map(\.createStatement) } + framework
        }
        var indexes: [MappedIndex] = []
        var declared: [MappedIndex] = []
        for table in model {
            if table.kind == .entity {
                indexes += declared
                declared = table.indexes.filter { $0.kind == .fetchIndex || $0.kind == .uniqueness }
                indexes += table.indexes.filter { $0.kind != .fetchIndex && $0.kind != .uniqueness }
            } else {
                indexes += table.indexes
            }
        }
        indexes += declared
        return model.map(\.createStatement) + indexes.map(\.createStatement) + framework
    }

    /// ``createStatements`` as a script, one statement per line, each ending in `;`.
    public var createScript: String {
        createStatements.map { $0 + ";\n" }.joined()
    }
}
