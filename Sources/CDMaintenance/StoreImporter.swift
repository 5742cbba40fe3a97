import CDMapping
import CDModel
import CDStore
import Foundation
import GRDB

/// How many objects of one entity an import wrote.
package struct ImportedEntity: Sendable, Codable, Equatable {
    package var entity: String
    package var objects: Int
}

/// Writes the objects of an ``ImportInput`` into a new, empty store with Core Data's
/// bookkeeping (store-format.md §4, §7, §9):
///
/// - `Z_PK` is allocated per inheritance hierarchy, in input order from 1, and the root's
///   `Z_PRIMARYKEY.Z_MAX` ends at the highest key (§4); `Z_ENT` is the concrete entity, `Z_OPT` 1.
/// - A to-one writes the destination's `Z_PK` and, when the destination has sub-entities, its
///   `Z_ENT` in the `Z<n>_` companion (§7.6). A to-many whose inverse is a to-one writes that
///   to-one in the members' rows; a one-to-one writes both keys; a many-to-many writes join-table
///   rows; a to-many without inverse writes the hidden key in the members' rows.
/// - Ordered relationships get `Z_FOK_` values 2048, 3072, 4096, … (1024 apart, starting at
///   2048), the spacing Photos' join tables and ordered to-ones show for members that were added
///   in one save (`Z_26ASSETS.Z_FOK_34ASSETS`, `ZGENERICASSET.Z_FOK_IMPORTSESSION`). Core Data's
///   full scheme is unknown (§7.6, §14 item 6); readers only sort by these values.
///
/// The input is walked several times (allocate keys, insert rows, apply to-many lists, check that
/// both sides of each relationship agree) instead of being kept: only the map from local IDs to
/// `Z_ENT`/`Z_PK` stays in memory. Every table and column name comes from the blueprint's
/// ``StoreMapping``; every value is a bound parameter of a cached prepared statement.
package struct StoreImporter {
    /// The position of the first member of an ordered relationship, and the step between members.
    package static let firstOrderValue: Int64 = 2048
    package static let orderStep: Int64 = 1024

    private struct ObjectRef {
        let ent: Int
        let pk: Int64
    }

    /// What an entity's objects need: the INSERT and, per property, where its value goes.
    private struct EntityPlan {
        let name: String
        let ent: Int
        let root: String
        let table: String
        let insertSQL: String
        /// Value slots after `Z_PK`, `Z_ENT`, `Z_OPT`.
        let slotCount: Int
        let properties: [String: PropertyPlan]
    }

    private enum PropertyPlan {
        case attribute(AttributeDescription, slot: Int)
        /// Transient, derived (kept up to date by Core Data's triggers, §7.8) or fetched: no value may be given.
        case notStored(String)
        case toOne(RelationshipDescription, keySlot: Int, companionSlot: Int?)
        case toMany(RelationshipDescription)
    }

    private let model: ManagedObjectModel
    private let mapping: StoreMapping
    private let input: ImportInput
    private var plans: [String: EntityPlan] = [:]
    private var ids: [String: ObjectRef] = [:]
    private var counts: [String: Int] = [:]
    private var highest: [String: Int64] = [:]

    private init(model: ManagedObjectModel, mapping: StoreMapping, input: ImportInput) {
        self.model = model
        self.mapping = mapping
        self.input = input
    }

    /// Imports `input` into the empty store at `url` (created from `blueprint`), in one
    /// transaction. Throws a one-line ``ImportError`` naming the object and key on bad input.
    package static func importObjects(_ input: ImportInput, into url: URL, blueprint: StoreBlueprint) throws -> [ImportedEntity] {
        var allocating = StoreImporter(model: blueprint.model, mapping: blueprint.mapping, input: input)
        try allocating.allocate()
        let importer = allocating
        let queue = try DatabaseQueue(path: url.path)
        do {
            try queue.write { db in
                try importer.insertRows(db)
                try importer.applyToManyAndOneToOne(db)
                try importer.checkAgreement(db)
                try importer.fillOrder(db)
                try importer.recordMaxima(db)
            }
        } catch let error as DatabaseError {
            try? queue.close()
            throw ImportError.cannotWrite(reason: error.message ?? "\(error.resultCode)")
        } catch {
            try? queue.close()
            throw error
        }
        try queue.close()
        return importer.mapping.entities.compactMap { entity in
            importer.counts[entity.name].map { ImportedEntity(entity: entity.name, objects: $0) }
        }
    }

    // MARK: Pass 1: entities, IDs and keys

    private mutating func allocate() throws {
        var next: [String: Int64] = [:]
        try input.forEachObject { object in
            let plan = try plan(for: object)
            let pk = (next[plan.root] ?? 0) + 1
            next[plan.root] = pk
            if let id = object.id {
                guard ids[id] == nil else { throw ImportError.duplicateID(object: object.label) }
                ids[id] = ObjectRef(ent: plan.ent, pk: pk)
            }
            counts[object.entity, default: 0] += 1
        }
        highest = next
    }

    /// Walks the input again with each object's key, allocated as in ``allocate()``, which
    /// planned every entity of the input.
    private func walk(_ body: (ImportObject, EntityPlan, ObjectRef) throws -> Void) throws {
        var next: [String: Int64] = [:]
        try input.forEachObject { object in
            guard let plan = plans[object.entity] else { throw ImportError.inputChanged(object: object.label) }
            let pk = (next[plan.root] ?? 0) + 1
            next[plan.root] = pk
            try body(object, plan, ObjectRef(ent: plan.ent, pk: pk))
        }
    }

    private mutating func plan(for object: ImportObject) throws -> EntityPlan {
        if let plan = plans[object.entity] { return plan }
        guard let entity = model.entity(named: object.entity), let mapped = mapping.mappedEntity(named: object.entity) else {
            throw ImportError.noSuchEntity(object: object.label, entity: object.entity)
        }
        guard !entity.isAbstract else {
            throw ImportError.abstractEntity(object: object.label, entity: object.entity)
        }
        var columns: [String] = []
        var properties: [String: PropertyPlan] = [:]
        func slot(_ column: MappedColumn) -> Int {
            columns.append(column.name)
            return columns.count - 1
        }
        for property in model.allProperties(of: entity.name) {
            switch property {
            case .attribute(let attribute) where attribute.common.isTransient:
                properties[attribute.name] = .notStored("transient")
            case .attribute(let attribute) where attribute.isDerived:
                properties[attribute.name] = .notStored("derived")
            case .attribute(let attribute):
                guard let column = mapping.column(forProperty: attribute.name, ofEntity: entity.name) else {
                    properties[attribute.name] = .notStored("not stored")
                    continue
                }
                properties[attribute.name] = .attribute(attribute, slot: slot(column))
            case .relationship(let relationship) where relationship.common.isTransient:
                properties[relationship.name] = .notStored("transient")
            case .relationship(let relationship) where relationship.isToMany:
                properties[relationship.name] = .toMany(relationship)
            case .relationship(let relationship):
                let stored = mapping.columns(forProperty: relationship.name, ofEntity: entity.name)
                guard let key = stored.first(where: { $0.role == .toOneKey }) else {
                    properties[relationship.name] = .notStored("not stored")
                    continue
                }
                properties[relationship.name] = .toOne(
                    relationship, keySlot: slot(key),
                    companionSlot: stored.first { $0.role == .toOneEntityType }.map(slot))
            case .fetched(let fetched):
                properties[fetched.common.name] = .notStored("a fetched property")
            }
        }
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns
        let sql =
            "INSERT INTO \(quoted(mapped.table)) (\(names.map(quoted).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
        let plan = EntityPlan(
            name: entity.name, ent: mapped.number, root: model.rootEntity(of: entity.name)?.name ?? entity.name,
            table: mapped.table, insertSQL: sql, slotCount: columns.count, properties: properties)
        plans[entity.name] = plan
        return plan
    }

    // MARK: Pass 2: rows with attributes and to-one keys

    private func insertRows(_ db: Database) throws {
        try walk { object, plan, ref in
            var values = [DatabaseValue](repeating: .null, count: plan.slotCount)
            var seen: Set<String> = []
            for (key, json) in object.properties {
                guard seen.insert(key).inserted else { throw ImportError.keyTwice(object: object.label, key: key) }
                guard let property = plan.properties[key] else {
                    throw ImportError.noSuchProperty(object: object.label, key: key, entity: plan.name)
                }
                switch property {
                case .notStored(let why):
                    guard json == .null else { throw ImportError.notStored(object: object.label, key: key, why: why) }
                case .attribute(let attribute, let slot):
                    do {
                        let value = try ImportValues.objectValue(json, for: attribute)
                        values[slot] = Self.databaseValue(try ValueEncoder.encode(value, for: attribute))
                    } catch let mismatch as ImportValues.Mismatch {
                        throw ImportError.badValue(object: object.label, key: key, reason: mismatch.message)
                    } catch let failure as ValueEncoder.Failure {
                        throw ImportError.badValue(object: object.label, key: key, reason: failure.description)
                    }
                case .toOne(let relationship, let keySlot, let companionSlot):
                    guard let target = try destination(json, of: relationship, object: object, key: key) else { continue }
                    values[keySlot] = target.pk.databaseValue
                    if let companionSlot { values[companionSlot] = target.ent.databaseValue }
                case .toMany:
                    _ = try members(json, object: object, key: key)
                }
            }
            let statement = try db.cachedStatement(sql: plan.insertSQL)
            try statement.execute(arguments: StatementArguments([ref.pk.databaseValue, ref.ent.databaseValue, 1.databaseValue] + values))
        }
    }

    /// The object a to-one names: `nil` for JSON null; an error for a wrong type, an unknown ID or
    /// an object of another entity.
    private func destination(_ json: JSONValue, of relationship: RelationshipDescription, object: ImportObject, key: String) throws -> ObjectRef? {
        switch json {
        case .null:
            return nil
        case .string(let id):
            return try resolve(id, destination: relationship.destinationEntity, object: object, key: key)
        default:
            throw ImportError.expectedObjectID(object: object.label, key: key, kind: json.kind)
        }
    }

    private func resolve(_ id: String, destination: String, object: ImportObject, key: String) throws -> ObjectRef {
        guard let target = ids[id] else {
            throw ImportError.unknownID(object: object.label, key: key, id: id)
        }
        guard mapping.entityNumbers(includingSubentitiesOf: destination).contains(target.ent) else {
            let name = mapping.entities.first { $0.number == target.ent }?.name ?? "?"
            throw ImportError.wrongDestination(object: object.label, key: key, id: id, entity: name, destination: destination)
        }
        return target
    }

    /// The IDs of a to-many value; `nil` when it is null (not given, as dump leaves faults out).
    private func members(_ json: JSONValue, object: ImportObject, key: String) throws -> [String]? {
        switch json {
        case .null:
            return nil
        case .array(let items):
            return try items.map { item in
                guard case .string(let id) = item else {
                    throw ImportError.expectedObjectIDElement(object: object.label, key: key, kind: item.kind)
                }
                return id
            }
        default:
            throw ImportError.expectedObjectIDs(object: object.label, key: key, kind: json.kind)
        }
    }

    // MARK: Pass 3: the other side of each relationship

    private func applyToManyAndOneToOne(_ db: Database) throws {
        try walk { object, plan, ref in
            for (key, json) in object.properties {
                switch plan.properties[key] {
                case .toMany(let relationship)?:
                    guard let ids = try members(json, object: object, key: key) else { continue }
                    var seen: Set<String> = []
                    for (position, id) in ids.enumerated() {
                        guard seen.insert(id).inserted else { throw ImportError.listedTwice(object: object.label, key: key, id: id) }
                        let member = try resolve(id, destination: relationship.destinationEntity, object: object, key: key)
                        try link(ref, to: member, position: position, through: relationship, of: plan.name, db: db, object: object, memberID: id)
                    }
                case .toOne(let relationship, _, _)?:
                    guard let inverse = inverse(of: relationship), !inverse.isToMany, case .string(let id) = json,
                        let target = try destination(json, of: relationship, object: object, key: key)
                    else { continue }
                    try setKey(
                        of: inverse, declaredBy: relationship.destinationEntity, in: target, to: ref, db: db,
                        conflict: .namedByAnother(object: object.label, key: key, id: id, inverse: inverse.name))
                default:
                    continue
                }
            }
        }
    }

    /// Stores that `member` belongs to `owner`'s to-many `relationship`.
    private func link(
        _ owner: ObjectRef, to member: ObjectRef, position: Int, through relationship: RelationshipDescription,
        of entity: String, db: Database, object: ImportObject, memberID: String
    ) throws {
        let conflict = ImportError.namedByAnother(
            object: object.label, key: relationship.name, id: memberID, inverse: relationship.inverseName ?? relationship.name)
        let order = Self.firstOrderValue + Int64(position) * Self.orderStep
        guard let inverse = inverse(of: relationship) else {
            // The hidden key `Z<n><REL>` in the destination table (§7.6).
            guard let column = mapping.column(forProperty: relationship.name, ofEntity: entity),
                let table = mapping.table(forEntity: relationship.destinationEntity)
            else { return }
            try update(
                table.name, set: [(column.name, owner.pk.databaseValue)], guardColumn: column.name, owner: owner.pk,
                row: member.pk, db: db, conflict: conflict)
            return
        }
        if inverse.isToMany {
            guard let join = mapping.joinTable(forRelationship: relationship.name, ofEntity: entity) else { return }
            var columns = [join.sourceColumn, join.destinationColumn]
            var values: [DatabaseValue] = [owner.pk.databaseValue, member.pk.databaseValue]
            var onConflict = "DO NOTHING"
            if let orderColumn = join.orderColumn {
                columns.append(orderColumn)
                values.append(order.databaseValue)
                onConflict = "DO UPDATE SET \(quoted(orderColumn)) = excluded.\(quoted(orderColumn))"
            }
            let sql =
                "INSERT INTO \(quoted(join.table)) (\(columns.map(quoted).joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ") ON CONFLICT ("
                + "\(quoted(join.sourceColumn)), \(quoted(join.destinationColumn))) \(onConflict)"
            try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values))
            return
        }
        guard let table = mapping.table(forEntity: relationship.destinationEntity) else { return }
        let stored = mapping.columns(forProperty: inverse.name, ofEntity: relationship.destinationEntity)
        guard let key = stored.first(where: { $0.role == .toOneKey }) else { return }
        var assignments: [(String, DatabaseValue)] = [(key.name, owner.pk.databaseValue)]
        if let companion = stored.first(where: { $0.role == .toOneEntityType }) {
            assignments.append((companion.name, owner.ent.databaseValue))
        }
        if relationship.isOrdered, let orderColumn = stored.first(where: { $0.role == .toOneOrder }) {
            assignments.append((orderColumn.name, order.databaseValue))
        }
        try update(table.name, set: assignments, guardColumn: key.name, owner: owner.pk, row: member.pk, db: db, conflict: conflict)
    }

    /// The to-one `inverse` of `target` (declared by `entity` or an ancestor) now points at `owner`.
    private func setKey(
        of inverse: RelationshipDescription, declaredBy entity: String, in target: ObjectRef, to owner: ObjectRef,
        db: Database, conflict: ImportError
    ) throws {
        guard let table = mapping.table(forEntity: entity) else { return }
        let stored = mapping.columns(forProperty: inverse.name, ofEntity: entity)
        guard let key = stored.first(where: { $0.role == .toOneKey }) else { return }
        var assignments: [(String, DatabaseValue)] = [(key.name, owner.pk.databaseValue)]
        if let companion = stored.first(where: { $0.role == .toOneEntityType }) {
            assignments.append((companion.name, owner.ent.databaseValue))
        }
        try update(table.name, set: assignments, guardColumn: key.name, owner: owner.pk, row: target.pk, db: db, conflict: conflict)
    }

    /// Sets `assignments` in row `row` unless `guardColumn` already holds a key other than `owner`:
    /// the two sides of a relationship must agree.
    private func update(
        _ table: String, set assignments: [(String, DatabaseValue)], guardColumn: String, owner: Int64, row: Int64,
        db: Database, conflict: ImportError
    ) throws {
        let sql =
            "UPDATE \(quoted(table)) SET " + assignments.map { "\(quoted($0.0)) = ?" }.joined(separator: ", ")
            + " WHERE Z_PK = ? AND (\(quoted(guardColumn)) IS NULL OR \(quoted(guardColumn)) = ?)"
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(assignments.map(\.1) + [row.databaseValue, owner.databaseValue]))
        guard db.changesCount == 1 else { throw conflict }
    }

    // MARK: Pass 4: both sides agree

    /// A to-many list given for an object must hold every object whose to-one names it, and a
    /// to-one given as null must not have been claimed by the other side's list or to-one.
    private func checkAgreement(_ db: Database) throws {
        try walk { object, plan, ref in
            for (key, json) in object.properties {
                switch plan.properties[key] {
                case .toMany(let relationship)?:
                    guard let ids = try members(json, object: object, key: key),
                        let (table, column) = ownerColumn(of: relationship, entity: plan.name)
                    else { continue }
                    let stored =
                        try Int.fetchOne(
                            db.cachedStatement(sql: "SELECT COUNT(*) FROM \(quoted(table)) WHERE \(quoted(column)) = ?"),
                            arguments: [ref.pk]) ?? 0
                    if stored != ids.count {
                        throw ImportError.inverseCountMismatch(
                            object: object.label, key: key, listed: ids.count, stored: stored,
                            inverse: relationship.inverseName ?? key)
                    }
                case .toOne(let relationship, _, _)? where json == .null && relationship.inverseName != nil:
                    guard let key = mapping.column(forProperty: relationship.name, ofEntity: plan.name) else { continue }
                    let current = try DatabaseValue.fetchOne(
                        db.cachedStatement(sql: "SELECT \(quoted(key.name)) FROM \(quoted(plan.table)) WHERE Z_PK = ?"),
                        arguments: [ref.pk])
                    if let current, !current.isNull {
                        throw ImportError.nullButNamed(
                            object: object.label, key: relationship.name, ownerPK: "\(current)", inverse: relationship.inverseName ?? "")
                    }
                default:
                    continue
                }
            }
        }
    }

    /// Where the members of `relationship` record their owner: the inverse's key, the join
    /// table's source column, or the hidden key.
    private func ownerColumn(of relationship: RelationshipDescription, entity: String) -> (table: String, column: String)? {
        guard let inverse = inverse(of: relationship) else {
            guard let column = mapping.column(forProperty: relationship.name, ofEntity: entity),
                let table = mapping.table(forEntity: relationship.destinationEntity)
            else { return nil }
            return (table.name, column.name)
        }
        if inverse.isToMany {
            return mapping.joinTable(forRelationship: relationship.name, ofEntity: entity).map { ($0.table, $0.sourceColumn) }
        }
        guard let key = mapping.column(forProperty: inverse.name, ofEntity: relationship.destinationEntity),
            let table = mapping.table(forEntity: relationship.destinationEntity)
        else { return nil }
        return (table.name, key.name)
    }

    // MARK: Pass 5: order of members given only from the to-one or unordered side

    /// Members whose ordered relationship was set from the other side get positions in `Z_PK`
    /// order (the input order) after the members placed by a list.
    private func fillOrder(_ db: Database) throws {
        for table in mapping.tables {
            switch table.kind {
            case .entity:
                for order in table.columns where order.role == .toOneOrder {
                    guard let key = table.columns.first(where: { $0.role == .toOneKey && $0.entity == order.entity && $0.property == order.property }) else {
                        continue
                    }
                    try db.execute(sql: positionsSQL(table: table.name, order: order.name, group: key.name, rank: "Z_PK"))
                }
            case .manyToMany:
                for order in table.columns where order.role == .joinOrder {
                    guard let members = table.columns.first(where: { $0.role == .joinKey && $0.entity == order.entity && $0.property == order.property }),
                        let owners = table.columns.first(where: { $0.role == .joinKey && $0.name != members.name })
                    else { continue }
                    try db.execute(sql: positionsSQL(table: table.name, order: order.name, group: owners.name, rank: members.name))
                }
            default:
                continue
            }
        }
    }

    private func positionsSQL(table: String, order: String, group: String, rank: String) -> String {
        let t = quoted(table), o = quoted(order), g = quoted(group), r = quoted(rank)
        return "UPDATE \(t) SET \(o) = \(Self.firstOrderValue - Self.orderStep) + \(Self.orderStep) * "
            + "(SELECT COUNT(*) FROM \(t) AS other WHERE other.\(g) = \(t).\(g) AND other.\(r) <= \(t).\(r)) "
            + "WHERE \(g) IS NOT NULL AND \(o) IS NULL"
    }

    // MARK: Pass 6: Z_MAX

    private func recordMaxima(_ db: Database) throws {
        for (root, max) in highest {
            guard let ent = mapping.entityNumber(of: root) else { continue }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [max, ent])
        }
    }

    // MARK: Helpers

    private func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let name = relationship.inverseName else { return nil }
        for property in model.allProperties(of: relationship.inverseEntity ?? relationship.destinationEntity) {
            if case .relationship(let inverse) = property, inverse.name == name { return inverse }
        }
        return nil
    }

    private static func databaseValue(_ raw: ValueDecoder.Raw) -> DatabaseValue {
        switch raw {
        case .null: return .null
        case .integer(let i): return i.databaseValue
        case .real(let r): return r.databaseValue
        case .text(let s): return s.databaseValue
        case .blob(let d): return d.databaseValue
        }
    }
}

/// An SQL identifier in double quotes; names come from the mapping, never from the input.
private func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
