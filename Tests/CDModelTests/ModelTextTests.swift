import CDModel
import CDStore
import CDTestSupport
import Testing

@Suite(.temporaryDirectories) struct ModelTextTests {
    private func cachedVersions(_ store: String) throws -> [ModelVersion] {
        try ModelSource.versions(at: Corpus.copyStore(store).path)
    }

    @Test(arguments: [
        ("samplemodel2-1344", "cdplus-samplemodel2/SampleModel2_V1.sqlite"),
        ("netusage-1044", "plaso-netusage/netusage.sqlite"),
    ])
    func modelTextMatchesGolden(_ name: String, _ store: String) throws {
        let actual = ModelText.render(try cachedVersions(store)) + "\n"
        let expected = try Golden.expected("model/\(name).txt", actual: actual)
        #expect(expected != nil, "missing golden file model/\(name).txt; run with CDSTORE_UPDATE_GOLDEN=1")
        #expect(actual == expected)
    }

    @Test func derivedAttributesShowTheirExpression() throws {
        let text = ModelText.render(try cachedVersions("cdplus-samplemodel2/SampleModel2_V1.sqlite"))
        #expect(text.contains("pagesCount: Integer 64 [optional, derived: count:(pages)]"))
        #expect(text.contains("  GraphicNovel : Book"))
    }
}
