@testable import CDChanges
import CDMaintenance
import CDMapping
import CDModel
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// An update whose cause can be seen in the store: the property of `entity` that must be among
/// the changed ones of the update with mask `mask`.
private struct KnownChange: Hashable {
    var store: String
    var entity: String
    var mask: Data
    var property: String
    var isToMany: Bool
}

/// The updates of every corpus store with history whose cause can be seen, found with SQL and
/// the store's model, independently of ``ChangedColumns``:
///
/// - an object Y inserted with a to-one to X, never updated afterwards (so the key was set by
///   the insert), in a transaction that also updates X: X's inverse relationship changed;
/// - an object Y updated last in the transaction that inserted the object X its to-one points
///   to: Y's to-one changed.
private enum KnownChanges {
    static let all: [KnownChange] = {
        var found: Set<KnownChange> = []
        for store in HistoryTests.storesWithHistory {
            guard let changes = try? TemporaryDirectory.withScope({ try read(store) }) else { continue }
            found.formUnion(changes)
        }
        return found.sorted { ($0.store, $0.entity, $0.property, $0.mask.hexString) < ($1.store, $1.entity, $1.property, $1.mask.hexString) }
    }()

    private static func read(_ store: String) throws -> [KnownChange] {
        let copy = try Corpus.copyStore(store)
        let snapshot = try StoreSnapshot(path: copy.path)
        return try snapshot.read { db in
            guard let model = try ModelCache.read(db, path: copy.path)?.model else { return [] }
            let registry = try EntityRegistry.read(db)
            let mapping = StoreMapping.resolve(model: model, registry: registry, schema: try StoreSchema.read(db))
            let rows = try Row.fetchAll(db, sql: "SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK")
            struct Key: Hashable { var ent: Int; var pk: Int64 }
            var updates: [Key: [(transaction: Int64, mask: Data?)]] = [:]
            var inserted: [Key: Int64] = [:]
            for row in rows {
                let key = Key(ent: row[1], pk: row[2])
                if row[0] as Int == 1 { updates[key, default: []].append((row[3], row[4])) }
                if row[0] as Int == 0 { inserted[key] = row[3] }
            }
            /// The object Y's to-one `relationship` points to, read from its row.
            func target(of relationship: RelationshipDescription, entity: String, pk: Int64) throws -> Key? {
                let columns = mapping.columns(forProperty: relationship.name, ofEntity: entity)
                guard let table = mapping.table(forEntity: entity)?.name,
                    let key = columns.first(where: { $0.role == .toOneKey })?.name
                else { return nil }
                let companion = columns.first { $0.role == .toOneEntityType }?.name
                guard let row = try Row.fetchOne(db, sql: "SELECT \(key), \(companion ?? "NULL") FROM \(table) WHERE Z_PK = ?", arguments: [pk]),
                    let targetPK: Int64 = row[0]
                else { return nil }
                guard let ent: Int = row[1] ?? registry.entity(named: relationship.destinationEntity)?.ent else { return nil }
                return Key(ent: ent, pk: targetPK)
            }
            func toOnes(of entity: String) -> [RelationshipDescription] {
                model.allProperties(of: entity).compactMap {
                    if case .relationship(let relationship) = $0, !relationship.isToMany, !relationship.common.isTransient { return relationship }
                    return nil
                }
            }
            var found: [KnownChange] = []
            func add(_ key: Key, _ transaction: Int64, property: String, isToMany: Bool) {
                guard let entity = registry.entity(ent: key.ent)?.name else { return }
                for update in updates[key] ?? [] where update.transaction == transaction {
                    guard let mask = update.mask else { continue }
                    found.append(KnownChange(store: store, entity: entity, mask: mask, property: property, isToMany: isToMany))
                }
            }
            for (key, transaction) in inserted {
                guard let entity = registry.entity(ent: key.ent)?.name, model.entity(named: entity) != nil,
                    !(updates[key] ?? []).contains(where: { $0.transaction > transaction })
                else { continue }
                for relationship in toOnes(of: entity) {
                    guard let inverseName = relationship.inverseName, let other = try target(of: relationship, entity: entity, pk: key.pk),
                        let otherEntity = registry.entity(ent: other.ent)?.name
                    else { continue }
                    let inverse = model.allProperties(of: otherEntity).first { $0.name == inverseName }
                    guard case .relationship(let inverseRelationship)? = inverse else { continue }
                    add(other, transaction, property: inverseName, isToMany: inverseRelationship.isToMany)
                }
            }
            for (key, list) in updates {
                guard let entity = registry.entity(ent: key.ent)?.name, model.entity(named: entity) != nil,
                    let last = list.map(\.transaction).max()
                else { continue }
                for relationship in toOnes(of: entity) {
                    guard let other = try target(of: relationship, entity: entity, pk: key.pk), inserted[other] == last else { continue }
                    add(key, last, property: relationship.name, isToMany: false)
                }
            }
            return found
        }
    }
}

/// Another reading of the bits, for comparison: whether it names `property` in `mask`.
private struct Reading {
    var mostSignificantFirst: Bool
    /// The entity's properties in bit order.
    var order: (ChangedColumns) -> [String]

    func positions(_ mask: Data) -> [Int] {
        var positions: [Int] = []
        for (index, byte) in mask.enumerated() {
            for bit in 0..<8 where byte & (mostSignificantFirst ? 0x80 >> bit : 1 << bit) != 0 { positions.append(index * 8 + bit) }
        }
        return positions
    }

    func names(_ property: String, in mask: Data, of decoder: ChangedColumns) -> Bool {
        let properties = order(decoder)
        return positions(mask).contains { $0 < properties.count && properties[$0] == property }
    }
}

@Suite(.temporaryDirectories, .tags(.corpusWide)) struct ChangedColumnsCorpusTests {
    private func decoder(_ change: KnownChange) throws -> ChangedColumns {
        let copy = try Corpus.copyStore(change.store)
        let model = try #require(try StoreSnapshot(path: copy.path).read { db in try ModelCache.read(db, path: copy.path)?.model })
        return ChangedColumns(model: model, entity: change.entity)
    }

    /// Every update of the corpus whose cause can be seen: each to-one that must have changed
    /// is named, each to-many is named or counted among the to-many relationships. Masks that
    /// do not fit the store's model (written under another version) are reported as such.
    @Test func everyChangeWhoseCauseIsKnownIsNamed() throws {
        let changes = KnownChanges.all
        var decoders: [String: ChangedColumns] = [:]
        var fitting: [KnownChange] = []
        var unfit = 0
        for change in changes {
            let key = change.store + "/" + change.entity
            if decoders[key] == nil { decoders[key] = try decoder(change) }
            let decoder = try #require(decoders[key])
            guard let decoded = decoder.decode(change.mask) else {
                unfit += 1
                continue
            }
            fitting.append(change)
            let named = decoded.names.contains(change.property)
            let counted = decoded.toMany?.among.contains(change.property) == true
            #expect(change.isToMany ? named || counted : named, "\(change.store) \(change.entity) \(change.mask.hexString) \(change.property): \(decoded)")
        }
        #expect(fitting.filter { !$0.isToMany }.count == 59)
        #expect(fitting.filter(\.isToMany).count == 22)
        #expect(unfit == 9)
        #expect(
            Set(fitting.map(\.store)) == [
                "osxphotos-photos-10.15.4/Photos.sqlite", "osxphotos-photos-10.16.0/Photos.sqlite",
                "osxphotos-photos-12.0.1/Photos.sqlite", "osxphotos-photos-13.0.0/Photos.sqlite",
                "osxphotos-photos-14.6.0/Photos.sqlite", "osxphotos-photos-15.4.1/Photos.sqlite",
                "plaso-notestore-ios/NoteStore.sqlite",
            ])

        // The readings this one replaced name few of the to-one changes.
        let toOne = fitting.filter { !$0.isToMany }
        func score(_ reading: Reading) throws -> Int {
            try toOne.filter { change in
                reading.names(change.property, in: change.mask, of: try #require(decoders[change.store + "/" + change.entity]))
            }.count
        }
        let current = Reading(mostSignificantFirst: true) { $0.toOne + $0.attributes + $0.toMany }
        let before = Reading(mostSignificantFirst: false) { $0.attributes + $0.toOne + $0.toMany }
        let issue = Reading(mostSignificantFirst: true) { ($0.toOne + $0.attributes + $0.toMany).sorted() }
        #expect(try score(current) == 59)
        #expect(try score(before) == 1)
        #expect(try score(issue) == 7)
        // The to-many relationships sit after the attributes, but mostly not in name order.
        let toManyByName = try fitting.filter(\.isToMany).filter { change in
            current.names(change.property, in: change.mask, of: try #require(decoders[change.store + "/" + change.entity]))
        }
        #expect(
            toManyByName.map { "\($0.store) \($0.entity).\($0.property)" } == [
                "osxphotos-photos-10.16.0/Photos.sqlite Folder.childCollections", "osxphotos-photos-12.0.1/Photos.sqlite Folder.childCollections",
            ])
    }

    /// Bits past the entity's last property, in masks of the right length: read most
    /// significant first they are rare, least significant first common.
    @Test func bitsPastTheLastPropertyAreRareMostSignificantFirst() throws {
        var counts: [String] = []
        for store in ["osxphotos-photos-10.16.0/Photos.sqlite", "plaso-knowledgec-1013/knowledgec-10.13.db"] {
            let copy = try Corpus.copyStore(store)
            let line = try StoreSnapshot(path: copy.path).read { db -> String in
                let model = try #require(try ModelCache.read(db, path: copy.path)?.model)
                let registry = try EntityRegistry.read(db)
                var fitting = 0, pastMost = 0, pastLeast = 0
                for row in try Row.fetchAll(db, sql: "SELECT ZENTITY, ZCOLUMNS FROM ACHANGE WHERE ZCHANGETYPE = 1 AND ZCOLUMNS IS NOT NULL") {
                    guard let entity = registry.entity(ent: row[0])?.name, model.entity(named: entity) != nil else { continue }
                    let decoder = ChangedColumns(model: model, entity: entity)
                    let mask: Data = row[1]
                    guard mask.count == (decoder.count + 7) / 8 else { continue }
                    fitting += 1
                    if ChangedColumns.bits(mask).contains(where: { $0 >= decoder.count }) { pastMost += 1 }
                    let before = Reading(mostSignificantFirst: false) { $0.attributes + $0.toOne + $0.toMany }
                    if before.positions(mask).contains(where: { $0 >= decoder.count }) { pastLeast += 1 }
                }
                return "\(store): \(fitting) masks, \(pastMost) past the end most significant first, \(pastLeast) least significant first"
            }
            counts.append(line)
        }
        #expect(
            counts == [
                "osxphotos-photos-10.16.0/Photos.sqlite: 769 masks, 6 past the end most significant first, 86 least significant first",
                "plaso-knowledgec-1013/knowledgec-10.13.db: 28 masks, 0 past the end most significant first, 13 least significant first",
            ])
    }
}

/// The SwiftData store of issue 23 (framework 1345), rebuilt: `cdstore create` from
/// Tests/Fixtures/history/Crafting.xcdatamodel, then history rows laid out as Core Data writes
/// them (the tables' DDL and the `Z_PRIMARYKEY` rows copied from CoreDataPlus's framework-1344
/// store, strings interned, `Z_OPT` NULL, `ZCOLUMNS` only on updates).
@Suite(.temporaryDirectories) struct SwiftDataHistoryTests {
    static let model = Golden.fixtures.appendingPathComponent("history/Crafting.xcdatamodel").path

    /// The store, with fixed UUID and times so the output can be compared with a golden file.
    static func makeStore() throws -> URL {
        let store = try TemporaryDirectory.make().appendingPathComponent("Crafting.store")
        let created = CommandRunner.runInProcess(["create", store.path, "--model", model, "--framework-version", "1345"])
        try #require(created.status == 0, "\(created.stderr)")
        let reference = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let (statements, registryRows) = try DatabaseQueue(path: reference.path).read { db in
            (
                try String.fetchAll(
                    db,
                    sql: "SELECT sql FROM sqlite_master WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') AND sql IS NOT NULL ORDER BY rowid"),
                try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
            )
        }
        #expect(registryRows.map { $0[1] as String } == ["CHANGE", "TRANSACTION", "TRANSACTIONSTRING"])
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        try queue.write { db in
            for statement in statements { try db.execute(sql: statement) }
            for row in registryRows {
                try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)", arguments: [row[0], row[1], row[2]])
            }
            try db.execute(sql: "UPDATE Z_METADATA SET Z_UUID = '7C1F2A52-5E0B-4C1B-9D55-3F2B9E6A1C01'")
            try db.execute(sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (1, 16003, 'com.example.crafting'), (2, 16003, 'Crafting')")
            var transaction: Int64 = 0, change: Int64 = 0
            func save(_ rows: [(type: Int, ent: Int, pk: Int64, columns: Data?)]) throws {
                transaction += 1
                try db.execute(
                    sql: "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZBUNDLEIDTS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, 16002, 1, 2, ?)",
                    arguments: [transaction, 790_000_000.0 + Double(transaction)])
                for row in rows {
                    change += 1
                    try db.execute(
                        sql: "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, 16001, ?, ?, ?, ?, ?)",
                        arguments: [change, row.type, row.ent, row.pk, transaction, row.columns])
                }
            }
            // Component 1, CraftingRecipe 2, Item 3 (the Z_ENTs cdstore create gave them).
            try db.execute(sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 3, 1, 'Plank'), (2, 3, 1, 'Log')")
            try save([(0, 3, 1, nil), (0, 3, 2, nil)])
            try db.execute(sql: "INSERT INTO ZCRAFTINGRECIPE (Z_PK, Z_ENT, Z_OPT, ZPRODUCEDITEMCOUNT, ZPRODUCEDITEM) VALUES (1, 2, 1, 4, 1)")
            try db.execute(sql: "UPDATE ZITEM SET ZCRAFTINGRECIPE = 1, Z_OPT = 2 WHERE Z_PK = 1")
            try save([(0, 2, 1, nil), (1, 3, 1, Data([0x80]))])
            try db.execute(sql: "INSERT INTO ZCOMPONENT (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZCRAFTINGRECIPE, ZITEM) VALUES (1, 1, 1, 1, 1, 2), (2, 1, 1, 3, 1, 2)")
            try db.execute(sql: "UPDATE ZCRAFTINGRECIPE SET Z_OPT = 2 WHERE Z_PK = 1")
            try save([(0, 1, 1, nil), (1, 2, 1, Data([0x20]))])
            try save([(0, 1, 2, nil), (1, 2, 1, Data([0x20]))])
            try db.execute(sql: "DELETE FROM ZCOMPONENT WHERE Z_PK = 2")
            try db.execute(sql: "UPDATE ZCRAFTINGRECIPE SET Z_OPT = 3 WHERE Z_PK = 1")
            try save([(2, 1, 2, nil), (1, 2, 1, Data([0x20]))])
            // A mask no property of Item fits: 0x80 in a second byte.
            try save([(1, 3, 2, Data([0x00, 0x80]))])
            for (ent, max) in [(1, 2), (2, 1), (3, 2), (16001, Int(change)), (16002, Int(transaction)), (16003, 2)] {
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [max, ent])
            }
        }
        return store
    }

    /// `history` names `craftingRecipe` for 0x80 on Item and `requiredComponents` for 0x20 on
    /// CraftingRecipe, and says it cannot name the bits of a mask that does not fit.
    @Test func historyNamesTheChangedProperties() throws {
        let store = try Self.makeStore()
        let before = try Checksums.of(directory: store.deletingLastPathComponent())
        let text = CommandRunner.runInProcess(["history", store.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout == (try Golden.expected("history/crafting.txt", actual: text.stdout)))
        let json = CommandRunner.runInProcess(["history", store.path, "--json"])
        #expect(json.stdout == (try Golden.expected("history/crafting.jsonl", actual: json.stdout)))
        let validator = try JSONSchemaValidator(file: "history.schema.json", in: Corpus.repositoryRoot.appendingPathComponent("schemas"), at: "")
        for line in json.stdout.split(separator: "\n") {
            #expect(try validator.problems(in: JSONValue(parsing: String(line))) == [])
        }
        #expect(try Checksums.of(directory: store.deletingLastPathComponent()) == before)
    }
}
