import CDMaintenance
import CDTestSupport
import Foundation
import Testing

/// Every `--json` output, run for real on copies of the corpus and sample stores, conforms to its
/// schema under `schemas/`: the schemas are the documented contract, and these tests keep the
/// tool to it (no Swift enum coding such as `{"attribute": {"_0": …}}` can slip in).
@Suite(.temporaryDirectories) struct JSONSchemaContractTests {
    static let folder = Corpus.repositoryRoot.appendingPathComponent("schemas", isDirectory: true)

    static let samplesFolder = Corpus.repositoryRoot.appendingPathComponent("Samples", isDirectory: true)
    static let wibosco = Corpus.url("wibosco-migration/CoreDataMigration_Example.xcdatamodeld").path

    /// Checks that `output` is one JSON document conforming to `schema` (at `pointer` in it).
    static func expectConforms(
        _ output: String, to schema: String, at pointer: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let validator = try JSONSchemaValidator(file: schema, in: folder, at: pointer)
        let problems = try validator.problems(in: JSONValue(parsing: output))
        #expect(problems == [], "\(schema)\(pointer): \(problems.prefix(10).joined(separator: "\n"))", sourceLocation: sourceLocation)
    }

    /// Checks every line of NDJSON `output` (at least one) against `schema` at `pointer`.
    static func expectLinesConform(
        _ output: String, to schema: String, at pointer: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let lines = output.split(separator: "\n")
        #expect(!lines.isEmpty, "no output to check", sourceLocation: sourceLocation)
        for line in lines { try expectConforms(String(line), to: schema, at: pointer, sourceLocation: sourceLocation) }
    }

    /// Runs `arguments` in-process, expects one of `statuses`, and returns standard output.
    static func run(
        _ arguments: [String], statuses: Set<Int32> = [0], stdin: Data = Data(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        let result = CommandRunner.runInProcess(arguments, stdin: stdin)
        #expect(
            statuses.contains(result.status), "\(arguments.joined(separator: " ")): status \(result.status), \(result.stderr)",
            sourceLocation: sourceLocation)
        return result.stdout
    }

    /// `trace --json` on every trace fixture (each finding kind, real excerpts) and on
    /// cdstore's own log of a corpus store read with its names and plans.
    @Test func traceReports() throws {
        let folder = Golden.fixtures.appendingPathComponent("trace", isDirectory: true)
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".log") && $0 != "no-core-data.log" }
        #expect(logs.count >= 12)
        for log in logs.sorted() {
            try Self.expectConforms(Self.run(["trace", folder.appendingPathComponent(log).path, "--json"]), to: "trace.schema.json")
        }
        let store = try Corpus.copyStore("plaso-accounts3/Accounts3.sqlite")
        let traced = CommandRunner.runInProcess(["query", store.path, "Account where username == 'x'", "--sql-debug", "4"])
        try Self.expectConforms(Self.run(["trace", "-", "--json", "--store", store.path], stdin: Data(traced.stderr.utf8)), to: "trace.schema.json")
    }

    @Test func everySchemaIsCheckedAndDocumented() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(
            files == [
                "clean.schema.json", "compat.schema.json", "create.schema.json", "diff-line.schema.json", "diff.schema.json",
                "dump.schema.json", "explain.schema.json",
                "find.schema.json", "history.schema.json", "inspect.schema.json", "model-hashes.schema.json",
                "model-lint.schema.json", "model-sql.schema.json", "model.schema.json", "reset.schema.json",
                "rows.schema.json", "serve-compat.schema.json", "serve-diff.schema.json", "serve-entity.schema.json", "serve-error.schema.json",
                "serve-event.schema.json", "serve-explain.schema.json", "serve-history.schema.json", "serve-members.schema.json", "serve-model.schema.json",
                "serve-object.schema.json", "serve-store.schema.json", "serve-stores.schema.json", "serve-validate.schema.json", "sql.schema.json",
                "trace.schema.json", "validate.schema.json", "wal-changes.schema.json", "wal-recovered.schema.json", "wal.schema.json", "watch.schema.json",
            ])
        // This suite checks them all but watch's, which the watch test checks on its live output,
        // and serve's, which the server's tests check on its answers.
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try [
            "JSONSchemaContractTests.swift", "ChangesCommandTests.swift", "../CDServeTests/ServeRouteTests.swift", "../CDServeTests/ServePagesTests.swift",
            "../CDServeTests/ServeLiveTests.swift",
        ]
        .map { try String(contentsOf: tests.appendingPathComponent($0), encoding: .utf8) }.joined()
        let manPage = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("man/cdstore.1"), encoding: .utf8)
        for file in files {
            #expect(source.contains("\"\(file)\""), "\(file) is checked against no output")
            #expect(manPage.contains("Schema: schemas/\(file)"), "man/cdstore.1 does not point at \(file)")
        }
    }

    // MARK: wal

    /// A log with a model cache (entities named) and one without (entities null), each report
    /// also rejected once altered.
    @Test func wal() throws {
        let validator = try JSONSchemaValidator(file: "wal.schema.json", in: Self.folder)
        for store in ["wibosco-migration/CoreDataMigration_Example_WAL.sqlite", "failedbankcd-seed/2013-12-12-wal/CoreDataTutorial2.sqlite"] {
            let copy = try Corpus.copyStore(store)
            let output = Self.run(["wal", "--json", copy.path])
            try Self.expectConforms(output, to: "wal.schema.json")
            for (change, altered) in Self.alterations(of: try JSONValue(parsing: output)) {
                #expect(try !validator.problems(in: altered).isEmpty, "wal.schema.json accepts the report with \(change)")
            }
        }
    }

    /// Commits that made the store (created), changed objects (data with values and to-many
    /// members), and none, each report also rejected once altered.
    @Test func walChanges() throws {
        let validator = try JSONSchemaValidator(file: "wal-changes.schema.json", in: Self.folder)
        for (store, range) in [
            ("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite", ["--to", "3"]),
            ("wibosco-migration/CoreDataMigration_Example_WAL.sqlite", ["--from", "100", "--to", "104", "--values", "--limit", "2"]),
        ] {
            let copy = try Corpus.copyStore(store)
            let output = Self.run(["wal", copy.path, "--changes", "--json"] + range)
            try Self.expectConforms(output, to: "wal-changes.schema.json")
            for (change, altered) in Self.alterations(of: try JSONValue(parsing: output)) {
                #expect(try !validator.problems(in: altered).isEmpty, "wal-changes.schema.json accepts the report with \(change)")
            }
        }
    }

    /// Rows recovered from free pages of two real stores (a location cache, a store migrated in
    /// place), each report also rejected once altered; RecoveredRowsTests checks what is found.
    @Test func walRecovered() throws {
        let validator = try JSONSchemaValidator(file: "wal-recovered.schema.json", in: Self.folder)
        var rows = 0
        for store in ["osxphotos-clslocationcache-10.15.1/CLSLocationCache.sqlite", "wibosco-revised/CoreDataMigration_Example_2.sqlite"] {
            let copy = try Corpus.copyStore(store)
            let output = Self.run(["wal", copy.path, "--recovered", "--json"])
            try Self.expectConforms(output, to: "wal-recovered.schema.json")
            let document = try JSONValue(parsing: output)
            if case .array(let list)? = document.members?["rows"] { rows += list.count }
            for (change, altered) in Self.alterations(of: document) {
                #expect(try !validator.problems(in: altered).isEmpty, "wal-recovered.schema.json accepts the report with \(change)")
            }
        }
        #expect(rows > 0, "no row recovered: the schema's rows went unchecked")
    }

    // MARK: diff

    /// Store pairs whose comparison fills every part: a model version apart with renamed and
    /// removed properties (SampleModel2), a migration with a new entity (wibosco-revised), a
    /// store with itself.
    static let diffPairs = [
        ("cdplus-samplemodel2/SampleModel2_V1.sqlite", "cdplus-samplemodel2/SampleModel2_V2.sqlite"),
        ("wibosco-revised/CoreDataMigration_Example_2.sqlite", "wibosco-revised/CoreDataMigration_Example_3.sqlite"),
        ("cdplus-samplemodel/SampleModel_V1.sqlite", "cdplus-samplemodel/SampleModel_V2.sqlite"),
        ("apple-coredatabooks/CoreDataBooks.sqlite", "apple-coredatabooks/CoreDataBooks.sqlite"),
    ]

    @Test(arguments: diffPairs)
    func diff(_ old: String, _ new: String) throws {
        let a = try Corpus.copyStore(old), b = try Corpus.copyStore(new)
        let model = old.hasPrefix("apple-coredatabooks") ? ["--model", Corpus.url("apple-coredatabooks/CoreDataBooks.xcdatamodeld").path] : []
        for options in [["--limit", "3"], ["--values", "--limit", "2"], ["--only", "data", "--limit", "1"]] {
            let document = Self.run(["diff", a.path, b.path, "--format", "json"] + model + options, statuses: [0, 1])
            try Self.expectConforms(document, to: "diff.schema.json")
            let lines = Self.run(["diff", a.path, b.path, "--format", "ndjson"] + model + options, statuses: [0, 1])
            try Self.expectLinesConform(lines, to: "diff-line.schema.json")
        }
    }

    // MARK: stores

    /// Stores that between them fill most parts of the reports: a -wal, persistent history,
    /// attributes with external storage, R-tree index tables, no model cache.
    static let representativeStores = [
        "wibosco-migration/CoreDataMigration_Example_WAL.sqlite", "cdplus-samplemodel2/SampleModel2_V1.sqlite",
        "osxphotos-photos-15.4.1/Photos.sqlite", "plaso-notestore-ios/NoteStore.sqlite", "apple-coredatabooks/CoreDataBooks.sqlite",
    ]

    @Test(arguments: representativeStores)
    func inspect(_ store: String) throws {
        try StoreContracts.inspect(store)
    }

    /// A support folder with a file no row refers to (the corpus has no support folder), with
    /// and without counts; clean lists the file as an orphan.
    @Test func supportFolder() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let orphan = copy.deletingLastPathComponent().appendingPathComponent(".SampleModel2_V1_SUPPORT/_EXTERNAL_DATA/6F1A1E2B-0000-4000-8000-000000000001")
        try Data("orphan".utf8).write(to: orphan.creatingFolder())
        for counts in [[], ["--no-counts"]] {
            let output = Self.run(["inspect", "--json", copy.path] + counts)
            try Self.expectConforms(output, to: "inspect.schema.json")
            #expect(output.contains("\"externalDataFiles\" : 1"))
        }
        let cleaned = Self.run(["clean", "--json", "--dry-run", copy.path])
        try Self.expectConforms(cleaned, to: "clean.schema.json")
        #expect(cleaned.contains("6F1A1E2B-0000-4000-8000-000000000001"))
    }

    /// Real reports, each altered in one way (a key missing, an unknown key, a value of the wrong
    /// type), are all rejected: the schemas are precise enough to catch a changed shape.
    @Test func schemasRejectAlteredReports() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite").path
        let folder = try TemporaryDirectory.make()
        let reports: [(arguments: [String], schema: String)] = [
            (["inspect", "--json", copy], "inspect.schema.json"),
            (["model", "--json", copy], "model.schema.json"),
            (["model", "--hashes", "--json", copy], "model-hashes.schema.json"),
            (["model", "--sql", "--json", copy], "model-sql.schema.json"),
            (["model", "--lint", "--json", copy], "model-lint.schema.json"),
            (["validate", "--json", copy], "validate.schema.json"),
            (["compat", "--json", copy, "--model", Self.wibosco], "compat.schema.json"),
            (["explain", "--json", "134110"], "explain.schema.json"),
            (["create", "--json", folder.appendingPathComponent("new.sqlite").path, "--model", Self.wibosco], "create.schema.json"),
            (["reset", "--json", "--dry-run", copy], "reset.schema.json"),
            (["clean", "--json", "--dry-run", copy], "clean.schema.json"),
            (["find", "--json", folder.path], "find.schema.json"),
            (["sql", copy, "--entity", "Post", "--format", "json"], "sql.schema.json"),
        ]
        for report in reports {
            let document = try JSONValue(parsing: Self.run(report.arguments))
            let validator = try JSONSchemaValidator(file: report.schema, in: Self.folder)
            #expect(try validator.problems(in: document) == [], "\(report.schema)")
            let alterations = Self.alterations(of: document)
            #expect(alterations.count >= 3)
            for (change, altered) in alterations {
                #expect(try !validator.problems(in: altered).isEmpty, "\(report.schema) accepts the report with \(change)")
            }
        }
    }

    /// The model's properties in Swift's synthesized enum coding, `{"attribute": {"_0": {…}}}`,
    /// as `model --json` printed them before they had a `kind`: rejected.
    @Test func modelSchemaRejectsSynthesizedEnumCoding() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite").path
        let document = try JSONValue(parsing: Self.run(["model", "--json", copy]))
        func synthesized(_ value: JSONValue) -> JSONValue {
            switch value {
            case .array(let elements):
                return .array(elements.map(synthesized))
            case .object(let pairs):
                if case .string(let kind)? = value.members?["kind"], value.members?["common"] != nil {
                    return .object([(kind, .object([("_0", .object(pairs.filter { $0.key != "kind" }))]))])
                }
                return .object(pairs.map { ($0.key, synthesized($0.value)) })
            default:
                return value
            }
        }
        let old = synthesized(document)
        #expect(old != document)
        let problems = try JSONSchemaValidator(file: "model.schema.json", in: Self.folder).problems(in: old)
        #expect(problems.contains("$[0].model.entities[0].properties[0]: 0 of the oneOf alternatives match, not exactly one"), "\(problems)")
    }

    /// The report's top object (or an array's first object) with one key left out, with an
    /// unknown key, and with each value replaced by one of another JSON type.
    static func alterations(of document: JSONValue) -> [(String, JSONValue)] {
        typealias Members = [(key: String, value: JSONValue)]
        func altered(_ members: Members) -> [(String, Members)] {
            var result: [(String, Members)] = [("an unknown key _0", members + [("_0", .object([]))])]
            for (index, member) in members.enumerated() {
                var without = members
                without.remove(at: index)
                result.append(("\(member.key) left out", without))
                let other: JSONValue?
                switch member.value {
                case .null: other = nil
                case .bool: other = .string("yes")
                case .number: other = .string("0")
                case .string: other = .bool(true)
                case .array: other = .object([])
                case .object: other = .array([])
                }
                if let other {
                    var changed = members
                    changed[index].value = other
                    result.append(("\(member.key) of another type", changed))
                }
            }
            return result
        }
        switch document {
        case .object(let members):
            return altered(members).map { ($0.0, .object($0.1)) }
        case .array(let elements):
            guard case .object(let first)? = elements.first else { return [] }
            return altered(first).map { ($0.0, .array([.object($0.1)] + elements.dropFirst())) }
        default:
            return []
        }
    }

    @Test(arguments: representativeStores)
    func modelOfAStore(_ store: String) throws {
        try StoreContracts.modelOfAStore(store)
    }

    /// A bundle, a compiled bundle, an Xcode 3 binary model and a ruby-xcdm schema folder.
    @Test(arguments: [
        "cdplus-samplemodel/SampleModel.xcdatamodeld", "nintendoish-gamelibrary-model/GameLibrary.momd",
        "mogenerator-test-models/legacy-6f34c08a/test.xcdatamodel", "xcdm-cdq/templates/init/schemas",
    ])
    func modelSource(_ path: String) throws {
        try StoreContracts.modelSource(Corpus.url(path).path)
    }

    @Test(arguments: representativeStores)
    func validate(_ store: String) throws {
        try StoreContracts.validate(store)
    }

    /// A store with a missing mandatory value and a dangling to-one key: errors and integrity
    /// problems both present.
    @Test func validateABrokenStore() throws {
        let broken = try ValidateCommandTests.brokenCopy()
        let output = Self.run(["validate", "--json", broken.path], statuses: [1])
        try Self.expectConforms(output, to: "validate.schema.json")
        #expect(output.contains("\"danglingToOne\""))
    }

    /// The corpus' migration pairs with each store option: every verdict and every error code.
    @Test(
        arguments: [
            ("wibosco-migration/CoreDataMigration_Example_1.sqlite", "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", nil),
            ("wibosco-migration/CoreDataMigration_Example_3.sqlite", "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", nil),
            ("wibosco-migration/CoreDataMigration_Example_WAL.sqlite", "wibosco-migration/CoreDataMigration_Example.xcdatamodeld", nil),
            ("wibosco-migration/CoreDataMigration_Example_2.sqlite", "wibosco-revised/CoreDataMigration_Example.xcdatamodeld", nil),
            ("bookmigration/Model1.sqlite", "bookmigration/Model.xcdatamodeld", "Model2"),
            ("cdplus-samplemodel/SampleModel_V2.sqlite", "cdplus-samplemodel/SampleModel.xcdatamodeld", "SampleModel3"),
            ("recipes-migration/Recipes.sqlite", "recipes-migration/Recipes.xcdatamodeld", "Recipes 2"),
        ] as [(String, String, String?)])
    func compat(_ store: String, _ model: String, _ version: String?) throws {
        let copy = try Corpus.copyStore(store).path
        for options in ["infer", "migrate", "none"] {
            let arguments =
                ["compat", "--json", copy, "--model", Corpus.url(model).path, "--options", options]
                + (version.map { ["--version", $0] } ?? [])
            try Self.expectConforms(Self.run(arguments, statuses: [0, 1]), to: "compat.schema.json")
        }
    }

    // MARK: objects and rows

    @Test(arguments: [
        ["wibosco-migration/CoreDataMigration_Example_3.sqlite", "Post", "--limit", "50"],
        ["cdplus-samplemodel2/SampleModel2_V1.sqlite", "Author", "Book", "--include", "books", "--include", "pages", "--binary", "hex"],
        ["cdplus-samplemodel2/SampleModel2_V1.sqlite", "--binary", "base64"],
        ["osxphotos-photos-15.4.1/Photos.sqlite", "--limit", "3"],
        ["apple-coredatabooks/CoreDataBooks.sqlite", "--model", Corpus.url("apple-coredatabooks/CoreDataBooks.xcdatamodeld").path],
    ])
    func dump(_ arguments: [String]) throws {
        let copy = try Corpus.copyStore(arguments[0]).path
        let rest = Array(arguments.dropFirst())
        try Self.expectConforms(Self.run(["dump", copy, "--format", "json"] + rest), to: "dump.schema.json")
        try Self.expectLinesConform(Self.run(["dump", copy, "--format", "ndjson"] + rest), to: "dump.schema.json", at: "/$defs/object")
    }

    @Test func sampleStoresDump() throws {
        let stores = try FileManager.default.contentsOfDirectory(atPath: Self.samplesFolder.appendingPathComponent("Stores").path)
        #expect(stores.count >= 6)
        for store in stores where store.hasSuffix(".sqlite") {
            let copy = try TemporaryDirectory.make().appendingPathComponent(store)
            try FileManager.default.copyItem(at: Self.samplesFolder.appendingPathComponent("Stores/\(store)"), to: copy)
            try Self.expectConforms(Self.run(["dump", copy.path, "--format", "json"]), to: "dump.schema.json")
        }
    }

    @Test func query() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite").path
        try Self.expectConforms(Self.run(["query", copy, "Book.all", "--format", "json"]), to: "dump.schema.json")
        try Self.expectLinesConform(Self.run(["query", copy, "Book.all", "--format", "ndjson"]), to: "dump.schema.json", at: "/$defs/object")
        try Self.expectConforms(Self.run(["query", copy, "--entity", "Book", "--count", "--format", "json"]), to: "rows.schema.json")
        try Self.expectConforms(Self.run(["query", copy, "--entity", "Book", "--distinct", "title", "--format", "json"]), to: "rows.schema.json")
        try Self.expectLinesConform(
            Self.run(["query", copy, "--entity", "Book", "--aggregate", "max:price", "--format", "ndjson"]),
            to: "rows.schema.json", at: "/$defs/row")
    }

    /// The console prints objects with the dump renderers (run as the executable: the console
    /// writes to the process' own standard output).
    @Test func console() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite").path
        let json = try CommandRunner.run(["console", copy, "-c", ".format json", "-c", "Book.all"])
        #expect(json.status == 0, "\(json.stderr)")
        try Self.expectConforms(json.stdout, to: "dump.schema.json")
        let lines = try CommandRunner.run(["console", copy, "-c", ".format ndjson", "-c", "Page.limit(5)"])
        #expect(lines.status == 0, "\(lines.stderr)")
        try Self.expectLinesConform(lines.stdout, to: "dump.schema.json", at: "/$defs/object")
    }

    @Test func sql() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite").path
        for format in ["json", "ndjson"] {
            try Self.expectConforms(
                Self.run(["sql", copy, "--entity", "Book", "--where", "title BEGINSWITH 'A'", "--format", format]),
                to: "sql.schema.json")
        }
        let raw = "SELECT Z_PK, ZTITLE, ZPRICE, ZUNIQUEID FROM ZBOOK WHERE Z_PK < ?"
        try Self.expectConforms(Self.run(["sql", copy, "--raw", raw, "--arg", "5", "--format", "json"]), to: "rows.schema.json")
        try Self.expectLinesConform(Self.run(["sql", copy, "--raw", raw, "--arg", "5", "--format", "ndjson"]), to: "rows.schema.json", at: "/$defs/row")
    }

    // MARK: explain

    @Test(arguments: ["1570", "1560", "134100", "134110", "134130", "134140", "134190", "133020", "134060", "522", "SQLITE_BUSY", "266"])
    func explainCode(_ code: String) throws {
        try Self.expectConforms(Self.run(["explain", code, "--json"]), to: "explain.schema.json")
    }

    /// Every reference dump of errors.md, read from standard input.
    @Test(
        arguments: try FileManager.default.contentsOfDirectory(atPath: Golden.fixtures.appendingPathComponent("explain").path)
            .filter { $0.hasSuffix(".dump") }.sorted())
    func explainDump(_ fixture: String) throws {
        let dump = try Data(contentsOf: Golden.fixtures.appendingPathComponent("explain/\(fixture)"))
        try Self.expectConforms(Self.run(["explain", "-", "--json"], stdin: dump), to: "explain.schema.json")
    }

    /// A dump checked against a store and a model: the cross-check's rows, objects and hashes.
    @Test func explainCrossCheck() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel3/SampleModel3_V1.sqlite").path
        let model = Corpus.url("cdplus-samplemodel3/SampleModel3.xcdatamodeld").path
        let uri = "x-coredata://5443A63D-EF0E-44C2-B216-AE8B5ED2FD09/User/p2"
        let validation = """
            Error Domain=NSCocoaErrorDomain Code=1570 "petName is a required value." UserInfo={NSValidationErrorObject=<User: 0x600001> \
            (entity: User; id: 0xd000000000080000 <\(uri)>; data: {
                petName = nil;
            }), NSValidationErrorKey=petName, NSLocalizedDescription=petName is a required value.}
            """
        try Self.expectConforms(
            Self.run(["explain", "-", "--json", "--store", copy, "--model", model], stdin: Data(validation.utf8)),
            to: "explain.schema.json")
        let incompatible = try String(contentsOf: Golden.fixtures.appendingPathComponent("explain/errors-md-5.1-1.dump"), encoding: .utf8)
        try Self.expectConforms(
            Self.run(["explain", "--json", "--text", incompatible, "--store", copy, "--model", model]),
            to: "explain.schema.json")
    }

    // MARK: maintenance

    @Test func create() throws {
        let folder = try TemporaryDirectory.make()
        try Self.expectConforms(
            Self.run(["create", folder.appendingPathComponent("empty.sqlite").path, "--model", Self.wibosco, "--json"]),
            to: "create.schema.json")
        let shop = Golden.fixtures.appendingPathComponent("import/Shop.xcdatamodel").path
        let seed = Golden.fixtures.appendingPathComponent("import/shop-seed.json").path
        for extra in [[], ["--dry-run"]] {
            let store = folder.appendingPathComponent("shop\(extra.count).sqlite").path
            try Self.expectConforms(Self.run(["create", store, "--model", shop, "--import", seed, "--json"] + extra), to: "create.schema.json")
        }
        // A catalog without its mandatory title: imported, not installed, the validation errors reported.
        let invalid = folder.appendingPathComponent("invalid.json")
        try Data(#"{"Catalog": [{}]}"#.utf8).write(to: invalid)
        let output = Self.run(
            ["create", folder.appendingPathComponent("invalid.sqlite").path, "--model", shop, "--import", invalid.path, "--json"],
            statuses: [1])
        try Self.expectConforms(output, to: "create.schema.json")
        #expect(output.contains("\"installed\" : false"))
    }

    @Test(arguments: [["--dry-run"], ["--no-backup"], [], ["--recreate"]])
    func reset(_ options: [String]) throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite").path
        try Self.expectConforms(Self.run(["reset", copy, "--json"] + options), to: "reset.schema.json")
    }

    @Test(arguments: [
        ["--dry-run"],
        ["--dry-run", "--history-before", "2023-05-01", "--repair-primary-keys", "--vacuum"],
        ["--no-backup", "--history-before", "2023-06-01T00:00:00Z", "--vacuum", "--repair-primary-keys"],
        [],
    ])
    func clean(_ options: [String]) throws {
        let copy = try Corpus.copyStore("plaso-notestore-ios/NoteStore.sqlite").path
        try Self.expectConforms(Self.run(["clean", copy, "--json"] + options), to: "clean.schema.json")
    }

    // MARK: finding and history

    /// A folder shaped like a simulator's, so that the location keys are filled in, beside a
    /// plain folder where they are not.
    @Test func find() throws {
        let root = try TemporaryDirectory.make()
        let device = root.appendingPathComponent("Devices/5A1D3C2B-0000-4000-8000-000000000001")
        try PropertyListSerialization.data(
            fromPropertyList: ["name": "iPhone 15 Pro", "runtime": "com.apple.CoreSimulator.SimRuntime.iOS-17-2"],
            format: .xml, options: 0
        ).write(to: device.appendingPathComponent("device.plist").creatingFolder())
        let app = device.appendingPathComponent("data/Containers/Data/Application/0E7A5C41-1111-4111-8111-111111111111")
        try PropertyListSerialization.data(fromPropertyList: ["MCMMetadataIdentifier": "com.example.Notes"], format: .binary, options: 0)
            .write(to: app.appendingPathComponent(".com.apple.mobile_container_manager.metadata.plist").creatingFolder())
        for (store, folder) in [
            ("cdplus-samplemodel/SampleModel_V1.sqlite", app.appendingPathComponent("Library/Application Support")),
            ("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite", root.appendingPathComponent("Elsewhere")),
        ] {
            let copy = try Corpus.copyStore(store)
            for name in try FileManager.default.contentsOfDirectory(atPath: copy.deletingLastPathComponent().path) {
                try FileManager.default.copyItem(
                    at: copy.deletingLastPathComponent().appendingPathComponent(name),
                    to: folder.appendingPathComponent(name).creatingFolder())
            }
        }
        let output = Self.run(["find", root.path, "--json"])
        try Self.expectConforms(output, to: "find.schema.json")
        #expect(output.contains("\"bundleID\" : \"com.example.Notes\""))
    }

    @Test(arguments: ["plaso-notestore-ios/NoteStore.sqlite", "cdplus-samplemodel2/SampleModel2_V1.sqlite"])
    func history(_ store: String) throws {
        let copy = try Corpus.copyStore(store).path
        try Self.expectLinesConform(Self.run(["history", copy, "--json"]), to: "history.schema.json")
    }
}

/// The same checks on every store and every model source of the corpus.
@Suite(.temporaryDirectories, .tags(.corpusWide)) struct JSONSchemaCorpusWideTests {
    /// Model sources of every kind in the corpus and the samples: bundles, loose versions,
    /// compiled models and ruby-xcdm schemas (not the versions inside a bundle, which the bundle
    /// covers).
    static let modelSources: [String] = {
        let corpus = [".xcdatamodeld", ".momd", ".xcdatamodel", ".mom", ".rb"].flatMap(Corpus.files(endingWith:))
            .filter { !$0.contains(".xcdatamodeld/") && !$0.contains(".momd/") && !$0.contains("/schemas/") }
            .map { Corpus.url($0).path }
        let folder = JSONSchemaContractTests.samplesFolder.appendingPathComponent("schemas")
        let samples = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return (corpus + samples.map { folder.appendingPathComponent($0).path }).sorted()
    }()

    @Test(arguments: Corpus.stores)
    func inspect(_ store: String) throws {
        try StoreContracts.inspect(store)
    }

    @Test(arguments: Corpus.stores)
    func modelOfAStore(_ store: String) throws {
        try StoreContracts.modelOfAStore(store)
    }

    @Test(arguments: modelSources)
    func modelSource(_ path: String) throws {
        try StoreContracts.modelSource(path)
    }

    @Test(arguments: Corpus.stores)
    func validate(_ store: String) throws {
        try StoreContracts.validate(store)
    }
}

/// The checks both suites run, on a few stores or on all of them.
enum StoreContracts {
    static func inspect(_ store: String) throws {
        let copy = try Corpus.copyStore(store).path
        try check(["inspect", "--json", copy], "inspect.schema.json")
    }

    /// The model cached in the store, its hashes, its tables as resolved against the store and
    /// its lint findings. A store without a cache (framework 241 and earlier) has no model to show.
    static func modelOfAStore(_ store: String) throws {
        let copy = try Corpus.copyStore(store).path
        guard DumpCountCorpusWideTests.models[store] == nil else {
            #expect(CommandRunner.runInProcess(["model", "--json", copy]).stderr.contains("no model cache"))
            return
        }
        try modelOutputs(copy)
        try check(["model", "--lint", "--json", copy], statuses: [0, 1], "model-lint.schema.json")
    }

    /// A model file or folder: the same, and the CloudKit lint rules.
    static func modelSource(_ path: String) throws {
        try modelOutputs(path)
        try check(["model", "--lint", "--json", path], statuses: [0, 1], "model-lint.schema.json")
        try check(["model", "--lint", "--cloudkit", "--json", path], statuses: [0, 1], "model-lint.schema.json")
    }

    private static func modelOutputs(_ path: String) throws {
        try check(["model", "--json", path], "model.schema.json")
        try check(["model", "--hashes", "--json", path], "model-hashes.schema.json")
        try check(["model", "--sql", "--json", path], "model-sql.schema.json")
    }

    static func validate(_ store: String) throws {
        let copy = try Corpus.copyStore(store).path
        let model = DumpCountCorpusWideTests.models[store].map { ["--model", Corpus.url($0).path] } ?? []
        try check(["validate", "--json", copy] + model, statuses: [0, 1], "validate.schema.json")
    }

    private static func check(_ arguments: [String], statuses: Set<Int32> = [0], _ schema: String) throws {
        try JSONSchemaContractTests.expectConforms(JSONSchemaContractTests.run(arguments, statuses: statuses), to: schema)
    }
}

extension URL {
    /// The URL, after creating the folder it is in.
    func creatingFolder() throws -> URL {
        try FileManager.default.createDirectory(at: deletingLastPathComponent(), withIntermediateDirectories: true)
        return self
    }
}
