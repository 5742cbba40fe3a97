import CDModel
import Foundation

/// Core Data's own tables: the bookkeeping tables and persistent history.
extension MappingBuilder {
    /// Verbatim in every store from framework 230 to 1448 (§3).
    func bookkeepingTables(includesModelCache: Bool) -> [MappedTable] {
        func column(_ name: String, _ type: String) -> MappedColumn {
            MappedColumn(name: name, type: type, role: .framework)
        }
        var tables = [
            MappedTable(
                name: "Z_PRIMARYKEY", kind: .bookkeeping,
                columns: [
                    column("Z_ENT", "INTEGER"), column("Z_NAME", "VARCHAR"),
                    column("Z_SUPER", "INTEGER"), column("Z_MAX", "INTEGER"),
                ],
                primaryKey: ["Z_ENT"]),
            MappedTable(
                name: "Z_METADATA", kind: .bookkeeping,
                columns: [
                    column("Z_VERSION", "INTEGER"), column("Z_UUID", "VARCHAR(255)"),
                    column("Z_PLIST", "BLOB"),
                ],
                primaryKey: ["Z_VERSION"]),
        ]
        if includesModelCache {
            tables.append(
                MappedTable(
                    name: "Z_MODELCACHE", kind: .bookkeeping,
                    columns: [column("Z_CONTENT", "BLOB")], primaryKey: []))
        }
        return tables
    }

    /// The history tables come from a framework model that the cache does not hold, so they are
    /// written out here from the DDL seen in real stores (§11). One `ZTOMBSTONE<i>` BLOB per
    /// attribute that "preserves its value after deletion", as many as the entity (with its
    /// inherited attributes) that has the most: knowledgeC 10.13 has 3, Photos 6.
    mutating func historyTables(options: MappingOptions) -> [MappedTable] {
        let layout: HistoryLayout
        switch options.history {
        case .none:
            return []
        case .layout(let chosen):
            layout = chosen
        case .asRegistered:
            let names = Set(registry?.entities.filter { $0.reservedRange == .history }.map(\.name) ?? [])
            guard
                let registered: HistoryLayout = names.contains("TRANSACTIONSTRING")
                    ? .current
                    : names.contains("TRANSACTION") ? .legacy : nil
            else { return [] }
            layout = registered
            notes.append(
                MappingResolution(
                    rule: .historyLayout, held: nil,
                    detail: "persistent history (\(layout.rawValue) layout) from the history entities in Z_PRIMARYKEY"))
        }
        let tombstones =
            model.entities.map { entity in
                model.lineage(of: entity.name).flatMap(\.attributes).filter(\.preservesValueInHistoryOnDeletion).count
            }.max() ?? 0
        return HistoryTableDefinitions.tables(layout: layout, tombstones: tombstones)
    }
}
