import CDBase
import CDMaintenance
import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// `reset --recreate`: the old store goes as in a reset, and an empty store for the model takes
/// its place.
@Suite(.temporaryDirectories) struct RecreateTests {
    private func metadata(_ store: URL) throws -> StoreMetadata {
        let snapshot = try StoreSnapshot(path: store.path)
        return try snapshot.read { db in try StoreMetadata.read(db, path: store.path) }
    }

    private func objectCount(_ store: URL) throws -> Int {
        try StoreInspector.inspect(path: store.path, counts: true).entities.reduce(0) { $0 + ($1.rows ?? 0) }
    }

    /// The new store has the old one's hashes and framework version, no objects and a new UUID;
    /// decoys stay byte for byte; the backup holds the old store.
    @Test func replacesTheStoreAndNothingElse() throws {
        let store = try Stores.withExternalData()
        let decoys = try ResetTests.addDecoys(beside: store)
        let before = try Stores.checksums(beside: store)
        let old = try metadata(store)
        #expect(try objectCount(store) > 0)

        let report = try StoreReset.recreate(path: store.path, model: nil, options: .init())
        let recreated = try #require(report.recreated)
        #expect(report.removed)
        let new = try metadata(store)
        #expect(new.versionHashes == old.versionHashes)
        #expect(new.hashesDigest == old.hashesDigest)
        #expect(new.checksum == old.checksum)
        #expect(new.frameworkVersion == old.frameworkVersion)
        #expect(new.storeUUID == recreated.storeUUID && new.storeUUID != old.storeUUID)
        #expect(try objectCount(store) == 0)

        let after = try Stores.checksums(beside: store)
        for decoy in decoys {
            #expect(after[decoy] == before[decoy], "\(decoy)")
        }
        #expect(!FileManager.default.fileExists(atPath: StoreFiles(path: store.path).supportFolder.path))
        let backup = URL(fileURLWithPath: try #require(report.backup))
        let backedUp = try Checksums.of(directory: backup)
        let parts = ["", "-wal", "-shm", "-journal"].map { store.lastPathComponent + $0 }
        #expect(backedUp == before.filter { path, _ in parts.contains(path) || path.hasPrefix(".SampleModel2_V1_SUPPORT/") })
        #expect(backedUp.count == 2)
        #expect(try Stores.entries(beside: store).allSatisfy { !$0.contains(".cdstore-new-") && !$0.contains(".cdstore-removing-") })
    }

    /// A dry run reports the new store and changes nothing beside the store.
    @Test func dryRunChangesNothing() throws {
        let store = try Corpus.copyStore(Stores.books)
        let before = try Checksums.of(directory: store.deletingLastPathComponent())
        let report = try StoreReset.recreate(path: store.path, model: nil, options: .init(dryRun: true))
        #expect(report.recreated?.entities == 9)
        #expect(report.recreated?.path == store.path)
        #expect(!report.removed && report.backup == nil)
        #expect(try Checksums.of(directory: store.deletingLastPathComponent()) == before)
    }

    /// Every file operation fails once in turn: until the new store is in place the old one is
    /// whole again and no temporary store is left; after that (deleting the moved-aside parts)
    /// the new store is in place and the error says what to delete.
    @Test func anInterruptedRecreateLeavesTheOldStoreOrTheNewOne() throws {
        var failures = 0
        for step in 1... {
            let store = try Stores.withExternalData()
            let before = try Stores.checksums(beside: store)
            let oldUUID = try metadata(store).storeUUID
            do {
                _ = try StoreReset.recreate(path: store.path, model: nil, options: .init(), using: FaultyFileOperations(failingStep: step))
                #expect(try metadata(store).storeUUID != oldUUID)
                break
            } catch let error as UserFacingError {
                failures += 1
                #expect(try Stores.entries(beside: store).allSatisfy { !$0.contains(".cdstore-new-") }, "step \(step)")
                if try Stores.checksums(beside: store) != before {
                    #expect(try metadata(store).storeUUID != oldUUID, "step \(step): \(error)")
                    #expect(error.description.contains("delete"), "step \(step): \(error)")
                }
            }
        }
        // With a backup: createDirectory and a copy per part (main file, support folder), then
        // createDirectory and a move per part, then removeItem of the moved-aside parts.
        #expect(failures == 7)
    }

    /// A store without a model cache needs the app's model; with it, the new store hashes like
    /// the old one and keeps its framework version (481: no cache, no digest).
    @Test func aStoreWithoutCacheNeedsTheModel() throws {
        let store = try Corpus.copyStore(Stores.walAndShm)
        let old = try metadata(store)
        let error = #expect(throws: MaintenanceError.noModelCacheToRecreate(path: store.path)) {
            try StoreReset.recreate(path: store.path, model: nil, options: .init())
        }
        #expect(error?.message == "\(store.path) has no model cache (written before framework 754): pass the app's model with --model")
        let model = try #require(try ModelFiles.versions(at: Corpus.url("failedbankcd-seed/FailedBankCD.xcdatamodeld")).first?.model)
        let report = try StoreReset.recreate(path: store.path, model: model, options: .init(backup: false))
        #expect(report.recreated?.modelCacheBytes == nil)
        let new = try metadata(store)
        #expect(new.frameworkVersion == 481)
        #expect(new.versionHashes == old.versionHashes)
        #expect(new.hashesDigest == nil)
    }

    /// Recreating with a framework version that writes a model cache adds one, even when the
    /// old store (481) had none; one before 640 leaves it out.
    @Test func recreatedModelCacheFollowsTheFrameworkVersion() throws {
        let model = try #require(try ModelFiles.versions(at: Corpus.url("failedbankcd-seed/FailedBankCD.xcdatamodeld")).first?.model)
        for (version, cache) in [(641, true), (639, false)] {
            let store = try Corpus.copyStore(Stores.walAndShm)
            let report = try StoreReset.recreate(path: store.path, model: model, frameworkVersion: version, options: .init(backup: false))
            #expect((report.recreated?.modelCacheBytes != nil) == cache, "\(version)")
            #expect(try metadata(store).frameworkVersion == version)
        }
    }

    /// Another model (here a later version) lays the store out afresh for that model.
    @Test func anotherModelVersion() throws {
        let store = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_1.sqlite")
        let versions = try ModelFiles.versions(at: Corpus.url("wibosco-migration/CoreDataMigration_Example.xcdatamodeld"))
        let latest = try #require(versions.first { $0.name == "CoreDataMigration_Example 4" })
        _ = try StoreReset.recreate(path: store.path, model: latest.model, frameworkVersion: 1448, options: .init(backup: false))
        let new = try metadata(store)
        #expect(new.versionHashes == VersionHashes.entityHashes(of: latest.model))
        #expect(new.frameworkVersion == 1448)
    }

    @Test(.enabled(if: HeldStore.isAvailable))
    func aHeldStoreIsRefusedUnlessForced() throws {
        let copy = try Corpus.copyStore(Stores.walOnly)
        let held = try HeldStore(copy, commands: "SELECT COUNT(*) FROM ZPOST;\n")
        defer { held.release() }
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        #expect {
            _ = try StoreReset.recreate(path: copy.path, model: nil, options: .init())
        } throws: { error in
            "\(error)".contains("is in use: process") && "\(error)".contains("--force")
        }
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
    }
}
