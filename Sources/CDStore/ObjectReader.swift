import CDBase
import CDMapping
import CDModel
import Foundation
import GRDB
import GRDBSQLite

/// What to read: one entity (with its sub-entities, as a Core Data fetch does) or every entity,
/// how many, and which to-many relationships to fetch. Objects come in `Z_PK` order; a sorted or
/// filtered read is a fetch, written in Core Data's SQL by CDFetch, which hands its statement
/// over in `statement` (the package's one sort descriptor type is CDModel's `SortDescriptor`).
public struct ObjectQuery: Sendable {
    /// `nil` reads every entity, each object once under its concrete entity.
    public var entity: String?
    /// False reads only the objects whose entity is `entity` itself, not its sub-entities'
    /// (`NSFetchRequest.includesSubentities`), for a statement that selects only those.
    public var includesSubentities: Bool
    /// At most this many objects per section; nil for all.
    public var limit: Int?
    /// Objects to skip before the first one read, per section; nil skips none.
    public var offset: Int?
    /// To-many relationships whose members are fetched; the others stay faults.
    public var includes: Set<String>
    /// Count the members of to-many relationships that are not included, instead of leaving
    /// them as faults (one indexed query per relationship and object).
    public var countsToMany: Bool
    /// A statement built elsewhere (a fetch in Core Data's SQL) that selects the rows instead of
    /// the reader's own; its order, `limit` and `offset` are then the statement's business.
    public var statement: ObjectStatement?
    /// Only the object with this `Z_PK`; nil reads them all. For the reader's own SELECT (no
    /// `statement`).
    public var primaryKey: Int64?
    /// Binary and transformable values longer than this many bytes are not read: the object
    /// gets ``ObjectValue/largeValue(bytes:)`` instead, its length from SQLite's `length()`,
    /// which does not read the value's overflow pages. For the reader's own SELECT, or a
    /// `statement` that selects the lengths (``ObjectStatement/lengthColumns``); nil reads every
    /// value whole.
    public var largeValueLimit: Int?

    /// The defaults read every entity, in `Z_PK` order, with to-many relationships as faults.
    public init(
        entity: String? = nil, includesSubentities: Bool = true, limit: Int? = nil, offset: Int? = nil,
        includes: Set<String> = [], countsToMany: Bool = false, statement: ObjectStatement? = nil,
        primaryKey: Int64? = nil, largeValueLimit: Int? = nil
    ) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.limit = limit
        self.offset = offset
        self.includes = includes
        self.countsToMany = countsToMany
        self.statement = statement
        self.primaryKey = primaryKey
        self.largeValueLimit = largeValueLimit
    }
}

extension ObjectQuery {
    /// Whether a ``largeValueLimit`` applies to values of `type`: binary and transformable ones.
    package static func limitsValues(of type: AttributeType) -> Bool {
        type == .binary || type == .transformable
    }

    /// The select expression of the column `reference` under a ``largeValueLimit``: NULL for a
    /// longer value (its `length()` is selected beside it), else the value.
    package static func limitedValue(_ reference: String, limit: Int) -> String {
        "CASE WHEN length(\(reference)) > \(limit) THEN NULL ELSE \(reference) END"
    }
}

/// A SELECT over one entity's table whose rows are objects: `columns` names the table column read
/// at each position (`Z_PK` among them). Position 0 may be `nil` for Core Data's constant `0`,
/// which stands for the fetched entity itself when its table holds no other entity.
public struct ObjectStatement: Sendable {
    /// The SELECT, with `?` placeholders.
    public var sql: String
    /// Values bound to the placeholders, in order.
    public var arguments: [DatabaseValue]
    /// The table column each result position holds (see the type's comment for `nil`).
    public var columns: [String?]
    /// How the SQL debug log describes a fetched object at level 3.
    public var describe: (@Sendable (StoredObject) -> String)?
    /// The result position of each binary or transformable column's `length()`, by column name,
    /// for a statement that selects NULL for values over the query's
    /// ``ObjectQuery/largeValueLimit``.
    public var lengthColumns: [String: Int]

    /// A statement whose result positions hold `columns`; `describe` is only for the debug log.
    public init(
        sql: String, arguments: [DatabaseValue], columns: [String?], describe: (@Sendable (StoredObject) -> String)? = nil,
        lengthColumns: [String: Int] = [:]
    ) {
        self.sql = sql
        self.arguments = arguments
        self.columns = columns
        self.describe = describe
        self.lengthColumns = lengthColumns
    }
}

/// A group of objects read together: one entity's objects, or an entity and its sub-entities.
public struct ObjectSection: Sendable {
    /// The entity the section reads (its sub-entities' objects included when queried by entity).
    public let entity: String
    /// Property names shown for the section's entity, in name order.
    public let properties: [String]
}

/// Reads objects from a store, decoding each column with the model and the exact mapping.
///
/// Rows stream from SQLite one at a time; only the current object is in memory. Column and table
/// names come from `StoreMapping`; every value (entity numbers, keys, limits) is bound.
public final class ObjectReader {
    /// The read-only snapshot of the store being read.
    public let snapshot: StoreSnapshot
    /// The model values are decoded with: the one given to `init`, else the store's cache.
    public let model: ManagedObjectModel
    /// `model`'s tables and columns, resolved against the store's own schema.
    public let mapping: StoreMapping
    /// The store's `Z_PRIMARYKEY`, which gives the entity numbers.
    public let registry: EntityRegistry
    /// `NSStoreUUID` from the metadata, used in object IDs; empty when the metadata has none.
    public let storeUUID: String
    /// The mapping's columns by declaring entity and property, so planning a query over a model
    /// with thousands of properties does not scan every table for each one.
    package let columnIndex: ColumnIndex
    /// Entity names indexed by `Z_ENT` (model entities have small numbers), for building object
    /// IDs row by row without hashing.
    private let namesByEnt: [String?]

    /// Uses `model` when given (for stores without a model cache), else the store's cache.
    public init(snapshot: StoreSnapshot, model: ManagedObjectModel? = nil) throws {
        self.snapshot = snapshot
        let path = snapshot.files.main.path
        let (registry, metadata, cache, schema) = try snapshot.read { db in
            (
                try EntityRegistry.read(db), try StoreMetadata.read(db, path: path),
                model == nil ? try ModelCache.read(db, path: path) : nil, try StoreSchema.read(db)
            )
        }
        guard let chosen = model ?? cache?.model else {
            throw StoreError.noModelCache(path: path, remedy: .modelOption)
        }
        self.model = chosen
        self.registry = registry
        self.storeUUID = metadata.storeUUID ?? ""
        let mapping = StoreMapping.resolve(model: chosen, registry: registry, schema: schema)
        self.mapping = mapping
        columnIndex = ColumnIndex(mapping)
        let modelEnts = mapping.entities.map(\.number).filter { $0 >= 0 && $0 < 16_000 }
        var names = [String?](repeating: nil, count: (modelEnts.max() ?? 0) + 1)
        for entity in mapping.entities where entity.number >= 0 && entity.number < names.count { names[entity.number] = entity.name }
        namesByEnt = names
    }

    /// A reader of `snapshot` that takes its model, mapping, entity numbers and store UUID from
    /// `other`, a reader of another state of the same store with the same schema, metadata and
    /// model cache (`wal --changes` reads commit after commit; only `Z_MAX` may differ, which
    /// the mapping does not use).
    package init(snapshot: StoreSnapshot, sameLayoutAs other: ObjectReader) {
        self.snapshot = snapshot
        model = other.model
        registry = other.registry
        storeUUID = other.storeUUID
        mapping = other.mapping
        columnIndex = other.columnIndex
        namesByEnt = other.namesByEnt
    }

    /// The columns of `property` as `entity` sees it: its own or an ancestor's declaration.
    private func columns(forProperty property: String, ofEntity entity: String) -> [MappedColumn] {
        columnIndex.columns(forProperty: property, ofEntity: entity)
    }

    /// Entities that hold data, in `Z_ENT` order: every model entity with a table.
    public var dumpableEntities: [String] {
        mapping.nameableEntities(model: model)
    }

    /// Reads objects for `query`, calling `section` before the first object of each section and
    /// `object` for every object. Sections without objects are skipped when reading every entity.
    public func read(_ query: ObjectQuery, section: (ObjectSection) throws -> Void, object: (StoredObject) throws -> Void) throws {
        try readRows(query, section: section) { row in try object(row.object()) }
    }

    /// ``read(_:section:object:)`` without building a ``StoredObject`` per row: `row` gets the
    /// current row, whose values it decodes on demand (in place for the common types), so a
    /// renderer can write them without allocating.
    public func readRows(_ query: ObjectQuery, section: (ObjectSection) throws -> Void, row: (borrowing ObjectRow) throws -> Void) throws {
        if let entity = query.entity {
            guard model.entity(named: entity) != nil, mapping.entityNumber(of: entity) != nil else {
                throw StoreError.unknownEntity(entity, mapping: mapping, model: model)
            }
        }
        if let entity = query.entity {
            let ents = query.includesSubentities ? mapping.entityNumbers(includingSubentitiesOf: entity) : mapping.entityNumber(of: entity).map { [$0] } ?? []
            try readSection(
                entity: entity, ents: ents,
                query: query, skipEmpty: false, section: section, row: row)
        } else {
            for entity in dumpableEntities {
                guard let ent = mapping.entityNumber(of: entity) else { continue }
                try readSection(entity: entity, ents: [ent], query: query, skipEmpty: true, section: section, row: row)
            }
        }
    }

    /// Checks that every name in `includes` is a to-many relationship of one of `entities` or
    /// their sub-entities (of any entity when `entities` is nil), so a typo is an error, not a
    /// silent no-op.
    public func checkIncludes(_ includes: Set<String>, entities: [String]?) throws {
        let scope =
            entities.map { names in
                names.flatMap { name in
                    mapping.entityNumbers(includingSubentitiesOf: name).compactMap { ent in mapping.entities.first { $0.number == ent }?.name }
                }
            } ?? dumpableEntities
        let toMany = Set(
            scope.flatMap { model.allProperties(of: $0) }.compactMap { property -> String? in
                if case .relationship(let r) = property, r.isToMany { return r.name }
                return nil
            })
        for name in includes.sorted() where !toMany.contains(name) {
            throw StoreError.notToMany(name: name, scope: entities?.joined(separator: ", ") ?? "any entity", toMany: toMany.sorted())
        }
    }

    /// What a row needs to decode values that take more than its own columns.
    final class ReadContext {
        let reader: ObjectReader
        let query: ObjectQuery
        let members: ToManyFetcher
        let externalData: URL?
        /// For a read with a ``ObjectQuery/largeValueLimit``: the column of each binary or
        /// transformable value (NULL when it is over the limit) and the column of its length.
        let lengthColumns: [Int32: Int32]

        init(reader: ObjectReader, query: ObjectQuery, members: ToManyFetcher, externalData: URL?, lengthColumns: [Int32: Int32]) {
            self.reader = reader
            self.query = query
            self.members = members
            self.externalData = externalData
            self.lengthColumns = lengthColumns
        }
    }

    private func readSection(
        entity: String, ents: [Int], query: ObjectQuery, skipEmpty: Bool,
        section: (ObjectSection) throws -> Void, row: (borrowing ObjectRow) throws -> Void
    ) throws {
        guard let table = mapping.table(forEntity: entity) else { return }
        var selected = ["Z_PK", "Z_ENT"]
        var positions = ["Z_PK": 0, "Z_ENT": 1]
        if let statement = query.statement {
            selected = statement.columns.map { $0 ?? "" }
            positions = Dictionary(
                statement.columns.enumerated().compactMap { item in item.element.map { ($0, item.offset) } },
                uniquingKeysWith: { first, _ in first })
        }
        func index(of column: String) -> Int32 {
            if let existing = positions[column] { return Int32(existing) }
            selected.append(column)
            positions[column] = selected.count - 1
            return Int32(selected.count - 1)
        }
        // Large values: the value column reads NULL past the limit, and a column of its own
        // gives the length (`length()` of a blob reads no overflow page).
        var expressions: [Int: String] = [:]
        var lengthColumns: [Int32: Int32] = [:]
        func valueIndex(of column: String, type: AttributeType) -> Int32 {
            let position = index(of: column)
            guard let limit = query.largeValueLimit, ObjectQuery.limitsValues(of: type), lengthColumns[position] == nil else { return position }
            if let statement = query.statement {
                if let lengthPosition = statement.lengthColumns[column] { lengthColumns[position] = Int32(lengthPosition) }
                return position
            }
            let quoted = column.quotedSQLIdentifier
            expressions[Int(position)] = ObjectQuery.limitedValue(quoted, limit: limit)
            selected.append("length:" + column)
            expressions[selected.count - 1] = "length(\(quoted))"
            lengthColumns[position] = Int32(selected.count - 1)
            return position
        }
        var layouts: [Int: ObjectLayout] = [:]
        for ent in ents {
            guard let name = mapping.entities.first(where: { $0.number == ent })?.name,
                let description = model.entity(named: name)
            else { continue }
            var fields: [(name: String, field: ObjectField)] = []
            for property in model.allProperties(of: name).sorted(by: { $0.name < $1.name }) where !property.isTransient {
                switch property {
                case .attribute(let attribute):
                    if let column = columns(forProperty: attribute.name, ofEntity: name).first(where: { $0.role == .attribute }) {
                        fields.append(
                            (
                                attribute.name,
                                .attribute(
                                    attribute.type, external: attribute.allowsExternalBinaryDataStorage,
                                    column: valueIndex(of: column.name, type: attribute.type))
                            ))
                    }
                case .relationship(let relationship) where !relationship.isToMany:
                    let all = columns(forProperty: relationship.name, ofEntity: name)
                    if let key = all.first(where: { $0.role == .toOneKey }) {
                        let companion = all.first { $0.role == .toOneEntityType }.map { index(of: $0.name) }
                        fields.append(
                            (
                                relationship.name,
                                .toOne(
                                    destination: relationship.destinationEntity,
                                    destinationEnt: mapping.entityNumber(of: relationship.destinationEntity) ?? 0,
                                    key: index(of: key.name), entityType: companion)
                            ))
                    }
                case .relationship(let relationship):
                    fields.append((relationship.name, .toMany(RelationshipBox(relationship))))
                case .fetched:
                    break
                }
            }
            layouts[ent] = ObjectLayout(entity: name, ent: ent, className: description.className, storeUUID: storeUUID, fields: fields)
        }
        let sectionProperties =
            layouts[mapping.entityNumber(of: entity) ?? -1]?.names
            ?? model.allProperties(of: entity).filter { !$0.isTransient }.map(\.name).sorted()

        // When every entity the table stores is wanted, the unary `+` keeps SQLite off the Z_ENT
        // index: one scan in Z_PK (rowid) order needs no index lookups per row and no sort.
        let wholeTable = Set(table.entities.compactMap(mapping.entityNumber(of:))).isSubset(of: ents)
        var sql =
            "SELECT " + selected.enumerated().map { expressions[$0.offset] ?? $0.element.quotedSQLIdentifier }.joined(separator: ", ")
            + " FROM " + table.name.quotedSQLIdentifier
            + " WHERE " + (wholeTable ? "+Z_ENT" : "Z_ENT") + " IN (" + ents.map { _ in "?" }.joined(separator: ", ") + ")"
            + (query.primaryKey == nil ? "" : " AND Z_PK = ?")
            + " ORDER BY Z_PK"
        var arguments = StatementArguments(ents)
        if let primaryKey = query.primaryKey { arguments += [primaryKey] }
        if query.limit != nil || query.offset != nil {
            sql += " LIMIT ? OFFSET ?"
            arguments += [query.limit ?? -1, query.offset ?? 0]
        }
        if let statement = query.statement {
            guard selected.count == statement.columns.count else {
                throw StoreError.missingColumns(entity: entity, missing: Array(selected.dropFirst(statement.columns.count)))
            }
            sql = statement.sql
            arguments = StatementArguments(statement.arguments)
        }
        let pkPosition = positions["Z_PK"] ?? 0
        let entPosition = positions["Z_ENT"]
        let fixedEnt = mapping.entityNumber(of: entity) ?? 0

        let externalData = snapshot.files.externalDataFolder
        let trace = query.statement == nil ? nil : snapshot.trace
        try snapshot.read { db in
            let context = ReadContext(
                reader: self, query: query, members: ToManyFetcher(reader: self, db: db), externalData: externalData, lengthColumns: lengthColumns)
            let statement = try db.makeStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            // Layouts by Z_ENT in an array: this lookup runs for every row.
            var byEnt = [ObjectLayout?](repeating: nil, count: (layouts.keys.max() ?? 0) + 1)
            for (ent, layout) in layouts where ent >= 0 { byEnt[ent] = layout }
            var started = false
            if !skipEmpty {
                try section(ObjectSection(entity: entity, properties: sectionProperties))
                started = true
            }
            var outcome = SQLTrace.FetchOutcome(rows: 0, sqliteTime: 0)
            /// The next row; when tracing, also the time SQLite spends producing it.
            func nextRow() throws -> Row? {
                guard trace != nil else { return try cursor.next() }
                let start = DispatchTime.now().uptimeNanoseconds
                defer { outcome.sqliteTime += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
                return try cursor.next()
            }
            // A fetch statement may put Core Data's constant `0` where Z_ENT would be: its rows are
            // all of the fetched entity.
            let pkColumn = Int32(pkPosition)
            let entColumn = entPosition.map(Int32.init)
            func stepRows() throws -> SQLTrace.FetchOutcome {
                guard let anyLayout = layouts.values.first, let sqliteRow = try nextRow() else { return outcome }
                // The cursor hands out the same `Row` for every row, so one ObjectRow follows it.
                var current = ObjectRow(layout: anyLayout, pk: 0, statement: statement.sqliteStatement, row: sqliteRow, context: context)
                repeat {
                    let ent = entColumn.map { sqlite3_column_int64(current.statement, $0) } ?? Int64(fixedEnt)
                    guard ent >= 0, ent < byEnt.count, let layout = byEnt[Int(ent)] else { continue }
                    if !started {
                        try section(ObjectSection(entity: entity, properties: sectionProperties))
                        started = true
                    }
                    if current.layout !== layout { current.layout = layout }
                    current.pk = sqlite3_column_int64(current.statement, pkColumn)
                    if let trace {
                        outcome.rows += 1
                        if let describe = query.statement?.describe, trace.level >= 3, outcome.values.count < SQLTrace.rowValueLimit {
                            outcome.values.append(describe(try current.object()))
                        }
                    }
                    try row(current)
                } while try nextRow() != nil
                return outcome
            }
            if let trace, let statement = query.statement {
                try trace.fetch(sql: statement.sql, arguments: statement.arguments, entity: entity, in: db, rows: stepRows)
            } else {
                _ = try stepRows()
            }
        }
    }

    /// The ID of a destination row: its concrete entity from the `Z<n>_` companion column when
    /// the destination has sub-entities, else the declared destination.
    func objectID(pk: Int64, ent: Int, declared: String) -> ObjectID {
        ObjectID(storeUUID: storeUUID, entity: entityName(ent: ent, declared: declared), ent: ent, pk: pk)
    }

    func entityName(ent: Int, declared: String) -> String {
        (ent >= 0 && ent < namesByEnt.count ? namesByEnt[ent] : nil) ?? declared
    }
}

/// Fetches the members of to-many relationships for `--include`, with one prepared statement per
/// relationship, written by ``ToManyPath`` (the SQL the fetches' joins and counts use too).
/// Ordered relationships come back in `Z_FOK_` order.
final class ToManyFetcher {
    let reader: ObjectReader
    let db: Database
    private var statements: [String: Statement] = [:]

    init(reader: ObjectReader, db: Database) {
        self.reader = reader
        self.db = db
    }

    func members(of relationship: RelationshipDescription, entity: String, pk: Int64) throws -> [ObjectID] {
        let statement = try prepared(relationship, entity: entity, counting: false)
        var result: [ObjectID] = []
        let rows = try Row.fetchCursor(statement, arguments: [pk])
        while let row = try rows.next() {
            // A member whose key is not an integer has no object ID; the validator reports it.
            guard let memberPK = StoredInteger(row, 0).value else { continue }
            let memberEnt = StoredInteger(row, 1).value(in: EntityRegistry.entityNumbers) ?? 0
            result.append(reader.objectID(pk: memberPK, ent: memberEnt, declared: relationship.destinationEntity))
        }
        return result
    }

    func count(of relationship: RelationshipDescription, entity: String, pk: Int64) throws -> Int {
        try Int.fetchOne(try prepared(relationship, entity: entity, counting: true), arguments: [pk]) ?? 0
    }

    private func prepared(_ relationship: RelationshipDescription, entity: String, counting: Bool) throws -> Statement {
        let cacheKey = entity + "." + relationship.name + (counting ? "#count" : "")
        if let cached = statements[cacheKey] { return cached }
        let sql = try ToManyPath.membersSQL(of: relationship, owner: entity, mapping: reader.mapping, counting: counting)
        let statement = try db.makeStatement(sql: sql)
        statements[cacheKey] = statement
        return statement
    }
}
