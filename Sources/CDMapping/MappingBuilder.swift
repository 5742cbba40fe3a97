import CDModel
import Foundation

/// Builds a ``StoreMapping`` from a model, one hierarchy table at a time.
struct MappingBuilder {
    let model: ManagedObjectModel
    let registry: EntityRegistry?
    var numbers: [String: Int] = [:]
    var notes: [MappingResolution] = []
    /// Entity name → the table its hierarchy lives in.
    var tableOf: [String: String] = [:]
    /// Per table: the upper-cased column names taken so far (§7.2 collisions are per table).
    var takenNames: [String: Set<String>] = [:]
    var pending: [String: [(ColumnSortKey, MappedColumn)]] = [:]
    var columnOrder = ColumnOrderStyle.byName
    var joinKeyOrder = JoinKeyOrderStyle.entityHashTable

    init(model: ManagedObjectModel, registry: EntityRegistry?) {
        self.model = model
        self.registry = registry
    }

    mutating func build(options: MappingOptions) -> StoreMapping {
        assignNumbers()
        columnOrder = options.columnOrder
        joinKeyOrder = options.joinKeyOrder
        if columnOrder == .hashTable {
            notes.append(
                MappingResolution(
                    rule: .columnOrder, held: nil,
                    detail:
                        "columns of one type in the order of the entity's attribute, then relationship, dictionary, as frameworks before \(ColumnOrderStyle.firstByNameVersion) write them; inferred from the stores of 230 and 241 (a Mac's 64-bit hash), uncertain"
                ))
        }
        let ordered = model.entities.sorted { number($0.name) < number($1.name) }
        let roots = ordered.filter { isRoot($0) }
        for root in roots {
            let table = CoreDataNaming.entityTable(root: root.name)
            takenNames[table] = ["Z_PK", "Z_ENT", "Z_OPT"]
            pending[table] = []
            for member in hierarchy(of: root.name) { tableOf[member] = table }
        }
        for entity in ordered { addColumns(of: entity) }
        for entity in ordered { addHiddenToManyKeys(of: entity) }
        let joins = joinTables(ordered: ordered)

        var tables: [MappedTable] = []
        for root in roots {
            let name = CoreDataNaming.entityTable(root: root.name)
            let members = hierarchy(of: root.name)
            var columns = [
                MappedColumn(name: "Z_PK", type: "INTEGER", role: .primaryKey),
                MappedColumn(name: "Z_ENT", type: "INTEGER", role: .entityType),
                MappedColumn(name: "Z_OPT", type: "INTEGER", role: .optimisticLock),
            ]
            columns += (pending[name] ?? []).sorted { $0.0 < $1.0 }.map(\.1)
            var table = MappedTable(name: name, kind: .entity, entities: members, columns: columns, primaryKey: ["Z_PK"])
            if options.uniqueness == .columnConstraint { markUniqueColumns(of: &table, members: members) }
            table.indexes = indexes(of: table, members: members, options: options)
            tables.append(table)
            tables += joins.filter { join in members.contains(join.owner) }.map(\.table)
        }
        for root in roots {
            let name = CoreDataNaming.entityTable(root: root.name)
            guard let table = tables.first(where: { $0.name == name }) else { continue }
            for member in hierarchy(of: root.name) {
                guard let entity = model.entity(named: member) else { continue }
                tables += rtreeTables(of: entity, table: table, triggers: options.rtreeTriggers)
            }
        }
        tables += bookkeepingTables(includesModelCache: options.includesModelCache)
        tables += historyTables(options: options)

        let entities = ordered.map {
            MappedEntity(name: $0.name, number: number($0.name), parent: $0.parentName, table: tableOf[$0.name] ?? "")
        }
        return StoreMapping(entities: entities, tables: tables, resolutions: notes)
    }

    // MARK: Entities

    func number(_ entity: String) -> Int { numbers[entity] ?? 0 }

    func isRoot(_ entity: EntityDescription) -> Bool {
        entity.parentName.map { model.entity(named: $0) == nil } ?? true
    }

    /// `name` and its descendants in `Z_ENT` order.
    func hierarchy(of name: String) -> [String] {
        var result: [String] = []
        var pendingNames = [name]
        while let next = pendingNames.popLast() {
            guard !result.contains(next) else { continue }
            result.append(next)
            pendingNames += model.subentities(of: next).map(\.name)
        }
        return result.sorted { number($0) < number($1) }
    }

    func hasSubentities(_ name: String) -> Bool {
        !model.subentities(of: name).isEmpty
    }

    /// Numbers from `Z_PRIMARYKEY` by name, then by renaming identifier (a renamed entity can
    /// keep its old name there: CoreDataPlus `LuxuryCar` is row 3 `ExpensiveSportCar`).
    mutating func assignNumbers() {
        let computed = StoreMapping.computedEntityNumbers(for: model)
        guard let registry else {
            numbers = computed
            notes.append(
                MappingResolution(
                    rule: .entityNumbering, held: nil,
                    detail: "Z_ENT numbers computed from the model (roots, then sub-trees, by case-insensitive name); the collation is uncertain"))
            return
        }
        var missing: [String] = []
        for entity in model.entities {
            if let row = registry.entity(named: entity.name) {
                numbers[entity.name] = row.ent
            } else if let old = entity.renamingIdentifier, let row = registry.entity(named: old) {
                numbers[entity.name] = row.ent
                notes.append(
                    MappingResolution(
                        rule: .renamedEntity, held: true,
                        detail: "\(entity.name) is Z_PRIMARYKEY row \(row.ent) under its renaming identifier \(old)"))
            } else {
                missing.append(entity.name)
            }
        }
        let taken = Set(numbers.values)
        var next = (registry.entities.map(\.ent).filter { $0 < 16000 }.max() ?? 0) + 1
        for name in missing {
            while taken.contains(next) { next += 1 }
            numbers[name] = next
            next += 1
            notes.append(
                MappingResolution(
                    rule: .entityNumbering, held: false,
                    detail: "\(name) has no Z_PRIMARYKEY row; numbered \(numbers[name] ?? 0)"))
        }
        let agrees = model.entities.allSatisfy { computed[$0.name] == numbers[$0.name] }
        notes.append(
            MappingResolution(
                rule: .entityNumbering, held: agrees,
                detail: agrees
                    ? "Z_PRIMARYKEY numbers equal the computed order"
                    : "Z_PRIMARYKEY numbers differ from the computed order; Z_PRIMARYKEY wins"))
    }
}
