@testable import CDDiagnostics
import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// The migration rules of docs/format/model-format.md §6.1–6.3, each checked on corpus models: a
/// store is stood in for by the hashes of one version (and its row counts), the app's model by
/// another version, edited where the corpus has no such change.
@Suite(.temporaryDirectories) struct CompatibilityRuleTests {
    static let restkit = "restkit-test-models/VersionedModel.xcdatamodeld"

    func versions(_ path: String) throws -> [ModelVersion] {
        try ModelFiles.versions(at: Corpus.url(path))
    }

    func version(_ path: String, _ name: String) throws -> ModelVersion {
        try #require(try versions(path).first { $0.name == name })
    }

    /// A store written by `writer`, holding `rows` rows per entity.
    func store(_ writer: ModelVersion, rows: [String: Int] = [:]) -> StoreFacts {
        StoreFacts(
            versionHashes: VersionHashes.entityHashes(of: writer.model), versionIdentifiers: [],
            cachedModel: writer.model, rowCounts: rows)
    }

    func analyse(
        _ store: StoreFacts, _ versions: [ModelVersion], current: ModelVersion,
        mappings: [MigrationMappingModel] = [], options: MigrationOptions = .infer
    ) -> CompatibilityReport {
        Compatibility.analyse(
            store: store, versions: versions, current: current, mappings: mappings,
            options: options, storePath: "store", modelPath: "model")
    }

    func kinds(_ report: CompatibilityReport) -> [String] {
        report.changes.map { "\($0.kind.rawValue) \([$0.entity, $0.property].compactMap { $0 }.joined(separator: "."))" }
    }

    /// Recipes 2 made `Recipe.type` to-many; opening a Recipes 2 store with Recipes goes back to
    /// to-one, which cannot be inferred.
    @Test func toManyToToOneIs134190() throws {
        let all = try versions("recipes-migration/Recipes.xcdatamodeld")
        let report = analyse(
            store(try version("recipes-migration/Recipes.xcdatamodeld", "Recipes 2")), all,
            current: try version("recipes-migration/Recipes.xcdatamodeld", "Recipes"))
        #expect(report.matchedVersion == "Recipes 2")
        #expect(report.expectedError == 134190)
        #expect(report.migration == .impossible)
        #expect(kinds(report).contains("toManyToToOne Recipe.type"))
        #expect(report.changes.first { $0.kind == .toManyToToOne }?.inferable == false)
        #expect(report.reason.contains("Can not map from a to-many to a to-one relationship".lowercased()))
        #expect(kinds(report).contains("entityRemoved Chef"))
    }

    /// RestKit's VersionedModel 2 and 4 are identical: a store of either opens with 4.
    @Test func identicalVersionsPreferTheCurrentOne() throws {
        let all = try versions(Self.restkit)
        let current = try version(Self.restkit, "VersionedModel 4")
        let report = analyse(store(try version(Self.restkit, "VersionedModel 2")), all, current: current)
        #expect(report.matchedVersion == "VersionedModel 4")
        #expect(report.compatible)
        #expect(report.expectedError == nil)
        #expect(report.reason.contains("Version VersionedModel 2 has the same hashes"))
        #expect(report.reason.contains("version hash modifier"))
    }

    /// Version 3 added `createdAt`, version 4 removed it again; version 1 lacked `authorName`.
    @Test func optionalAdditionsAndRemovalsAreInferred() throws {
        let all = try versions(Self.restkit)
        let current = try version(Self.restkit, "VersionedModel 4")
        let fromThree = analyse(store(try version(Self.restkit, "VersionedModel 3"), rows: ["Article": 5]), all, current: current)
        #expect(fromThree.matchedVersion == "VersionedModel 3")
        #expect(!fromThree.compatible)
        #expect(fromThree.expectedError == nil)
        #expect(kinds(fromThree) == ["attributeRemoved Article.createdAt"])
        let fromOne = analyse(store(try version(Self.restkit, "VersionedModel"), rows: ["Article": 5]), all, current: current)
        #expect(kinds(fromOne) == ["attributeAdded Article.authorName"])
        #expect(fromOne.expectedError == nil)
    }

    /// A new mandatory attribute without a default fails validation only when rows exist.
    @Test func newMandatoryAttributeWithoutDefaultIs134110WithRows() throws {
        let all = try versions(Self.restkit)
        var current = try version(Self.restkit, "VersionedModel 4")
        current.model = edit(current.model, entity: "Article", attribute: "authorName") { $0.common.isOptional = false }
        let writer = try version(Self.restkit, "VersionedModel")
        let empty = analyse(store(writer, rows: ["Article": 0]), all, current: current)
        #expect(empty.expectedError == nil)
        let filled = analyse(store(writer, rows: ["Article": 3]), all, current: current)
        #expect(filled.expectedError == 134110)
        #expect(filled.reason.contains("Article.authorName"))
        #expect(filled.changes.first { $0.property == "authorName" }?.fix.contains("default value") == true)
        current.model = edit(current.model, entity: "Article", attribute: "authorName") { $0.defaultValue = "anonymous" }
        #expect(analyse(store(writer, rows: ["Article": 3]), all, current: current).expectedError == nil)
    }

    /// String → Date is not inferable; Integer 16 → Integer 64 is.
    @Test func typeChanges() throws {
        let all = try versions(Self.restkit)
        let writer = try version(Self.restkit, "VersionedModel 4")
        var current = writer
        current.name = "edited"
        current.model = edit(writer.model, entity: "Article", attribute: "title") { $0.type = .date }
        let report = analyse(store(writer), all, current: current)
        #expect(report.expectedError == 134190)
        #expect(report.changes.map(\.kind) == [.typeChanged])
        #expect(report.reason.contains("incompatible"))
        #expect(ModelDiff.typeChangeInferable(from: .integer16, to: .integer64))
        #expect(ModelDiff.typeChangeInferable(from: .boolean, to: .integer32))
        #expect(!ModelDiff.typeChangeInferable(from: .string, to: .date))
    }

    /// Renaming IDs pair renamed entities and properties; duplicated ones block inference.
    @Test func renamingIdentifiers() throws {
        let all = try versions(Self.restkit)
        let writer = try version(Self.restkit, "VersionedModel 4")
        var current = writer
        current.name = "edited"
        let index = try #require(current.model.entities.firstIndex { $0.name == "Article" })
        current.model.entities[index].name = "Story"
        current.model.entities[index].renamingIdentifier = "Article"
        current.model = edit(current.model, entity: "Story", attribute: "body") {
            $0.common.name = "text"; $0.common.renamingIdentifier = "body"
        }
        let report = analyse(store(writer), all, current: current)
        #expect(Set(kinds(report)) == ["entityRenamed Story", "attributeRenamed Story.text"])
        #expect(report.expectedError == nil)
        let tag = try #require(current.model.entities.firstIndex { $0.name == "Tag" })
        current.model.entities[tag].renamingIdentifier = "Article"
        let duplicate = analyse(store(writer), all, current: current)
        #expect(duplicate.expectedError == 134190)
    }

    /// Article and Tag were separate roots; giving Tag the parent Article merges the hierarchies.
    @Test func mergingHierarchiesIs134190() throws {
        let all = try versions(Self.restkit)
        let writer = try version(Self.restkit, "VersionedModel 4")
        var current = writer
        current.name = "edited"
        let tag = try #require(current.model.entities.firstIndex { $0.name == "Tag" })
        current.model.entities[tag].parentName = "Article"
        let report = analyse(store(writer), all, current: current)
        #expect(kinds(report).contains("hierarchiesMerged Tag"))
        #expect(report.expectedError == 134190)
        #expect(report.reason.contains("separate hierarchies"))
    }

    /// Two properties claiming one renaming ID cannot be paired.
    @Test func duplicatePropertyRenamingIDsIs134190() throws {
        let all = try versions(Self.restkit)
        let writer = try version(Self.restkit, "VersionedModel 4")
        var current = writer
        current.name = "edited"
        // Renaming IDs are not hashed: renaming `body` as well makes the store need a migration.
        current.model = edit(writer.model, entity: "Article", attribute: "body") {
            $0.common.name = "text"; $0.common.renamingIdentifier = "title"
        }
        let report = analyse(store(writer), all, current: current)
        #expect(report.expectedError == 134190)
        #expect(report.changes.contains { $0.property == "title" && !$0.inferable })
    }

    /// The migration a store needs does not depend on the options; whether it opens, and the
    /// error when it does not, do: none → 134100; migration without inference → 134140 unless a
    /// mapping model connects the versions (the table of `compat` in man/cdstore.1).
    @Test func optionsDecideTheCodeNotTheMigration() throws {
        let path = "wibosco-migration/CoreDataMigration_Example.xcdatamodeld"
        let all = try versions(path)
        let two = try version(path, "CoreDataMigration_Example 2")
        let three = try version(path, "CoreDataMigration_Example 3")
        let mapping = try MigrationMappingModelReader.read(at: Corpus.url("wibosco-migration/Migration2to3.xcmappingmodel"))
        // Version 3 adds the mandatory to-one Post.color: fine without posts, 134110 with one.
        let empty = store(two), filled = store(two, rows: ["Post": 1])
        let cases: [(StoreFacts, [MigrationMappingModel], MigrationOptions, MigrationNeed, Int?)] = [
            (empty, [], .infer, .lightweight, nil),
            (empty, [], .migrate, .lightweight, 134140),
            (empty, [], .none, .lightweight, 134100),
            (filled, [mapping], .infer, .mappingModel, nil),
            (filled, [mapping], .migrate, .mappingModel, nil),
            (filled, [mapping], .none, .mappingModel, 134100),
            (filled, [], .infer, .impossible, 134110),
            (filled, [], .migrate, .impossible, 134140),
            (filled, [], .none, .impossible, 134100),
            (store(three), [], .none, .none, nil),
        ]
        for (facts, mappings, options, migration, error) in cases {
            let report = analyse(facts, all, current: three, mappings: mappings, options: options)
            #expect(report.migration == migration, "\(options) \(migration)")
            #expect(report.expectedError == error, "\(options) \(migration): \(report.reason)")
            #expect(report.opens == (error == nil))
            #expect(report.compatible == (migration == .none))
        }
        let mapped = analyse(filled, all, current: three, mappings: [mapping], options: .migrate)
        #expect(mapped.mappingModels.map(\.connectsStoreToCurrent) == [true])
        // Without options the reason says what the options would change.
        #expect(
            analyse(empty, all, current: three, options: .none).reason.hasSuffix(
                "With NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption it opens after lightweight migration."))
        #expect(
            analyse(filled, all, current: three, options: .none).reason.hasSuffix(
                "The migration options alone would not help: with them the app gets 134110 (`--options infer` shows why)."))
        #expect(
            analyse(filled, all, current: three, options: .migrate).reason.hasSuffix(
                "Fix: add a mapping model from CoreDataMigration_Example 2 to CoreDataMigration_Example 3 (inference would not help: the inferred migration to CoreDataMigration_Example 3 fails validation: Post.color is new and non-optional, and Post has 1 row)."
            ))
    }

    /// No version matches: 134130, with the differences taken from the store's cached model when
    /// it has one.
    @Test func noMatchingVersionIs134130() throws {
        let revised = "wibosco-revised/CoreDataMigration_Example.xcdatamodeld"
        let withCache = try Compatibility.analyse(
            storePath: Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_2.sqlite").path,
            modelPath: Corpus.url(revised).path)
        #expect(withCache.matchedVersion == nil)
        #expect(withCache.oldModel == "cache")
        #expect(withCache.expectedError == 134130)
        #expect(withCache.migration == .impossible)
        #expect(!withCache.opens)
        #expect(kinds(withCache).contains("relationshipAdded Post.sections"))
        let withoutCache = try Compatibility.analyse(
            storePath: Corpus.copyStore("bookmigration/Model1.sqlite").path, modelPath: Corpus.url(Self.restkit).path)
        #expect(withoutCache.matchedVersion == nil)
        #expect(withoutCache.oldModel == nil)
        #expect(withoutCache.expectedError == 134130)
        #expect(withoutCache.changes.isEmpty)
        #expect(withoutCache.mappingModels.isEmpty)
    }

    /// A store compared with its own cached model opens as it is.
    @Test func storeAgainstItsOwnCache() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite").path
        let report = try Compatibility.analyse(storePath: copy, modelPath: copy)
        #expect(report.matchedVersion == "cache")
        #expect(report.compatible)
        #expect(report.mappingModels.isEmpty)
    }

    func edit(
        _ model: ManagedObjectModel, entity: String, attribute: String,
        _ change: (inout AttributeDescription) -> Void
    ) -> ManagedObjectModel {
        var model = model
        guard let e = model.entities.firstIndex(where: { $0.name == entity }) else { return model }
        model.entities[e].properties = model.entities[e].properties.map { property in
            guard case .attribute(var a) = property, a.name == attribute else { return property }
            change(&a)
            return .attribute(a)
        }
        return model
    }
}

/// Attributes made non-optional: the rows where they are NULL are counted in the store.
@Suite(.temporaryDirectories) struct CompatibilityNullTests {
    static let revised = "wibosco-revised/CoreDataMigration_Example.xcdatamodeld"

    /// Revised store 2 (10 posts) has a value in every `content`; emptied `hexColor`s would fail.
    @Test func madeMandatoryCountsNulls() throws {
        let store = try Corpus.copyStore("wibosco-revised/CoreDataMigration_Example_2.sqlite").path
        let snapshot = try StoreSnapshot(path: store)
        let facts = try StoreFacts.read(snapshot)
        let versions = try ModelFiles.versions(at: Corpus.url(Self.revised))
        let two = try #require(versions.first { $0.name == "CoreDataMigration_Example 2" })
        #expect(try snapshot.countNulls(model: two.model, entity: "Post", attribute: "content") == 0)
        #expect(try snapshot.countNulls(model: two.model, entity: "Post", attribute: "hexColor") == 0)
        #expect(try snapshot.countNulls(model: two.model, entity: "Post", attribute: "nothing") == nil)
        var current = two
        current.name = "edited"
        current.model = CompatibilityRuleTests().edit(two.model, entity: "Post", attribute: "content") { $0.common.isOptional = false }
        let report = Compatibility.analyse(
            store: facts, versions: versions, current: current, mappings: [],
            options: .infer, storePath: store, modelPath: "model")
        #expect(report.changes.map(\.kind) == [.madeMandatory])
        #expect(report.expectedError == nil)
    }

    /// SampleModel_V2 keeps Car, SportCar and LuxuryCar in ZCAR: every car lacks
    /// `markedForDeletionAsOf`, while the NULL `isLimitedEdition`s all belong to other entities'
    /// rows, so only the first, made non-optional, fails validation.
    @Test func nullsAreCountedPerEntity() throws {
        let store = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite").path
        let snapshot = try StoreSnapshot(path: store)
        let facts = try StoreFacts.read(snapshot)
        let path = "cdplus-samplemodel/SampleModel.xcdatamodeld"
        let versions = try ModelFiles.versions(at: Corpus.url(path))
        let two = try #require(versions.first { $0.name == "SampleModel2" })
        #expect(try snapshot.countNulls(model: two.model, entity: "Car", attribute: "markedForDeletionAsOf") == 125)
        #expect(try snapshot.countNulls(model: two.model, entity: "LuxuryCar", attribute: "isLimitedEdition") == 0)
        let helper = CompatibilityRuleTests()
        var current = two
        current.name = "edited"
        current.model = helper.edit(two.model, entity: "LuxuryCar", attribute: "isLimitedEdition") {
            $0.common.isOptional = false; $0.defaultValue = nil
        }
        let passing = Compatibility.analyse(
            store: facts, versions: versions, current: current, mappings: [],
            options: .infer, storePath: store, modelPath: "model")
        #expect(passing.expectedError == nil, "\(passing.reason)")
        current.model = helper.edit(current.model, entity: "Car", attribute: "markedForDeletionAsOf") { $0.common.isOptional = false }
        let failing = Compatibility.analyse(
            store: facts, versions: versions, current: current, mappings: [],
            options: .infer, storePath: store, modelPath: "model")
        #expect(failing.expectedError == 134110)
        #expect(failing.reason.contains("125 rows of Car have no markedForDeletionAsOf"), "\(failing.reason)")
    }
}
