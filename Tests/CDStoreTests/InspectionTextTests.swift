import CDStore
import CDTestSupport
import Testing

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
        #expect(
            text.contains(
                """
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
