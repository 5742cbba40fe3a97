import CDTestSupport
import CDArchive
import Foundation
import Testing

/// What python's plistlib says about a compiled model (`.mom`): the number of `$objects`,
/// the keys of `NSEntities` in file order, each entity's `NSProperties` keys and how many
/// objects are `NSAttributeDescription`s. Obtained by loading the file with `plistlib.load`
/// and following the `UID`s by hand.
struct CompiledModel: Sendable, CustomTestStringConvertible {
    let path: String
    let objectCount: Int
    let entities: [String]
    let properties: [String: [String]]
    let attributeCount: Int

    var testDescription: String { path }
}

@Suite("Keyed archives")
struct KeyedArchiveTests {
    static let compiledModels = [
        CompiledModel(
            path: "cdplus-samplemodel/SampleModel.momd/SampleModel2.mom", objectCount: 70,
            entities: ["Car", "Person", "LuxuryCar", "SportCar"],
            properties: [
                "Car": ["model", "markedForDeletionAsOf", "maker", "numberPlate", "owner"],
                "Person": ["firstName", "lastName", "cars", "updatedAt"],
                "LuxuryCar": ["isLimitedEdition"],
                "SportCar": [],
            ],
            attributeCount: 8),
        CompiledModel(
            path: "nintendoish-gamelibrary-model/GameLibrary.momd/DataStore.mom", objectCount: 41,
            entities: ["Game", "Rom"],
            properties: [
                "Game": ["name", "md5", "rom", "boxImage", "titleImage", "screenImage", "sha1"],
                "Rom": ["romData", "game"],
            ],
            attributeCount: 7),
        CompiledModel(
            path: "restkit-coredata-momd/RestKitCoreData.momd/RestKitCoreData.mom", objectCount: 34,
            entities: ["RKDummyEntity", "RKSearchableManagedObject", "RKSearchWord"],
            properties: [
                "RKDummyEntity": [],
                "RKSearchableManagedObject": ["searchWords"],
                "RKSearchWord": ["word", "searchableManagedObjects"],
            ],
            attributeCount: 1),
    ]

    @Test(arguments: compiledModels)
    func compiledModel(_ model: CompiledModel) throws {
        let data = try ArchiveTestFiles.corpusFile(model.path)
        #expect(KeyedArchive.looksLikeArchive(data))
        let archive = try KeyedArchive(data: data)
        #expect(archive.objects.count == model.objectCount)
        #expect(archive.objects.first == .string("$null"))

        let root = archive.root
        #expect(root.index == 1)
        #expect(root.className == "NSManagedObjectModel")
        #expect(root.classHierarchy == ["NSManagedObjectModel", "NSObject"])
        #expect(root.object("NSFetchRequestTemplates") == nil, "a $null reference is no object")

        let entities = try #require(root.object("NSEntities"))
        #expect(entities.className == "NSMutableDictionary")
        #expect(entities.classHierarchy == ["NSMutableDictionary", "NSDictionary", "NSObject"])
        #expect(entities.dictionaryEntries.map(\.key) == model.entities)
        for (name, entity) in entities.dictionaryEntries {
            #expect(entity.className == "NSEntityDescription")
            #expect(entity.string("NSEntityName") == name)
            #expect(entity.object("NSManagedObjectModel")?.index == root.index)
            #expect(entity.dictionary("NSProperties").map(\.key) == model.properties[name], "\(name)")
        }
        let attributes = archive.objects.indices.filter {
            archive.object(for: .uid($0))?.className == "NSAttributeDescription"
        }
        #expect(attributes.count == model.attributeCount)
    }

    /// Details of SampleModel2.mom, read with plistlib: object 66 is an NSSet holding "2",
    /// Car's unique tuples are [[numberPlate]], its one fetch index is byMakerAndNumberPlate
    /// over maker and numberPlate, `model` is a string attribute (700) and
    /// `markedForDeletionAsOf` a date (900); `owner` points to Person, whose `cars` is its inverse.
    @Test func sampleModelDetails() throws {
        let archive = try KeyedArchive(data: try ArchiveTestFiles.corpusFile("cdplus-samplemodel/SampleModel.momd/SampleModel2.mom"))
        let root = archive.root
        #expect(root.object("NSVersionIdentifiers")?.decoded() == .set([.string("2")]))

        let entities = Dictionary(uniqueKeysWithValues: root.object("NSEntities")!.dictionaryEntries.map { ($0.key, $0.value) })
        let car = try #require(entities["Car"])
        #expect(car.index == 7)
        #expect(car.string("NSClassNameForEntity") == "Car")
        #expect(car.object("NSSuperentity") == nil)
        #expect(car.dictionary("NSSubentities").map(\.key) == ["SportCar"])
        #expect(entities["SportCar"]?.dictionary("NSSubentities").map(\.key) == ["LuxuryCar"])
        #expect(entities["LuxuryCar"]?.object("NSSuperentity")?.index == entities["SportCar"]?.index)
        #expect(car.object("NSUniqueTuples")?.decoded() == .array([.array([.string("numberPlate")])]))

        let indexes = car.elements("NSFetchIndexDescriptions")
        #expect(indexes.map { $0.string("NSIndexName") } == ["byMakerAndNumberPlate"])
        #expect(indexes.first?.className == "NSFetchIndexDescription")
        #expect(indexes.first?.elements("NSIndexElements").map { $0.string("NSPropertyName") } == ["maker", "numberPlate"])
        #expect(indexes.first?.elements("NSIndexElements").map { $0.bool("NSAscending") } == [true, true])

        let properties = Dictionary(uniqueKeysWithValues: car.dictionary("NSProperties").map { ($0.key, $0.value) })
        #expect(properties["model"]?.int("NSAttributeType") == 700)
        #expect(properties["model"]?.string("NSAttributeValueClassName") == "NSString")
        #expect(properties["markedForDeletionAsOf"]?.int("NSAttributeType") == 900)
        #expect(properties["markedForDeletionAsOf"]?.string("NSAttributeValueClassName") == "NSDate")
        let owner = try #require(properties["owner"])
        #expect(owner.className == "NSRelationshipDescription")
        #expect(owner.classHierarchy == ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"])
        #expect(owner.int("NSDeleteRule") == 1)
        #expect(owner.object("NSDestinationEntity")?.string("NSEntityName") == "Person")
        #expect(owner.object("NSInverseRelationship")?.index == entities["Person"]?.dictionary("NSProperties").first { $0.key == "cars" }?.value.index)
    }

    /// `wibosco-1-modelcache.deflate` is `Z_MODELCACHE.Z_CONTENT` of
    /// wibosco-migration/CoreDataMigration_Example_1.sqlite, copied out by `make-fixtures.py`,
    /// which also printed the inflated size and SHA-256 (python's `zlib.decompress(blob, -15)`).
    /// Model caches use `NSKnownKeysDictionary1` for their dictionaries.
    @Test func modelCacheOfOneEntity() throws {
        let inflated = try RawInflate.inflate(try ArchiveTestFiles.fixture("wibosco-1-modelcache.deflate"))
        #expect(inflated.starts(with: Array("bplist00".utf8)))
        #expect(inflated.count == 2033)
        #expect(try Checksums.sha256Hex(inflated) == "dc2477c59806a7c3a641f53789a420aa693fe62e365456f1385df9a54e0f01a3")

        let archive = try KeyedArchive(data: inflated)
        #expect(archive.objects.count == 35)
        #expect(archive.root.className == "NSManagedObjectModel")
        let entities = try #require(archive.root.object("NSEntities"))
        #expect(entities.className == "NSKnownKeysDictionary1")
        #expect(entities.dictionaryEntries.map(\.key) == ["Post"])
        let post = try #require(entities.dictionaryEntries.first?.value)
        #expect(post.string("NSEntityName") == "Post")
        #expect(post.dictionary("NSProperties").map(\.key) == ["color", "date", "postID"])
    }

    /// The same for CoreDataMigration_Example_3.sqlite (3175 bytes inflated, per python).
    @Test func modelCacheOfTwoEntities() throws {
        let inflated = try RawInflate.inflate(try ArchiveTestFiles.fixture("wibosco-3-modelcache.deflate"))
        #expect(inflated.count == 3175)
        #expect(try Checksums.sha256Hex(inflated) == "a5cdc4b25988724c9f692cc0c4e0c8d587c9e1d6c917a71ae72b651dc877db75")
        let archive = try KeyedArchive(data: inflated)
        #expect(archive.objects.count == 53)
        let entities = try #require(archive.root.object("NSEntities"))
        #expect(entities.className == "NSKnownKeysDictionary1")
        #expect(entities.dictionaryEntries.map(\.key) == ["Color", "Post"])
        #expect(entities.dictionaryEntries.map { $0.value.string("NSEntityName") } == ["Color", "Post"])
        #expect(
            entities.dictionaryEntries.map { $0.value.dictionary("NSProperties").map(\.key) }
                == [["colorID", "hex", "post"], ["date", "color", "postID"]])
    }

    /// `foundation-classes.bplist` is hand-written in `make-fixtures.py`; the root NSArray lists
    /// objects 3 to 14 in order, and the expected values restate what the script put there.
    @Test func foundationClasses() throws {
        let archive = try KeyedArchive(data: try ArchiveTestFiles.fixture("foundation-classes.bplist"))
        let expected: [ArchivedValue] = [
            .array([.string("hello"), .integer(42), .real(2.5), .boolean(true), .null]),
            .dictionary([(.string("a"), .integer(42)), (.string("b"), .string("hello"))]),
            .date(730_000_000.25),
            .uuid(UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!),
            .url("https://example.org/dir/"),
            .url("https://example.org/dir/sub/file.txt"),
            .string("mutable ✓"),
            .set([.string("a"), .string("b")]),
            .data(Data([0xDE, 0xAD, 0xBE, 0xEF])),
            // `size` counts the archived keys, `$class` included.
            .object(className: "CDWidget", size: 3),
            .null,
            .date(0),
        ]
        #expect(archive.root.className == "NSArray")
        #expect(archive.root.decoded() == .array(expected))
        for (offset, value) in expected.enumerated() {
            #expect(archive.object(for: .uid(3 + offset))?.decoded() == value, "object \(3 + offset)")
        }
        #expect(archive.root.elements.map(\.index) == Array(3...14))
        #expect(archive.object(for: .uid(9))?.stringContent == "mutable ✓")
        #expect(archive.object(for: .uid(12))?.string("name") == "hello")
        #expect(archive.object(for: .uid(12))?.int("width") == 3)
        #expect(archive.decode(.uid(15)) == .string("hello"))
        #expect(archive.decode(.string("$null")) == .null)
        #expect(archive.decode(nil) == .null)
        #expect(archive.object(for: .uid(0)) == nil)
        #expect(archive.object(for: .uid(34)) == nil, "past the end of $objects")
        #expect(archive.object(for: .integer(3)) == nil)
    }

    @Test func notAKeyedArchive() throws {
        let values = try ArchiveTestFiles.fixture("values.bplist")
        #expect(!KeyedArchive.looksLikeArchive(values))
        #expect(throws: PropertyListError.self) { try KeyedArchive(data: values) }
        let xml = try ArchiveTestFiles.corpusFile("restkit-coredata-momd/RestKitCoreData.momd/VersionInfo.plist")
        #expect(throws: PropertyListError.self) { try KeyedArchive(data: xml) }
    }

    @Test func rootOutsideObjects() throws {
        let plist = handBuiltPlist([
            [0xD3, 1, 2, 3, 4, 5, 6],  // 0: the archive dictionary
            [0x59] + Array("$archiver".utf8),  // 1
            [0x58] + Array("$objects".utf8),  // 2
            [0x54] + Array("$top".utf8),  // 3
            [0x5F, 0x10, 0x0F] + Array("NSKeyedArchiver".utf8),  // 4
            [0xA1, 7],  // 5: $objects = ["$null"]
            [0xD1, 8, 9],  // 6: $top = {root: UID 5}
            [0x55] + Array("$null".utf8),  // 7
            [0x54] + Array("root".utf8),  // 8
            [0x80, 5],  // 9
        ])
        let error = #expect(throws: PropertyListError.self) { try KeyedArchive(data: plist) }
        #expect(error?.description == "keyed archive has no root object")
    }
}

extension ArchivedObject: Equatable {
    public static func == (lhs: ArchivedObject, rhs: ArchivedObject) -> Bool {
        lhs.archive === rhs.archive && lhs.index == rhs.index
    }
}
