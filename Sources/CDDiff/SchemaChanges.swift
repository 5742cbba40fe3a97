import CDMapping
import CDStore

/// The tables, columns, indexes and triggers added, removed or changed from store A to store B,
/// each named by the model of the store that has it (docs/format/store-format.md §7), and marked
/// when that model does not explain it (``StoreMapping/compare(with:)``'s extra objects: a
/// migration's leftovers, the app's own tables).
enum SchemaChanges {
    struct Side {
        let schema: StoreSchema
        let mapping: StoreMapping
        let unexplained: [SchemaDifference]

        init(schema: StoreSchema, mapping: StoreMapping) {
            self.schema = schema
            self.mapping = mapping
            unexplained = mapping.compare(with: schema).differences.filter {
                [.extraTable, .extraColumn, .extraIndex, .trigger].contains($0.kind)
            }
        }

        func tableName(_ table: String) -> String? {
            guard let mapped = mapping.table(named: table) else { return nil }
            if !mapped.entities.isEmpty { return mapped.entities.joined(separator: ", ") }
            let properties = mapped.columns.compactMap { column in column.entity.flatMap { entity in column.property.map { entity + "." + $0 } } }
            return properties.isEmpty ? nil : Array(Set(properties)).sorted().joined(separator: ", ")
        }

        func columnName(_ table: String, _ column: String) -> String? {
            guard let mapped = mapping.table(named: table)?.column(named: column), let entity = mapped.entity else { return nil }
            return mapped.property.map { entity + "." + $0 } ?? entity
        }

        func indexName(_ index: String) -> String? {
            mapping.tables.flatMap(\.indexes).first { $0.name == index }?.entity
        }

        /// Why the model does not explain the object, when it does not.
        func note(table: String, name: String?) -> String? {
            unexplained.first { $0.table == table && $0.name == name }?.detail
        }
    }

    static func compare(_ a: Side, _ b: Side) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        let tablesA = Dictionary(a.schema.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let tablesB = Dictionary(b.schema.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for table in a.schema.tables where tablesB[table.name] == nil && !table.name.hasPrefix("sqlite_") {
            changes.append(
                SchemaChange(
                    kind: .tableRemoved, table: table.name, modelName: a.tableName(table.name),
                    old: table.sql, new: nil, note: a.note(table: table.name, name: nil)))
        }
        for table in b.schema.tables where !table.name.hasPrefix("sqlite_") {
            guard let old = tablesA[table.name] else {
                changes.append(
                    SchemaChange(
                        kind: .tableAdded, table: table.name, modelName: b.tableName(table.name),
                        old: nil, new: table.sql, note: b.note(table: table.name, name: nil)))
                continue
            }
            let oldColumns = Dictionary(old.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let newColumns = Set(table.columns.map(\.name))
            for column in old.columns where !newColumns.contains(column.name) {
                changes.append(
                    SchemaChange(
                        kind: .columnRemoved, table: table.name, name: column.name,
                        modelName: a.columnName(table.name, column.name), old: column.type, new: nil,
                        note: a.note(table: table.name, name: column.name)))
            }
            for column in table.columns {
                if let before = oldColumns[column.name] {
                    if before.type != column.type {
                        changes.append(
                            SchemaChange(
                                kind: .columnTypeChanged, table: table.name, name: column.name,
                                modelName: b.columnName(table.name, column.name), old: before.type, new: column.type))
                    }
                } else {
                    changes.append(
                        SchemaChange(
                            kind: .columnAdded, table: table.name, name: column.name,
                            modelName: b.columnName(table.name, column.name), old: nil, new: column.type,
                            note: b.note(table: table.name, name: column.name)))
                }
            }
        }
        changes += objects(
            a.schema.indexes, b.schema.indexes, added: .indexAdded, removed: .indexRemoved, changed: .indexChanged,
            a: a, b: b, name: { side, index in side.indexName(index) })
        changes += objects(
            a.schema.triggers, b.schema.triggers, added: .triggerAdded, removed: .triggerRemoved, changed: .triggerChanged,
            a: a, b: b, name: { _, _ in nil })
        return changes
    }

    private static func objects(
        _ old: [StoreSchema.SchemaObject], _ new: [StoreSchema.SchemaObject],
        added: SchemaChange.Kind, removed: SchemaChange.Kind, changed: SchemaChange.Kind,
        a: Side, b: Side, name: (Side, String) -> String?
    ) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        let byNameA = Dictionary(old.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let namesB = Set(new.map(\.name))
        for object in old where !namesB.contains(object.name) {
            changes.append(
                SchemaChange(
                    kind: removed, table: object.table, name: object.name, modelName: name(a, object.name),
                    old: object.sql, new: nil, note: a.note(table: object.table, name: object.name)))
        }
        for object in new {
            if let before = byNameA[object.name] {
                if before.sql != object.sql || before.table != object.table {
                    changes.append(
                        SchemaChange(
                            kind: changed, table: object.table, name: object.name, modelName: name(b, object.name),
                            old: before.sql, new: object.sql))
                }
            } else {
                changes.append(
                    SchemaChange(
                        kind: added, table: object.table, name: object.name, modelName: name(b, object.name),
                        old: nil, new: object.sql, note: b.note(table: object.table, name: object.name)))
            }
        }
        return changes
    }
}
