import CDTestSupport
import Foundation
import Testing

/// `cdstore create --import` with bad input: one line on stderr naming the object and key, a
/// non-zero exit, and no file left in the directory (not even the temporary store).
@Suite(.temporaryDirectories) struct ImportBadInputTests {
    static let model = Golden.fixtures.appendingPathComponent("import/Shop.xcdatamodel").path

    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let json: String
        let status: Int32
        let message: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "unknown entity", json: #"{"Shelf":[{"label":"a"}]}"#, status: 2,
            message: "Shelf #1: the model has no entity Shelf"),
        Case(
            name: "unknown property", json: #"[{"_entity":"Tag","_id":"t","colour":"red"}]"#, status: 2,
            message: #"Tag #1 (_id "t"): colour: Tag has no property colour"#),
        Case(
            name: "wrong type", json: #"{"Tag":[{"label":"a"},{"label":7}]}"#, status: 2,
            message: "Tag #2: label: expected a string, got a number"),
        Case(
            name: "integer out of range", json: #"{"Service":[{"name":"a","hours":2147483648}]}"#, status: 2,
            message: "Service #1: hours: 2147483648 is out of range for Integer 32 (-2147483648…2147483647)"),
        Case(
            name: "dangling id", json: #"{"Review":[{"stars":1,"subject":"nowhere"}]}"#, status: 2,
            message: #"Review #1: subject: no object has _id "nowhere""#),
        Case(
            name: "wrong destination entity", json: #"{"Tag":[{"_id":"t"}],"Review":[{"stars":1,"subject":"t"}]}"#, status: 2,
            message: #"Review #1: subject: "t" is a Tag, not a Item"#),
        Case(
            name: "abstract entity", json: #"{"Item":[{"name":"a"}]}"#, status: 2,
            message: "Item #1: Item is abstract and cannot be instantiated"),
        Case(
            name: "transient attribute", json: #"{"Product":[{"name":"a","label":"x"}]}"#, status: 2,
            message: "Product #1: label: is transient and cannot be given a value"),
        Case(
            name: "derived attribute", json: #"{"Catalog":[{"title":"a","pageCount":3}]}"#, status: 2,
            message: "Catalog #1: pageCount: is derived and cannot be given a value"),
        Case(
            name: "sides disagree", json: #"{"Catalog":[{"_id":"c","title":"a","pages":[]}],"Page":[{"catalog":"c"}]}"#, status: 2,
            message: #"Catalog #1 (_id "c"): pages lists 0 objects, but 1 objects name it through catalog"#),
        Case(
            name: "malformed JSON", json: "[{\"_entity\":\"Tag\",}]", status: 2,
            message: "malformed JSON at line 1, column 19: expected a key string"),
    ]

    @Test(arguments: cases)
    func refused(_ testCase: Case) throws {
        let directory = try TemporaryDirectory.make()
        let input = directory.appendingPathComponent("input.json")
        try Data(testCase.json.utf8).write(to: input)
        let store = directory.appendingPathComponent("new.sqlite")
        let result = CommandRunner.runInProcess(["create", store.path, "--model", Self.model, "--import", input.path])
        #expect(result.status == testCase.status)
        #expect(result.stderr.hasPrefix("cdstore: error: " + testCase.message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["input.json"])
    }

    /// A missing mandatory value is found by validation (1570): the report, status 1, no store.
    @Test func missingMandatoryValueFailsValidation() throws {
        let directory = try TemporaryDirectory.make()
        let input = directory.appendingPathComponent("input.json")
        try Data(#"{"Tag":[{"label":"a"}],"Review":[{"_id":"r"}]}"#.utf8).write(to: input)
        let store = directory.appendingPathComponent("new.sqlite")
        for extra in [[], ["--json"], ["--dry-run"]] {
            let result = CommandRunner.runInProcess(["create", store.path, "--model", Self.model, "--import", input.path] + extra)
            #expect(result.status == 1)
            #expect(result.stdout.contains("1570"), "\(result.stdout)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["input.json"])
        }
    }

    /// --dry-run validates and reports without writing; --json reports the counts.
    @Test func dryRunWritesNothing() throws {
        let directory = try TemporaryDirectory.make()
        let input = directory.appendingPathComponent("input.json")
        try Data(#"{"Tag":[{"label":"a"},{"label":"b"}],"Owner":[{}]}"#.utf8).write(to: input)
        let store = directory.appendingPathComponent("new.sqlite")
        let dry = CommandRunner.runInProcess(["create", store.path, "--model", Self.model, "--import", input.path, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("Dry run"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["input.json"])
        let real = CommandRunner.runInProcess(["create", store.path, "--model", Self.model, "--import", input.path, "--json"])
        #expect(real.status == 0, "\(real.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(real.stdout.utf8)) as? [String: Any])
        #expect(report["objects"] as? Int == 3)
        #expect(report["installed"] as? Bool == true)
        #expect((report["imported"] as? [[String: Any]])?.map { "\($0["entity"]!)=\($0["objects"]!)" } == ["Owner=1", "Tag=2"])
        #expect(FileManager.default.fileExists(atPath: store.path))
    }
}
