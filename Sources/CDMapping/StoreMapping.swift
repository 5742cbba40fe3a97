import CDBase
import CDModel
import Foundation

/// The exact SQLite layout Core Data gives a model: every table, column and index, in Core
/// Data's order, with what each column is for (store-format.md §7, §11).
///
/// "Mapping" here is the object-relational mapping of a model onto tables, not a migration
/// mapping model (`NSMappingModel`): that one is ``MigrationMappingModel`` in CDDiagnostics.
///
/// Build one with ``predict(model:registry:options:)`` (rules only) or
/// ``resolve(model:registry:schema:)`` (rules checked against a real store). Its JSON
/// form is the `cdstore model --sql --json` contract: `{"tables":[{"name":…,"columns":[…],
/// "indexes":[…]}], …}` with every key always present.
public struct StoreMapping: Sendable, Codable, Equatable {
    /// Entities with their `Z_ENT` numbers and tables, in `Z_ENT` order.
    public var entities: [MappedEntity]
    /// Tables in creation order: each entity table followed by the join tables its hierarchy
    /// names, then the bookkeeping and history tables.
    public var tables: [MappedTable]
    /// How the uncertain rules were settled, and what the mapping leaves out.
    public var resolutions: [MappingResolution]

    package init(entities: [MappedEntity], tables: [MappedTable], resolutions: [MappingResolution]) {
        self.entities = entities
        self.tables = tables
        self.resolutions = resolutions
    }

    /// The table called `name`.
    public func table(named name: String) -> MappedTable? {
        tables.first { $0.name == name }
    }

    /// The table holding the rows of `entity` (its root's table, §7.4).
    public func table(forEntity entity: String) -> MappedTable? {
        mappedEntity(named: entity).flatMap { table(named: $0.table) }
    }

    /// The entity called `name`; nil when the mapping has none of that name.
    public func mappedEntity(named name: String) -> MappedEntity? {
        entities.first { $0.name == name }
    }

    /// `Z_ENT` of `entity`.
    public func entityNumber(of entity: String) -> Int? {
        mappedEntity(named: entity)?.number
    }

    /// `entity` and its descendants, the `Z_ENT` values its instances can have (§7.4).
    public func entityNumbers(includingSubentitiesOf entity: String) -> [Int] {
        var result: [Int] = []
        var pending = [entity]
        while let next = pending.popLast() {
            guard let mapped = mappedEntity(named: next), !result.contains(mapped.number) else { continue }
            result.append(mapped.number)
            pending.append(contentsOf: entities.filter { $0.parent == next }.map(\.name))
        }
        return result.sorted()
    }

    /// Every column that stores `property` as seen from `entity` (which may inherit it): one for
    /// an attribute; the foreign key, its `Z<n>_` entity-type companion and its `Z_FOK_`
    /// ordering column for a to-one; the hidden key in the destination table for a to-many
    /// without inverse. Empty for transient, fetched and many-to-many properties.
    public func columns(forProperty property: String, ofEntity entity: String) -> [MappedColumn] {
        guard let declaring = declaringEntity(ofProperty: property, from: entity) else { return [] }
        return tables.filter { $0.kind == .entity }.flatMap(\.columns).filter {
            $0.entity == declaring && $0.property == property
        }
    }

    /// The main column of `property`: the attribute's column or the to-one's foreign key.
    public func column(forProperty property: String, ofEntity entity: String) -> MappedColumn? {
        columns(forProperty: property, ofEntity: entity).first {
            $0.role == .attribute || $0.role == .toOneKey || $0.role == .toManyKeyWithoutInverse
        }
    }

    /// The join table of a many-to-many relationship, and which of its columns hold the source
    /// and destination keys (§7.6).
    public func joinTable(forRelationship relationship: String, ofEntity entity: String) -> JoinTableLookup? {
        guard let declaring = declaringEntity(ofProperty: relationship, from: entity) else { return nil }
        for table in tables where table.kind == .manyToMany {
            // The column named after the relationship holds its destination's keys.
            guard
                let destination = table.columns.first(where: {
                    $0.role == .joinKey && $0.entity == declaring && $0.property == relationship
                })
            else { continue }
            // The other key column holds the relationship's own entity (`REFLEXIVE` for a
            // self-inverse relationship).
            let source = table.columns.first { $0.role == .joinKey && $0.name != destination.name } ?? destination
            let order = table.columns.first { $0.role == .joinOrder && $0.entity == declaring && $0.property == relationship }
            return JoinTableLookup(
                table: table.name, sourceColumn: source.name,
                destinationColumn: destination.name, orderColumn: order?.name)
        }
        return nil
    }

    /// The entity in `entity`'s lineage whose own column list has `property`.
    private func declaringEntity(ofProperty property: String, from entity: String) -> String? {
        var current: String? = entity
        var seen: Set<String> = []
        let columns = tables.flatMap(\.columns)
        while let name = current, seen.insert(name).inserted {
            if columns.contains(where: { $0.entity == name && $0.property == property }) { return name }
            current = mappedEntity(named: name)?.parent
        }
        return nil
    }
}

/// An entity of the mapping: its `Z_ENT`, parent and table.
public struct MappedEntity: Sendable, Codable, Equatable {
    /// The entity's name in the model.
    public var name: String
    /// `Z_ENT`, from `Z_PRIMARYKEY` when a store was given (§4).
    public var number: Int
    /// The parent entity's name; nil for a root.
    @NullEncoded public var parent: String?
    /// The table holding its rows: its root's `Z<ROOT>` table.
    public var table: String

    package init(name: String, number: Int, parent: String?, table: String) {
        self.name = name
        self.number = number
        self.parent = parent
        self.table = table
    }
}

/// One table Core Data creates.
public struct MappedTable: Sendable, Codable, Equatable {
    /// Why the table exists.
    public enum Kind: String, Sendable, Codable {
        /// `Z<ROOT>`: one per inheritance hierarchy (§7.1).
        case entity
        /// `Z_<n><REL>`: the join table of a many-to-many relationship (§7.6).
        case manyToMany
        /// `Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE` (§3).
        case bookkeeping
        /// `ACHANGE`, `ATRANSACTION`, `ATRANSACTIONSTRING`: persistent history (§11).
        case history
        /// `Z_RT_<Entity>_<name>`: an SQLite R-tree virtual table of a location attribute or an
        /// R-tree fetch index (SQLite adds its `_node`, `_parent` and `_rowid` tables).
        case rtree
    }

    /// The table's name as Core Data writes it.
    public var name: String
    /// Why the table exists.
    public var kind: Kind
    /// The entities whose rows live here, in `Z_ENT` order (entity and history tables).
    public var entities: [String]
    /// In Core Data's column order (§7.3).
    public var columns: [MappedColumn]
    /// `Z_PK` for entity tables; both key columns for a join table.
    public var primaryKey: [String]
    /// The indexes created with the table, in creation order.
    public var indexes: [MappedIndex]
    /// The other tables Core Data may create instead of this one, when the model does not say
    /// which: a join table of two relationships of one entity that are each other's inverse is
    /// named after either of them (§7.6). Empty when the table is certain.
    public var alternatives: [MappedTable]
    /// CREATE TRIGGER statements Core Data adds with the table (those filling an R-tree).
    public var triggers: [String]

    package init(
        name: String, kind: Kind, entities: [String] = [], columns: [MappedColumn],
        primaryKey: [String], indexes: [MappedIndex] = [], alternatives: [MappedTable] = [], triggers: [String] = []
    ) {
        self.name = name
        self.kind = kind
        self.entities = entities
        self.columns = columns
        self.primaryKey = primaryKey
        self.indexes = indexes
        self.alternatives = alternatives
        self.triggers = triggers
    }

    /// The column called `name`.
    public func column(named name: String) -> MappedColumn? {
        columns.first { $0.name == name }
    }

    private enum CodingKeys: String, CodingKey {
        case name, kind, entities, columns, primaryKey, indexes, alternatives, triggers, sql
    }

    /// Decodes the stored fields; the derived `sql` key is ignored.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        kind = try container.decode(Kind.self, forKey: .kind)
        entities = try container.decode([String].self, forKey: .entities)
        columns = try container.decode([MappedColumn].self, forKey: .columns)
        primaryKey = try container.decode([String].self, forKey: .primaryKey)
        indexes = try container.decode([MappedIndex].self, forKey: .indexes)
        alternatives = try container.decode([MappedTable].self, forKey: .alternatives)
        triggers = try container.decode([String].self, forKey: .triggers)
    }

    /// Encodes the stored fields plus `sql`, the CREATE TABLE statement.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(kind, forKey: .kind)
        try container.encode(entities, forKey: .entities)
        try container.encode(columns, forKey: .columns)
        try container.encode(primaryKey, forKey: .primaryKey)
        try container.encode(indexes, forKey: .indexes)
        try container.encode(alternatives, forKey: .alternatives)
        try container.encode(triggers, forKey: .triggers)
        try container.encode(createStatement, forKey: .sql)
    }
}

/// What a column is for.
public enum ColumnRole: String, Sendable, Codable {
    /// `Z_PK`.
    case primaryKey
    /// `Z_ENT`: the row's concrete entity.
    case entityType
    /// `Z_OPT`: the optimistic-locking counter.
    case optimisticLock
    /// An attribute (derived ones included, §7.8).
    case attribute
    /// A to-one relationship's foreign key (`Z_PK` of the destination row).
    case toOneKey
    /// `Z<destZ_ENT>_<NAME>`: the destination row's `Z_ENT`, present when the destination has
    /// sub-entities (§7.6).
    case toOneEntityType
    /// `Z_FOK_<NAME>`: the position of this row in the inverse's ordered to-many.
    case toOneOrder
    /// `Z<sourceZ_ENT><REL>` in the destination table: a to-many without inverse (§7.6).
    case toManyKeyWithoutInverse
    /// A join-table key column: the keys of one side of a many-to-many.
    case joinKey
    /// `Z_FOK_<m><REL>` in a join table: the order of an ordered many-to-many.
    case joinOrder
    /// A column of a framework table (history, bookkeeping).
    case framework
    /// `<COLUMN>_MIN` or `<COLUMN>_MAX` of an R-tree table: the bounds of one indexed value.
    case rtreeBound
}

/// One column of a mapped table.
public struct MappedColumn: Sendable, Codable, Equatable {
    /// The column's name (`Z_PK`, `Z<ATTRIBUTE>`, …).
    public var name: String
    /// The declared type as Core Data writes it: INTEGER, FLOAT, TIMESTAMP, DECIMAL, VARCHAR,
    /// BLOB (§7.5).
    public var type: String
    /// What the column holds.
    public var role: ColumnRole
    /// A `UNIQUE` column constraint (the old style of uniqueness constraints, ``UniquenessStyle``).
    public var unique: Bool
    /// The entity declaring the property the column stores.
    @NullEncoded public var entity: String?
    /// The property the column stores; nil for columns no property declares (`Z_PK`, `Z_ENT`, …).
    @NullEncoded public var property: String?
    /// For keys: the entity whose rows (or `Z_ENT`) the column refers to.
    @NullEncoded public var destination: String?
    /// The property's renaming identifier: a migrated store may keep the column where the old
    /// name sorted.
    @NullEncoded public var renamedFrom: String?

    package init(
        name: String, type: String, role: ColumnRole, unique: Bool = false, entity: String? = nil,
        property: String? = nil, destination: String? = nil, renamedFrom: String? = nil
    ) {
        self.name = name
        self.type = type
        self.role = role
        self.unique = unique
        self.entity = entity
        self.property = property
        self.destination = destination
        self.renamedFrom = renamedFrom
    }
}

/// Where Core Data's indexes come from (§7.7).
public enum IndexKind: String, Sendable, Codable {
    /// `<TABLE>_<COLUMN>_INDEX` on a to-one key (or a hidden to-many key).
    case foreignKey
    /// `<TABLE>_Z_ENT_INDEX` in a table with sub-entities.
    case entityType
    /// `<TABLE>_<COLUMN>_INDEX` for an attribute marked indexed in a model without fetch indexes
    /// (frameworks before 865, ``LegacyIndexStyle``).
    case indexedAttribute
    /// `<TABLE>_<COL1>_<COL2>…` for a legacy compound index (frameworks before 865).
    case compoundIndex
    /// `Z_<Entity>_<name>` from the model's fetch indexes.
    case fetchIndex
    /// `Z_<Entity>_UNIQUE_<p>_<q>` from a uniqueness constraint.
    case uniqueness
    /// `<JOIN>_<SECONDCOLUMN>_INDEX` on a join table.
    case manyToMany
}

/// One index Core Data creates.
public struct MappedIndex: Sendable, Codable, Equatable {
    /// The index's name as Core Data writes it.
    public var name: String
    /// The table it indexes.
    public var table: String
    /// Where the index comes from.
    public var kind: IndexKind
    /// `CREATE UNIQUE INDEX`: a uniqueness constraint written as an index.
    public var unique: Bool
    /// The indexed columns, in order.
    public var columns: [String]
    /// `ASC`/`DESC` per column for the `COLLATE BINARY` style of fetch and uniqueness indexes;
    /// `nil` for the plain style (`ON T (C)`).
    @NullEncoded public var order: [String]?
    /// The partial-index condition in SQL (`ZKIND <> 0`), from the fetch index's predicate.
    @NullEncoded public var whereClause: String?
    /// The entity declaring the fetch index or uniqueness constraint.
    @NullEncoded public var entity: String?

    package init(
        name: String, table: String, kind: IndexKind, unique: Bool = false, columns: [String],
        order: [String]? = nil, whereClause: String? = nil, entity: String? = nil
    ) {
        self.name = name
        self.table = table
        self.kind = kind
        self.unique = unique
        self.columns = columns
        self.order = order
        self.whereClause = whereClause
        self.entity = entity
    }

    private enum CodingKeys: String, CodingKey {
        case name, table, kind, unique, columns, order, whereClause = "where", entity, sql
    }

    /// Decodes the stored fields; the derived `sql` key is ignored.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        table = try container.decode(String.self, forKey: .table)
        kind = try container.decode(IndexKind.self, forKey: .kind)
        unique = try container.decode(Bool.self, forKey: .unique)
        columns = try container.decode([String].self, forKey: .columns)
        _order = try container.decode(NullEncoded<[String]>.self, forKey: .order)
        _whereClause = try container.decode(NullEncoded<String>.self, forKey: .whereClause)
        _entity = try container.decode(NullEncoded<String>.self, forKey: .entity)
    }

    /// Encodes the stored fields plus `sql`, the CREATE INDEX statement.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(table, forKey: .table)
        try container.encode(kind, forKey: .kind)
        try container.encode(unique, forKey: .unique)
        try container.encode(columns, forKey: .columns)
        try container.encode(_order, forKey: .order)
        try container.encode(_whereClause, forKey: .whereClause)
        try container.encode(_entity, forKey: .entity)
        try container.encode(createStatement, forKey: .sql)
    }
}

/// The join table of a many-to-many relationship seen from one side.
public struct JoinTableLookup: Sendable, Codable, Equatable {
    /// The join table's name.
    public var table: String
    /// Holds the keys of the relationship's own entity.
    public var sourceColumn: String
    /// Holds the keys of the destination entity.
    public var destinationColumn: String
    /// `Z_FOK_…` when the relationship is ordered.
    @NullEncoded public var orderColumn: String?
}

/// A note on how an uncertain rule was settled, or on something the mapping leaves out.
///
/// Several naming rules rest on few observations (store-format.md §14 item 4). Predicting
/// without a store applies the observed rule; resolving against a store checks each one and
/// follows the store where they disagree, so later commands can rely on the names.
public struct MappingResolution: Sendable, Codable, Equatable {
    /// The rule a note is about.
    public enum Rule: String, Sendable, Codable {
        /// `Z_ENT` numbers: from `Z_PRIMARYKEY`, or computed by the observed order (§4).
        case entityNumbering
        /// A model entity found in `Z_PRIMARYKEY` under its renaming identifier.
        case renamedEntity
        /// Which relationship names a join table, and the suffixes of its columns (§7.6).
        case joinTableNaming
        /// Numeric suffixes for colliding column names (§7.2).
        case collisionSuffix
        /// The column order of §7.3; migrated stores keep columns where older models put them.
        case columnOrder
        /// Which persistent-history layout applies (§11).
        case historyLayout
        /// Uniqueness constraints as indexes or as `UNIQUE` columns (``UniquenessStyle``).
        case uniquenessStyle
        /// Indexed attributes and compound indexes as plain or fetch indexes (``LegacyIndexStyle``).
        case legacyIndexStyle
        /// R-tree virtual tables of location attributes and R-tree fetch indexes.
        case rtreeIndex
        /// Something the model has that the mapping does not turn into SQL.
        case notMapped
    }

    /// The rule the note is about.
    public var rule: Rule
    /// Whether the predicted rule matched the store; `nil` when no store was consulted.
    @NullEncoded public var held: Bool?
    /// The table the note concerns; nil when it concerns the whole mapping.
    @NullEncoded public var table: String?
    /// One line saying what was found or decided.
    public var detail: String

    package init(rule: Rule, held: Bool?, table: String? = nil, detail: String) {
        self.rule = rule
        self.held = held
        self.table = table
        self.detail = detail
    }
}
