import CDModel
@testable import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// Every store in the corpus opens, and the hashes recomputed from its model cache equal the
/// ones Core Data wrote into its metadata.
@Suite(.temporaryDirectories) struct CorpusStoreTests {
    @Test func corpusIsPresent() {
        #expect(Corpus.stores.count >= 30, "expected the shared corpus at \(Corpus.root.path)")
    }

    @Test(arguments: Corpus.stores)
    func storeOpensAndHashesMatch(_ store: String) throws {
        let copy = try Corpus.copyStore(store)
        let inspection = try StoreInspector.inspect(path: copy.path)
        #expect(!inspection.entities.isEmpty)
        #expect(inspection.metadata.storeType == "SQLite")
        #expect(inspection.metadata.hashesDigestMatches != false)
        #expect(inspection.metadata.checksumMatches != false)
        if inspection.metadata.hashesDigest != nil { #expect(inspection.metadata.hashesDigestMatches == true) }
        if inspection.metadata.checksum != nil { #expect(inspection.metadata.checksumMatches == true) }
        if inspection.modelCache.present {
            #expect(inspection.modelCache.error == nil)
            #expect(inspection.modelCache.hashesMatch == true, "mismatches: \(inspection.modelCache.mismatches)")
            // 100% of entities: every hash in the metadata is recomputed, none missing.
            let snapshot = try StoreSnapshot(path: copy.path)
            let (metadata, cache) = try snapshot.read { db in
                (try StoreMetadata.read(db, path: copy.path), try ModelCache.read(db, path: copy.path))
            }
            let computed = VersionHashes.entityHashes(of: try #require(cache).model)
            #expect(computed == metadata.versionHashes)
        }
    }

    /// Stores written before framework 754 have no model cache (store-format.md §3).
    @Test func oldStoresHaveNoModelCache() throws {
        let inspection = try StoreInspector.inspect(path: try Corpus.copyStore("apple-coredatabooks/CoreDataBooks.sqlite").path)
        #expect(inspection.modelCache.present == false)
        #expect(inspection.metadata.frameworkVersion == 230)
        #expect(inspection.entities.map(\.name) == ["Book"])
        #expect(inspection.entities.first?.rows == 11)
    }

    /// All of this store's content is in its -wal (the main file holds only a header page).
    @Test func walOnlyStoreShowsItsRows() throws {
        let inspection = try StoreInspector.inspect(path: try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite").path)
        let rows = Dictionary(uniqueKeysWithValues: inspection.entities.map { ($0.table, $0.rows ?? -1) })
        #expect(rows["ZENTRY"] == 2)
        #expect(rows["ZINFO"] == 1)
        #expect(inspection.files.first { $0.role == .wal }?.walFrames ?? 0 > 0)
        #expect(inspection.metadata.frameworkVersion == 977)
    }

    /// Sub-entities share the root's table; rows are counted per concrete entity.
    @Test func inheritanceCountsPerEntity() throws {
        let inspection = try StoreInspector.inspect(path: try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite").path)
        let book = try #require(inspection.entities.first { $0.name == "Book" })
        let novel = try #require(inspection.entities.first { $0.name == "GraphicNovel" })
        #expect(book.table == "ZBOOK" && novel.table == "ZBOOK")
        #expect(novel.superEntity == "Book" && novel.depth == 1)
        #expect(book.rows == 51 && novel.rows == 1 && book.rowsIncludingSubentities == 52)
        #expect(book.max == 52 && novel.max == nil)
        #expect(inspection.metadata.checksum == "OcE8L8XxVX/G+zRQ2cbYPP91smjL3tynDfRzfdDAPnU=")
        #expect(inspection.metadata.hashesDigest?.hasPrefix("4DP4Skxu") == true)
        let history = try #require(inspection.extras.history)
        #expect(history.transactions == 1 && history.changes == 5468)
    }

    @Test func reservedHistoryEntitiesAreMarked() throws {
        let inspection = try StoreInspector.inspect(path: try Corpus.copyStore("plaso-notestore-ios/NoteStore.sqlite").path)
        let history = inspection.entities.filter { $0.reserved == .history }
        #expect(history.map(\.ent) == [16001, 16002, 16003])
        #expect(history.map(\.table) == ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
        #expect(inspection.extras.history?.transactions == 84)
        #expect(inspection.extras.history?.changes == 298)
    }

    @Test func noCountsReadsNoTable() throws {
        let inspection = try StoreInspector.inspect(path: try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite").path, counts: false)
        #expect(inspection.entities.allSatisfy { $0.rows == nil && $0.rowsIncludingSubentities == nil })
        #expect(inspection.entities.map(\.name) == ["Color", "Post"])
    }
}

/// Reading never changes a byte of the store, its -wal or its -shm.
@Suite(.temporaryDirectories) struct ReadOnlyTests {
    @Test(arguments: Corpus.stores)
    func inspectChangesNothing(_ store: String) throws {
        let copy = try Corpus.copyStore(store)
        let directory = copy.deletingLastPathComponent()
        let before = try Checksums.of(directory: directory)
        _ = try StoreInspector.inspect(path: copy.path)
        _ = try? ModelSource.versions(at: copy.path)
        let after = try Checksums.of(directory: directory)
        #expect(before == after)
        #expect(before.keys.contains(copy.lastPathComponent))
    }
}
