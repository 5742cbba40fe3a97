import CDBase
import CDMapping
import CDModel
import CDPredicate
import CDStore
import Foundation
import GRDB

/// One object of a store, loaded whole into memory for ``ObjectGraphEvaluator``.
package final class LoadedObject: GraphObject {
    package let entityName: String
    package let primaryKey: Int64
    /// Decoded attribute values by name.
    package internal(set) var attributes: [String: GraphValue] = [:]
    /// To-one destinations by relationship name (nil values for empty relationships).
    package internal(set) var toOne: [String: LoadedObject?] = [:]
    /// To-many members by relationship name.
    package internal(set) var toMany: [String: [LoadedObject]] = [:]
    fileprivate unowned let graph: LoadedGraph

    fileprivate init(entityName: String, primaryKey: Int64, graph: LoadedGraph) {
        self.entityName = entityName
        self.primaryKey = primaryKey
        self.graph = graph
    }

    package func property(named name: String) -> GraphProperty<LoadedObject>? {
        switch graph.propertyKind(name, ofEntity: entityName) {
        case .attribute?: return attributes[name].map { .attribute($0) }
        case .toOne(let destination)?: return toOne[name].map { .toOne($0, destination: destination) }
        case .toMany(let destination)?: return .toMany(toMany[name] ?? [], destination: destination)
        case nil: return nil
        }
    }
}

/// The objects of a corpus store copy, read by plain SELECTs of each entity's table (by `Z_ENT`),
/// its foreign keys and its join tables, with values decoded as `dump` decodes them — never
/// through CDFetch's SQL generator, which the differential tests check against this graph.
///
/// Bounded: a table of more than ``maximumTableRows`` rows is not read, and every property that
/// leads into it is left out of the schema (so the evaluator refuses it, and the generator never
/// uses it). A to-one whose key names no row, or an attribute whose stored form does not fit its
/// type, is left out the same way.
package final class LoadedGraph: GraphSchema {
    /// The largest table read (rows); larger tables are skipped.
    package static let maximumTableRows = 20_000

    package let model: ManagedObjectModel
    package let storeUUID: String
    /// Objects by entity (its own instances, not its sub-entities').
    package private(set) var objectsByEntity: [String: [LoadedObject]] = [:]
    /// The usable properties of each entity, its inherited ones included.
    package private(set) var kinds: [String: [String: GraphPropertyKind]] = [:]
    /// The model type of each usable attribute, by entity then name.
    package private(set) var attributeTypes: [String: [String: AttributeType]] = [:]
    private var objectsByTable: [String: [Int64: LoadedObject]] = [:]
    /// Each entity with its ancestors.
    private let lineages: [String: Set<String>]

    /// Loads every entity of `reader`'s store whose table is within the bound.
    package init(reader: ObjectReader) throws {
        model = reader.model
        storeUUID = reader.storeUUID
        let model = reader.model
        lineages = Dictionary(
            model.entities.map { ($0.name, Set(model.lineage(of: $0.name).map(\.name))) },
            uniquingKeysWith: { a, _ in a })
        let mapping = reader.mapping
        try reader.snapshot.read { db in try load(db, mapping: mapping) }
    }

    package func isEntity(_ entity: String, kindOf ancestor: String) -> Bool {
        if let lineage = lineages[entity] { return lineage.contains(ancestor) }
        return model.lineage(of: entity).contains { $0.name == ancestor }
    }

    package func propertyKind(_ name: String, ofEntity entity: String) -> GraphPropertyKind? {
        kinds[entity]?[name]
    }

    /// The objects a fetch of `entity` considers: its own and its sub-entities'.
    package func objects(ofKind entity: String) -> [LoadedObject] {
        model.entities.filter { isEntity($0.name, kindOf: entity) }.flatMap { objectsByEntity[$0.name] ?? [] }
    }

    /// `x-coredata://<store>/<Entity>/p<N>`.
    package func uri(of object: LoadedObject) -> String {
        "x-coredata://\(storeUUID)/\(object.entityName)/p\(object.primaryKey)"
    }

    // MARK: Loading

    /// Mapped columns by declaring entity and property, so that looking one up does not scan
    /// every table of a model with thousands of columns.
    private var columnIndex: [String: [MappedColumn]] = [:]

    /// The column of `property` as `entity` sees it (its own or an inherited declaration) with
    /// one of `roles`.
    private func mappedColumn(_ property: String, of entity: String, roles: Set<ColumnRole>) -> MappedColumn? {
        for ancestor in model.lineage(of: entity) {
            if let columns = columnIndex[ancestor.name + "." + property] {
                return columns.first { roles.contains($0.role) }
            }
        }
        return nil
    }

    private func load(_ db: Database, mapping: StoreMapping) throws {
        for table in mapping.tables where table.kind == .entity {
            for column in table.columns {
                guard let entity = column.entity, let property = column.property else { continue }
                columnIndex[entity + "." + property, default: []].append(column)
            }
        }
        var readable: Set<String> = []
        for table in Set(mapping.entities.map(\.table)) where mapping.table(named: table) != nil {
            let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedSQLIdentifier)") ?? 0
            if rows <= Self.maximumTableRows { readable.insert(table) }
        }
        let entities = model.entities.filter { entity in
            mapping.mappedEntity(named: entity.name).map { readable.contains($0.table) } ?? false
        }
        let loadedNames = Set(entities.map(\.name))
        for entity in entities { try loadRows(of: entity, db, mapping: mapping) }
        var unusable: Set<String> = []
        for entity in entities {
            try loadToOnes(of: entity, db, mapping: mapping, loaded: loadedNames, unusable: &unusable)
        }
        for entity in entities {
            try loadToManys(of: entity, db, mapping: mapping, loaded: loadedNames, unusable: &unusable)
        }
        for key in unusable {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            for entity in entities where isEntity(entity.name, kindOf: parts[0]) { kinds[entity.name]?[parts[1]] = nil }
        }
    }

    private func tableName(of entity: String, _ mapping: StoreMapping) -> String? {
        mapping.mappedEntity(named: entity)?.table
    }

    private func loadRows(of entity: EntityDescription, _ db: Database, mapping: StoreMapping) throws {
        guard let table = tableName(of: entity.name, mapping), let number = mapping.entityNumber(of: entity.name) else { return }
        var attributes: [(AttributeDescription, String)] = []
        kinds[entity.name] = [:]
        attributeTypes[entity.name] = [:]
        for property in model.allProperties(of: entity.name) where !property.isTransient {
            if case .attribute(let attribute) = property,
                let column = mappedColumn(attribute.name, of: entity.name, roles: [.attribute])
            {
                attributes.append((attribute, column.name))
                kinds[entity.name]?[attribute.name] = .attribute
                attributeTypes[entity.name]?[attribute.name] = attribute.type
            }
        }
        let columns = (["Z_PK"] + attributes.map(\.1)).map(\.quotedSQLIdentifier).joined(separator: ", ")
        let rows = try Row.fetchCursor(
            db, sql: "SELECT \(columns) FROM \(table.quotedSQLIdentifier) WHERE Z_ENT = ? ORDER BY Z_PK",
            arguments: [number])
        var loaded: [LoadedObject] = []
        var unfitting: Set<String> = []
        while let row = try rows.next() {
            let object = LoadedObject(entityName: entity.name, primaryKey: row[0], graph: self)
            for (index, (attribute, _)) in attributes.enumerated() {
                let value = Self.graphValue(ValueDecoder.decode(Self.raw(row[index + 1]), for: attribute, externalData: nil))
                if value == nil { unfitting.insert(attribute.name) }
                object.attributes[attribute.name] = value ?? .opaque
            }
            loaded.append(object)
            objectsByTable[table, default: [:]][object.primaryKey] = object
        }
        for name in unfitting { kinds[entity.name]?[name] = nil }
        objectsByEntity[entity.name] = loaded
    }

    private func loadToOnes(
        of entity: EntityDescription, _ db: Database, mapping: StoreMapping, loaded: Set<String>,
        unusable: inout Set<String>
    ) throws {
        guard let table = tableName(of: entity.name, mapping), let number = mapping.entityNumber(of: entity.name) else { return }
        for case .relationship(let relationship) in model.allProperties(of: entity.name)
        where !relationship.isToMany && !relationship.common.isTransient {
            guard loaded.contains(relationship.destinationEntity),
                let destinationTable = tableName(of: relationship.destinationEntity, mapping),
                let column = mappedColumn(relationship.name, of: entity.name, roles: [.toOneKey])
            else {
                continue
            }
            kinds[entity.name]?[relationship.name] = .toOne(destination: relationship.destinationEntity)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT Z_PK, \(column.name.quotedSQLIdentifier) FROM \(table.quotedSQLIdentifier) WHERE Z_ENT = ?",
                arguments: [number])
            while let row = try rows.next() {
                guard let source = objectsByTable[table]?[row[0]] else { continue }
                guard let key: Int64 = row[1] else {
                    source.toOne[relationship.name] = .some(nil)
                    continue
                }
                guard let target = objectsByTable[destinationTable]?[key],
                    isEntity(target.entityName, kindOf: relationship.destinationEntity)
                else {
                    unusable.insert(entity.name + "." + relationship.name)
                    continue
                }
                source.toOne[relationship.name] = .some(target)
            }
        }
    }

    private func loadToManys(
        of entity: EntityDescription, _ db: Database, mapping: StoreMapping, loaded: Set<String>,
        unusable: inout Set<String>
    ) throws {
        guard let table = tableName(of: entity.name, mapping) else { return }
        for case .relationship(let relationship) in model.allProperties(of: entity.name)
        where relationship.isToMany && !relationship.common.isTransient {
            // Inherited relationships are read once, by the entity that declares them.
            guard entity.relationships.contains(where: { $0.name == relationship.name }),
                loaded.contains(relationship.destinationEntity),
                let destinationTable = tableName(of: relationship.destinationEntity, mapping)
            else { continue }
            // (owner key, member key) pairs, from wherever the model stores them.
            var pairs: [(Int64, Int64)] = []
            if let join = mapping.joinTable(forRelationship: relationship.name, ofEntity: entity.name) {
                pairs = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT \(join.sourceColumn.quotedSQLIdentifier), \(join.destinationColumn.quotedSQLIdentifier) FROM \(join.table.quotedSQLIdentifier) ORDER BY 1, 2"
                )
                .compactMap { row in (row[0] as Int64?).flatMap { owner in (row[1] as Int64?).map { (owner, $0) } } }
            } else if let hidden = mappedColumn(relationship.name, of: entity.name, roles: [.toManyKeyWithoutInverse]) {
                pairs = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT \(hidden.name.quotedSQLIdentifier), Z_PK FROM \(destinationTable.quotedSQLIdentifier) WHERE \(hidden.name.quotedSQLIdentifier) IS NOT NULL ORDER BY 1, 2"
                )
                .map { (row: Row) -> (Int64, Int64) in (row[0], row[1]) }
            } else if let inverse = relationship.inverseName,
                let key = mappedColumn(inverse, of: relationship.destinationEntity, roles: [.toOneKey])
            {
                pairs = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT \(key.name.quotedSQLIdentifier), Z_PK FROM \(destinationTable.quotedSQLIdentifier) WHERE \(key.name.quotedSQLIdentifier) IS NOT NULL ORDER BY 1, 2"
                )
                .map { (row: Row) -> (Int64, Int64) in (row[0], row[1]) }
            } else {
                continue
            }
            var members: [Int64: [LoadedObject]] = [:]
            var usable = true
            for (owner, member) in pairs {
                guard let target = objectsByTable[destinationTable]?[member] else { usable = false; continue }
                guard isEntity(target.entityName, kindOf: relationship.destinationEntity) else { continue }
                members[owner, default: []].append(target)
            }
            for (owner, list) in members {
                guard let source = objectsByTable[table]?[owner] else { usable = false; continue }
                guard isEntity(source.entityName, kindOf: entity.name) else { continue }
                source.toMany[relationship.name] = list
            }
            if !usable { unusable.insert(entity.name + "." + relationship.name) }
            for sub in model.entities where isEntity(sub.name, kindOf: entity.name) && kinds[sub.name] != nil {
                kinds[sub.name]?[relationship.name] = .toMany(destination: relationship.destinationEntity)
            }
        }
    }

    private static func raw(_ value: DatabaseValue) -> ValueDecoder.Raw {
        switch value.storage {
        case .null: return .null
        case .int64(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .string(let s): return .text(s)
        case .blob(let d): return .blob(d)
        }
    }

    /// The evaluator's form of a decoded value; nil when the stored form does not fit the type.
    private static func graphValue(_ value: ObjectValue) -> GraphValue? {
        switch value {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .boolean(let b): return .integer(b ? 1 : 0)
        case .decimal(let d), .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .date(let d): return .date(d)
        case .uuid(let u): return .uuid(u)
        case .binary, .uri, .transformable, .transformableData, .externalReference, .largeValue: return .opaque
        case .unexpected, .object, .objects, .objectCount: return nil
        }
    }
}
