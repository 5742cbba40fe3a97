import CDArchive
@testable import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// `ArchivedModelWriter`: every model cdstore can load, archived, compressed like a model cache
/// and read back, keeps its entity version hashes and compares equal to the original after the
/// normalisation below.
@Suite(.temporaryDirectories) struct ArchivedModelWriterTests {
    /// A named model and where it came from.
    struct Source: CustomStringConvertible {
        let description: String
        let model: ManagedObjectModel
    }

    /// The model cache of every corpus store that has one (read from a private copy).
    static func cachedModels() throws -> [Source] {
        try Corpus.stores.compactMap { store in
            let copy = try Corpus.copyStore(store)
            guard let versions = try? ModelSource.cachedVersion(at: copy.path) else { return nil }
            return Source(description: "cache of \(store)", model: versions[0].model)
        }
    }

    /// Every `contents` XML, compiled `.mom` and ruby-xcdm schema of the corpus and the samples.
    static func fileModels() throws -> [Source] {
        var sources = try ModelSources.contentsFiles.map { url in
            Source(description: url.path, model: try XMLModelReader.model(fromXML: Data(contentsOf: url)))
        }
        for url in ModelSources.compiledModels {
            sources += try ModelFiles.versions(at: url).map { Source(description: "\(url.path) \($0.name)", model: $0.model) }
        }
        let samples = Corpus.repositoryRoot.appendingPathComponent("Samples/schemas")
        let rubyFolders =
            try FileManager.default.contentsOfDirectory(atPath: samples.path).sorted()
            .filter { !$0.hasPrefix(".") }.map { samples.appendingPathComponent($0) }
            + [Corpus.url("xcdm-ruby-xcdm-fixture/001_baseline.rb"), Corpus.url("xcdm-cdq/001_baseline.rb")]
        for url in rubyFolders {
            sources += try ModelFiles.versions(at: url).map { Source(description: "\(url.path) \($0.name)", model: $0.model) }
        }
        return sources
    }

    /// Exact counts, so the round trips below cannot pass on an empty list.
    @Test func everySourceIsFound() throws {
        let caches = try Self.cachedModels().count
        let files = try Self.fileModels().count
        #expect(caches == Self.expectedCaches)
        #expect(files == Self.expectedFiles)
    }

    static let expectedCaches = 31
    static let expectedFiles = 59

    /// archive → deflate → inflate → read, as `Z_MODELCACHE` is written and read.
    private func roundTrip(_ model: ManagedObjectModel) throws -> ManagedObjectModel {
        let archive = try ArchivedModelWriter.archive(model)
        let inflated = try RawInflate.inflate(try RawDeflate.deflate(archive))
        #expect(inflated == archive)
        return try ArchivedModelReader.model(fromArchive: inflated)
    }

    private func check(_ source: Source) throws {
        let decoded = try roundTrip(source.model)
        #expect(VersionHashes.entityHashes(of: decoded) == VersionHashes.entityHashes(of: source.model), "\(source)")
        let expected = try Self.normalised(source.model, boundsAreRules: false)
        let actual = try Self.normalised(decoded, boundsAreRules: true, original: source.model)
        #expect(actual == expected, "\(source)")
        if actual != expected {
            for (a, e) in zip(actual.entities, expected.entities) where a != e {
                for (pa, pe) in zip(a.properties, e.properties) where pa != pe {
                    Issue.record("\(source) \(a.name).\(pa.name): \(pa) != \(pe)")
                }
            }
        }
    }

    @Test func everyModelCacheRoundTrips() throws {
        for source in try Self.cachedModels() { try check(source) }
    }

    @Test func everyModelFileRoundTrips() throws {
        for source in try Self.fileModels() { try check(source) }
    }

    /// What the archive cannot carry, or carries in another form, is brought to one form:
    /// * property order: the reader sorts properties by name; templates, configurations and
    ///   version identifiers are sorted too;
    /// * `usedWithCloudKit` is an XML setting with no archive key;
    /// * bounds and the regular expression are archived as validation predicates (as `momc`
    ///   does), which the reader returns as validation rules: the ones the writer added are
    ///   dropped here, and `boundsBecomeValidationPredicates` checks them;
    /// * defaults are archived typed (NSNumber, NSDate, …), so `0` for a Double reads back as
    ///   `0.0` and `1` for a Boolean as `YES`: they are compared as values of the type;
    /// * an inverse's entity defaults to the destination, and is meaningless without an inverse;
    ///   an inverse that its entity inherits reads back with the destination as its entity;
    /// * predicate texts read back as Core Data prints them (`a = YES` as `a == 1`), so the
    ///   original's are put in that form by archiving them alone;
    /// * a fetched property's request has no name of its own in an archive: it takes the
    ///   property's.
    static func normalised(
        _ model: ManagedObjectModel, boundsAreRules: Bool,
        original: ManagedObjectModel? = nil
    ) throws -> ManagedObjectModel {
        var result = model
        if !boundsAreRules {
            result.fetchRequestTemplates = try result.fetchRequestTemplates.map(canonicalRequest)
        }
        result.usedWithCloudKit = false
        result.versionIdentifiers.sort()
        result.fetchRequestTemplates.sort { $0.name < $1.name }
        result.configurations = result.configurations
            .map { ModelConfiguration(name: $0.name, entities: $0.entities.sorted()) }
            .sorted { $0.name < $1.name }
        result.entities = try result.entities.map { entity in
            var entity = entity
            let originalEntity = original?.entity(named: entity.name)
            entity.properties = try entity.properties.map { property in
                switch property {
                case .attribute(var attribute):
                    if boundsAreRules, case .attribute(let before)? = originalEntity?.properties.first(where: { $0.name == attribute.name }) {
                        let added = [before.minValue, before.maxValue, before.regularExpression].compactMap { $0 }.count
                        attribute.validationRules.removeLast(added)
                    }
                    attribute.minValue = nil
                    attribute.maxValue = nil
                    attribute.regularExpression = nil
                    attribute.defaultValue = canonicalDefault(attribute.defaultValue, type: attribute.type)
                    return .attribute(attribute)
                case .relationship(var relationship):
                    let inverseEntity = relationship.inverseEntity ?? relationship.destinationEntity
                    let declared = model.entity(named: inverseEntity)?.properties.contains { $0.name == relationship.inverseName } == true
                    relationship.inverseEntity =
                        relationship.inverseName == nil
                        ? nil
                        : declared ? inverseEntity : relationship.destinationEntity
                    return .relationship(relationship)
                case .fetched(var fetched):
                    if !boundsAreRules { fetched.fetchRequest = try canonicalRequest(fetched.fetchRequest) }
                    fetched.fetchRequest.name = fetched.common.name
                    return .fetched(fetched)
                }
            }.sorted { $0.name < $1.name }
            return entity
        }
        return result
    }

    /// `request` with its predicate as the reader prints it after archiving.
    static func canonicalRequest(_ request: FetchRequestTemplate) throws -> FetchRequestTemplate {
        guard let predicate = request.predicate else { return request }
        let alone = ManagedObjectModel(fetchRequestTemplates: [FetchRequestTemplate(name: "p", entityName: "", predicate: predicate)])
        var result = request
        result.predicate = try ArchivedModelReader.model(fromArchive: ArchivedModelWriter.archive(alone)).fetchRequestTemplates.first?.predicate
        return result
    }

    static func canonicalDefault(_ text: String?, type: AttributeType) -> String? {
        guard let text else { return nil }
        switch type {
        case .double, .float, .decimal, .date:
            return Double(text).map { String($0) } ?? text
        case .boolean:
            switch text.uppercased() {
            case "YES", "TRUE", "1": return "YES"
            case "NO", "FALSE", "0": return "NO"
            default: return text
            }
        default:
            return text
        }
    }

    /// `minValue`, `maxValue` and `regularExpression` come back as the predicates `momc` makes,
    /// with Core Data's validation error codes as warnings.
    @Test func boundsBecomeValidationPredicates() throws {
        var count = AttributeDescription(common: PropertyCommon(name: "count"), type: .integer16)
        count.minValue = "1"
        count.maxValue = "8"
        var title = AttributeDescription(common: PropertyCommon(name: "title"), type: .string)
        title.minValue = "3"
        title.maxValue = "50"
        title.regularExpression = "[A-Z].*\"q\""
        title.validationRules = [ValidationRule(predicate: "SELF CONTAINS[cd] \"title\"", warning: "Must contain title.")]
        var when = AttributeDescription(common: PropertyCommon(name: "when"), type: .date)
        when.minValue = "0.5"
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Item", properties: [.attribute(count), .attribute(title), .attribute(when)])])
        let decoded = try roundTrip(model)
        let rules = try #require(decoded.entity(named: "Item")).attributes.map(\.validationRules)
        #expect(
            rules == [
                [ValidationRule(predicate: "SELF >= 1", warning: "1620"), ValidationRule(predicate: "SELF <= 8", warning: "1610")],
                [
                    ValidationRule(predicate: "SELF CONTAINS[cd] \"title\"", warning: "Must contain title."),
                    ValidationRule(predicate: "length >= 3", warning: "1670"), ValidationRule(predicate: "length <= 50", warning: "1660"),
                    ValidationRule(predicate: "SELF MATCHES \"[A-Z].*\\\"q\\\"\"", warning: "1680"),
                ],
                [ValidationRule(predicate: "SELF >= CAST(0.5, \"NSDate\")", warning: "1640")],
            ])
    }

    /// Predicates of every shape the formatter prints survive archiving as the same text.
    @Test func predicateTextsRoundTrip() throws {
        let predicates = [
            "TRUEPREDICATE", "FALSEPREDICATE", "name == \"a\\\"b\"", "ANY tags.name BEGINSWITH[cd] \"x\"",
            "ALL items.count > 2", "(a == 1 OR b != 2) AND (NOT c < 3)", "NOT (a == 1 AND b == 2)",
            "age BETWEEN {1, 10}", "name IN {\"a\", \"b\"}", "date >= $DATE", "SELF LIKE[c] \"*.png\"",
            "rating <= -1.5", "x ENDSWITH[n] \"z\" AND y MATCHES \"[0-9]+\" AND z == nil", "when < CAST(100.5, \"NSDate\")",
        ]
        let template = { (text: String) in FetchRequestTemplate(name: text, entityName: "Item", predicate: text) }
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Item")], fetchRequestTemplates: predicates.map(template))
        let decoded = try roundTrip(model)
        #expect(decoded.fetchRequestTemplates.map(\.predicate) == predicates.sorted().map(Optional.some))
    }

    @Test func unparseablePredicateIsRefused() {
        let model = ManagedObjectModel(
            entities: [EntityDescription(name: "Item")],
            fetchRequestTemplates: [FetchRequestTemplate(name: "bad", entityName: "Item", predicate: "a <operator 12> 1")])
        #expect(throws: ModelError.self) { try ArchivedModelWriter.archive(model) }
    }

    /// The archive has Core Data's shape: an NSKnownKeysDictionary1 of entities, the entity ↔
    /// property and superentity ↔ sub-entity cycles, and relationships pointing at their inverse.
    @Test func archiveHasCoreDatasShape() throws {
        let owner = RelationshipDescription(common: PropertyCommon(name: "owner"), destinationEntity: "Person", inverseName: "pets", inverseEntity: "Person")
        let pets = RelationshipDescription(
            common: PropertyCommon(name: "pets"), destinationEntity: "Pet", inverseName: "owner", inverseEntity: "Pet", maxCount: 0)
        let model = ManagedObjectModel(
            entities: [
                EntityDescription(name: "Pet", isAbstract: true, properties: [.relationship(owner)]),
                EntityDescription(name: "Dog", parentName: "Pet"),
                EntityDescription(name: "Person", properties: [.relationship(pets)]),
            ], versionIdentifiers: ["1"])
        let archive = try KeyedArchive(data: try ArchivedModelWriter.archive(model))
        let root = archive.root
        #expect(root.className == "NSManagedObjectModel")
        let entities = try #require(root.object("NSEntities"))
        #expect(entities.className == "NSKnownKeysDictionary1")
        #expect(entities.dictionaryEntries.map(\.key) == ["Pet", "Dog", "Person"])
        let pet = entities.dictionaryEntries[0].value
        let dog = entities.dictionaryEntries[1].value
        #expect(dog.object("NSSuperentity")?.index == pet.index)
        #expect(pet.dictionary("NSSubentities").map(\.value.index) == [dog.index])
        #expect(pet.object("NSManagedObjectModel")?.index == root.index)
        let ownerObject = try #require(pet.dictionary("NSProperties").first?.value)
        #expect(ownerObject.object("NSEntity")?.index == pet.index)
        #expect(ownerObject.int("_P") == 0xF3)
        let inverse = try #require(ownerObject.object("NSInverseRelationship"))
        #expect(inverse.string("NSPropertyName") == "pets")
        #expect(inverse.object("NSInverseRelationship")?.index == ownerObject.index)
        #expect(root.object("NSVersionIdentifiers")?.elements.map(\.stringContent) == ["1"])
    }
}

/// Every corpus store's `Z_PLIST` metadata, written again by `BinaryPropertyListWriter`, reads
/// back as the same value. (Here rather than in CDArchiveTests, which cannot open SQLite.)
@Suite(.temporaryDirectories) struct MetadataRewriteTests {
    @Test func everyStoreMetadataRoundTrips() throws {
        var checked = 0
        for store in Corpus.stores {
            let copy = try Corpus.copyStore(store)
            guard let snapshot = try? StoreSnapshot(path: copy.path),
                let metadata = try? snapshot.read({ db in try StoreMetadata.read(db, path: copy.path) }),
                let plist = metadata.plist
            else { continue }
            let rewritten = try BinaryPropertyListWriter.data(for: plist)
            #expect(try PropertyList.decode(rewritten) == plist, "\(store)")
            checked += 1
        }
        #expect(checked == Self.expectedStores)
    }

    static let expectedStores = 37
}
