@testable import CDDiagnostics
import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// The verdict for every store of the corpus migration fixtures, against its own model bundle.
/// Which version wrote each store is proven independently by `ModelPairTests`.
@Suite(.temporaryDirectories) struct CompatibilityCorpusTests {
    struct Expectation: Sendable, CustomStringConvertible {
        let store: String
        let model: String
        let version: String?
        let matched: String
        /// The migration the store needs; `none` when the hashes match (`compatible`).
        let migration: MigrationNeed
        let error: Int?
        /// "kind entity.property" of changes that must be reported (not all of them).
        let changes: [String]
        var description: String { "\(store) → \(version ?? "current")" }
    }

    static let wibosco = "wibosco-migration/CoreDataMigration_Example.xcdatamodeld"
    static let revised = "wibosco-revised/CoreDataMigration_Example.xcdatamodeld"

    static let expectations: [Expectation] = [
        // Version 1 had `color` as a String; version 4 has a mandatory to-one `color` to the new
        // Color entity: the attribute is dropped, the relationship added, and the 1001 posts have
        // none, so the migrated store fails validation.
        Expectation(
            store: "wibosco-migration/CoreDataMigration_Example_1.sqlite", model: wibosco, version: nil,
            matched: "CoreDataMigration_Example", migration: .impossible, error: 134110,
            changes: ["entityAdded Color", "attributeRemoved Post.color", "relationshipAdded Post.color", "attributeAdded Post.hide"]),
        Expectation(
            store: "wibosco-migration/CoreDataMigration_Example_2.sqlite", model: wibosco, version: nil,
            matched: "CoreDataMigration_Example 2", migration: .impossible, error: 134110,
            changes: ["attributeRemoved Post.hexColor", "relationshipAdded Post.color"]),
        // 3 → 4 only adds the optional `hide`: inferred.
        Expectation(
            store: "wibosco-migration/CoreDataMigration_Example_3.sqlite", model: wibosco, version: nil,
            matched: "CoreDataMigration_Example 3", migration: .lightweight, error: nil,
            changes: ["attributeAdded Post.hide"]),
        Expectation(
            store: "wibosco-migration/CoreDataMigration_Example_WAL.sqlite", model: wibosco, version: nil,
            matched: "CoreDataMigration_Example 4", migration: .none, error: nil, changes: []),
        // Migration2to3.xcmappingmodel maps the second store to version 3.
        Expectation(
            store: "wibosco-migration/CoreDataMigration_Example_2.sqlite", model: wibosco, version: "CoreDataMigration_Example 3",
            matched: "CoreDataMigration_Example 2", migration: .mappingModel, error: nil, changes: []),
        // Revised: version 3 adds a mandatory to-many `sections`, which the 10 posts lack.
        Expectation(
            store: "wibosco-revised/CoreDataMigration_Example_1.sqlite", model: revised, version: nil,
            matched: "CoreDataMigration_Example", migration: .impossible, error: 134110,
            changes: ["relationshipAdded Post.sections", "entityAdded Section", "attributeAdded Post.softDeleted"]),
        Expectation(
            store: "wibosco-revised/CoreDataMigration_Example_2.sqlite", model: revised, version: nil,
            matched: "CoreDataMigration_Example 2", migration: .impossible, error: 134110,
            changes: ["relationshipAdded Post.sections"]),
        // Version 2's hexColor carries the renaming ID "color"; version 4's no longer does.
        Expectation(
            store: "wibosco-revised/CoreDataMigration_Example_1.sqlite", model: Self.revised, version: "CoreDataMigration_Example 2",
            matched: "CoreDataMigration_Example", migration: .lightweight, error: nil,
            changes: ["attributeRenamed Post.hexColor"]),
        // 3 → 4: a mandatory Boolean with default NO, and a uniqueness constraint on Section.
        Expectation(
            store: "wibosco-revised/CoreDataMigration_Example_3.sqlite", model: revised, version: nil,
            matched: "CoreDataMigration_Example 3", migration: .lightweight, error: nil,
            changes: ["attributeAdded Post.softDeleted", "entityChanged Section"]),
        // Model1 → Model3: only optional additions and removals, so inference works (the bundle's
        // mapping models go 1→2 and 2→3; Core Data does not chain them).
        Expectation(
            store: "bookmigration/Model1.sqlite", model: "bookmigration/Model.xcdatamodeld", version: nil,
            matched: "Model1", migration: .lightweight, error: nil,
            changes: ["entityAdded Author", "entityAdded File", "attributeRemoved Book.authorName", "relationshipAdded Book.authors"]),
        Expectation(
            store: "bookmigration/Model1.sqlite", model: "bookmigration/Model.xcdatamodeld", version: "Model2",
            matched: "Model1", migration: .mappingModel, error: nil, changes: []),
        // The current version is the first one, which wrote V1.
        Expectation(
            store: "cdplus-samplemodel/SampleModel_V1.sqlite", model: "cdplus-samplemodel/SampleModel.xcdatamodeld", version: nil,
            matched: "SampleModel", migration: .none, error: nil, changes: []),
        // Going back from 2 to 1: Person.id is mandatory without a default in version 1, and V2 has 20 people.
        Expectation(
            store: "cdplus-samplemodel/SampleModel_V2.sqlite", model: "cdplus-samplemodel/SampleModel.xcdatamodeld", version: nil,
            matched: "SampleModel2", migration: .impossible, error: 134110,
            changes: ["attributeAdded Person.id", "entityRenamed ExpensiveSportCar"]),
        // V2toV3.xcmappingmodel connects the store to SampleModel3.
        Expectation(
            store: "cdplus-samplemodel/SampleModel_V2.sqlite", model: "cdplus-samplemodel/SampleModel.xcdatamodeld", version: "SampleModel3",
            matched: "SampleModel2", migration: .mappingModel, error: nil,
            changes: ["entityAdded Maker", "attributeRemoved Car.maker"]),
        // The compiled bundle names the same versions.
        Expectation(
            store: "cdplus-samplemodel/SampleModel_V2.sqlite", model: "cdplus-samplemodel/SampleModel.momd", version: "SampleModel3",
            matched: "SampleModel2", migration: .mappingModel, error: nil, changes: ["entityAdded Maker"]),
        Expectation(
            store: "recipes-migration/Recipes.sqlite", model: "recipes-migration/Recipes.xcdatamodeld", version: nil,
            matched: "Recipes", migration: .none, error: nil, changes: []),
        // MappingModel.xcmappingmodel maps Recipes to Recipes 2 (which adds a mandatory chef).
        Expectation(
            store: "recipes-migration/Recipes.sqlite", model: "recipes-migration/Recipes.xcdatamodeld", version: "Recipes 2",
            matched: "Recipes", migration: .mappingModel, error: nil,
            changes: ["entityAdded Chef", "relationshipAdded Recipe.chef", "toOneToToMany Recipe.type"]),
    ]

    @Test(arguments: expectations)
    func verdict(_ expected: Expectation) throws {
        let report = try Compatibility.analyse(
            storePath: Corpus.copyStore(expected.store).path,
            modelPath: Corpus.url(expected.model).path, versionName: expected.version)
        #expect(report.matchedVersion == expected.matched)
        #expect(report.migration == expected.migration)
        #expect(report.compatible == (expected.migration == .none))
        #expect(report.expectedError == expected.error, "\(report.reason)")
        #expect(report.opens == (expected.error == nil))
        let reported = Set(report.changes.map { "\($0.kind.rawValue) \([$0.entity, $0.property].compactMap { $0 }.joined(separator: "."))" })
        for change in expected.changes {
            #expect(reported.contains(change), "missing \(change) in \(reported.sorted())")
        }
        #expect(report.changes.allSatisfy { $0.inferable })
        if expected.migration == .none { #expect(report.changes.isEmpty) }
    }

    @Test func mappingModelsNameTheirVersions() throws {
        let cases: [(String, String, String, String)] = [
            ("wibosco-migration/Migration1to2.xcmappingmodel", Self.wibosco, "CoreDataMigration_Example", "CoreDataMigration_Example 2"),
            ("wibosco-migration/Migration2to3.xcmappingmodel", Self.wibosco, "CoreDataMigration_Example 2", "CoreDataMigration_Example 3"),
            ("wibosco-revised/Migration2to3ModelMapping.xcmappingmodel", Self.revised, "CoreDataMigration_Example 2", "CoreDataMigration_Example 3"),
            ("bookmigration/Model1_to_Model2.xcmappingmodel", "bookmigration/Model.xcdatamodeld", "Model1", "Model2"),
            ("bookmigration/Model2_to_Model3.xcmappingmodel", "bookmigration/Model.xcdatamodeld", "Model2", "Model3"),
            ("bookmigration/Model2_to_Model3_User.xcmappingmodel", "bookmigration/Model.xcdatamodeld", "Model2", "Model3"),
            ("cdplus-samplemodel/V2toV3.xcmappingmodel", "cdplus-samplemodel/SampleModel.xcdatamodeld", "SampleModel2", "SampleModel3"),
            ("recipes-migration/MappingModel.xcmappingmodel", "recipes-migration/Recipes.xcdatamodeld", "Recipes", "Recipes 2"),
        ]
        for (mapping, model, source, destination) in cases {
            let info = try MigrationMappingModelReader.read(at: Corpus.url(mapping))
            let versions = try ModelFiles.versions(at: Corpus.url(model))
            #expect(info.sourceVersion(in: versions) == source, "\(mapping)")
            #expect(info.destinationVersion(in: versions) == destination, "\(mapping)")
        }
    }
}
