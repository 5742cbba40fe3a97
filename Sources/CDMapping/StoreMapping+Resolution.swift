import CDModel
import Foundation

extension StoreMapping {
    /// The mapping of `model` checked against a real store, following the store wherever an
    /// uncertain rule and the store disagree; each check is recorded in ``resolutions``.
    ///
    /// Settled against the store: which relationship names a join table and the suffixes of its
    /// columns (migrations keep names chosen under earlier entity numbers), the column order of
    /// tables a migration reshaped, and the options the model cannot say (history tables,
    /// `Z_MODELCACHE`, the uniqueness and legacy index styles, and for a store without a model
    /// cache the column order style of ``ColumnOrderStyle``). Everything else stays as predicted, so
    /// ``compare(with:)`` still reports what does not match.
    public static func resolve(model: ManagedObjectModel, registry: EntityRegistry?, schema: StoreSchema) -> StoreMapping {
        let history: HistoryLayout? =
            schema.table(named: "ATRANSACTIONSTRING") != nil
            ? .current
            : schema.table(named: "ATRANSACTION") != nil ? .legacy : nil
        var options = MappingOptions(
            history: history.map(HistoryOption.layout) ?? HistoryOption.none,
            includesModelCache: schema.table(named: "Z_MODELCACHE") != nil,
            rtreeTriggers: schema.triggers.contains { $0.name.hasPrefix("Z_RT_") })
        if schema.table(named: "Z_MODELCACHE") == nil {
            options.columnOrder = columnOrderStyle(of: model, registry: registry, options: options, in: schema)
        }
        var mapping: StoreMapping
        (options.joinKeyOrder, mapping) = joinKeyOrderStyle(of: model, registry: registry, options: options, in: schema)
        options.legacyIndexes = .plainIndexes
        let plain = predict(model: model, registry: registry, options: options)
        let plainIndexes = plain.indexCount(in: schema) > mapping.indexCount(in: schema)
        if plainIndexes {
            mapping = plain
        } else {
            options.legacyIndexes = .fetchIndexes
        }
        if mapping.usesUniqueColumns(in: schema) {
            options.uniqueness = .columnConstraint
            mapping = predict(model: model, registry: registry, options: options)
            mapping.resolutions.append(
                MappingResolution(
                    rule: .uniquenessStyle, held: false,
                    detail: "the store declares one-property uniqueness constraints as UNIQUE columns (framework before 866)"))
        }
        if plainIndexes {
            mapping.resolutions.append(
                MappingResolution(
                    rule: .legacyIndexStyle, held: nil,
                    detail:
                        "indexed attributes and compound indexes are plain indexes, as frameworks before \(LegacyIndexStyle.firstFetchIndexVersion) write them")
            )
        }
        if options.columnOrder == .hashTable {
            mapping.resolutions.removeAll { $0.rule == .columnOrder }
            mapping.resolutions.append(
                MappingResolution(
                    rule: .columnOrder, held: true,
                    detail:
                        "the store orders the columns of one type by the entity's dictionaries, as frameworks before \(ColumnOrderStyle.firstByNameVersion) do")
            )
        }
        if let layout = history {
            mapping.resolutions.append(
                MappingResolution(
                    rule: .historyLayout, held: true,
                    detail: "persistent-history tables (\(layout.rawValue) layout) found in the store"))
        }
        mapping.resolveJoinTables(against: schema)
        mapping.resolveCollisionSuffixes(against: schema)
        mapping.resolveColumnOrder(against: schema)
        return mapping
    }

    /// The column order style under which more of the model's tables have the store's column
    /// order; name order on a tie. Only stores written before framework 640 (no model cache) can
    /// be old enough for the dictionary order.
    private static func columnOrderStyle(
        of model: ManagedObjectModel, registry: EntityRegistry?,
        options: MappingOptions, in schema: StoreSchema
    ) -> ColumnOrderStyle {
        var options = options
        func matchingTables(_ style: ColumnOrderStyle) -> Int {
            options.columnOrder = style
            return predict(model: model, registry: registry, options: options).tables.filter { table in
                table.kind == .entity && schema.table(named: table.name)?.columns.map(\.name) == table.columns.map(\.name)
            }.count
        }
        return matchingTables(.hashTable) > matchingTables(.byName) ? .hashTable : .byName
    }

    /// The join-key order (``JoinKeyOrderStyle``) under which more of the model's join tables
    /// have the store's columns: a store does not record which framework named them, and a
    /// migration may keep older names. The current framework's order when it fits every table
    /// or on a tie. Returns the prediction under that order too, so it is not made again.
    private static func joinKeyOrderStyle(
        of model: ManagedObjectModel, registry: EntityRegistry?,
        options: MappingOptions, in schema: StoreSchema
    ) -> (JoinKeyOrderStyle, StoreMapping) {
        var options = options
        func prediction(_ style: JoinKeyOrderStyle) -> (mapping: StoreMapping, matching: Int, all: Int) {
            options.joinKeyOrder = style
            let mapping = predict(model: model, registry: registry, options: options)
            let joins = mapping.tables.filter { $0.kind == .manyToMany }
            return (mapping, joins.filter { sameColumns($0, schema.table(named: $0.name)) }.count, joins.count)
        }
        let dictionary = prediction(.entityHashTable)
        guard dictionary.matching < dictionary.all else { return (.entityHashTable, dictionary.mapping) }
        let byName = prediction(.entityName)
        return byName.matching > dictionary.matching ? (.entityName, byName.mapping) : (.entityHashTable, dictionary.mapping)
    }

    /// How many of the mapping's indexes the store has, by name.
    private func indexCount(in schema: StoreSchema) -> Int {
        tables.flatMap(\.indexes).filter { schema.index(named: $0.name) != nil }.count
    }

    /// Whether a predicted one-property uniqueness index is absent because the store wrote the
    /// constraint on the column instead (`ZMETADATAHASH VARCHAR UNIQUE`).
    private func usesUniqueColumns(in schema: StoreSchema) -> Bool {
        tables.flatMap(\.indexes).contains { index in
            guard index.kind == .uniqueness, index.columns.count == 1, schema.index(named: index.name) == nil,
                let table = table(named: index.table), let column = table.column(named: index.columns[0]),
                let sql = schema.table(named: index.table)?.sql
            else { return false }
            return sql.contains(" \(column.name) \(column.type) UNIQUE")
        }
    }

    // MARK: Join tables

    /// For each predicted join table the store does not have as predicted, looks for the store
    /// table of the same relationship pair under the other relationship's name or other column
    /// suffixes, and adopts its names.
    mutating func resolveJoinTables(against schema: StoreSchema) {
        let joinIndexes = tables.indices.filter { tables[$0].kind == .manyToMany }
        let exact = joinIndexes.filter { Self.sameColumns(tables[$0], schema.table(named: tables[$0].name)) }
        for index in exact { tables[index].alternatives = [] }
        var claimed = Set(exact.map { tables[$0].name })
        // The notes on uncertain names (reflexive pairs, numbered key columns) now have an answer.
        for index in resolutions.indices where resolutions[index].rule == .joinTableNaming && resolutions[index].held == nil {
            guard let table = resolutions[index].table else { continue }
            resolutions[index].held = claimed.contains(table)
        }
        var moved: [String] = []
        for index in joinIndexes where !exact.contains(index) {
            let predicted = tables[index]
            let candidates = schema.tables.filter { !claimed.contains($0.name) && $0.name.hasPrefix("Z_") }
            let current = self
            guard let adopted = candidates.lazy.compactMap({ current.adopt(predicted, as: $0) }).first else {
                resolutions.append(
                    MappingResolution(
                        rule: .joinTableNaming, held: false, table: predicted.name,
                        detail: "no store table matches the join table \(predicted.name)"))
                continue
            }
            claimed.insert(adopted.name)
            tables[index] = adopted
            moved.append("\(predicted.name) → \(adopted.name)")
        }
        if !joinIndexes.isEmpty {
            let detail =
                moved.isEmpty
                ? "all \(joinIndexes.count) join tables named as predicted"
                : "the store keeps other names (chosen under earlier entity numbers); adopted " + moved.joined(separator: ", ")
            resolutions.append(MappingResolution(rule: .joinTableNaming, held: moved.isEmpty, detail: detail))
        }
    }

    private static func sameColumns(_ table: MappedTable, _ actual: StoreSchema.Table?) -> Bool {
        guard let actual else { return false }
        return actual.columns.map(\.name) == table.columns.map(\.name)
    }

    /// `predicted` renamed to `actual`'s names, if `actual` holds the same relationship pair:
    /// its key columns are `Z_<m><REL>` (with any collision suffix) for the two sides, the side
    /// whose keys sit in the second column names the table (either side may), and the order
    /// columns follow their keys.
    private func adopt(_ predicted: MappedTable, as actual: StoreSchema.Table) -> MappedTable? {
        let keys = predicted.columns.filter { $0.role == .joinKey }
        guard keys.count == 2, actual.columns.count == predicted.columns.count else { return nil }
        let actualFirst = actual.columns[0].name
        let actualSecond = actual.columns[1].name
        guard let first = keys.first(where: { isVariant(actualFirst, of: $0) }),
            let second = keys.first(where: { $0 != first && isVariant(actualSecond, of: $0) }),
            let owner = second.entity, let property = second.property, let ownerNumber = entityNumber(of: owner),
            Self.isSuffixed(actual.name, stem: CoreDataNaming.joinName(entity: ownerNumber, relationship: property))
        else { return nil }
        let keyNames = [first.name: actualFirst, second.name: actualSecond]
        var columns = [first, second]
        columns[0].name = actualFirst
        columns[1].name = actualSecond
        for column in predicted.columns where column.role == .joinOrder {
            guard let key = keys.first(where: { $0.entity == column.entity && $0.property == column.property }),
                let newKey = keyNames[key.name]
            else { return nil }
            var order = column
            order.name = CoreDataNaming.orderColumn(stem: String(newKey.dropFirst(2)))
            columns.append(order)
        }
        guard columns.map(\.name) == actual.columns.map(\.name) else { return nil }
        var table = MappedTable(
            name: actual.name, kind: .manyToMany, columns: columns,
            primaryKey: [actualFirst, actualSecond])
        table.indexes = [MappingBuilder.joinIndex(table: actual.name, first: actualFirst, second: actualSecond)]
        return table
    }

    /// `name` is `column`'s name, or `Z_<m><REL>` for the same relationship with another suffix.
    private func isVariant(_ name: String, of column: MappedColumn) -> Bool {
        if name == column.name { return true }
        guard let property = column.property, let destination = column.destination,
            let number = entityNumber(of: destination)
        else { return false }
        return Self.isSuffixed(name, stem: CoreDataNaming.joinName(entity: number, relationship: property))
    }

    /// `stem` followed by nothing or by a collision number.
    private static func isSuffixed(_ name: String, stem: String) -> Bool {
        name.hasPrefix(stem) && name.dropFirst(stem.count).allSatisfy(\.isNumber)
    }

    // MARK: Collisions

    /// Records whether the numbered names of colliding properties (§7.2) are all in the store.
    mutating func resolveCollisionSuffixes(against schema: StoreSchema) {
        var held: [String] = []
        var failed: [String] = []
        for table in tables where table.kind == .entity {
            guard let actual = schema.table(named: table.name) else { continue }
            let present = Set(actual.columns.map(\.name))
            for column in table.columns where column.role == .attribute || column.role == .toOneKey {
                guard let property = column.property, column.name != CoreDataNaming.column(property: property) else { continue }
                if present.contains(column.name) { held.append(column.name) } else { failed.append("\(table.name).\(column.name)") }
            }
        }
        guard !held.isEmpty || !failed.isEmpty else { return }
        resolutions.append(
            MappingResolution(
                rule: .collisionSuffix, held: failed.isEmpty,
                detail: failed.isEmpty
                    ? "numbered in Z_ENT order, as predicted: " + held.joined(separator: ", ")
                    : "not in the store: " + failed.joined(separator: ", ")))
    }

    // MARK: Column order

    /// Adopts the store's column order where the store has exactly the predicted columns in
    /// another order that its migration history explains (``orderExplanation(_:_:)``).
    mutating func resolveColumnOrder(against schema: StoreSchema) {
        var held = 0
        for index in tables.indices where tables[index].kind == .entity || tables[index].kind == .history {
            let table = tables[index]
            guard let actual = schema.table(named: table.name) else { continue }
            let names = actual.columns.map(\.name)
            if names == table.columns.map(\.name) {
                held += 1
                continue
            }
            guard Set(names) == Set(table.columns.map(\.name)), names.count == table.columns.count else { continue }
            guard let reason = orderExplanation(table, actual) else {
                resolutions.append(
                    MappingResolution(
                        rule: .columnOrder, held: false, table: table.name,
                        detail: "the store's column order differs and nothing explains it; the predicted order is kept"))
                continue
            }
            tables[index].columns = names.compactMap { table.column(named: $0) }
            resolutions.append(
                MappingResolution(
                    rule: .columnOrder, held: false, table: table.name,
                    detail: "column order follows the store: " + reason))
        }
        resolutions.append(
            MappingResolution(
                rule: .columnOrder, held: nil,
                detail: "predicted column order held in \(held) table(s)"))
    }
}
