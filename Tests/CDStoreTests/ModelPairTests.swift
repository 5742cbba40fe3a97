import CDArchive
import CDMapping
import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Model/store pairs of the corpus: the hashes computed from the model files equal the hashes
/// Core Data stored in each store, and the test names the version that wrote each store.
@Suite(.temporaryDirectories) struct ModelPairTests {
    /// Store → (model bundle, the version whose XML reproduces the store's hashes).
    static let expectedVersions: [String: (model: String, version: String)] = [
        "apple-coredatabooks/CoreDataBooks.sqlite": ("apple-coredatabooks/CoreDataBooks.xcdatamodeld", "CoreDataBooks"),
        "apple-recipes/Recipes.sqlite": ("apple-recipes/Recipes.xcdatamodel", "Recipes"),
        "recipes-migration/Recipes.sqlite": ("recipes-migration/Recipes.xcdatamodeld", "Recipes"),
        "bookmigration/Model1.sqlite": ("bookmigration/Model.xcdatamodeld", "Model1"),
        "cdplus-samplemodel/SampleModel_V1.sqlite": ("cdplus-samplemodel/SampleModel.xcdatamodeld", "SampleModel"),
        "cdplus-samplemodel/SampleModel_V2.sqlite": ("cdplus-samplemodel/SampleModel.xcdatamodeld", "SampleModel2"),
        "cdplus-samplemodel3/SampleModel3_V1.sqlite": ("cdplus-samplemodel3/SampleModel3.xcdatamodeld", "SampleModel3"),
        "failedbankcd-seed/2013-12-12-wal/CoreDataTutorial2.sqlite": ("failedbankcd-seed/FailedBankCD.xcdatamodeld", "FailedBankCD"),
        "failedbankcd-seed/2013-12-13-single/CoreDataTutorial2.sqlite": ("failedbankcd-seed/FailedBankCD.xcdatamodeld", "FailedBankCD"),
        "wibosco-migration/CoreDataMigration_Example_1.sqlite": ("wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example"),
        "wibosco-migration/CoreDataMigration_Example_2.sqlite": ("wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 2"),
        "wibosco-migration/CoreDataMigration_Example_3.sqlite": ("wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 3"),
        "wibosco-migration/CoreDataMigration_Example_WAL.sqlite": ("wibosco-migration/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 4"),
        "wibosco-revised/CoreDataMigration_Example_1.sqlite": ("wibosco-revised/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example"),
        "wibosco-revised/CoreDataMigration_Example_2.sqlite": ("wibosco-revised/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 2"),
        "wibosco-revised/CoreDataMigration_Example_3.sqlite": ("wibosco-revised/CoreDataMigration_Example.xcdatamodeld", "CoreDataMigration_Example 3"),
    ]

    /// Stores whose corpus folder also holds a source model (`contents` XML or an Xcode 3
    /// `elements` archive), found
    /// by walking the corpus (so a new pair without an expectation fails `everyPairIsNamed`).
    static let discoveredPairs: [String] = Corpus.stores.filter { store in
        let folder = Corpus.url(String(store.prefix { $0 != "/" }))
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return false }
        return walker.compactMap { $0 as? String }.contains { $0.hasSuffix(".xcdatamodel/contents") || $0.hasSuffix(".xcdatamodel/elements") }
    }

    @Test func everyPairIsNamed() {
        #expect(Set(Self.discoveredPairs) == Set(Self.expectedVersions.keys))
    }

    @Test(arguments: discoveredPairs)
    func storeMatchesExactlyOneVersion(_ store: String) throws {
        let expected = try #require(Self.expectedVersions[store])
        let versions = try ModelFiles.versions(at: Corpus.url(expected.model))
        let stored = try StoreInspector.inspect(path: Corpus.copyStore(store).path, counts: false).metadata.versionHashes
        let matching = versions.filter { VersionHashes.entityHashes(of: $0.model).mapValues(\.hexString) == stored }
        #expect(matching.map(\.name) == [expected.version])
    }
}

/// Compiled bundles against their sources: the XML of each version hashes to the values in the
/// `.momd`'s VersionInfo.plist.
@Suite struct CompiledBundleSourceTests {
    static let bundles: [String] = Corpus.files(endingWith: ".momd").filter { momd in
        let folder = Corpus.url(momd).deletingLastPathComponent()
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).contains { $0.hasSuffix(".xcdatamodeld") }
    }

    private func versionInfoHashes(_ momd: String) throws -> [String: [String: String]] {
        let info = try PropertyList.decode(Data(contentsOf: Corpus.url(momd).appendingPathComponent("VersionInfo.plist")))
        var result: [String: [String: String]] = [:]
        for (version, hashes) in info["NSManagedObjectModel_VersionHashes"]?.dictionaryEntries ?? [] {
            result[version] = Dictionary(uniqueKeysWithValues: (hashes.dictionaryEntries ?? []).map { ($0.key, $0.value.dataValue?.hexString ?? "") })
        }
        return result
    }

    private func sourceBundle(of momd: String) throws -> URL {
        let folder = Corpus.url(momd).deletingLastPathComponent()
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".xcdatamodeld") })
        return folder.appendingPathComponent(name)
    }

    @Test func bundlesFound() {
        #expect(Self.bundles.count == 3)
    }

    @Test(arguments: bundles)
    func sourceVersionsHashLikeTheCompiledBundle(_ momd: String) throws {
        let expected = try versionInfoHashes(momd)
        let sources = try ModelFiles.versions(at: sourceBundle(of: momd))
        for source in sources where !(momd.hasPrefix("nintendoish") && source.name == "DataStore") {
            #expect(VersionHashes.entityHashes(of: source.model).mapValues(\.hexString) == expected[source.name], "\(source.name)")
        }
        #expect(Set(sources.map(\.name)) == Set(expected.keys))
    }

    /// Nintendoish's `DataStore.mom` was compiled from an older revision of the model that still had
    /// `Game.sha1` (docs/format/model-format.md §5.10 point 1): the XML differs from the `.mom` by
    /// that one attribute, and restoring it reproduces VersionInfo.plist's hash.
    @Test func nintendoishGameDiffersByOneRemovedAttribute() throws {
        let momd = "nintendoish-gamelibrary-model/GameLibrary.momd"
        let source = try #require(try ModelFiles.versions(at: sourceBundle(of: momd)).first { $0.name == "DataStore" })
        let compiled = try #require(try ModelFiles.versions(at: Corpus.url(momd)).first)
        let sourceGame = try #require(source.model.entity(named: "Game"))
        let compiledGame = try #require(compiled.model.entity(named: "Game"))
        let onlyCompiled = Set(compiledGame.properties.map(\.name)).subtracting(sourceGame.properties.map(\.name))
        let onlySource = Set(sourceGame.properties.map(\.name)).subtracting(compiledGame.properties.map(\.name))
        #expect(onlyCompiled == ["sha1"])
        #expect(onlySource.isEmpty)
        var restored = source.model
        let index = try #require(restored.entities.firstIndex { $0.name == "Game" })
        restored.entities[index].properties.append(compiledGame.properties.first { $0.name == "sha1" }!)
        let expected = try versionInfoHashes(momd)["DataStore"]
        #expect(VersionHashes.entityHashes(of: restored).mapValues(\.hexString) == expected)
        #expect(VersionHashes.entityHashes(of: source.model)["Rom"]?.hexString == expected?["Rom"])
    }
}

/// Every model/store pair of the corpus: the schema predicted from the model file alone, with
/// the store's framework version and no store at hand, is the store's `sqlite_master`.
@Suite(.temporaryDirectories, .tags(.corpusWide)) struct ModelPairPredictionCorpusWideTests {
    /// Reads the store's schema and framework version from a private copy, and predicts the
    /// mapping of the version that wrote it from its model file.
    /// `columnOrder` replaces the style of the store's framework version.
    private func prediction(for store: String, columnOrder: ColumnOrderStyle? = nil)
        throws -> (mapping: StoreMapping, schema: StoreSchema, frameworkVersion: Int)
    {
        let (model, schema, _, frameworkVersion) = try pair(store)
        var options = MappingOptions(frameworkVersion: frameworkVersion, history: .none)
        if let columnOrder { options.columnOrder = columnOrder }
        return (StoreMapping.predict(model: model, options: options), schema, frameworkVersion)
    }

    /// The model version that wrote `store`, and the schema, registry and framework version of
    /// a private copy of the store.
    private func pair(_ store: String) throws -> (model: ManagedObjectModel, schema: StoreSchema, registry: EntityRegistry, frameworkVersion: Int) {
        let expected = try #require(ModelPairTests.expectedVersions[store])
        let copy = try Corpus.copyStore(store)
        let snapshot = try StoreSnapshot(path: copy.path)
        let (schema, registry, metadata) = try snapshot.read { db in
            (try StoreSchema.read(db), try EntityRegistry.read(db), try StoreMetadata.read(db, path: copy.path))
        }
        let frameworkVersion = try #require(metadata.frameworkVersion)
        let version = try #require(try ModelFiles.versions(at: Corpus.url(expected.model)).first { $0.name == expected.version })
        return (version.model, schema, registry, frameworkVersion)
    }

    @Test func everyPairIsCovered() {
        #expect(ModelPairTests.discoveredPairs.count == 16)
    }

    /// Tables, columns, indexes and statement text; a store migrated in place may keep indexes
    /// of earlier versions, which the comparison explains.
    @Test(arguments: ModelPairTests.discoveredPairs)
    func modelFileAlonePredictsTheStore(_ store: String) throws {
        let (mapping, schema, _) = try prediction(for: store)
        let comparison = mapping.compare(with: schema)
        #expect(
            comparison.failures.isEmpty,
            "\(comparison.failures.map { "\($0.kind) \($0.name ?? $0.table): \($0.expected ?? "") | \($0.actual ?? "")" })")
        if !schema.showsMigrationHistory {
            #expect(comparison.matchesExactly, "\(comparison.differences.filter { $0.severity != .foreign })")
        }
    }

    /// Each column order style is needed: Recipes (241) contradicts name order in `ZRECIPE`, and
    /// bookmigration (419) and failedbankcd (481) contradict the dictionary order.
    @Test(arguments: [
        ("apple-recipes/Recipes.sqlite", ColumnOrderStyle.byName, "ZRECIPE"),
        ("bookmigration/Model1.sqlite", .hashTable, "ZBOOK"),
        ("failedbankcd-seed/2013-12-13-single/CoreDataTutorial2.sqlite", .hashTable, "ZFAILEDBANKINFO"),
    ])
    func theOtherColumnOrderFails(_ store: String, _ style: ColumnOrderStyle, _ table: String) throws {
        let (mapping, schema, frameworkVersion) = try prediction(for: store, columnOrder: style)
        #expect(ColumnOrderStyle(frameworkVersion: frameworkVersion) != style)
        #expect(mapping.compare(with: schema).failures.map { "\($0.kind) \($0.table)" } == ["columnOrder \(table)"])
    }

    /// The stores whose column order only the dictionary order gives (CoreDataBooks, also 230,
    /// has the same order either way).
    static let dictionaryOrderedStores: Set = ["apple-recipes/Recipes.sqlite", "recipes-migration/Recipes.sqlite"]

    /// With a store at hand the model file's mapping takes the store's column order style, so
    /// reading or recreating a store written before 640 keeps its column order.
    @Test(arguments: ModelPairTests.discoveredPairs)
    func resolvedMappingHasTheStoresColumnOrder(_ store: String) throws {
        let (model, schema, registry, _) = try pair(store)
        let resolved = StoreMapping.resolve(model: model, registry: registry, schema: schema)
        #expect(!resolved.compare(with: schema).differences.contains { $0.kind == .columnOrder })
        let noted = resolved.resolutions.contains { $0.rule == .columnOrder && $0.held == true }
        #expect(noted == Self.dictionaryOrderedStores.contains(store))
    }
}
