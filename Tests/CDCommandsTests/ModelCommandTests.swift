import CDTestSupport
import Foundation
import GRDB
import Testing

/// `cdstore model` on each kind of source, end to end.
@Suite(.temporaryDirectories) struct ModelCommandTests {
    private func hashes(_ arguments: [String]) throws -> [(name: String, current: Bool, hashes: [String: String])] {
        let result = CommandRunner.runInProcess(["model", "--hashes", "--json"] + arguments)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (json["versions"] as? [[String: Any]] ?? []).map {
            ($0["name"] as? String ?? "", $0["current"] as? Bool ?? false, $0["entityHashes"] as? [String: String] ?? [:])
        }
    }

    @Test func everyVersionOfASourceBundle() throws {
        let versions = try hashes([Corpus.url("wibosco-migration/CoreDataMigration_Example.xcdatamodeld").path])
        #expect(
            versions.map(\.name) == [
                "CoreDataMigration_Example", "CoreDataMigration_Example 2",
                "CoreDataMigration_Example 3", "CoreDataMigration_Example 4",
            ])
        #expect(versions.map(\.current) == [false, false, false, true])
    }

    @Test func compiledBundleNamesItsCurrentVersion() throws {
        let versions = try hashes([Corpus.url("cdplus-samplemodel/SampleModel.momd").path])
        #expect(versions.map(\.name) == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(versions.filter(\.current).map(\.name) == ["SampleModel"])
    }

    /// The same model from its source, its compiled form and the store it wrote hashes the same.
    @Test func sameModelFromThreeSources() throws {
        let store = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite")
        let fromStore = try hashes([store.path])
        let fromSource = try hashes(["--version", "SampleModel2", Corpus.url("cdplus-samplemodel/SampleModel.xcdatamodeld").path])
        let fromMom = try hashes([Corpus.url("cdplus-samplemodel/SampleModel.momd/SampleModel2.mom").path])
        #expect(fromStore.count == 1 && fromSource.count == 1 && fromMom.count == 1)
        #expect(fromStore[0].hashes == fromSource[0].hashes)
        #expect(fromMom[0].hashes == fromSource[0].hashes)
        #expect(fromSource[0].hashes.count == 4)
    }

    @Test func unknownVersionListsTheVersions() throws {
        let path = Corpus.url("cdplus-samplemodel/SampleModel.xcdatamodeld").path
        let result = CommandRunner.runInProcess(["model", path, "--version", "Nope"])
        #expect(result.status == 2)
        #expect(result.stderr == "cdstore: error: \(path) has no version named \"Nope\"; versions: \"SampleModel\", \"SampleModel2\", \"SampleModel3\"\n")
    }

    /// `--format xcdatamodel` of a store's cache, saved as a bundle and read again: same hashes.
    @Test func xcdatamodelRoundTripThroughFiles() throws {
        let store = try Corpus.copyStore("osxphotos-photos-15.4.1/Photos.sqlite")
        let xml = CommandRunner.runInProcess(["model", "--format", "xcdatamodel", store.path])
        #expect(xml.status == 0)
        let bundle = try TemporaryDirectory.make().appendingPathComponent("Photos.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try xml.stdout.write(to: bundle.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let original = try hashes([store.path])
        let reloaded = try hashes([bundle.path])
        #expect(original[0].hashes.count == 68)
        #expect(reloaded[0].hashes == original[0].hashes)
    }

    @Test func lintExitsOneWithFindings() throws {
        let result = CommandRunner.runInProcess(["model", "--lint", Corpus.url("mogenerator-test-models/test.xcdatamodel").path])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("Version test (current): 3 findings\n"))
        let clean = CommandRunner.runInProcess(["model", "--lint", Corpus.url("wibosco-migration/CoreDataMigration_Example.xcdatamodeld").path])
        #expect(clean.status == 0)
    }

    /// Xcode 3 bundles (a binary `elements` file, no `contents`) load like any other source.
    @Test func legacyModelLoads() throws {
        let result = CommandRunner.runInProcess(["model", Corpus.url("apple-recipes/Recipes.xcdatamodel").path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.hasPrefix("Version Recipes (current)\n"))
        #expect(result.stdout.contains("\n  RecipeType\n    name: String"))
    }

    @Test func conflictingOptionsAreUsageErrors() throws {
        let result = CommandRunner.runInProcess(["model", "x", "--format", "xcdatamodel", "--hashes"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--format xcdatamodel cannot be combined with --hashes, --sql, --lint or --json"))
    }
}

/// `model --format dot|mermaid|svg`: the pictures of two models, as golden files (the SVG ones
/// shared with CDModelTests' ModelDiagramSVGTests). Core Data Editor's
/// iOS example has an abstract entity, inheritance, ordered to-many relationships with counts,
/// cascade rules and a relationship to its own entity; the README's picture is CoreDataPlus's
/// SampleModel3 from Samples/.
@Suite struct ModelDiagramCommandTests {
    static let models: [(golden: String, arguments: [String])] = [
        ("model/ios-example", [Corpus.url("core-data-editor-models/iOS_Example.xcdatamodel").path]),
        (
            "model/samplemodel3",
            [
                Corpus.repositoryRoot.appendingPathComponent("Samples/CoreDataPlus/SampleModel.xcdatamodeld").path,
                "--version", "SampleModel3",
            ]
        ),
    ]

    @Test(arguments: ["dot", "mermaid", "svg"])
    func goldenPictures(format: String) throws {
        for (golden, arguments) in Self.models {
            let result = CommandRunner.runInProcess(["model", "--format", format] + arguments)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let name = golden + ["dot": ".dot", "mermaid": ".mmd", "svg": ".svg"][format, default: ""]
            #expect(result.stdout == (try Golden.expected(name, actual: result.stdout)), "\(name)")
        }
    }

    /// A bundle's picture is of its current version, unless --version names another.
    @Test func currentVersionByDefault() throws {
        let bundle = Corpus.repositoryRoot.appendingPathComponent("Samples/CoreDataPlus/SampleModel.xcdatamodeld").path
        let current = CommandRunner.runInProcess(["model", "--format", "mermaid", bundle])
        #expect(current.status == 0)
        #expect(!current.stdout.contains("class Maker"))
        #expect(current.stdout.contains("\n  class ExpensiveSportCar {\n"))
    }

    @Test func picturesAreOneFormatOnly() throws {
        let result = CommandRunner.runInProcess(["model", "x", "--format", "dot", "--hashes"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--format dot cannot be combined with --hashes, --sql, --lint or --json"))
    }
}

@Suite struct VersionFlagTests {
    @Test func rootVersion() throws {
        let result = CommandRunner.runInProcess(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "cdstore 0.1.0\n")
    }
}

@Suite(.temporaryDirectories) struct ModelSQLTests {
    /// The mapping of a store's cached model, resolved against its own schema, is its DDL.
    @Test func storeSQLIsItsSchema() throws {
        let store = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let result = CommandRunner.runInProcess(["model", "--sql", store.path])
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                "CREATE TABLE ZPOST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOLOR INTEGER, ZDATE TIMESTAMP, ZPOSTID VARCHAR );\n"))
        #expect(result.stdout.contains("CREATE INDEX ZCOLOR_ZPOST_INDEX ON ZCOLOR (ZPOST);\n"))
        #expect(result.stdout.hasPrefix("-- entityNumbering: Z_PRIMARYKEY numbers equal the computed order [held]\n"))
    }

    @Test func jsonContract() throws {
        let result = CommandRunner.runInProcess([
            "model", "--sql", "--json", Corpus.url("cdplus-samplemodel/SampleModel.xcdatamodeld").path, "--version", "SampleModel2",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let tables = try #require(json["tables"] as? [[String: Any]])
        let car = try #require(tables.first { $0["name"] as? String == "ZCAR" })
        let columns = (car["columns"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(columns.prefix(3) == ["Z_PK", "Z_ENT", "Z_OPT"])
        let indexes = (car["indexes"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(indexes.contains("ZCAR_Z_ENT_INDEX"))
        #expect(tables.contains { $0["name"] as? String == "Z_PRIMARYKEY" })
    }

    /// A model file is mapped by the rules of `--framework-version` (default the newest): 754
    /// writes one-property uniqueness on the column, 519 has no model cache. A store's own
    /// schema decides, so the option is refused there.
    @Test func frameworkVersionChoosesTheRules() throws {
        let model = Corpus.url("cdplus-samplemodel/SampleModel.xcdatamodeld").path
        let newest = CommandRunner.runInProcess(["model", "--sql", model, "--version", "SampleModel2"])
        #expect(newest.stdout.contains("CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC);\n"))
        #expect(newest.stdout.contains("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);\n"))
        let old = CommandRunner.runInProcess(["model", "--sql", model, "--version", "SampleModel2", "--framework-version", "754"])
        #expect(old.status == 0, "stderr: \(old.stderr)")
        #expect(old.stdout.contains(" ZNUMBERPLATE VARCHAR UNIQUE") && !old.stdout.contains("Z_Car_UNIQUE_numberPlate"))
        let oldest = CommandRunner.runInProcess(["model", "--sql", model, "--version", "SampleModel2", "--framework-version", "519"])
        #expect(!oldest.stdout.contains("Z_MODELCACHE"))
        // Before 754 each table's indexes follow it.
        let lines = oldest.stdout.split(separator: "\n")
        let car = try #require(lines.firstIndex { $0.hasPrefix("CREATE TABLE ZCAR ") })
        #expect(lines[car + 1].hasPrefix("CREATE INDEX ZCAR_"))
        let store = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V1.sqlite")
        let refused = CommandRunner.runInProcess(["model", "--sql", store.path, "--framework-version", "754"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--framework-version applies to model files"))
        let misplaced = CommandRunner.runInProcess(["model", model, "--framework-version", "754"])
        #expect(misplaced.stderr.contains("--framework-version goes with --sql"))
    }

    /// Before 419 the columns of one type follow the entity's dictionaries: the Recipes model
    /// at 241 gives the Recipes store's own `ZRECIPE`, and text and JSON say the rule is inferred.
    @Test func oldFrameworkColumnOrderIsTheStoresAndMarkedUncertain() throws {
        let model = Corpus.url("apple-recipes/Recipes.xcdatamodel").path
        let store = try Corpus.copyStore("apple-recipes/Recipes.sqlite")
        let stored = try DatabaseQueue(path: store.path).read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'ZRECIPE'")
        }
        let text = CommandRunner.runInProcess(["model", "--sql", model, "--framework-version", "241"])
        #expect(text.status == 0, "stderr: \(text.stderr)")
        #expect(text.stdout.contains(try #require(stored) + ";\n"))
        #expect(text.stdout.contains("-- columnOrder: columns of one type in the order of the entity's attribute, then relationship, dictionary"))
        let json = CommandRunner.runInProcess(["model", "--sql", "--json", model, "--framework-version", "241"])
        let mapping = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let notes = (mapping["resolutions"] as? [[String: Any]] ?? []).filter { $0["rule"] as? String == "columnOrder" }
        #expect(notes.count == 1)
        #expect((notes.first?["detail"] as? String ?? "").hasSuffix("uncertain"))
        let newest = CommandRunner.runInProcess(["model", "--sql", model])
        #expect(newest.stdout.contains("ZTYPE INTEGER, ZINSTRUCTIONS VARCHAR, ZNAME VARCHAR, ZOVERVIEW VARCHAR, ZPREPTIME VARCHAR,"))
        #expect(!newest.stdout.contains("-- columnOrder:"))
    }

    @Test func optionsExcludeEachOther() throws {
        let result = CommandRunner.runInProcess(["model", "x", "--sql", "--hashes"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("choose one of --hashes, --sql and --lint"))
    }
}
