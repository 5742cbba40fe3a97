import CDTestSupport
import Foundation
import Testing

/// The stores in `Samples/Stores`, built by `scripts/build-samples.sh` with `cdstore create
/// --import` from `Samples/schemas` and `Samples/seeds`: each is valid, carries its schema
/// version's hashes, equals a fresh build from its seed, and the old one gives the documented
/// compat verdict.
@Suite(.temporaryDirectories) struct SamplesTests {
    struct Sample: Sendable, CustomStringConvertible {
        let store: String
        let app: String
        let version: String
        let seed: String
        /// Passed to `create` as `--version`; the current version needs none.
        let explicitVersion: Bool
        var description: String { store }
    }

    /// What `scripts/build-samples.sh` builds, and from what.
    static let samples: [Sample] = [
        Sample(store: "TaskList.sqlite", app: "TaskList", version: "0002 add due date", seed: "TaskList.json", explicitVersion: false),
        Sample(store: "Articles.sqlite", app: "Articles", version: "0002 add author email", seed: "Articles.json", explicitVersion: false),
        Sample(store: "FailedBank.sqlite", app: "FailedBank", version: "0002 add acquiring institution", seed: "FailedBank.json", explicitVersion: false),
        Sample(store: "Employees.sqlite", app: "Employees", version: "0002 add hire date", seed: "Employees.json", explicitVersion: false),
        Sample(store: "ToDo.sqlite", app: "ToDo", version: "0002 add done", seed: "ToDo.json", explicitVersion: false),
        Sample(store: "Articles-0001.sqlite", app: "Articles", version: "0001 initial", seed: "Articles-0001.json", explicitVersion: true),
    ]

    static let samplesFolder = Corpus.repositoryRoot.appendingPathComponent("Samples", isDirectory: true)

    static func schema(_ sample: Sample) -> String {
        samplesFolder.appendingPathComponent("schemas/\(sample.app)").path
    }

    /// A copy of the committed store in a fresh temporary directory.
    static func copy(_ sample: Sample) throws -> URL {
        let directory = try TemporaryDirectory.make()
        let target = directory.appendingPathComponent(sample.store)
        try FileManager.default.copyItem(at: samplesFolder.appendingPathComponent("Stores/\(sample.store)"), to: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        return target
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// `dump --format json` with the store's UUID replaced, so two builds of one seed compare equal.
    static func dumpWithoutUUID(_ store: URL) throws -> String {
        let inspect = CommandRunner.runInProcess(["inspect", store.path, "--json"])
        let metadata = try #require(try json(inspect.stdout)["metadata"] as? [String: Any])
        let uuid = try #require(metadata["storeUUID"] as? String)
        let dump = CommandRunner.runInProcess(["dump", store.path, "--format", "json"])
        #expect(dump.status == 0, "\(dump.stderr)")
        return dump.stdout.replacingOccurrences(of: "x-coredata://\(uuid)/", with: "x-coredata://STORE-UUID/")
    }

    @Test func everyCommittedStoreIsListed() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.samplesFolder.appendingPathComponent("Stores").path)
        #expect(files.sorted() == Self.samples.map(\.store).sorted())
    }

    @Test(arguments: samples)
    func validates(_ sample: Sample) throws {
        let result = CommandRunner.runInProcess(["validate", try Self.copy(sample).path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Result: no problems found."))
    }

    /// The store's metadata holds exactly the hashes and digest `model --hashes` computes for its version.
    @Test(arguments: samples)
    func hashesMatchTheSchemaVersion(_ sample: Sample) throws {
        let inspect = CommandRunner.runInProcess(["inspect", try Self.copy(sample).path, "--json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try Self.json(inspect.stdout)
        let metadata = try #require(report["metadata"] as? [String: Any])
        #expect(metadata["hashesDigestMatches"] as? Bool == true)
        #expect(metadata["versionIdentifiers"] as? [String] == [sample.version])
        #expect((report["modelCache"] as? [String: Any])?["hashesMatch"] as? Bool == true)

        let model = CommandRunner.runInProcess(["model", Self.schema(sample), "--version", sample.version, "--hashes", "--json"])
        #expect(model.status == 0, "\(model.stderr)")
        let versions = try #require(try Self.json(model.stdout)["versions"] as? [[String: Any]])
        let version = try #require(versions.first)
        #expect(versions.count == 1)
        #expect(version["name"] as? String == sample.version)
        #expect(version["entityHashes"] as? [String: String] == metadata["versionHashes"] as? [String: String])
        #expect(version["versionHashesDigest"] as? String == metadata["hashesDigest"] as? String)
    }

    /// Building the store again from its seed, as the script does, dumps the same objects: the
    /// committed stores cannot drift from the seeds.
    @Test(arguments: samples)
    func rebuildsFromItsSeed(_ sample: Sample) throws {
        let rebuilt = try TemporaryDirectory.make().appendingPathComponent(sample.store)
        let seed = Self.samplesFolder.appendingPathComponent("seeds/\(sample.seed)").path
        let version = sample.explicitVersion ? ["--version", sample.version] : []
        let create = CommandRunner.runInProcess(["create", rebuilt.path, "--model", Self.schema(sample), "--import", seed] + version)
        #expect(create.status == 0, "\(create.stdout)\(create.stderr)")
        let committed = try Self.dumpWithoutUUID(try Self.copy(sample))
        #expect(committed.contains("x-coredata://STORE-UUID/"))
        #expect(try Self.dumpWithoutUUID(rebuilt) == committed)
    }

    static let compatSample = samples.first { $0.store == "Articles-0001.sqlite" }!

    /// The compat demo of Samples/README.md and README.md: version 0001 wrote the store, 0002 adds
    /// an optional attribute, so the app needs (and gets) an inferred lightweight migration.
    @Test func compatDemoNeedsAnInferredMigration() throws {
        let store = try Self.copy(Self.compatSample)
        let text = CommandRunner.runInProcess(["compat", store.path, "--model", Self.schema(Self.compatSample)])
        #expect(text.status == 0)
        // The headline, then two lines that name the store and the model by path.
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines.prefix(2) == [
                "Opens: yes, after lightweight migration (needs NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption)", "",
            ])
        #expect(lines.dropFirst(2).first?.hasPrefix("Store:            /") == true)
        #expect(lines.dropFirst(2).first?.hasSuffix("/Articles-0001.sqlite") == true)
        #expect(lines.dropFirst(3).first?.hasSuffix("/Samples/schemas/Articles") == true)
        let expected = """
            Written by:       0001 initial
            Current version:  0002 add author email
            Options assumed:  infer

            The store was written by version 0001 initial; lightweight migration to 0002 add author email can be inferred, so it opens when the app passes NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption (CDQ, MagicalRecord and RHManagedObject set both). Without NSMigratePersistentStoresAutomaticallyOption the app gets 134100 (the model is incompatible with the one that created the store).

            Changes from 0001 initial to 0002 add author email:
              attributeAdded Author.email: new optional attribute
                fix: none needed

            """
        #expect(lines.dropFirst(4).joined(separator: "\n") == expected)

        let json = CommandRunner.runInProcess(["compat", store.path, "--model", Self.schema(Self.compatSample), "--json"])
        #expect(json.status == 0)
        let report = try Self.json(json.stdout)
        #expect(report["matchedVersion"] as? String == "0001 initial")
        #expect(report["currentVersion"] as? String == "0002 add author email")
        #expect(report["compatible"] as? Bool == false)
        #expect(report["opens"] as? Bool == true)
        #expect(report["migration"] as? String == "lightweight")
        #expect(report["expectedError"] is NSNull)
        let changes = try #require(report["changes"] as? [[String: Any]])
        #expect(changes.count == 1)
        #expect(changes.first?["kind"] as? String == "attributeAdded")
        #expect(changes.first?["entity"] as? String == "Author")
        #expect(changes.first?["property"] as? String == "email")
        #expect(changes.first?["inferable"] as? Bool == true)

        let none = CommandRunner.runInProcess(["compat", store.path, "--model", Self.schema(Self.compatSample), "--options", "none", "--json"])
        #expect(none.status == 1)
        #expect(try Self.json(none.stdout)["expectedError"] as? Int == 134100)
        #expect(try Self.json(none.stdout)["opens"] as? Bool == false)
    }

    /// The current version's store opens as it is.
    @Test func currentStoreIsCompatible() throws {
        let sample = try #require(Self.samples.first { $0.store == "Articles.sqlite" })
        let result = CommandRunner.runInProcess(["compat", try Self.copy(sample).path, "--model", Self.schema(sample), "--json"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try Self.json(result.stdout)
        #expect(report["compatible"] as? Bool == true)
        #expect(report["opens"] as? Bool == true)
        #expect(report["migration"] as? String == "none")
        #expect(report["matchedVersion"] as? String == "0002 add author email")
    }
}
