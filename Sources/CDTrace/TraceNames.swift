import CDMapping
import CDModel
import CDStore
import Foundation

/// The model's names for a logged statement's tables and columns, from the store's mapping
/// (``StoreMapping``, the same one `model --sql` and the fetch engine use): `ZPERSON t0` is
/// Person, `t0.ZAGE` is `Person.age`, `Z_1TAGS` is the join table of `Item.tags`.
package struct TraceNames: Sendable {
    package let mapping: StoreMapping
    /// The model, for the inverse of a to-one key; nil when only the mapping is known.
    package let model: ManagedObjectModel?

    package init(mapping: StoreMapping, model: ManagedObjectModel?) {
        self.mapping = mapping
        self.model = model
    }

    /// The entity a table's rows belong to: its only entity, else the hierarchy's root.
    package func entity(ofTable table: String) -> String? {
        guard let mapped = mapping.table(named: table.uppercased()), mapped.kind == .entity else { return nil }
        if mapped.entities.count == 1 { return mapped.entities.first }
        return mapped.entities.first { name in mapping.mappedEntity(named: name)?.parent == nil } ?? mapped.entities.first
    }

    /// `Entity.relationship` of a many-to-many join table, from its key columns.
    package func relationships(ofJoinTable table: String) -> [String] {
        guard let mapped = mapping.table(named: table.uppercased()), mapped.kind == .manyToMany else { return [] }
        return mapped.columns.filter { $0.role == .joinKey }.compactMap { column in
            guard let entity = column.entity, let property = column.property else { return nil }
            return "\(entity).\(property)"
        }
    }

    /// The model's name of `alias.column` in `shape`: `Person.age`; nil when not mapped.
    package func name(ofColumn column: String, alias: String, in shape: StatementShape) -> String? {
        guard let table = shape.tables.first(where: { $0.alias == alias })?.table,
            let mapped = mapping.table(named: table.uppercased()),
            let found = mapped.column(named: column.uppercased())
        else { return nil }
        let owner = found.entity ?? entity(ofTable: table) ?? table
        switch found.role {
        case .primaryKey: return "\(entity(ofTable: table) ?? owner).objectID"
        case .entityType: return "\(entity(ofTable: table) ?? owner).entity"
        case .optimisticLock: return "\(entity(ofTable: table) ?? owner).Z_OPT"
        default:
            guard let property = found.property else { return nil }
            switch found.role {
            case .toOneEntityType: return "\(owner).\(property).entity"
            case .toOneOrder: return "\(owner).\(property) order"
            case .joinOrder: return "\(owner).\(property) order"
            default: return "\(owner).\(property)"
            }
        }
    }

    /// The property behind `alias.column` (attribute or to-one key), for index advice.
    package func property(ofColumn column: String, alias: String, in shape: StatementShape) -> MappedColumn? {
        guard let table = shape.tables.first(where: { $0.alias == alias })?.table,
            let mapped = mapping.table(named: table.uppercased())
        else { return nil }
        return mapped.column(named: column.uppercased())
    }

    /// `text` with every `tN.COLUMN` replaced by its model name, and every table (a subquery's
    /// `FROM ZCAR t1`) by its entity, or a join table by its relationship.
    package func readable(_ text: String, in shape: StatementShape) -> String {
        let columns = text.replacing(/\b(t\d+)\.([A-Za-z_][A-Za-z0-9_]*)/) { match in
            name(ofColumn: String(match.output.2), alias: String(match.output.1), in: shape) ?? String(match.output.0)
        }
        return columns.replacing(/\b(Z[A-Z0-9_]*) (t\d+)\b/) { match in
            let table = String(match.output.1)
            if let entity = entity(ofTable: table) { return "\(entity) \(match.output.2)" }
            if let relationship = relationships(ofJoinTable: table).first { return "\(relationship) \(match.output.2)" }
            return String(match.output.0)
        }
    }

    /// The relationship fetched by a statement on a to-one key (`SELECT … FROM ZATTACHMENT t0
    /// WHERE t0.ZITEM = ?`): the key's inverse, the to-many whose fault this is (`Item.attachments`),
    /// or the to-one itself when it has no inverse. Nil when the column is not a to-one key.
    package func faultedRelationship(keyFetch shape: StatementShape) -> (entity: String, relationship: String)? {
        guard let condition = shape.whereClause,
            let match = condition.wholeMatch(of: /(t\d+)\.([A-Z0-9_]+) = \?/),
            let column = property(ofColumn: String(match.output.2), alias: String(match.output.1), in: shape)
        else { return nil }
        if column.role == .joinKey, let entity = column.entity, let property = column.property {
            // Many-to-many fault: `WHERE t1.Z_1ITEMS = ?` selects the destinations of the other key column.
            let table = shape.tables.first { $0.alias == String(match.output.1) }?.table ?? ""
            let other = mapping.table(named: table)?.columns.first { $0.role == .joinKey && $0.name != column.name }
            if let otherEntity = other?.entity, let otherProperty = other?.property { return (otherEntity, otherProperty) }
            return (entity, property)
        }
        guard column.role == .toOneKey, let entity = column.entity, let property = column.property else { return nil }
        if let relationship = model?.entity(named: entity)?.relationships.first(where: { $0.name == property }),
            let inverse = relationship.inverseName
        {
            return (relationship.inverseEntity ?? relationship.destinationEntity, inverse)
        }
        return (entity, property)
    }
}
