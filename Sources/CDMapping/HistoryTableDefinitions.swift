import Foundation

/// The persistent-history tables (store-format.md §11), written out from real stores because
/// their model (entities `CHANGE`, `TRANSACTION`, `TRANSACTIONSTRING`, numbered 16001–16003)
/// is built into the framework and never cached in the store.
///
/// Modelling them, rather than skipping them, lets a recreated store carry history tables that
/// Core Data accepts, and lets a comparison flag a damaged one.
enum HistoryTableDefinitions {
    static func tables(layout: HistoryLayout, tombstones: Int) -> [MappedTable] {
        var result = [change(tombstones: tombstones), transaction(layout: layout)]
        if layout == .current { result.append(transactionString()) }
        return result
    }

    private static let standard: [MappedColumn] = [
        MappedColumn(name: "Z_PK", type: "INTEGER", role: .primaryKey),
        MappedColumn(name: "Z_ENT", type: "INTEGER", role: .entityType),
        MappedColumn(name: "Z_OPT", type: "INTEGER", role: .optimisticLock),
    ]

    private static func column(_ entity: String, _ property: String, _ type: String) -> MappedColumn {
        MappedColumn(name: CoreDataNaming.column(property: property), type: type, role: .framework, entity: entity, property: property)
    }

    /// `ACHANGE`: one row per changed object, with `ZTOMBSTONE0…` for preserved values.
    private static func change(tombstones: Int) -> MappedTable {
        var columns =
            standard + [
                column("CHANGE", "changeType", "INTEGER"), column("CHANGE", "entity", "INTEGER"),
                column("CHANGE", "entityPK", "INTEGER"), column("CHANGE", "transactionID", "INTEGER"),
                column("CHANGE", "columns", "BLOB"),
            ]
        columns += (0..<tombstones).map { column("CHANGE", "tombstone\($0)", "BLOB") }
        return MappedTable(
            name: "ACHANGE", kind: .history, entities: ["CHANGE"], columns: columns, primaryKey: ["Z_PK"],
            indexes: [
                MappedIndex(
                    name: "ACHANGE_ZTRANSACTIONID_INDEX", table: "ACHANGE",
                    kind: .foreignKey, columns: ["ZTRANSACTIONID"])
            ])
    }

    /// `ATRANSACTION`; the current layout adds keys into `ATRANSACTIONSTRING` (`Z…TS`).
    private static func transaction(layout: HistoryLayout) -> MappedTable {
        let interned = ["authorTS", "bundleIDTS", "contextNameTS", "processIDTS"]
        var columns = standard
        var indexes: [MappedIndex] = []
        if layout == .current {
            for name in interned {
                let column = column("TRANSACTION", name, "INTEGER")
                columns.append(column)
                indexes.append(
                    MappedIndex(
                        name: "ATRANSACTION_\(column.name)_INDEX", table: "ATRANSACTION",
                        kind: .foreignKey, columns: [column.name]))
            }
        }
        columns += [
            column("TRANSACTION", "timestamp", "FLOAT"), column("TRANSACTION", "author", "VARCHAR"),
            column("TRANSACTION", "bundleID", "VARCHAR"), column("TRANSACTION", "contextName", "VARCHAR"),
            column("TRANSACTION", "processID", "VARCHAR"), column("TRANSACTION", "queryGen", "BLOB"),
        ]
        indexes += [
            MappedIndex(
                name: "Z_TRANSACTION_TransactionAuthorIndex", table: "ATRANSACTION", kind: .fetchIndex,
                columns: ["ZAUTHOR"], order: ["ASC"], entity: "TRANSACTION"),
            MappedIndex(
                name: "Z_TRANSACTION_TransactionTimestampIndex", table: "ATRANSACTION", kind: .fetchIndex,
                columns: ["ZTIMESTAMP"], order: ["ASC"], entity: "TRANSACTION"),
        ]
        return MappedTable(
            name: "ATRANSACTION", kind: .history, entities: ["TRANSACTION"], columns: columns,
            primaryKey: ["Z_PK"], indexes: indexes)
    }

    /// `ATRANSACTIONSTRING`: interned author, bundle, context and process strings.
    private static func transactionString() -> MappedTable {
        let columns = standard + [column("TRANSACTIONSTRING", "name", "VARCHAR")]
        return MappedTable(
            name: "ATRANSACTIONSTRING", kind: .history, entities: ["TRANSACTIONSTRING"], columns: columns,
            primaryKey: ["Z_PK"],
            indexes: [
                MappedIndex(
                    name: "Z_TRANSACTIONSTRING_UNIQUE_NAME", table: "ATRANSACTIONSTRING",
                    kind: .uniqueness, unique: true, columns: ["ZNAME"], order: ["ASC"],
                    entity: "TRANSACTIONSTRING")
            ])
    }
}

extension StoreMapping {
    /// The persistent-history tables of a store whose `Z_PRIMARYKEY` registers the history
    /// entities, without tombstone columns; nil when it registers none (store-format.md §11).
    public static func historyTables(registeredIn registry: EntityRegistry) -> [MappedTable]? {
        let names = Set(registry.entities.filter { $0.reservedRange == .history }.map(\.name))
        let layout: HistoryLayout
        if names.contains("TRANSACTIONSTRING") {
            layout = .current
        } else if names.contains("TRANSACTION") {
            layout = .legacy
        } else {
            return nil
        }
        return HistoryTableDefinitions.tables(layout: layout, tombstones: 0)
    }
}
