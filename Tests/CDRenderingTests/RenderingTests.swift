import CDModel
@testable import CDRendering
import CDStore
import CDTestSupport
import Foundation
import Testing

@Suite struct FormattingTests {
    @Test func thousandsSeparators() {
        #expect(grouped(0) == "0")
        #expect(grouped(999) == "999")
        #expect(grouped(1000) == "1,000")
        #expect(grouped(1_763_392) == "1,763,392")
        #expect(grouped(-12345) == "-12,345")
    }

    @Test func plurals() {
        #expect(plural(1, "frame") == "1 frame")
        #expect(plural(2, "entity", "entities") == "2 entities")
        #expect(plural(1200, "row") == "1,200 rows")
    }

    @Test func tableAlignsColumns() {
        var table = TextTable([("ID", .right), ("NAME", .left)])
        table.add(["7", "Post"])
        table.add(["16001", "CHANGE"])
        #expect(table.render() == """
                 ID  NAME
                  7  Post
              16001  CHANGE
            """)
    }
}

@Suite(.temporaryDirectories) struct InspectionTextTests {
    /// Mismatches and warnings are spelled out, not just flagged.
    @Test func mismatchesAndWarnings() throws {
        var inspection = try StoreInspector.inspect(path: Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite").path)
        inspection.modelCache.hashesMatch = false
        inspection.modelCache.mismatches = [.init(entity: "Post", metadataHash: String(repeating: "ab", count: 32), cacheHash: nil)]
        inspection.metadata.hashesDigest = "digest=="
        inspection.metadata.hashesDigestMatches = false
        inspection.warnings = ["first problem", "second problem"]
        let text = InspectionText.render(inspection)
        #expect(text.contains("""
            Model cache
              2 entities, 3,175 bytes (1,996 compressed)
              hashes recomputed from the cache DIFFER from the metadata:
                Post: metadata abababababababab, cache none
            """))
        #expect(text.contains("  hashes digest:       digest== (MISMATCH)\n"))
        #expect(text.hasSuffix("Warnings\n  - first problem\n  - second problem"))
    }

    @Test func storeWithoutCache() throws {
        let inspection = try StoreInspector.inspect(path: Corpus.copyStore("apple-recipes/Recipes.sqlite").path)
        let text = InspectionText.render(inspection)
        #expect(text.contains("Model cache\n  none (Z_MODELCACHE appeared with framework 754; pass the app's model to read this store)"))
        #expect(text.contains("  framework version:   241\n"))
    }
}

@Suite(.temporaryDirectories) struct ModelTextTests {
    private func cachedVersions(_ store: String) throws -> [ModelVersion] {
        try ModelSource.versions(at: Corpus.copyStore(store).path)
    }

    @Test(arguments: [("samplemodel2-1344", "cdplus-samplemodel2/SampleModel2_V1.sqlite"),
                      ("netusage-1044", "plaso-netusage/netusage.sqlite")])
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
