import CDDiagnostics
import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Compiled mapping models (`.cdm`), which the corpus lacks: `Tests/Fixtures/mapping/Wibosco2to3.cdm`
/// is built by its `make-fixtures.py` from the hashes Core Data wrote into wibosco's stores.
@Suite(.temporaryDirectories) struct CompatibilityMigrationMappingTests {
    static let cdm = Golden.fixtures.appendingPathComponent("mapping/Wibosco2to3.cdm")
    static let bundle = "wibosco-migration/CoreDataMigration_Example.xcdatamodeld"

    @Test func compiledMappingNamesItsVersionsByHash() throws {
        let info = try MigrationMappingModelReader.read(at: Self.cdm)
        #expect(info.sourceHashes.keys.sorted() == ["Post"])
        #expect(info.destinationHashes.keys.sorted() == ["Color", "Post"])
        #expect(info.sourcePathVersion == nil)
        let versions = try ModelFiles.versions(at: Corpus.url(Self.bundle))
        #expect(info.sourceVersion(in: versions) == "CoreDataMigration_Example 2")
        #expect(info.destinationVersion(in: versions) == "CoreDataMigration_Example 3")
    }

    /// A `.cdm` inside the bundle connects store 2 to version 3, so migration without inference works.
    @Test func compiledMappingInsideTheBundleIsUsed() throws {
        let folder = try TemporaryDirectory.make()
        let bundle = folder.appendingPathComponent("Model.xcdatamodeld")
        try FileManager.default.copyItem(at: Corpus.url(Self.bundle), to: bundle)
        try FileManager.default.copyItem(at: Self.cdm, to: bundle.appendingPathComponent("Wibosco2to3.cdm"))
        let store = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_2.sqlite").path
        let report = try Compatibility.analyse(
            storePath: store, modelPath: bundle.path,
            versionName: "CoreDataMigration_Example 3", options: .migrate)
        #expect(report.expectedError == nil, "\(report.reason)")
        #expect(report.mappingModels.map(\.connectsStoreToCurrent) == [true])
        let toFour = try Compatibility.analyse(storePath: store, modelPath: bundle.path, options: .migrate)
        #expect(toFour.expectedError == 134140)
    }

    @Test func unreadableMappingIsOneLine() throws {
        let folder = try TemporaryDirectory.make()
        let model = folder.appendingPathComponent("Model.xcdatamodeld")
        try FileManager.default.copyItem(at: Corpus.url(Self.bundle), to: model)
        try Data("not an archive".utf8).write(to: folder.appendingPathComponent("Broken.cdm"))
        let store = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_2.sqlite").path
        let error = try #require(throws: MigrationMappingModelReader.Failure.self) {
            try Compatibility.analyse(storePath: store, modelPath: model.path)
        }
        #expect(error.description.contains("Broken.cdm: not a compiled mapping model"))
        #expect(!error.description.contains("\n"))
    }
}
