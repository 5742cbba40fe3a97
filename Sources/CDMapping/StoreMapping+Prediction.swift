import CDModel
import Foundation

/// Settings that are not part of the model but change the tables.
public struct MappingOptions: Sendable, Equatable {
    /// The persistent-history tables to include (§11).
    public var history: HistoryOption
    /// Whether to include `Z_MODELCACHE` (absent from stores written before framework 640, §3;
    /// see ``firstModelCacheVersion``).
    public var includesModelCache: Bool
    /// How uniqueness constraints are written; see ``UniquenessStyle``.
    public var uniqueness: UniquenessStyle
    /// How indexed attributes and legacy compound indexes are written; see ``LegacyIndexStyle``.
    public var legacyIndexes: LegacyIndexStyle
    /// Whether R-tree tables come with the triggers that fill them (``rtreeTriggerVersions``).
    public var rtreeTriggers: Bool
    /// How the columns of one type are ordered; see ``ColumnOrderStyle``.
    public var columnOrder: ColumnOrderStyle
    /// Which of two colliding many-to-many key columns is numbered; see ``JoinKeyOrderStyle``.
    public var joinKeyOrder: JoinKeyOrderStyle

    /// The defaults describe a store written by a current framework.
    public init(
        history: HistoryOption = .asRegistered, includesModelCache: Bool = true,
        uniqueness: UniquenessStyle = .index, legacyIndexes: LegacyIndexStyle = .fetchIndexes,
        rtreeTriggers: Bool = false, columnOrder: ColumnOrderStyle = .byName,
        joinKeyOrder: JoinKeyOrderStyle = .entityHashTable
    ) {
        self.history = history
        self.includesModelCache = includesModelCache
        self.uniqueness = uniqueness
        self.legacyIndexes = legacyIndexes
        self.rtreeTriggers = rtreeTriggers
        self.columnOrder = columnOrder
        self.joinKeyOrder = joinKeyOrder
    }

    /// Everything the framework version that writes the store decides: the model cache, the
    /// uniqueness and legacy index styles, the R-tree triggers, the column order.
    public init(frameworkVersion: Int, history: HistoryOption = .asRegistered) {
        self.init(
            history: history, includesModelCache: frameworkVersion >= Self.firstModelCacheVersion,
            uniqueness: UniquenessStyle(frameworkVersion: frameworkVersion),
            legacyIndexes: LegacyIndexStyle(frameworkVersion: frameworkVersion),
            rtreeTriggers: Self.rtreeTriggerVersions.contains(frameworkVersion),
            columnOrder: ColumnOrderStyle(frameworkVersion: frameworkVersion),
            joinKeyOrder: JoinKeyOrderStyle(frameworkVersion: frameworkVersion))
    }

    /// The framework versions that fill an R-tree table by `_INSERT`, `_UPDATE` and `_DELETE`
    /// triggers: every Photos store of 977 (10.15.4) to 1347 (14.6) has them, the one of 1447
    /// (15.4.1) has the R-tree table without them. No R-tree is seen before 977; where between
    /// 1348 and 1446 the triggers went is **uncertain** (the last version seen with them is used).
    public static let rtreeTriggerVersions = 0...1347

    /// The first framework version that writes `Z_MODELCACHE`.
    ///
    /// Evidence (store-format.md §3): no cache in stores of 230, 241, 419, 481 (corpus) and 519
    /// (iOS 8.0); a cache in real stores of 640, 641 and 752 (reported, not in the corpus) and
    /// in every corpus store from 754 on. 640 is iOS 9.0 / OS X 10.11, the first release after
    /// 519 whose version is known, so the cache came with it or with an unseen build between
    /// 520 and 639 (**uncertain**); the lowest version seen with a cache is used.
    public static let firstModelCacheVersion = 640
}

/// How Core Data writes an attribute marked "indexed" and a legacy compound index
/// (`<compoundIndexes>`, `NSCompoundIndexes`) of an entity that declares no fetch indexes.
///
/// Up to framework 754 (photosgraph 10.12.6 in the corpus, and real stores of one app) they
/// are plain indexes: `ZNOTE_ZTITLE_INDEX ON ZNOTE (ZTITLE)` and, for a compound index, the
/// table and the columns joined by `_` without `_INDEX`: `ZNOTE_ZISARCHIVED_ZMODIFIEDDATE`.
/// From 865 on (the same app's later stores) both are fetch indexes named after the entity
/// and the properties: `Z_Note_title ON ZNOTE (ZTITLE COLLATE BINARY ASC)`. No store written
/// between 755 and 864 by a model without fetch indexes has been seen, so the switch lies
/// somewhere there (**uncertain**): the corpus stores of 847 (wibosco) have no indexes and those
/// of 851 (knowledgeC 10.13) a model that declares fetch indexes, which then replace the legacy
/// flags in every framework version. 865, the lowest version seen with the new form, is used.
public enum LegacyIndexStyle: String, Sendable, Codable {
    case plainIndexes
    case fetchIndexes

    /// The first framework version seen writing legacy indexes as fetch indexes.
    public static let firstFetchIndexVersion = 865

    /// The style of a store written by `frameworkVersion` (`NSPersistenceFrameworkVersion`).
    public init(frameworkVersion: Int) {
        self = frameworkVersion < Self.firstFetchIndexVersion ? .plainIndexes : .fetchIndexes
    }
}

/// How Core Data writes a uniqueness constraint.
///
/// Framework 851 (macOS 10.13 knowledgeC) declares a one-property constraint on the column:
/// `ZMETADATAHASH VARCHAR UNIQUE`. Framework 866 (10.14) and later create
/// `Z_<Entity>_UNIQUE_<p>` indexes instead. Where between the two the switch happened, and how
/// the old style writes a constraint of several properties, is **uncertain**; such constraints
/// stay indexes.
public enum UniquenessStyle: String, Sendable, Codable {
    case index
    case columnConstraint

    /// The style of a store written by `frameworkVersion` (`NSPersistenceFrameworkVersion`).
    public init(frameworkVersion: Int) {
        self = frameworkVersion < 866 ? .columnConstraint : .index
    }
}

/// How Core Data orders the columns within one type group (§7.3).
///
/// From framework 419 on each entity's attributes come in name order, then its relationships'
/// keys in name order: bookmigration (419) has `ZAUTHORNAME, ZTITLE`, which the older order
/// reverses, and failedbankcd (481), wibosco-revised (866) and cdplus-samplemodel (1044) also
/// contradict the older order. Frameworks 230 and 241 (CoreDataBooks, Recipes) wrote them in
/// the enumeration order of the entity's attribute dictionary, then of its relationship
/// dictionary (``HashTableOrder``, names inserted in name order): `ZRECIPE` has
/// `ZPREPTIME, ZNAME, ZINSTRUCTIONS, ZOVERVIEW`, which neither name order (in any case), the
/// model file's order nor the order of the property hashes gives. That rule is inferred from
/// the four groups of two or more columns in those stores (`ZRECIPE`'s strings and keys,
/// `ZINGREDIENT`'s and `ZBOOK`'s strings; a random order fits all four once in 192) with the
/// 64-bit hash of a Mac: a store written by a 32-bit process (iPhone OS 3 or its simulator)
/// would follow the 32-bit hash, and none has been seen (**uncertain**). Which version between
/// 242 and 418 switched to name order is unknown; 419, the lowest seen with it, is used.
public enum ColumnOrderStyle: String, Sendable, Codable {
    /// Attributes, then relationships, each in name order (419 on).
    case byName
    /// Attributes, then relationships, each in the order of the entity's dictionary (230, 241).
    case hashTable

    /// The lowest framework version seen writing the columns of one type in name order.
    public static let firstByNameVersion = 419

    /// The order of a store written by `frameworkVersion` (`NSPersistenceFrameworkVersion`).
    public init(frameworkVersion: Int) {
        self = frameworkVersion < Self.firstByNameVersion ? .hashTable : .byName
    }
}

/// The order in which Core Data gives many-to-many key columns their names (§7.6): two
/// relationships of one name to one destination m both want `Z_<m><REL>`; the first in this order
/// keeps it, the next gets `Z_<m><REL>1`.
///
/// Evidence, every such collision seen (the six Photos stores of the corpus, each with the model
/// in its cache, and a store of framework 1344 of the Wire app, model `zmessaging2.105.0`):
///
/// | store (framework) | `Z_<m><REL>` | plain | numbered | entity names | entity dictionary |
/// |---|---|---|---|---|---|
/// | Photos 10.15.4 to 14.6 (977 to 1347, 5 stores) | `REPRESENTATIVEASSETS` | Memory | Suggestion | fits | fits 10.15.4 only |
/// | Photos 15.4.1 (1447) | `KEYASSETS` | GenericAlbum | Suggestion | fits | fits |
/// | Photos 15.4.1 (1447) | `REPRESENTATIVEASSETS` | Suggestion | Memory | no | fits |
/// | Wire (1344) | `Z_24USERS` | Reaction | SystemMessage | fits | fits |
///
/// "Entity names" is the byte order of the declaring entities' names; "entity dictionary" is
/// the enumeration order of a Core Foundation dictionary of the model's entity names
/// (``HashTableOrder``, names inserted in name order: 127 buckets for Photos' 54 to 71
/// entities, where Suggestion's slot 76 comes before Memory's 77 and GenericAlbum's 49 before
/// both; 41 for Wire's 25, Reaction 5 before SystemMessage 17). `Z_ENT` order fails the last
/// two rows, and every other order tried fails some row: of table names, of the inverse
/// names, of the destination's property dictionary (read from the archived model and from
/// the store's oldest index names), of the key columns' or table names' hashes, "relationships
/// unchanged since the source model first", the source store's names, the order in which a
/// migration rebuilds tables.
///
/// The six Photos stores are **one library** (store UUID FE941CCE-3AF4-4243-907C-C2233C09008D),
/// created by framework 969 in 2019 and migrated in place (`NSSQLiteInPlaceMigrationManager`)
/// by 973, 977, 1042, 1138, 1244, 1347 and 1447. Its join tables keep their `sqlite_master`
/// rowids through every step, yet at 1447 the two `REPRESENTATIVEASSETS` columns swapped names
/// (a column rename in place: the 1447 migrator named them anew), and `Z_3KEYASSETS`, new at
/// 1447, was named then. Two readings fit all eight rows: (a) entity-name order up to 1347 and
/// dictionary order from 1447; (b) dictionary order for every new store, with migrations up to
/// 1347 keeping the suffixes a store had. They differ only for stores *created* by 1347 or
/// earlier, of which the corpus has none with a collision; a store created on macOS 14 and one
/// on macOS 15 from a model such as Book.items / Event.items ↔ Item (names: Book plain;
/// dictionary: Event plain) would settle it. Reading (a) is followed, so both readings agree
/// from 1447 on; which version between 1348 and 1446 changed is unknown (the lowest seen with
/// dictionary order is used), and every collision keeps an **uncertain** note.
public enum JoinKeyOrderStyle: String, Sendable, Codable {
    /// The declaring entities in name order (before 1447).
    case entityName
    /// The declaring entities in the order of the model's entity dictionary (1447 on).
    case entityHashTable

    /// The lowest framework version seen naming colliding key columns in dictionary order.
    public static let firstHashTableVersion = 1447

    /// The order of a store written by `frameworkVersion` (`NSPersistenceFrameworkVersion`).
    public init(frameworkVersion: Int) {
        self = frameworkVersion < Self.firstHashTableVersion ? .entityName : .entityHashTable
    }

    /// `names` (entity names) in this order.
    func ordered(_ names: [String]) -> [String] {
        let byName = names.sorted()
        switch self {
        case .entityName: return byName
        case .entityHashTable: return HashTableOrder.enumerationOrder(of: byName) ?? byName
        }
    }
}

extension StoreMapping {
    /// The mapping Core Data would create for `model`, by the rules of store-format.md §7.
    ///
    /// `Z_ENT` numbers come from `registry` (`Z_PRIMARYKEY`) when given; otherwise from
    /// ``computedEntityNumbers(for:)``. No store is consulted, so uncertain rules are applied as
    /// observed; use ``resolve(model:registry:schema:)`` to check them.
    public static func predict(
        model: ManagedObjectModel, registry: EntityRegistry? = nil,
        options: MappingOptions = MappingOptions()
    ) -> StoreMapping {
        var builder = MappingBuilder(model: model, registry: registry)
        return builder.build(options: options)
    }

    /// `Z_ENT` numbers by the order observed in real stores (§4): root entities in name order,
    /// each followed depth-first by its sub-tree, siblings in name order.
    ///
    /// The name order is case-insensitive (netusage numbers `NetworkAttachment` 12 before
    /// `NWActivityFragment` 13), with byte order breaking ties. The exact collation is
    /// **uncertain** (§14 item 4): prefer `Z_PRIMARYKEY` whenever a store is at hand.
    public static func computedEntityNumbers(for model: ManagedObjectModel) -> [String: Int] {
        let names = Set(model.entities.map(\.name))
        func byName(_ a: String, _ b: String) -> Bool {
            let (la, lb) = (a.lowercased(), b.lowercased())
            return la != lb ? la < lb : a < b
        }
        var numbers: [String: Int] = [:]
        func visit(_ name: String) {
            guard numbers[name] == nil else { return }
            numbers[name] = numbers.count + 1
            for child in model.subentities(of: name).map(\.name).sorted(by: byName) { visit(child) }
        }
        let roots = model.entities.filter { entity in entity.parentName.map { !names.contains($0) } ?? true }
        for root in roots.map(\.name).sorted(by: byName) { visit(root) }
        return numbers
    }
}

/// Whether to include the persistent-history tables, which the model does not say (§11).
public enum HistoryOption: Sendable, Equatable {
    /// As the history entities (16001–16003) in the registry's `Z_PRIMARYKEY` say; none
    /// without a registry. Core Data may create the tables before it registers the entities
    /// (VUIndex has empty history tables and no such rows), so a store's schema is better.
    case asRegistered
    case none
    case layout(HistoryLayout)
}

/// Which persistent-history tables a store has (§11).
public enum HistoryLayout: String, Sendable, Codable {
    /// macOS 10.13 (framework 851): `ACHANGE` and `ATRANSACTION` without the `…TS` columns.
    case legacy
    /// Framework 1044 and later: adds `ATRANSACTIONSTRING` and the interned-string keys.
    case current
}

/// Column groups in the order Core Data writes them (§7.3), each with its declared type.
///
/// Observed on every corpus store: integers (with booleans and keys), then doubles, floats and
/// dates sorted together, then decimals, strings, URIs, UUIDs, transformables, binary data.
enum ColumnGroup: Int, Comparable {
    case integer, real, decimal, string, uri, uuid, transformable, binary

    static func < (lhs: ColumnGroup, rhs: ColumnGroup) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `nil` for types that have no column: undefined, object ID, composite (§7.5).
    init?(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: self = .integer
        case .double, .float, .date: self = .real
        case .decimal: self = .decimal
        case .string: self = .string
        case .uri: self = .uri
        case .uuid: self = .uuid
        case .transformable: self = .transformable
        case .binary: self = .binary
        default: return nil
        }
    }

    static func sqlType(_ type: AttributeType) -> String {
        switch type {
        case .double, .float: return "FLOAT"
        case .date: return "TIMESTAMP"
        case .decimal: return "DECIMAL"
        case .string, .uri: return "VARCHAR"
        case .uuid, .transformable, .binary: return "BLOB"
        default: return "INTEGER"
        }
    }
}

/// Where a column sorts (§7.3): by group; within the integer group, each entity's own columns
/// (`Z_ENT` order), then hidden to-many keys, then `Z_FOK_` order columns (both observed in
/// Photos); then attributes before relationships, by `rank` (0 in name order, the place in the
/// entity's dictionary with ``ColumnOrderStyle/hashTable``), then by name. A relationship's
/// `Z<n>_` companion follows its key (`part` 1).
private struct ColumnSortKey: Comparable {
    enum Block: Int { case own, hiddenKeys, orderColumns }

    var group: ColumnGroup
    var block = Block.own
    /// `Z_ENT` of the declaring entity.
    var entity: Int
    /// 0 for attributes, 1 for relationships.
    var kind: Int
    var rank = 0
    var name: String
    var part = 0

    static func < (lhs: ColumnSortKey, rhs: ColumnSortKey) -> Bool {
        let (left, right) = (
            (lhs.group, lhs.block.rawValue, lhs.entity, lhs.kind, lhs.rank),
            (rhs.group, rhs.block.rawValue, rhs.entity, rhs.kind, rhs.rank)
        )
        return left != right ? left < right : (lhs.name, lhs.part) < (rhs.name, rhs.part)
    }
}

/// Builds a ``StoreMapping`` from a model, one hierarchy table at a time.
struct MappingBuilder {
    let model: ManagedObjectModel
    let registry: EntityRegistry?
    private var numbers: [String: Int] = [:]
    private var notes: [MappingResolution] = []
    /// Entity name → the table its hierarchy lives in.
    private var tableOf: [String: String] = [:]
    /// Per table: the upper-cased column names taken so far (§7.2 collisions are per table).
    private var takenNames: [String: Set<String>] = [:]
    private var pending: [String: [(ColumnSortKey, MappedColumn)]] = [:]
    private var columnOrder = ColumnOrderStyle.byName
    private var joinKeyOrder = JoinKeyOrderStyle.entityHashTable

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

    private func number(_ entity: String) -> Int { numbers[entity] ?? 0 }

    private func isRoot(_ entity: EntityDescription) -> Bool {
        entity.parentName.map { model.entity(named: $0) == nil } ?? true
    }

    /// `name` and its descendants in `Z_ENT` order.
    private func hierarchy(of name: String) -> [String] {
        var result: [String] = []
        var pendingNames = [name]
        while let next = pendingNames.popLast() {
            guard !result.contains(next) else { continue }
            result.append(next)
            pendingNames += model.subentities(of: next).map(\.name)
        }
        return result.sorted { number($0) < number($1) }
    }

    private func hasSubentities(_ name: String) -> Bool {
        !model.subentities(of: name).isEmpty
    }

    /// Numbers from `Z_PRIMARYKEY` by name, then by renaming identifier (a renamed entity can
    /// keep its old name there: CoreDataPlus `LuxuryCar` is row 3 `ExpensiveSportCar`).
    private mutating func assignNumbers() {
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

    // MARK: Columns

    /// `base`, or `base1`, `base2`, … when the table already has that name (§7.2).
    private mutating func uniqueName(_ base: String, in table: String) -> String {
        var taken = takenNames[table] ?? []
        var candidate = base
        var suffix = 1
        while taken.contains(candidate.uppercased()) {
            candidate = base + String(suffix)
            suffix += 1
        }
        taken.insert(candidate.uppercased())
        takenNames[table] = taken
        return candidate
    }

    private mutating func add(_ column: MappedColumn, key: ColumnSortKey, to table: String) {
        pending[table, default: []].append((key, column))
    }

    /// Where each property of `entity` sorts among the columns of its type: 0 for all in name
    /// order; with ``ColumnOrderStyle/hashTable`` its place in the dictionary of the entity's
    /// attributes or of its relationships (`attributesByName`, `relationshipsByName`: inherited
    /// and transient ones included, which only matters for sub-entities, unseen at those versions).
    private func columnRanks(of entity: EntityDescription) -> [String: Int] {
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
    private mutating func addColumns(of entity: EntityDescription) {
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
    private mutating func addToOne(_ relationship: RelationshipDescription, of entity: EntityDescription, table: String, rank: Int) {
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
    private mutating func addHiddenToManyKeys(of entity: EntityDescription) {
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
    private func declaringEntity(of property: String, from entity: String) -> String {
        model.lineage(of: entity).first { $0.properties.contains { $0.name == property } }?.name ?? entity
    }

    private func isToMany(_ property: String, of entity: String) -> Bool {
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

    // MARK: Many-to-many

    private struct JoinTable {
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
    private mutating func joinTables(ordered: [EntityDescription]) -> [JoinTable] {
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
    private func joinKeyStems(ordered: [EntityDescription]) -> (stems: [String: String], collisions: [[String]]) {
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
                var taken = takenPerDestination[destination] ?? []
                var stem = base
                var suffix = 1
                while taken.contains(stem) {
                    stem = base + String(suffix)
                    suffix += 1
                }
                taken.insert(stem)
                takenPerDestination[destination] = taken
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
    private func collisionNote(_ sharers: [String], in joins: [JoinTable]) -> MappingResolution {
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
    private struct JoinSide {
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
    private func makeJoinTable(named: JoinSide, other: JoinSide, selfInverse: Bool, taken: inout Set<String>) -> MappedTable {
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
        var name = stem
        var suffix = 1
        while taken.contains(name) {
            name = stem + String(suffix)
            suffix += 1
        }
        taken.insert(name)
        var table = MappedTable(
            name: name, kind: .manyToMany, columns: columns,
            primaryKey: [columns[0].name, columns[1].name])
        table.indexes = [Self.joinIndex(table: name, first: columns[0].name, second: columns[1].name)]
        return table
    }

    static func joinIndex(table: String, first: String, second: String) -> MappedIndex {
        MappedIndex(name: "\(table)_\(second)_INDEX", table: table, kind: .manyToMany, columns: [second, first])
    }

    // MARK: Indexes

    /// The column-constraint style: one-property constraints become `UNIQUE` columns.
    private func markUniqueColumns(of table: inout MappedTable, members: [String]) {
        for member in members {
            for constraint in model.entity(named: member)?.uniquenessConstraints ?? [] where constraint.count == 1 {
                guard let column = column(ofProperty: constraint[0], entity: member, in: table),
                    let position = table.columns.firstIndex(of: column)
                else { continue }
                table.columns[position].unique = true
            }
        }
    }

    /// Key indexes in column order, the `Z_ENT` index, then per entity its fetch indexes and
    /// uniqueness constraints: the order Core Data creates them in (§7.7).
    private mutating func indexes(of table: MappedTable, members: [String], options: MappingOptions) -> [MappedIndex] {
        var result: [MappedIndex] = []
        for column in table.columns where column.role == .toOneKey || column.role == .toManyKeyWithoutInverse {
            result.append(
                MappedIndex(
                    name: "\(table.name)_\(column.name)_INDEX", table: table.name,
                    kind: .foreignKey, columns: [column.name]))
        }
        if members.count > 1 {
            result.append(MappedIndex(name: "\(table.name)_Z_ENT_INDEX", table: table.name, kind: .entityType, columns: ["Z_ENT"]))
        }
        for member in members {
            guard let entity = model.entity(named: member) else { continue }
            if entity.fetchIndexes.isEmpty {
                for index in legacyIndexes(of: entity, table: table, style: options.legacyIndexes)
                where !result.contains(where: { $0.name == index.name }) {
                    result.append(index)
                }
            }
            for fetchIndex in entity.fetchIndexes {
                // A model can list one name twice (PGCurationCache `Moment.identifier`); Core
                // Data creates the index once.
                if let index = self.fetchIndex(fetchIndex, of: entity, table: table),
                    !result.contains(where: { $0.name == index.name })
                {
                    result.append(index)
                }
            }
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                if options.uniqueness == .columnConstraint && constraint.count == 1 { continue }
                let columns = constraint.compactMap { column(ofProperty: $0, entity: member, in: table)?.name }
                guard columns.count == constraint.count else {
                    notes.append(
                        MappingResolution(
                            rule: .notMapped, held: nil, table: table.name,
                            detail: "uniqueness constraint \(member) \(constraint) names a property without a column"))
                    continue
                }
                result.append(
                    MappedIndex(
                        name: "Z_\(member)_UNIQUE_" + constraint.joined(separator: "_"),
                        table: table.name, kind: .uniqueness, unique: true, columns: columns,
                        order: columns.map { _ in "ASC" }, entity: member))
            }
        }
        return result
    }

    /// Indexed attributes, then legacy compound indexes, of an entity without fetch indexes, in
    /// the framework's ``LegacyIndexStyle``. An entity that declares fetch indexes gets only those
    /// (knowledgeC 851 and 866 keep both in their caches and create only the fetch indexes).
    private func legacyIndexes(of entity: EntityDescription, table: MappedTable, style: LegacyIndexStyle) -> [MappedIndex] {
        var groups: [[String]] = entity.attributes.filter { $0.common.isIndexed && !$0.common.isTransient }.map { [$0.name] }
        groups += entity.compoundIndexes.filter { !$0.isEmpty }
        return groups.compactMap { properties in
            let columns = properties.compactMap { column(ofProperty: $0, entity: entity.name, in: table)?.name }
            guard columns.count == properties.count else { return nil }
            switch style {
            case .fetchIndexes:
                return MappedIndex(
                    name: "Z_\(entity.name)_" + properties.joined(separator: "_"), table: table.name,
                    kind: .fetchIndex, columns: columns, order: columns.map { _ in "ASC" }, entity: entity.name)
            case .plainIndexes where properties.count == 1 && isAttribute(properties[0], of: entity):
                return MappedIndex(
                    name: "\(table.name)_\(columns[0])_INDEX", table: table.name,
                    kind: .indexedAttribute, columns: columns)
            case .plainIndexes:
                return MappedIndex(
                    name: ([table.name] + columns).joined(separator: "_"), table: table.name,
                    kind: .compoundIndex, columns: columns)
            }
        }
    }

    /// Whether `name` is one of `entity`'s own indexed attributes (not a compound index of one).
    private func isAttribute(_ name: String, of entity: EntityDescription) -> Bool {
        entity.attributes.contains { $0.name == name && $0.common.isIndexed }
    }

    /// `Z_<Entity>_<name>`, each element `COLLATE BINARY ASC|DESC`.
    ///
    /// Skipped, as in every corpus store: indexes with a to-many element (no column) and
    /// indexes of a single to-one (its key index already covers it). `SELF` indexes `Z_PK`
    /// and `entity` indexes `Z_ENT`. R-tree elements build a virtual table that is not mapped.
    private mutating func fetchIndex(_ fetchIndex: FetchIndex, of entity: EntityDescription, table: MappedTable) -> MappedIndex? {
        var columns: [String] = []
        var foreignKeys = 0
        guard !fetchIndex.isRTree else { return nil }
        for element in fetchIndex.elements {
            if let expression = element.expression {
                switch expression {
                case "SELF": columns.append("Z_PK")
                case "entity": columns.append("Z_ENT")
                default:
                    notes.append(
                        MappingResolution(
                            rule: .notMapped, held: nil, table: table.name,
                            detail: "fetch index \(entity.name).\(fetchIndex.name) indexes the expression \(expression)"))
                    return nil
                }
                continue
            }
            guard let column = column(ofProperty: element.property, entity: entity.name, in: table) else {
                if !isToMany(element.property, of: entity.name) {
                    notes.append(
                        MappingResolution(
                            rule: .notMapped, held: nil, table: table.name,
                            detail: "fetch index \(entity.name).\(fetchIndex.name) names \(element.property), which has no column"))
                }
                return nil
            }
            if column.role == .toOneKey { foreignKeys += 1 }
            columns.append(column.name)
        }
        if columns.isEmpty || (columns.count == 1 && foreignKeys == 1) { return nil }
        var whereClause: String?
        if let predicate = fetchIndex.partialIndexPredicate {
            whereClause = PartialIndexSQL.translate(predicate) { path in
                self.column(ofProperty: path, entity: entity.name, in: table)?.name
            }
            if whereClause == nil {
                notes.append(
                    MappingResolution(
                        rule: .notMapped, held: nil, table: table.name,
                        detail: "partial index predicate of \(entity.name).\(fetchIndex.name) not translated: \(predicate)"))
            }
        }
        return MappedIndex(
            name: "Z_\(entity.name)_\(fetchIndex.name)", table: table.name, kind: .fetchIndex,
            columns: columns, order: fetchIndex.elements.map { $0.ascending ? "ASC" : "DESC" },
            whereClause: whereClause, entity: entity.name)
    }

    // MARK: R-tree indexes

    /// `Z_RT_<Entity>_<name>`: an SQLite R-tree with `<COLUMN>_MIN` and `<COLUMN>_MAX` per
    /// indexed value, keyed by `Z_PK`.
    ///
    /// Seen in every Photos store from 10.15 on (977 to 1447), from a transient location
    /// attribute whose user info `_NSLocationAttributeDerivedComponents` names its latitude and
    /// longitude attributes (`latitude, longitude`, or an array of the two in 10.15.4):
    /// `Z_RT_Asset_boundedByRect (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN FLOAT, …)`. No model
    /// in the corpus has a fetch index of R-tree elements (every archived element has type 0);
    /// such an index is mapped the same way under the index's name, which is **uncertain**.
    /// With `triggers` (``MappingOptions/rtreeTriggerVersions``), the `_INSERT`, `_UPDATE` and
    /// `_DELETE` triggers on the entity table that fill the R-tree with each row's values.
    private mutating func rtreeTables(of entity: EntityDescription, table: MappedTable, triggers: Bool) -> [MappedTable] {
        var sources: [(name: String, properties: [String])] = []
        for attribute in entity.attributes {
            guard let components = attribute.common.userInfo["_NSLocationAttributeDerivedComponents"] else { continue }
            let names = components.split(whereSeparator: { ",()\n\"".contains($0) })
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            sources.append((attribute.name, names))
        }
        for fetchIndex in entity.fetchIndexes where fetchIndex.isRTree {
            sources.append((fetchIndex.name, fetchIndex.elements.map(\.property)))
        }
        var result: [MappedTable] = []
        for source in sources {
            let name = "Z_RT_\(entity.name)_\(source.name)"
            let keys = source.properties.map { column(ofProperty: $0, entity: entity.name, in: table) }
            guard !keys.isEmpty, keys.allSatisfy({ $0 != nil }) else {
                notes.append(
                    MappingResolution(
                        rule: .rtreeIndex, held: nil, table: name,
                        detail: "R-tree \(entity.name).\(source.name) names \(source.properties), not all of which have a column; not mapped"))
                continue
            }
            var columns = [MappedColumn(name: "Z_PK", type: "INTEGER", role: .primaryKey)]
            for key in keys.compactMap({ $0 }) {
                for bound in ["_MIN", "_MAX"] {
                    columns.append(
                        MappedColumn(
                            name: key.name + bound, type: "FLOAT", role: .rtreeBound,
                            entity: key.entity, property: key.property))
                }
            }
            var rtree = MappedTable(name: name, kind: .rtree, entities: [entity.name], columns: columns, primaryKey: ["Z_PK"])
            if triggers { rtree.triggers = Self.rtreeTriggers(rtree, on: table.name, values: keys.compactMap { $0?.name }) }
            result.append(rtree)
        }
        if !result.isEmpty {
            notes.append(
                MappingResolution(
                    rule: .rtreeIndex, held: nil, table: table.name,
                    detail: "R-tree tables \(result.map(\.name).joined(separator: ", ")) "
                        + (triggers ? "with the triggers that fill them (frameworks up to 1347)" : "without triggers (framework 1447 writes none)")))
        }
        return result
    }

    /// Core Data's text, spacing included: each value goes in as both bounds, and the first
    /// two are parted by ` ,` (`NEW.ZLATITUDE ,NEW.ZLATITUDE, NEW.ZLONGITUDE, NEW.ZLONGITUDE`).
    /// Only two-value R-trees have been seen, so the spacing of others is **uncertain**.
    private static func rtreeTriggers(_ rtree: MappedTable, on table: String, values: [String]) -> [String] {
        let columns = rtree.columns.map(\.name).joined(separator: ", ")
        let entries = values.flatMap { ["NEW.\($0)", "NEW.\($0)"] }
        let bounds = "NEW.Z_PK, " + entries.prefix(1).joined() + " ," + entries.dropFirst().joined(separator: ", ")
        let insert = "INTO \(rtree.name) (\(columns)) VALUES (\(bounds)) ;"
        let row = "AFTER %@ ON \(table) FOR EACH ROW BEGIN"
        return [
            "CREATE TRIGGER \(rtree.name)_INSERT \(row.replacingOccurrences(of: "%@", with: "INSERT")) INSERT OR REPLACE \(insert) END",
            "CREATE TRIGGER \(rtree.name)_UPDATE \(row.replacingOccurrences(of: "%@", with: "UPDATE")) DELETE FROM \(rtree.name) WHERE Z_PK = NEW.Z_PK ; INSERT \(insert) END",
            "CREATE TRIGGER \(rtree.name)_DELETE \(row.replacingOccurrences(of: "%@", with: "DELETE")) DELETE FROM \(rtree.name) WHERE Z_PK = OLD.Z_PK ; END",
        ]
    }

    /// The attribute or to-one key column of `property` as `entity` sees it (own or inherited).
    private func column(ofProperty property: String, entity: String, in table: MappedTable) -> MappedColumn? {
        for ancestor in model.lineage(of: entity) {
            if let column = table.columns.first(where: {
                $0.entity == ancestor.name && $0.property == property && ($0.role == .attribute || $0.role == .toOneKey)
            }) {
                return column
            }
        }
        return nil
    }

    // MARK: Framework tables

    /// Verbatim in every store from framework 230 to 1448 (§3).
    private func bookkeepingTables(includesModelCache: Bool) -> [MappedTable] {
        func column(_ name: String, _ type: String) -> MappedColumn {
            MappedColumn(name: name, type: type, role: .framework)
        }
        var tables = [
            MappedTable(
                name: "Z_PRIMARYKEY", kind: .bookkeeping,
                columns: [
                    column("Z_ENT", "INTEGER"), column("Z_NAME", "VARCHAR"),
                    column("Z_SUPER", "INTEGER"), column("Z_MAX", "INTEGER"),
                ],
                primaryKey: ["Z_ENT"]),
            MappedTable(
                name: "Z_METADATA", kind: .bookkeeping,
                columns: [
                    column("Z_VERSION", "INTEGER"), column("Z_UUID", "VARCHAR(255)"),
                    column("Z_PLIST", "BLOB"),
                ],
                primaryKey: ["Z_VERSION"]),
        ]
        if includesModelCache {
            tables.append(
                MappedTable(
                    name: "Z_MODELCACHE", kind: .bookkeeping,
                    columns: [column("Z_CONTENT", "BLOB")], primaryKey: []))
        }
        return tables
    }

    /// The history tables come from a framework model that the cache does not hold, so they are
    /// written out here from the DDL seen in real stores (§11). One `ZTOMBSTONE<i>` BLOB per
    /// attribute that "preserves its value after deletion", as many as the entity (with its
    /// inherited attributes) that has the most: knowledgeC 10.13 has 3, Photos 6.
    private mutating func historyTables(options: MappingOptions) -> [MappedTable] {
        let layout: HistoryLayout
        switch options.history {
        case .none:
            return []
        case .layout(let chosen):
            layout = chosen
        case .asRegistered:
            let names = Set(registry?.entities.filter { $0.reservedRange == .history }.map(\.name) ?? [])
            guard
                let registered: HistoryLayout = names.contains("TRANSACTIONSTRING")
                    ? .current
                    : names.contains("TRANSACTION") ? .legacy : nil
            else { return [] }
            layout = registered
            notes.append(
                MappingResolution(
                    rule: .historyLayout, held: nil,
                    detail: "persistent history (\(layout.rawValue) layout) from the history entities in Z_PRIMARYKEY"))
        }
        let tombstones =
            model.entities.map { entity in
                model.lineage(of: entity.name).flatMap(\.attributes).filter(\.preservesValueInHistoryOnDeletion).count
            }.max() ?? 0
        return HistoryTableDefinitions.tables(layout: layout, tombstones: tombstones)
    }
}
