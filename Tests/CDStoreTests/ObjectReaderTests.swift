import CDBase
import CDModel
@testable import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// Reading objects from every store of the corpus.
@Suite(.temporaryDirectories) struct ObjectReaderTests {
    /// A reader for a private copy of `store`; stores without a model cache use the model
    /// version named for them in ``ModelPairTests``.
    static func reader(_ store: String) throws -> ObjectReader {
        let snapshot = try StoreSnapshot(path: try Corpus.copyStore(store).path)
        if let pair = ModelPairTests.expectedVersions[store],
            try snapshot.read({ db in try !db.tableExists("Z_MODELCACHE") })
        {
            let version = try #require(try ModelFiles.versions(at: Corpus.url(pair.model)).first { $0.name == pair.version })
            return try ObjectReader(snapshot: snapshot, model: version.model)
        }
        return try ObjectReader(snapshot: snapshot)
    }

    /// For every entity, as many objects as rows whose `Z_ENT` is the entity or one of its
    /// sub-entities, counted with SQL built from Z_PRIMARYKEY alone.
    @Test(arguments: Corpus.stores)
    func everyEntityReadsAllItsRows(_ store: String) throws {
        let reader = try Self.reader(store)
        let registry = reader.registry
        #expect(!reader.dumpableEntities.isEmpty)
        for entity in reader.dumpableEntities {
            // A renamed entity keeps its old name in Z_PRIMARYKEY (CoreDataPlus LuxuryCar).
            let registered = try #require(registry.entity(named: entity) ?? reader.mapping.entityNumber(of: entity).flatMap(registry.entity(ent:)))
            let ents = registry.subtree(of: registered).map(\.ent)
            let table = registry.tableName(for: registered)
            let expected = try reader.snapshot.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM \(table.quotedSQLIdentifier) WHERE Z_ENT IN (\(ents.map { _ in "?" }.joined(separator: ",")))",
                    arguments: StatementArguments(ents))
            }
            var count = 0
            try reader.read(
                ObjectQuery(entity: entity), section: { _ in },
                object: { object in
                    count += 1
                    #expect(ents.contains(object.id.ent))
                })
            #expect(count == expected, "\(store) \(entity)")
        }
    }

    @Test func valuesAreTyped() throws {
        let reader = try Self.reader("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        var first: StoredObject?
        try reader.read(ObjectQuery(entity: "Book", limit: 1, includes: ["pages"]), section: { _ in }, object: { first = first ?? $0 })
        let book = try #require(first)
        #expect(book.id.uri == "x-coredata://C9CB0B35-ED6A-4042-BE5C-1B911AC00B2A/Book/p1")
        #expect(book.value("title") == .string("title 2 - author 2"))
        #expect(book.value("price") == .decimal(10.11))
        #expect(book.value("pagesCount") == .integer(99))
        #expect(book.value("uniqueID") == .uuid(UUID(uuidString: "C4637490-BD7F-4428-B093-63A1720E17D2")!))
        #expect(book.value("author") == .object(ObjectID(storeUUID: "C9CB0B35-ED6A-4042-BE5C-1B911AC00B2A", entity: "Author", ent: 6, pk: 1)))
        guard case .objects(let pages?)? = book.value("pages") else {
            Issue.record("pages were not fetched")
            return
        }
        #expect(pages.count == 99)
        #expect(pages.allSatisfy { $0.entity == "Page" })
        guard case .transformable(.object(let className, _), _)? = book.value("cover") else {
            Issue.record("cover is not a decoded archive")
            return
        }
        #expect(className == "CoreDataPlus_Tests.Cover")
    }

    /// Sub-entity rows come back under their concrete entity; without sub-entities, only the
    /// entity's own rows (a table that holds both).
    @Test func subentities() throws {
        let reader = try Self.reader("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        var entities: [String] = []
        try reader.read(ObjectQuery(entity: "Book"), section: { _ in }, object: { entities.append($0.id.entity) })
        #expect(entities.count == 52)
        #expect(entities.filter { $0 == "GraphicNovel" }.count == 1)
        var own: [String] = []
        try reader.read(ObjectQuery(entity: "Book", includesSubentities: false), section: { _ in }, object: { own.append($0.id.entity) })
        #expect(own == Array(repeating: "Book", count: 51))
    }

    /// A table read whole (Book and its sub-entity) and a part of it (GraphicNovel alone) take
    /// different WHERE clauses; both must list exactly their rows in Z_PK order.
    @Test func wholeTableAndSubentityAloneListTheirRowsInKeyOrder() throws {
        let reader = try Self.reader("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let expected = try reader.snapshot.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT FROM ZBOOK ORDER BY Z_PK").map { (pk: $0["Z_PK"] as Int64, ent: $0["Z_ENT"] as Int) }
        }
        let novelEnt = try #require(reader.mapping.entityNumber(of: "GraphicNovel"))
        for (entity, wanted) in [("Book", expected), ("GraphicNovel", expected.filter { $0.ent == novelEnt })] {
            var keys: [Int64] = []
            try reader.read(ObjectQuery(entity: entity), section: { _ in }, object: { keys.append($0.id.pk) })
            #expect(keys == wanted.map(\.pk), "\(entity)")
        }
        #expect(expected.count == 52)
    }

    @Test func orderedManyToManyFollowsItsOrderColumn() throws {
        let reader = try Self.reader("osxphotos-photos-15.4.1/Photos.sqlite")
        var albums: [StoredObject] = []
        try reader.read(ObjectQuery(entity: "Album", includes: ["assets"]), section: { _ in }, object: { albums.append($0) })
        let lookup = try #require(reader.mapping.joinTable(forRelationship: "assets", ofEntity: "Album"))
        let order = try #require(lookup.orderColumn)
        for album in albums {
            guard case .objects(let assets?)? = album.value("assets") else {
                Issue.record("assets not fetched for \(album.id.uri)")
                continue
            }
            let expected = try reader.snapshot.read { db in
                try Int64.fetchAll(
                    db,
                    sql:
                        "SELECT \(lookup.destinationColumn) FROM \(lookup.table) WHERE \(lookup.sourceColumn) = ? ORDER BY \(order), \(lookup.destinationColumn)",
                    arguments: [album.id.pk])
            }
            #expect(assets.map(\.pk) == expected)
        }
        #expect(albums.contains { if case .objects(let a?)? = $0.value("assets") { return !a.isEmpty } else { return false } })
    }

    @Test func unknownEntity() throws {
        let reader = try Self.reader("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let unknown = #expect(throws: StoreError.unknownEntity(name: "Nope", known: ["Color", "Post"])) {
            try reader.read(ObjectQuery(entity: "Nope"), section: { _ in }, object: { _ in })
        }
        #expect(unknown?.message == "unknown entity \"Nope\"; entities: Color, Post")
    }

    /// The members of a to-many relationship as SQL written here finds them, without
    /// ``ToManyPath``: through the join table (joined to the destination for its `Z_ENT`), the
    /// hidden key of a to-many without inverse, or the inverse's key; by the `Z_FOK_` column of
    /// an ordered relationship, then `Z_PK`.
    static func independentMembers(
        _ reader: ObjectReader, _ db: Database, entity: String, relationship: RelationshipDescription, pk: Int64
    ) throws -> [ObjectID] {
        let mapping = reader.mapping
        let destination = try #require(mapping.table(forEntity: relationship.destinationEntity)).name.quotedSQLIdentifier
        let sql: String
        if let join = mapping.joinTable(forRelationship: relationship.name, ofEntity: entity) {
            let order = join.orderColumn.map { "j.\($0.quotedSQLIdentifier), " } ?? ""
            sql =
                "SELECT d.Z_PK, d.Z_ENT FROM \(join.table.quotedSQLIdentifier) j JOIN \(destination) d"
                + " ON d.Z_PK = j.\(join.destinationColumn.quotedSQLIdentifier)"
                + " WHERE j.\(join.sourceColumn.quotedSQLIdentifier) = ? ORDER BY \(order)d.Z_PK"
        } else if let hidden = mapping.columns(forProperty: relationship.name, ofEntity: entity).first(where: { $0.role == .toManyKeyWithoutInverse }) {
            sql = "SELECT Z_PK, Z_ENT FROM \(destination) WHERE \(hidden.name.quotedSQLIdentifier) = ? ORDER BY Z_PK"
        } else {
            let columns = mapping.columns(forProperty: try #require(relationship.inverseName), ofEntity: relationship.destinationEntity)
            let key = try #require(columns.first { $0.role == .toOneKey })
            let order = columns.first { $0.role == .toOneOrder }.map { $0.name.quotedSQLIdentifier + ", " } ?? ""
            sql = "SELECT Z_PK, Z_ENT FROM \(destination) WHERE \(key.name.quotedSQLIdentifier) = ? ORDER BY \(order)Z_PK"
        }
        return try Row.fetchAll(db, sql: sql, arguments: [pk]).map { row in
            let ent: Int = row[1]
            let name = mapping.entities.first { $0.number == ent }?.name ?? relationship.destinationEntity
            return ObjectID(storeUUID: reader.storeUUID, entity: name, ent: ent, pk: row[0])
        }
    }

    /// `--include`d members and to-many counts equal the independent read, for up to 40 objects of
    /// every entity of every corpus store (many-to-many, ordered, inheritance in both roles).
    @Test(arguments: Corpus.stores)
    func toManyMembersEqualAnIndependentRead(_ store: String) throws {
        let reader = try Self.reader(store)
        var compared = 0
        for entity in reader.dumpableEntities {
            let toMany = reader.model.allProperties(of: entity).compactMap { property -> RelationshipDescription? in
                guard case .relationship(let relationship) = property, relationship.isToMany, !relationship.common.isTransient else { return nil }
                return relationship
            }
            guard !toMany.isEmpty else { continue }
            var objects: [StoredObject] = []
            var counted: [StoredObject] = []
            try reader.read(
                ObjectQuery(entity: entity, includesSubentities: false, limit: 40, includes: Set(toMany.map(\.name))), section: { _ in },
                object: { objects.append($0) })
            try reader.read(
                ObjectQuery(entity: entity, includesSubentities: false, limit: 40, countsToMany: true), section: { _ in },
                object: { counted.append($0) })
            #expect(objects.map(\.id) == counted.map(\.id))
            for (object, countedObject) in zip(objects, counted) {
                for relationship in toMany {
                    let expected = try reader.snapshot.read { db in
                        try Self.independentMembers(reader, db, entity: entity, relationship: relationship, pk: object.id.pk)
                    }
                    #expect(object.value(relationship.name) == .objects(members: expected), "\(store) \(object.id.uri).\(relationship.name)")
                    #expect(countedObject.value(relationship.name) == .objectCount(expected.count), "\(store) \(object.id.uri).\(relationship.name)")
                    compared += expected.count
                }
            }
        }
        if Self.storesWithToManyMembers.contains(store) { #expect(compared > 0, "\(store)") }
    }

    /// Stores whose sampled objects have to-many members: the test must compare some there.
    static let storesWithToManyMembers: Set<String> = [
        "cdplus-samplemodel/SampleModel_V1.sqlite", "cdplus-samplemodel2/SampleModel2_V1.sqlite", "osxphotos-photos-10.15.4/Photos.sqlite",
        "osxphotos-photos-15.4.1/Photos.sqlite", "plaso-accounts3/Accounts3.sqlite", "plaso-netusage/netusage.sqlite",
    ]
}

/// Value decoding by attribute type (store-format.md §7.5, §9).
@Suite(.temporaryDirectories) struct ValueDecoderTests {
    func attribute(_ type: AttributeType, external: Bool = false) -> AttributeDescription {
        AttributeDescription(common: PropertyCommon(name: "x"), type: type, allowsExternalBinaryDataStorage: external)
    }

    @Test func scalars() {
        #expect(ValueDecoder.decode(.integer(7), for: attribute(.integer16), externalData: nil) == .integer(7))
        #expect(ValueDecoder.decode(.integer(1), for: attribute(.boolean), externalData: nil) == .boolean(true))
        #expect(ValueDecoder.decode(.integer(526_913_713), for: attribute(.date), externalData: nil) == .date(526_913_713))
        #expect(ValueDecoder.decode(.real(3.5), for: attribute(.double), externalData: nil) == .double(3.5))
        #expect(ValueDecoder.decode(.null, for: attribute(.string), externalData: nil) == .null)
        #expect(ValueDecoder.decode(.text("x"), for: attribute(.integer32), externalData: nil) == .unexpected("x"))
    }

    @Test func uuidBlob() {
        let bytes = Data(hex: "614F21514EDD4099BA6DA085528EEF6F")
        #expect(
            ValueDecoder.decode(.blob(bytes), for: attribute(.uuid), externalData: nil)
                == .uuid(UUID(uuidString: "614F2151-4EDD-4099-BA6D-A085528EEF6F")!))
    }

    /// 0x01 + bytes is inline; 0x02 + a file name + NUL refers to `_EXTERNAL_DATA/<name>`.
    @Test func externalStorageMarkers() throws {
        let folder = try TemporaryDirectory.make()
        try Data("stored".utf8).write(to: folder.appendingPathComponent("ABC"))
        let external = attribute(.binary, external: true)
        #expect(ValueDecoder.decode(.blob(Data([1, 9, 8])), for: external, externalData: folder) == .binary(Data([9, 8])))
        #expect(
            ValueDecoder.decode(.blob(Data([2]) + Data("ABC".utf8) + Data([0])), for: external, externalData: folder)
                == .externalReference(file: "ABC", exists: true))
        #expect(
            ValueDecoder.decode(.blob(Data([2]) + Data("GONE".utf8) + Data([0])), for: external, externalData: folder)
                == .externalReference(file: "GONE", exists: false))
        #expect(ValueDecoder.decode(.blob(Data([2, 1])), for: attribute(.binary), externalData: folder) == .binary(Data([2, 1])))
    }
}

@Suite(.temporaryDirectories) struct IncludeValidationTests {
    @Test func unknownIncludeIsAnError() throws {
        let reader = try ObjectReaderTests.reader("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let error = #expect(throws: StoreError.notToMany(name: "author", scope: "Book", toMany: ["pages"])) {
            try reader.checkIncludes(["author"], entities: ["Book"])
        }
        #expect(error?.message == "--include author: not a to-many relationship of Book; to-many relationships: pages")
        try reader.checkIncludes(["pages", "books"], entities: ["Book", "Author"])
        try reader.checkIncludes(["pages"], entities: nil)
    }
}

/// Strings are read in place only when `String(cString:)` would keep their bytes unchanged.
@Suite struct UTF8CheckTests {
    /// What `ValueDecoder` gets for these bytes: cut at the first NUL, bad UTF-8 repaired.
    static func keepsBytes(_ bytes: [UInt8]) -> Bool {
        !bytes.contains(0) && Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
    }

    static func check(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { UTF8Check.isValidWithoutNUL($0) }
    }

    @Test func everyTwoByteSequence() {
        for first in 0...255 {
            for second in 0...255 {
                let bytes = [UInt8(first), UInt8(second)]
                #expect(Self.check(bytes) == Self.keepsBytes(bytes), "\(bytes)")
            }
        }
    }

    /// Leads of three- and four-byte sequences with continuation bytes at the edges of every
    /// range the standard allows, alone and inside ASCII long enough for the word-wise path.
    @Test func longerSequencesAtTheEdges() {
        let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        let padding = Array("abcdefghij".utf8)
        for lead in UInt8(0xC0)...UInt8(0xFF) {
            for second in edges {
                for third in edges {
                    for tail in [[], [third], [third, 0x80], [third, 0xBF, 0x80]] as [[UInt8]] {
                        for bytes in [[lead, second] + tail, padding + [lead, second] + tail + padding] {
                            #expect(Self.check(bytes) == Self.keepsBytes(bytes), "\(bytes)")
                        }
                    }
                }
            }
        }
    }

    @Test func asciiWordsWithNULOrHighBytes() {
        let text = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        #expect(Self.check(text))
        for position in text.indices {
            for byte: UInt8 in [0x00, 0x80, 0xFF] {
                var bytes = text
                bytes[position] = byte
                #expect(Self.check(bytes) == Self.keepsBytes(bytes), "\(bytes)")
            }
        }
    }
}
