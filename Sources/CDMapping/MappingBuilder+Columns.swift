import CDModel
import Foundation

/// The columns of entity tables: attributes, to-one keys and their companions, hidden to-many keys.
extension MappingBuilder {
    /// `base`, or `base1`, `base2`, … when the table already has that name (§7.2).
    /// Column names compare without case, as SQLite compares them.
    mutating func uniqueName(_ base: String, in table: String) -> String {
        Self.firstFreeName(base, taken: &takenNames[table, default: []]) { $0.uppercased() }
    }

    /// `base`, or `base1`, `base2`, …: the first whose `normalized` form `taken` lacks, which is
    /// then added to it: how clashing column names (docs/format/store-format.md §7.2), join
    /// table names and join-column stems are numbered.
    static func firstFreeName(_ base: String, taken: inout Set<String>, normalized: (String) -> String = { $0 }) -> String {
        var candidate = base
        var suffix = 1
        while taken.contains(normalized(candidate)) {
            candidate = base + String(suffix)
            suffix += 1
        }
        taken.insert(normalized(candidate))
        return candidate
    }

    mutating func add(_ column: MappedColumn, key: ColumnSortKey, to table: String) {
        pending[table, default: []].append((key, column))
    }

    /// Where each property of `entity` sorts among the columns of its type: 0 for all in name
    /// order; with ``ColumnOrderStyle/hashTable`` its place in the dictionary of the entity's
    /// attributes or of its relationships (`attributesByName`, `relationshipsByName`: inherited
    /// and transient ones included, which only matters for sub-entities, unseen at those versions).
    func columnRanks(of entity: EntityDescription) -> [String: Int] {
        guard columnOrder == .hashTable else { return [:] }
        let properties = model.allProperties(of: entity.name)
        let attributes = properties.filter { if case .attribute = $0 { true } else { false } }.map(\.name).sorted()
        let relationships = properties.filter { if case .relationship = $0 { true } else { false } }.map(\.name).sorted()
        var ranks: [String: Int] = [:]
        for names in [attributes, relationships] {
            for (rank, name) in (HashTableOrder.enumerationOrder(of: names) ?? names).enumerated() { ranks[name] = rank }
        }
        return ranks
    }

    /// Attributes and to-one relationships, the entity's own properties in name order: the order
    /// in which colliding names are numbered (NoteStore `ZACCOUNT` … `ZACCOUNT5` by `Z_ENT`).
    mutating func addColumns(of entity: EntityDescription) {
        guard let table = tableOf[entity.name] else { return }
        let ent = number(entity.name)
        let ranks = columnRanks(of: entity)
        for property in entity.properties.sorted(by: { $0.name < $1.name }) where !property.isTransient {
            switch property {
            case .attribute(let attribute):
                guard let group = ColumnGroup(attribute.type) else {
                    notes.append(
                        MappingResolution(
                            rule: .notMapped, held: nil, table: table,
                            detail: "\(entity.name).\(attribute.name) (\(attribute.type)) has no column"))
                    continue
                }
                let name = uniqueName(CoreDataNaming.column(property: attribute.name), in: table)
                let column = MappedColumn(
                    name: name, type: ColumnGroup.sqlType(attribute.type), role: .attribute,
                    entity: entity.name, property: attribute.name,
                    renamedFrom: attribute.common.renamingIdentifier)
                add(
                    column,
                    key: ColumnSortKey(
                        group: group, entity: ent, kind: 0, rank: ranks[attribute.name] ?? 0,
                        name: attribute.name), to: table)
            case .relationship(let relationship) where !relationship.isToMany:
                addToOne(relationship, of: entity, table: table, rank: ranks[relationship.name] ?? 0)
            default:
                continue
            }
        }
    }

    /// The key, the `Z<n>_` companion when the destination has sub-entities, and `Z_FOK_` when
    /// the inverse is an ordered to-many (§7.6).
    mutating func addToOne(_ relationship: RelationshipDescription, of entity: EntityDescription, table: String, rank: Int) {
        let ent = number(entity.name)
        let key = uniqueName(CoreDataNaming.column(property: relationship.name), in: table)
        let stem = String(key.dropFirst())
        let destination = relationship.destinationEntity
        let sortKey = ColumnSortKey(group: .integer, entity: ent, kind: 1, rank: rank, name: relationship.name)
        add(
            MappedColumn(
                name: key, type: "INTEGER", role: .toOneKey, entity: entity.name, property: relationship.name,
                destination: destination, renamedFrom: relationship.common.renamingIdentifier),
            key: sortKey, to: table)
        if hasSubentities(destination) {
            let companion = uniqueName(CoreDataNaming.toOneEntityType(destination: number(destination), stem: stem), in: table)
            add(
                MappedColumn(
                    name: companion, type: "INTEGER", role: .toOneEntityType, entity: entity.name,
                    property: relationship.name, destination: destination),
                key: ColumnSortKey(group: .integer, entity: ent, kind: 1, rank: rank, name: relationship.name, part: 1), to: table)
        }
        if let inverse = inverse(of: relationship), inverse.isToMany, inverse.isOrdered {
            let order = uniqueName(CoreDataNaming.orderColumn(stem: stem), in: table)
            add(
                MappedColumn(
                    name: order, type: "INTEGER", role: .toOneOrder, entity: entity.name,
                    property: relationship.name, destination: destination),
                key: ColumnSortKey(group: .integer, block: .orderColumns, entity: ent, kind: 1, name: relationship.name),
                to: table)
        }
    }

    /// A to-many without inverse keeps its key in the destination table, named
    /// `Z<sourceZ_ENT><REL>` (§7.6; Photos `ZASSETCONTRIBUTOR.Z3LIBRARYSCOPEASSETCONTRIBUTORS`).
    mutating func addHiddenToManyKeys(of entity: EntityDescription) {
        let ent = number(entity.name)
        for relationship in entity.relationships.sorted(by: { $0.name < $1.name })
        where relationship.isToMany && !relationship.common.isTransient && relationship.inverseName == nil {
            guard let table = tableOf[relationship.destinationEntity] else { continue }
            let name = uniqueName(CoreDataNaming.toManyKeyWithoutInverse(sourceEntity: ent, relationship: relationship.name), in: table)
            add(
                MappedColumn(
                    name: name, type: "INTEGER", role: .toManyKeyWithoutInverse, entity: entity.name,
                    property: relationship.name, destination: entity.name),
                key: ColumnSortKey(group: .integer, block: .hiddenKeys, entity: ent, kind: 1, name: relationship.name),
                to: table)
        }
    }

    /// The entity in `entity`'s lineage that declares `property` itself.
    func declaringEntity(of property: String, from entity: String) -> String {
        model.lineage(of: entity).first { $0.properties.contains { $0.name == property } }?.name ?? entity
    }

    func isToMany(_ property: String, of entity: String) -> Bool {
        model.allProperties(of: entity).contains {
            if case .relationship(let relationship) = $0 { return relationship.name == property && relationship.isToMany }
            return false
        }
    }

    func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let name = relationship.inverseName else { return nil }
        let owner = relationship.inverseEntity ?? relationship.destinationEntity
        for property in model.allProperties(of: owner) {
            if case .relationship(let inverse) = property, inverse.name == name { return inverse }
        }
        return nil
    }
}
