import CDArchive
import CDDiagnostics
@testable import CDMaintenance
import CDMapping
import CDModel
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

@Suite(.temporaryDirectories) struct StoreCreatorTests {
    /// Corpus stores that no migration reshaped, with the model source version that wrote them:
    /// frameworks 241 to 1344, both statement orders; 241 (Recipes) with the columns of one
    /// type in dictionary order (``ColumnOrderStyle/hashTable``). Framework 230 (CoreDataBooks)
    /// is not reproduced: it creates the bookkeeping tables before the entity tables, and 241
    /// after them, the one version seen each way.
    static let pairs: [(store: String, model: String, version: String)] = [
        ("apple-recipes/Recipes.sqlite", "apple-recipes/Recipes.xcdatamodel", "Recipes"),
        ("cdplus-samplemodel3/SampleModel3_V1.sqlite", "cdplus-samplemodel3/SampleModel3.xcdatamodeld", "SampleModel3"),
        ("failedbankcd-seed/2013-12-12-wal/CoreDataTutorial2.sqlite", "failedbankcd-seed/FailedBankCD.xcdatamodeld", "FailedBankCD"),
        ("wibosco-migration/CoreDataMigration_Example_WAL.sqlite", "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 4"),
        ("cdplus-samplemodel/SampleModel_V1.sqlite", "cdplus-samplemodel/SampleModel.xcdatamodeld", "SampleModel"),
        ("bookmigration/Model1.sqlite", "bookmigration/Model.xcdatamodeld", "Model1"),
    ]

    /// A store created from the app's model file, with the framework version of a store Core
    /// Data wrote for that model, has that store's statements (text for text, in order), its
    /// `Z_PRIMARYKEY` rows and its metadata hashes, digest and checksum.
    @Test(arguments: 0..<pairs.count)
    func freshStoreFromModelFileEqualsCoreDataStore(_ index: Int) throws {
        let pair = Self.pairs[index]
        let original = try StoreSnapshot(path: Corpus.copyStore(pair.store).path)
        let (metadata, registry, statements) = try original.read { db in
            (
                try StoreMetadata.read(db, path: original.files.main.path), try EntityRegistry.read(db),
                try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
            )
        }
        let version = try #require(try ModelFiles.versions(at: Corpus.url(pair.model)).first { $0.name == pair.version })
        let target = try TemporaryDirectory.make().appendingPathComponent("new.sqlite")
        try StoreCreator.create(.fresh(model: version.model, frameworkVersion: try #require(metadata.frameworkVersion)), at: target.path)

        let created = try StoreSnapshot(path: target.path)
        let (newMetadata, newRegistry, newStatements) = try created.read { db in
            (
                try StoreMetadata.read(db, path: target.path), try EntityRegistry.read(db),
                try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
            )
        }
        #expect(newStatements == statements.filter(newStatements.contains))
        #expect(Set(newStatements) == Set(statements))
        #expect(newRegistry.entities.map { [$0.ent, $0.superEnt] } == registry.entities.map { [$0.ent, $0.superEnt] })
        #expect(newRegistry.entities.map(\.name) == registry.entities.map(\.name))
        #expect(newMetadata.versionHashes == metadata.versionHashes)
        #expect(newMetadata.hashesDigest == metadata.hashesDigest)
        #expect(newMetadata.checksum == metadata.checksum)
        #expect(newMetadata.versionIdentifiers == metadata.versionIdentifiers)
        #expect(newMetadata.storeType == "SQLite")
        #expect(newMetadata.hashesVersion == 3)
    }

    /// Every Samples schema version becomes a store whose metadata and cache agree with the
    /// model (inspect finds no mismatch) and which validate finds nothing wrong with.
    @Test(arguments: ["Articles", "Employees", "FailedBank", "TaskList", "ToDo"])
    func sampleSchemasMakeConsistentStores(_ app: String) throws {
        let versions = try ModelFiles.versions(at: Corpus.repositoryRoot.appendingPathComponent("Samples/schemas/\(app)"))
        #expect(versions.count == 2)
        for version in versions {
            let target = try TemporaryDirectory.make().appendingPathComponent("\(app).sqlite")
            let summary = try StoreCreator.create(.fresh(model: version.model), at: target.path)
            #expect(summary.frameworkVersion == FrameworkFeatures.defaultVersion)
            let inspection = try StoreInspector.inspect(path: target.path, counts: true)
            let hashes = VersionHashes.entityHashes(of: version.model)
            #expect(inspection.metadata.versionHashes == hashes.mapValues(\.hexString))
            #expect(inspection.metadata.hashesDigest == VersionHashes.digest(of: hashes))
            #expect(inspection.metadata.checksum == VersionHashes.checksum(of: hashes))
            let report = try StoreValidator.validate(try StoreSnapshot(path: target.path))
            #expect(!report.hasProblems)
            #expect(report.objects == 0)
        }
    }

    /// Old framework versions leave out what they did not write yet (store-format.md §3, §5).
    /// The model cache starts at 640 (``MappingOptions/firstModelCacheVersion``): 519 and
    /// earlier write none, real stores of 640, 641 and 752 have one.
    @Test func frameworkVersionDecidesOptionalParts() throws {
        let model = try #require(try ModelFiles.versions(at: Corpus.repositoryRoot.appendingPathComponent("Samples/schemas/ToDo")).last?.model)
        let directory = try TemporaryDirectory.make()
        for (version, cache, digest, checksum) in [
            (519, false, false, false), (639, false, false, false),
            (640, true, false, false), (641, true, false, false),
            (752, true, false, false), (866, true, false, false),
            (1244, true, true, false), (1344, true, true, true),
        ] {
            let path = directory.appendingPathComponent("v\(version).sqlite").path
            let summary = try StoreCreator.create(.fresh(model: model, frameworkVersion: version), at: path)
            #expect((summary.modelCacheBytes != nil) == cache, "\(version)")
            let hasTable = try StoreSnapshot(path: path).read { db in try db.tableExists("Z_MODELCACHE") }
            #expect(hasTable == cache, "\(version)")
            let metadata = try StoreSnapshot(path: path).read { db in try StoreMetadata.read(db, path: path) }
            #expect(metadata.frameworkVersion == version)
            #expect((metadata.hashesDigest != nil) == digest, "\(version)")
            #expect((metadata.checksum != nil) == checksum, "\(version)")
        }
    }

    /// An existing file is never overwritten and no temporary file is left behind.
    @Test func refusesExistingFileAndLeavesNothingBehind() throws {
        let model = try #require(try ModelFiles.versions(at: Corpus.repositoryRoot.appendingPathComponent("Samples/schemas/ToDo")).last?.model)
        let directory = try TemporaryDirectory.make()
        let target = directory.appendingPathComponent("ToDo.sqlite")
        try Data("not a store".utf8).write(to: target)
        #expect(throws: MaintenanceError.destinationExists(path: target.path)) { try StoreCreator.create(.fresh(model: model), at: target.path) }
        #expect(try Data(contentsOf: target) == Data("not a store".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ToDo.sqlite"])
        let missing = directory.appendingPathComponent("no/such/dir/ToDo.sqlite")
        let error = #expect(throws: MaintenanceError.noSuchFolder(path: missing.deletingLastPathComponent().path)) {
            try StoreCreator.create(.fresh(model: model), at: missing.path)
        }
        #expect(error?.message == "\(missing.deletingLastPathComponent().path): no such directory")
    }
}
