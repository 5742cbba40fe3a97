import CDBase
import CDChanges
import CDDiagnostics
import CDModel
import CDRendering
import CDStore
import Foundation
import GRDB
import GRDBSQLite

/// Compares the objects of two stores entity by entity, as a merge of two ordered scans.
///
/// Each concrete entity is read from both stores in `Z_PK` order (or in the order of its
/// `--key` attributes, then `Z_PK`, sorted by SQLite, which spills to temporary files rather
/// than memory), and the two scans advance together: a row only in A is a delete, only in B an
/// insert, in both an update when a compared value differs. Values are compared as SQLite
/// stores them and decoded with the model only where the stored forms differ. Each to-many
/// relationship is one more pair of scans, of (owner, member) rows in the owners' order; a
/// member whose destination has a `--key` is compared by its key values, as a to-one target is.
/// Memory holds the current rows and the first `limit` changes per entity, never a table.
struct DataComparison {
    let readerA: ObjectReader
    let readerB: ObjectReader
    let pairing: EntityPairing
    let options: DiffOptions

    init(readerA: ObjectReader, readerB: ObjectReader, pairing: EntityPairing, options: DiffOptions) {
        self.readerA = readerA
        self.readerB = readerB
        self.pairing = pairing
        self.options = options
    }

    /// The changes of every selected entity that has any.
    func run() throws -> [EntityChanges] {
        for entity in options.keys.keys.sorted() where readerA.model.entity(named: entity) == nil && readerB.model.entity(named: entity) == nil {
            throw DiffError.unknownEntity(name: entity, known: Set(readerA.dumpableEntities + readerB.dumpableEntities).sorted())
        }
        var result: [EntityChanges] = []
        for pair in try pairing.selected(options.entities, readerA: readerA, readerB: readerB) {
            var changes = try compare(pair)
            guard changes.total > 0 else { continue }
            try describe(&changes, pair: pair)
            result.append(changes)
        }
        return result
    }

    // MARK: planning

    /// A property compared between the two stores, with its columns in each scan.
    struct ComparedProperty {
        enum Kind {
            case attribute(columnA: Int32, typeA: AttributeType, externalA: Bool, columnB: Int32, typeB: AttributeType, externalB: Bool)
            /// The foreign key and, when the destination has sub-entities, its `Z_ENT` column.
            case toOne(keyA: Int32, entA: Int32?, destinationA: Int, keyB: Int32, entB: Int32?, destinationB: Int)
            /// A to-one whose destination has a `--key`: the destination's key values, looked up
            /// by the scan itself, stand for the target.
            case toOneByKey(valuesA: [Int32], valuesB: [Int32])
            /// The index of the relationship's member scans.
            case toMany(members: Int, ordered: Bool)
        }
        /// The name in B's model, and in A's.
        var name: String
        var nameA: String
        var kind: Kind
    }

    /// The SELECT of one side: the SQL expressions it reads, `Z_PK` first. Columns are those
    /// of the entity's table, aliased `o` so that the subqueries can name it.
    struct Selection {
        var expressions = ["o.Z_PK"]
        mutating func position(_ column: String) -> Int32 {
            expression("o." + column.quotedSQLIdentifier)
        }
        mutating func expression(_ sql: String) -> Int32 {
            if let existing = expressions.firstIndex(of: sql) { return Int32(existing) }
            expressions.append(sql)
            return Int32(expressions.count - 1)
        }
    }

    /// The key attributes of `entity` (B's name), by B's and by A's names.
    private func key(for pair: EntityPairing.Pair) throws -> (namesB: [String], namesA: [String])? {
        let candidates = [pair.entityB, pair.entityA].compactMap { $0 }
        var lineage: [String] = []
        for name in candidates {
            lineage += (readerB.model.entity(named: name) != nil ? readerB.model.lineage(of: name) : readerA.model.lineage(of: name)).map(\.name)
        }
        guard let declared = lineage.lazy.compactMap({ options.keys[$0] }).first else { return nil }
        var namesA: [String] = []
        for attribute in declared {
            if let nameB = pair.entityB, readerB.model.entity(named: nameB) != nil {
                guard let property = readerB.model.allProperties(of: nameB).first(where: { $0.name == attribute }),
                    case .attribute = property, !property.isTransient
                else {
                    throw DiffError.unknownKeyAttribute(entity: nameB, attribute: attribute, store: readerB.snapshot.files.main.path)
                }
                if let nameA = pair.entityA, readerA.model.entity(named: nameA) != nil {
                    guard let source = ModelDiff.sourceProperties(of: nameB, source: nameA, old: readerA.model, new: readerB.model)[property.name],
                        !source.isTransient
                    else {
                        throw DiffError.unknownKeyAttribute(entity: nameA, attribute: attribute, store: readerA.snapshot.files.main.path)
                    }
                    namesA.append(source.name)
                }
            } else if let nameA = pair.entityA {
                guard let property = readerA.model.allProperties(of: nameA).first(where: { $0.name == attribute }),
                    case .attribute = property, !property.isTransient
                else {
                    throw DiffError.unknownKeyAttribute(entity: nameA, attribute: attribute, store: readerA.snapshot.files.main.path)
                }
                namesA.append(attribute)
            }
        }
        return (declared, namesA)
    }

    // MARK: the merge

    /// The helper threads SQLite may use to sort a keyed scan (`PRAGMA threads`).
    static let sortHelperThreads: Int32 = 1

    private func compare(_ pair: EntityPairing.Pair) throws -> EntityChanges {
        var changes = EntityChanges(entity: pair.name)
        if let nameA = pair.entityA, let nameB = pair.entityB, nameA != nameB { changes.renamedFrom = nameA }
        let only = options.objects.map { objects in
            [pair.entityA, pair.entityB].compactMap { $0 }.reduce(into: Set<Int64>()) { $0.formUnion(objects[$1] ?? []) }
        }
        if only?.isEmpty == true { return changes }
        let restriction = only.map(ObjectRestriction.init)
        let key = try key(for: pair)
        changes.key = key?.namesB ?? key?.namesA

        var selectionA = Selection(), selectionB = Selection()
        var keyColumnsA: [Int32] = [], keyColumnsB: [Int32] = []
        var keyColumnNamesA: [String] = [], keyColumnNamesB: [String] = []
        if let key {
            for name in key.namesA {
                guard let nameA = pair.entityA, let column = attributeColumn(readerA, entity: nameA, property: name) else { continue }
                keyColumnsA.append(selectionA.position(column))
                keyColumnNamesA.append(column)
            }
            for name in key.namesB {
                guard let nameB = pair.entityB, let column = attributeColumn(readerB, entity: nameB, property: name) else { continue }
                keyColumnsB.append(selectionB.position(column))
                keyColumnNamesB.append(column)
            }
        }
        var properties: [ComparedProperty] = []
        var memberQueries: [(a: MemberQuery, b: MemberQuery)] = []
        if let nameA = pair.entityA, let nameB = pair.entityB,
            readerA.model.entity(named: nameA) != nil, readerB.model.entity(named: nameB) != nil
        {
            let sources = ModelDiff.sourceProperties(of: nameB, source: nameA, old: readerA.model, new: readerB.model)
            for property in readerB.model.allProperties(of: nameB).sorted(by: { $0.name < $1.name }) where !property.isTransient {
                guard let source = sources[property.name], !source.isTransient else { continue }
                switch (property, source) {
                case (.attribute(let b), .attribute(let a)):
                    guard let columnA = attributeColumn(readerA, entity: nameA, property: a.name),
                        let columnB = attributeColumn(readerB, entity: nameB, property: b.name)
                    else { continue }
                    properties.append(
                        ComparedProperty(
                            name: b.name, nameA: a.name,
                            kind: .attribute(
                                columnA: selectionA.position(columnA), typeA: a.type, externalA: a.allowsExternalBinaryDataStorage,
                                columnB: selectionB.position(columnB), typeB: b.type, externalB: b.allowsExternalBinaryDataStorage)))
                case (.relationship(let b), .relationship(let a)) where !a.isToMany && !b.isToMany:
                    if let identities = targetIdentities(a: a, b: b),
                        let lookupA = targetLookup(readerA, entity: nameA, relationship: a, identity: identities.a),
                        let lookupB = targetLookup(readerB, entity: nameB, relationship: b, identity: identities.b)
                    {
                        properties.append(
                            ComparedProperty(
                                name: b.name, nameA: a.name,
                                kind: .toOneByKey(
                                    valuesA: lookupA.map { selectionA.expression($0) }, valuesB: lookupB.map { selectionB.expression($0) })))
                        continue
                    }
                    guard let (keyA, entA) = toOneColumns(readerA, entity: nameA, property: a.name, selection: &selectionA),
                        let (keyB, entB) = toOneColumns(readerB, entity: nameB, property: b.name, selection: &selectionB)
                    else { continue }
                    properties.append(
                        ComparedProperty(
                            name: b.name, nameA: a.name,
                            kind: .toOne(
                                keyA: keyA, entA: entA, destinationA: readerA.mapping.entityNumber(of: a.destinationEntity) ?? 0,
                                keyB: keyB, entB: entB, destinationB: readerB.mapping.entityNumber(of: b.destinationEntity) ?? 0)))
                case (.relationship(let b), .relationship(let a)) where a.isToMany && b.isToMany:
                    let memberKeys = targetIdentities(a: a, b: b)
                    guard
                        let queryA = MemberQuery(
                            reader: readerA, entity: nameA, relationship: a, keyColumns: keyColumnNamesA, memberIdentity: memberKeys?.a ?? [],
                            restriction: restriction),
                        let queryB = MemberQuery(
                            reader: readerB, entity: nameB, relationship: b, keyColumns: keyColumnNamesB, memberIdentity: memberKeys?.b ?? [],
                            restriction: restriction)
                    else { continue }
                    memberQueries.append((queryA, queryB))
                    properties.append(
                        ComparedProperty(
                            name: b.name, nameA: a.name,
                            kind: .toMany(members: memberQueries.count - 1, ordered: a.isOrdered && b.isOrdered)))
                default:
                    continue
                }
            }
        }

        let rowsA = pair.entityA.flatMap { rowQuery(readerA, entity: $0, selection: selectionA, keyColumns: keyColumnNamesA, restriction: restriction) }
        let rowsB = pair.entityB.flatMap { rowQuery(readerB, entity: $0, selection: selectionB, keyColumns: keyColumnNamesB, restriction: restriction) }
        let externalA = readerA.snapshot.files.externalDataFolder, externalB = readerB.snapshot.files.externalDataFolder
        let keyNames = changes.key ?? []

        // A DiffError thrown inside a read would come out as a generic SQLite failure.
        var keyFailure: DiffError?
        try readerA.snapshot.read { dbA in
            try readerB.snapshot.read { dbB in
                // Sorting by a key is most of a keyed diff's time: one helper thread per side
                // lets SQLite sort runs in parallel, with the same memory and the same order.
                let threadsA = key == nil ? nil : sqlite3_limit(dbA.sqliteConnection, SQLITE_LIMIT_WORKER_THREADS, Self.sortHelperThreads)
                let threadsB = key == nil ? nil : sqlite3_limit(dbB.sqliteConnection, SQLITE_LIMIT_WORKER_THREADS, Self.sortHelperThreads)
                defer {
                    if let threadsA { _ = sqlite3_limit(dbA.sqliteConnection, SQLITE_LIMIT_WORKER_THREADS, threadsA) }
                    if let threadsB { _ = sqlite3_limit(dbB.sqliteConnection, SQLITE_LIMIT_WORKER_THREADS, threadsB) }
                }
                do {
                    let usesKey = key != nil
                    // With a key, the first step of each scan is SQLite's whole sort: the two
                    // stores' sorts run side by side, each on its own connection.
                    let scanA = try rowsA.map { try OrderedScan(dbA, sql: $0.sql, arguments: $0.arguments, started: !usesKey) }
                    let scanB = try rowsB.map { try OrderedScan(dbB, sql: $0.sql, arguments: $0.arguments, started: !usesKey) }
                    let membersA = try memberQueries.map { try MemberScan(dbA, query: $0.a, started: !usesKey) }
                    let membersB = try memberQueries.map { try MemberScan(dbB, query: $0.b, started: !usesKey) }
                    if usesKey {
                        try SideBySide.run(
                            {
                                try scanA?.advance()
                                for scan in membersA { try scan.start() }
                            },
                            {
                                try scanB?.advance()
                                for scan in membersB { try scan.start() }
                            })
                    }
                    // The current rows' keys; a row whose key equals the one before it on the same
                    // side makes the key ambiguous.
                    let keyA = usesKey ? scanA.map { ScanKey(scan: $0, columns: keyColumnsA) } : nil
                    let keyB = usesKey ? scanB.map { ScanKey(scan: $0, columns: keyColumnsB) } : nil
                    func loadKey(_ key: ScanKey?, entity: String, store: String) throws {
                        guard let key, key.scan.hasRow, key.repeatsPrevious() else { return }
                        throw DiffError.keyNotUnique(entity: entity, key: keyNames, values: key.values.map(\.text), store: store)
                    }
                    let entityA = pair.entityA ?? pair.name, storeA = readerA.snapshot.files.main.path
                    let storeB = readerB.snapshot.files.main.path
                    try loadKey(keyA, entity: entityA, store: storeA)
                    try loadKey(keyB, entity: pair.name, store: storeB)
                    func record(_ change: ObjectChange) {
                        if changes.changes.count < options.limit { changes.changes.append(change) }
                    }
                    while true {
                        let hasA = scanA?.hasRow ?? false, hasB = scanB?.hasRow ?? false
                        guard hasA || hasB else { break }
                        let order: Int
                        if !hasB {
                            order = -1
                        } else if !hasA {
                            order = 1
                        } else if let scanA, let scanB {
                            if let keyA, let keyB {
                                order = ScanKey.order(keyA, keyB)
                            } else {
                                let pkA = scanA.integer(0), pkB = scanB.integer(0)
                                order = pkA < pkB ? -1 : pkB < pkA ? 1 : 0
                            }
                        } else {
                            break
                        }
                        // Advancing one side: its member scans move past the same owner.
                        if order < 0, let scanA {
                            let pk = scanA.integer(0)
                            for scan in membersA { try scan.skip(owner: pk) }
                            changes.deleted += 1
                            record(ObjectChange(type: .delete, old: id(readerA, pair.entityA, pk), new: nil))
                            try scanA.advance()
                            try loadKey(keyA, entity: entityA, store: storeA)
                            continue
                        }
                        if order > 0, let scanB {
                            let pk = scanB.integer(0)
                            for scan in membersB { try scan.skip(owner: pk) }
                            changes.inserted += 1
                            record(ObjectChange(type: .insert, old: nil, new: id(readerB, pair.entityB, pk)))
                            try scanB.advance()
                            try loadKey(keyB, entity: pair.name, store: storeB)
                            continue
                        }
                        guard let scanA, let scanB else { break }
                        let pkA = scanA.integer(0), pkB = scanB.integer(0)
                        var changed: [String] = []
                        for property in properties {
                            switch property.kind {
                            case .attribute(let columnA, let typeA, let extA, let columnB, let typeB, let extB):
                                if typeA == typeB, extA == extB {
                                    if scanA.sameRaw(columnA, as: scanB, columnB) { continue }
                                    // Other bytes in the same storage class are another value,
                                    // even where both decode alike (two unreadable archives).
                                    if scanA.type(columnA) == scanB.type(columnB) {
                                        changed.append(property.name)
                                        continue
                                    }
                                }
                                let old = ValueDecoder.decode(scanA.raw(columnA), type: typeA, allowsExternalStorage: extA, externalData: externalA)
                                let new = ValueDecoder.decode(scanB.raw(columnB), type: typeB, allowsExternalStorage: extB, externalData: externalB)
                                if !ValueComparison.same(old, new) { changed.append(property.name) }
                            case .toOne(let keyColumnA, let entColumnA, let destinationA, let keyColumnB, let entColumnB, let destinationB):
                                let targetA = target(scanA, key: keyColumnA, ent: entColumnA, destination: destinationA, mapped: true)
                                let targetB = target(scanB, key: keyColumnB, ent: entColumnB, destination: destinationB, mapped: false)
                                if let targetA, let targetB {
                                    if targetA != targetB { changed.append(property.name) }
                                } else if !(scanA.sameRaw(keyColumnA, as: scanB, keyColumnB)) {
                                    changed.append(property.name)
                                }
                            case .toOneByKey(let valuesA, let valuesB):
                                if zip(valuesA, valuesB).contains(where: { !scanA.sameRaw($0, as: scanB, $1) }) { changed.append(property.name) }
                            case .toMany(let index, _):
                                let old = try membersA[index].take(owner: pkA, partner: pairing.partner(ofA:))
                                let new = try membersB[index].take(owner: pkB) { $0 }
                                if old != new { changed.append(property.name) }
                            }
                        }
                        if !changed.isEmpty {
                            changes.updated += 1
                            var change = ObjectChange(type: .update, old: id(readerA, pair.entityA, pkA), new: id(readerB, pair.entityB, pkB))
                            change.properties = changed.map { PropertyDifference(name: $0) }
                            record(change)
                        }
                        try scanA.advance()
                        try scanB.advance()
                        try loadKey(keyA, entity: entityA, store: storeA)
                        try loadKey(keyB, entity: pair.name, store: storeB)
                    }
                } catch let error as DiffError {
                    keyFailure = error
                }
            }
        }
        if let keyFailure { throw keyFailure }
        return changes
    }

    /// The `--key` attributes of `entity` (a name in `reader`'s model) or its nearest ancestor
    /// with one, by their names in that model; nil when none has a key. Keys are given by B's
    /// names: an A entity takes the key of the B entity that continues it.
    private func destinationKey(_ entity: String, in reader: ObjectReader) -> [String]? {
        if reader === readerB {
            return readerB.model.lineage(of: entity).lazy.compactMap { options.keys[$0.name] }.first
        }
        // The B entity that continues `entity`, its key by B's names, then those names in A.
        guard let partner = readerB.model.entities.first(where: { ModelDiff.sourceEntity(of: $0, in: readerA.model)?.name == entity }),
            let key = readerB.model.lineage(of: partner.name).lazy.compactMap({ options.keys[$0.name] }).first
        else { return nil }
        let names = ModelDiff.sourceProperties(of: partner.name, source: entity, old: readerA.model, new: readerB.model)
        let mapped = key.compactMap { names[$0]?.name }
        return mapped.count == key.count ? mapped : nil
    }

    /// What stands for a target of relationship `a` (in A) and of `b` (in B) when their
    /// destinations have a `--key` that both stores map to columns: SQL expressions over the
    /// target's row, aliased `d`, that give equal values in both stores for the same object.
    /// Nil when targets are compared by object (`Z_ENT`, `Z_PK`).
    private func targetIdentities(a: RelationshipDescription, b: RelationshipDescription) -> (a: [String], b: [String])? {
        guard let identityA = targetIdentity(a.destinationEntity, in: readerA), let identityB = targetIdentity(b.destinationEntity, in: readerB),
            identityA.byEntity == identityB.byEntity, identityA.expressions.count == identityB.expressions.count
        else { return nil }
        return (identityA.expressions, identityB.expressions)
    }

    /// The expressions of ``targetIdentities(a:b:)`` for one store, and whether they start with
    /// the target's entity.
    struct TargetIdentity {
        var expressions: [String]
        var byEntity: Bool
    }

    /// How a target of a relationship to `entity` (a name in `reader`'s model) is named: each
    /// concrete entity of `entity`'s hierarchy by its own key (its `--key`, else its nearest
    /// ancestor's). When they all share one key, the key columns; when they differ (a
    /// sub-entity with a `--key` of its own, or one without any key beside keyed ones), the
    /// target's entity as B numbers it, then per key position a `CASE` on `Z_ENT` that reads
    /// that entity's key column (`Z_PK` for an entity without a key). Nil when no entity of
    /// the hierarchy has a key, or a key attribute has no column.
    private func targetIdentity(_ entity: String, in reader: ObjectReader) -> TargetIdentity? {
        let mapping = reader.mapping
        var keyed: [(ent: Int, columns: [String]?)] = []
        for number in mapping.entityNumbers(includingSubentitiesOf: entity) {
            guard let name = mapping.entities.first(where: { $0.number == number })?.name else { continue }
            guard let names = destinationKey(name, in: reader) else {
                keyed.append((number, nil))
                continue
            }
            let columns = names.compactMap { attributeColumn(reader, entity: name, property: $0) }
            guard columns.count == names.count else { return nil }
            keyed.append((number, columns))
        }
        guard keyed.contains(where: { $0.columns != nil }) else { return nil }
        if Set(keyed.map(\.columns)).count == 1, let columns = keyed.first?.columns {
            return TargetIdentity(expressions: columns.map { "d." + $0.quotedSQLIdentifier }, byEntity: false)
        }
        let entity =
            reader === readerA
            ? "CASE d.Z_ENT " + keyed.map { "WHEN \($0.ent) THEN \(pairing.partner(ofA: $0.ent))" }.joined(separator: " ") + " END" : "d.Z_ENT"
        let width = keyed.map { $0.columns?.count ?? 1 }.max() ?? 1
        let positions = (0..<width).map { position in
            let cases = keyed.compactMap { entry -> String? in
                let columns = entry.columns ?? ["Z_PK"]
                guard position < columns.count else { return nil }
                return "WHEN \(entry.ent) THEN d.\(columns[position].quotedSQLIdentifier)"
            }
            return "CASE d.Z_ENT " + cases.joined(separator: " ") + " END"
        }
        return TargetIdentity(expressions: [entity] + positions, byEntity: true)
    }

    /// Subqueries reading the identity of a to-one's destination row (``targetIdentity(_:in:)``)
    /// by its foreign key: one indexed lookup per row and expression, only for relationships
    /// whose destination has a `--key`, so renumbered targets still compare equal.
    private func targetLookup(_ reader: ObjectReader, entity: String, relationship: RelationshipDescription, identity: [String]) -> [String]? {
        guard let destination = reader.mapping.table(forEntity: relationship.destinationEntity)?.name,
            let foreignKey = reader.columnIndex.columns(forProperty: relationship.name, ofEntity: entity).first(where: { $0.role == .toOneKey })?.name
        else { return nil }
        return identity.map {
            "(SELECT \($0) FROM \(destination.quotedSQLIdentifier) d WHERE d.Z_PK = o.\(foreignKey.quotedSQLIdentifier))"
        }
    }

    /// A to-one's destination as (B's `Z_ENT`, `Z_PK`); nil when the key is not an integer.
    private func target(_ scan: OrderedScan, key: Int32, ent: Int32?, destination: Int, mapped: Bool) -> MemberKey? {
        switch scan.type(key) {
        case SQLITE_NULL: return MemberKey(ent: Int.min, pk: 0)
        case SQLITE_INTEGER: break
        default: return nil
        }
        var number = destination
        if let ent {
            switch scan.type(ent) {
            case SQLITE_INTEGER: number = Int(scan.integer(ent))
            case SQLITE_NULL: break
            default: return nil
            }
        }
        return MemberKey(ent: mapped ? pairing.partner(ofA: number) : number, pk: scan.integer(key))
    }

    private func id(_ reader: ObjectReader, _ entity: String?, _ pk: Int64) -> ObjectID? {
        guard let entity, let ent = reader.mapping.entityNumber(of: entity) else { return nil }
        return ObjectID(storeUUID: reader.storeUUID, entity: entity, ent: ent, pk: pk)
    }

    private func attributeColumn(_ reader: ObjectReader, entity: String, property: String) -> String? {
        reader.columnIndex.columns(forProperty: property, ofEntity: entity).first { $0.role == .attribute }?.name
    }

    private func toOneColumns(_ reader: ObjectReader, entity: String, property: String, selection: inout Selection) -> (Int32, Int32?)? {
        let columns = reader.columnIndex.columns(forProperty: property, ofEntity: entity)
        guard let key = columns.first(where: { $0.role == .toOneKey }) else { return nil }
        let ent = columns.first { $0.role == .toOneEntityType }.map { selection.position($0.name) }
        return (selection.position(key.name), ent)
    }

    /// The SELECT of one concrete entity's rows, in key (else `Z_PK`) order. The unary `+`
    /// keeps SQLite off the `Z_ENT` index: one scan of the table in rowid order.
    private func rowQuery(
        _ reader: ObjectReader, entity: String, selection: Selection, keyColumns: [String], restriction: ObjectRestriction?
    ) -> (sql: String, arguments: StatementArguments)? {
        guard let table = reader.mapping.table(forEntity: entity), let ent = reader.mapping.entityNumber(of: entity) else { return nil }
        let order = (keyColumns + ["Z_PK"]).map { "o." + $0.quotedSQLIdentifier }.joined(separator: ", ")
        let sql =
            "SELECT " + selection.expressions.joined(separator: ", ")
            + " FROM " + table.name.quotedSQLIdentifier + " o WHERE +o.Z_ENT = ?" + (restriction?.sql ?? "") + " ORDER BY " + order
        var arguments: StatementArguments = [ent]
        if let restriction { arguments += [restriction.keys] }
        return (sql, arguments)
    }

    // MARK: details

    /// Reads the objects of the listed changes and fills in their values: each changed property
    /// old → new, the members added and removed, the whole object for `--values`.
    private func describe(_ changes: inout EntityChanges, pair: EntityPairing.Pair) throws {
        guard !changes.changes.isEmpty else { return }
        var requestsA = ObjectRequests(), requestsB = ObjectRequests()
        var includesA = Set<String>(), includesB = Set<String>()
        let toManyB = Set(
            (pair.entityB.map { readerB.model.allProperties(of: $0) } ?? []).compactMap { property -> String? in
                if case .relationship(let r) = property, r.isToMany { return r.name }
                return nil
            })
        var namesA: [String: String] = [:]
        if let nameA = pair.entityA, let nameB = pair.entityB, readerA.model.entity(named: nameA) != nil {
            namesA = ModelDiff.sourceProperties(of: nameB, source: nameA, old: readerA.model, new: readerB.model).mapValues(\.name)
        }
        let wantsKey = changes.key != nil
        for change in changes.changes {
            if let old = change.old, change.type == .update || options.values || wantsKey { requestsA.add(old) }
            if let new = change.new, change.type == .update || options.values || wantsKey { requestsB.add(new) }
            for property in change.properties where toManyB.contains(property.name) {
                includesB.insert(property.name)
                includesA.insert(namesA[property.name] ?? property.name)
            }
        }
        let objectsA = try requestsA.read(readerA, includes: includesA)
        let objectsB = try requestsB.read(readerB, includes: includesB)
        // To-many relationships (B's names) whose members are compared by their destination's key.
        var memberKeys: [String: (a: [String], b: [String])] = [:]
        if let nameA = pair.entityA, let nameB = pair.entityB, readerA.model.entity(named: nameA) != nil {
            let relationshipsA = Dictionary(
                readerA.model.allProperties(of: nameA).compactMap { property -> (String, RelationshipDescription)? in
                    if case .relationship(let r) = property { return (r.name, r) }
                    return nil
                }, uniquingKeysWith: { first, _ in first })
            for property in readerB.model.allProperties(of: nameB) {
                guard case .relationship(let b) = property, b.isToMany, let a = relationshipsA[namesA[b.name] ?? b.name],
                    let identities = targetIdentities(a: a, b: b)
                else { continue }
                memberKeys[b.name] = identities
            }
        }
        for index in changes.changes.indices {
            var change = changes.changes[index]
            let objectA = change.old.flatMap { objectsA[$0] }, objectB = change.new.flatMap { objectsB[$0] }
            if let key = changes.key {
                let keyObject = objectB ?? objectA
                let keyNames = objectB != nil ? key : key.map { namesA[$0] ?? $0 }
                change.keyValues = keyNames.map { name in DescriptionRenderer.changeText(keyObject?.value(name)) }
            }
            switch change.type {
            case .delete: if options.values { change.object = objectA }
            case .insert: if options.values { change.object = objectB }
            case .update:
                var differences: [PropertyDifference] = []
                for property in change.properties {
                    var difference = property
                    difference.old = objectA?.value(namesA[property.name] ?? property.name)
                    difference.new = objectB?.value(property.name)
                    if case .objects(let before?)? = difference.old, case .objects(let after?)? = difference.new {
                        let identitiesBefore: [MemberIdentity], identitiesAfter: [MemberIdentity]
                        if let identities = memberKeys[property.name] {
                            identitiesBefore = try keyIdentities(before, reader: readerA, identity: identities.a)
                            identitiesAfter = try keyIdentities(after, reader: readerB, identity: identities.b)
                        } else {
                            identitiesBefore = before.map { .object(MemberKey(ent: pairing.partner(ofA: $0.ent), pk: $0.pk)) }
                            identitiesAfter = after.map { .object(MemberKey(ent: $0.ent, pk: $0.pk)) }
                        }
                        let beforeSet = Set(identitiesBefore), afterSet = Set(identitiesAfter)
                        difference.added = zip(after, identitiesAfter).filter { !beforeSet.contains($0.1) }.map(\.0)
                        difference.removed = zip(before, identitiesBefore).filter { !afterSet.contains($0.1) }.map(\.0)
                        difference.reordered = identitiesBefore.filter(afterSet.contains) != identitiesAfter.filter(beforeSet.contains)
                    }
                    differences.append(difference)
                }
                change.properties = differences
            }
            changes.changes[index] = change
        }
    }
}

extension DataComparison {
    /// The identities (``targetIdentity(_:in:)``'s expressions) of `members`, objects of
    /// `reader`'s store, read by `Z_PK` (one indexed lookup each; only for the changes listed,
    /// at most `--limit` per entity).
    func keyIdentities(_ members: [ObjectID], reader: ObjectReader, identity: [String]) throws -> [MemberIdentity] {
        let selected = identity.joined(separator: ", ")
        return try reader.snapshot.read { db in
            try members.map { member in
                guard let table = reader.mapping.table(forEntity: member.entity)?.name else { return .object(MemberKey(ent: member.ent, pk: member.pk)) }
                let scan = try OrderedScan(db, sql: "SELECT \(selected) FROM \(table.quotedSQLIdentifier) d WHERE d.Z_PK = ?", arguments: [member.pk])
                guard scan.hasRow else { return .object(MemberKey(ent: member.ent, pk: member.pk)) }
                return .key(identity.indices.map { scan.storedValue(Int32($0)) })
            }
        }
    }
}

/// An object named by B's entity number and its `Z_PK`, so objects of the two stores compare.
struct MemberKey: Hashable {
    var ent: Int
    var pk: Int64
}

extension PropertyDifference {
    init(name: String) { self.init(name: name, old: nil, new: nil) }
}
