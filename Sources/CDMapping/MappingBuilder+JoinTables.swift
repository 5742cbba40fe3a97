import CDModel
import Foundation

/// Many-to-many join tables (`Z_<n><NAME>`), their key columns and indexes.
extension MappingBuilder {
    struct JoinTable {
        var owner: String
        var table: MappedTable
    }

    /// One join table per many-to-many pair (§7.6).
    ///
    /// The table is named after the relationship of the entity with the lower `Z_ENT`
    /// (**uncertain**: migrations keep historical choices, which
    /// ``StoreMapping/resolve(model:registry:schema:)`` adopts). Each to-many of a pair gets a
    /// key-column name `Z_<m><REL>` unique among the many-to-many relationships with the same
    /// destination m, so two relationships of one name to one entity collide in two different
    /// tables; see ``joinKeyStems(ordered:)`` for which of them is numbered.
    ///
    /// A pair of inverse relationships in one entity is named after either, by an order no model
    /// source records: real stores of one app hold `Z_13TRUSTEDCLIENTS` in some model versions
    /// and `Z_14TRUSTEDBYCLIENTS` in others, with the same framework and XML property order. The
    /// corpus cannot say whether a compiled model's or a cache's property order decides it: its
    /// only reflexive tables (Photos `Z_…MERGECANDIDATES`, `Z_…INVALIDMERGECANDIDATES`,
    /// `Z_…MERGECANDIDATESWITHCONFIDENCE`) are of self-inverse relationships, whose one name is
    /// certain. So the name that sorts first is used and the other is listed in
    /// ``MappedTable/alternatives``.
    mutating func joinTables(ordered: [EntityDescription]) -> [JoinTable] {
        let (stems, collisions) = joinKeyStems(ordered: ordered)
        var pairs: [(EntityDescription, RelationshipDescription, RelationshipDescription)] = []
        for entity in ordered {
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name })
            where relationship.isToMany && !relationship.common.isTransient {
                guard let inverse = inverse(of: relationship), inverse.isToMany else { continue }
                pairs.append((entity, relationship, inverse))
            }
        }
        var result: [JoinTable] = []
        var done: Set<String> = []
        var tableNames: Set<String> = []
        for (entity, relationship, inverse) in pairs {
            let inverseOwner = declaringEntity(of: inverse.name, from: relationship.inverseEntity ?? relationship.destinationEntity)
            let mine = entity.name + "." + relationship.name
            let theirs = inverseOwner + "." + inverse.name
            guard !done.contains(mine), !done.contains(theirs) else { continue }
            done.formUnion([mine, theirs])
            let selfInverse = mine == theirs
            let mineNames =
                selfInverse || number(entity.name) < number(inverseOwner)
                || (number(entity.name) == number(inverseOwner) && relationship.name < inverse.name)
            let mySide = JoinSide(entity: entity.name, relationship: relationship, stem: stems[mine] ?? "")
            let theirSide = JoinSide(entity: inverseOwner, relationship: inverse, stem: stems[theirs] ?? "")
            let (named, other) = mineNames ? (mySide, theirSide) : (theirSide, mySide)
            var table = makeJoinTable(named: named, other: other, selfInverse: selfInverse, taken: &tableNames)
            if !selfInverse && entity.name == inverseOwner {
                var unused = tableNames
                table.alternatives = [makeJoinTable(named: other, other: named, selfInverse: false, taken: &unused)]
                notes.append(
                    MappingResolution(
                        rule: .joinTableNaming, held: nil, table: table.name,
                        detail:
                            "\(entity.name).\(relationship.name) and \(inverse.name) are inverses in one entity: Core Data names the table after either (\(table.name) or \(table.alternatives[0].name)) by an order the model does not record; \(table.name) is a guess"
                    ))
            }
            result.append(JoinTable(owner: named.entity, table: table))
        }
        notes += collisions.map { collisionNote($0, in: result) }
        return result.sorted { $0.owner == $1.owner ? $0.table.name < $1.table.name : number($0.owner) < number($1.owner) }
    }

    /// The key-column stem (`REL`, `REL1`, …) of every many-to-many relationship, by
    /// `Entity.relationship`: relationships of one name with one destination are numbered in
    /// the order ``JoinKeyOrderStyle`` gives their declaring entities, the first keeping the
    /// plain name.
    func joinKeyStems(ordered: [EntityDescription]) -> (stems: [String: String], collisions: [[String]]) {
        var stems: [String: String] = [:]
        var sharers: [String: [String]] = [:]
        var takenPerDestination: [String: Set<String>] = [:]
        let byName = Dictionary(ordered.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in joinKeyOrder.ordered(Array(byName.keys)).compactMap({ byName[$0] }) {
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name })
            where relationship.isToMany && !relationship.common.isTransient {
                guard let inverse = inverse(of: relationship), inverse.isToMany else { continue }
                let destination = relationship.destinationEntity
                let base = CoreDataNaming.stem(relationship.name)
                let stem = Self.firstFreeName(base, taken: &takenPerDestination[destination, default: []])
                let key = entity.name + "." + relationship.name
                stems[key] = stem
                sharers[destination + "." + base, default: []].append(key)
            }
        }
        let collisions = sharers.keys.sorted().compactMap { sharers[$0] }.filter { $0.count > 1 }
        return (stems, collisions)
    }

    /// The note that says which join-key columns ``joinKeyStems(ordered:)`` numbered and that
    /// the order is uncertain; it concerns the table of the first numbered column.
    func collisionNote(_ sharers: [String], in joins: [JoinTable]) -> MappingResolution {
        var described: [String] = []
        var numberedTable: String?
        for (position, sharer) in sharers.enumerated() {
            let join = joins.first { join in
                join.table.columns.contains { $0.role == .joinKey && "\($0.entity ?? "").\($0.property ?? "")" == sharer }
            }
            let column = join?.table.columns.first { $0.role == .joinKey && "\($0.entity ?? "").\($0.property ?? "")" == sharer }
            described.append("\(column?.name ?? "?") (\(sharer), in \(join?.table.name ?? "?"))")
            if position == 1 { numberedTable = join?.table.name }
        }
        return MappingResolution(
            rule: .joinTableNaming, held: nil, table: numberedTable,
            detail: described.joined(separator: ", ")
                + ": many-to-many key columns of one name are numbered in the order "
                + (joinKeyOrder == .entityName ? "of the declaring entities' names" : "of the model's entity dictionary")
                + " (framework \(joinKeyOrder == .entityName ? "before" : "from") \(JoinKeyOrderStyle.firstHashTableVersion)), which fits the 8 such collisions seen, though a migrated store may keep older names; uncertain"
        )
    }

    /// One side of a many-to-many: the declaring entity, the relationship and its column stem.
    struct JoinSide {
        var entity: String
        var relationship: RelationshipDescription
        var stem: String
    }

    /// `Z_<n><REL>`, named by `named` (declared by entity n), with `Z_<n><INVERSE>` (keys of n,
    /// named after the other side) and `Z_<m><REL>` (keys of REL's destination m). A
    /// self-inverse relationship pairs its column with `REFLEXIVE`.
    ///
    /// The table's name takes a collision number only when another join table already has that
    /// exact name: `Message.users` and `Reaction.users` give `Z_16USERS` and `Z_20USERS`, though
    /// their `Z_<m>USERS` key columns are numbered apart (§7.2).
    func makeJoinTable(named: JoinSide, other: JoinSide, selfInverse: Bool, taken: inout Set<String>) -> MappedTable {
        func key(_ side: JoinSide) -> MappedColumn {
            MappedColumn(
                name: CoreDataNaming.joinName(entity: number(side.relationship.destinationEntity), stem: side.stem), type: "INTEGER",
                role: .joinKey, entity: side.entity, property: side.relationship.name,
                destination: side.relationship.destinationEntity)
        }
        func order(_ side: JoinSide) -> MappedColumn {
            MappedColumn(
                name: CoreDataNaming.joinOrderColumn(entity: number(side.relationship.destinationEntity), stem: side.stem), type: "INTEGER",
                role: .joinOrder, entity: side.entity, property: side.relationship.name,
                destination: side.relationship.destinationEntity)
        }
        var columns: [MappedColumn]
        if selfInverse {
            columns = [key(named), MappedColumn(name: "REFLEXIVE", type: "INTEGER", role: .joinKey, destination: named.entity)]
        } else {
            columns = [key(other), key(named)]
            if other.relationship.isOrdered { columns.append(order(other)) }
        }
        if named.relationship.isOrdered { columns.append(order(named)) }
        let stem = CoreDataNaming.joinName(entity: number(named.entity), relationship: named.relationship.name)
        let name = Self.firstFreeName(stem, taken: &taken)
        var table = MappedTable(
            name: name, kind: .manyToMany, columns: columns,
            primaryKey: [columns[0].name, columns[1].name])
        table.indexes = [Self.joinIndex(table: name, first: columns[0].name, second: columns[1].name)]
        return table
    }

    static func joinIndex(table: String, first: String, second: String) -> MappedIndex {
        MappedIndex(name: "\(table)_\(second)_INDEX", table: table, kind: .manyToMany, columns: [second, first])
    }
}
