import CDTestSupport
import Foundation
import Testing

/// `cdstore inspect` and `cdstore model --hashes` output, compared with golden files for stores
/// of different ages: framework 230 (2008, no model cache), 847 (WAL, all rows in the -wal),
/// 1344 (inheritance, derived attributes, history) and 1447 (macOS 15 Photos).
@Suite(.temporaryDirectories) struct InspectGoldenTests {
    static let stores: [(name: String, path: String)] = [
        ("coredatabooks-230", "apple-coredatabooks/CoreDataBooks.sqlite"),
        ("wibosco-wal-847", "wibosco-migration/CoreDataMigration_Example_WAL.sqlite"),
        ("samplemodel2-1344", "cdplus-samplemodel2/SampleModel2_V1.sqlite"),
        ("photos-1447", "osxphotos-photos-15.4.1/Photos.sqlite"),
    ]

    /// The private copy's directory differs on every run; golden files say `$DIR` instead.
    private func normalized(_ text: String, copy: URL) -> String {
        text.replacingOccurrences(of: copy.deletingLastPathComponent().path, with: "$DIR")
    }

    private func check(_ arguments: [String], store: String, golden: String) throws {
        let copy = try Corpus.copyStore(store)
        let result = CommandRunner.runInProcess(arguments + [copy.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        let actual = normalized(result.stdout, copy: copy)
        let expected = try Golden.expected(golden, actual: actual)
        #expect(expected != nil, "missing golden file \(golden); run with CDSTORE_UPDATE_GOLDEN=1")
        #expect(actual == expected, "output differs from Tests/Fixtures/\(golden)")
    }

    @Test(arguments: stores.map(\.name))
    func inspectText(_ name: String) throws {
        let store = Self.stores.first { $0.name == name }!.path
        try check(["inspect"], store: store, golden: "inspect/\(name).txt")
    }

    @Test(arguments: stores.map(\.name))
    func inspectJSON(_ name: String) throws {
        let store = Self.stores.first { $0.name == name }!.path
        try check(["inspect", "--json"], store: store, golden: "inspect/\(name).json")
    }

    @Test func modelHashesJSON() throws {
        try check(
            ["model", "--hashes", "--json"], store: "cdplus-samplemodel2/SampleModel2_V1.sqlite",
            golden: "model/samplemodel2-1344-hashes.json")
    }

    @Test func modelHashesText() throws {
        try check(
            ["model", "--hashes"], store: "wibosco-migration/CoreDataMigration_Example_3.sqlite",
            golden: "model/wibosco-3-hashes.txt")
    }
}
