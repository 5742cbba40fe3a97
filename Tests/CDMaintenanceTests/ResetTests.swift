import CDBase
import CDMaintenance
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite(.temporaryDirectories) struct ResetTests {
    /// Files that look like parts of `CoreDataMigration_Example_WAL.sqlite` but are not.
    static func addDecoys(beside store: URL) throws -> [String] {
        let directory = store.deletingLastPathComponent()
        let name = store.lastPathComponent
        let base = store.deletingPathExtension().lastPathComponent
        let other = try Corpus.copyStore(Stores.walAndShm)
        let decoys = [
            "\(name).txt", "\(name)-wal.bak", "\(name)-journal.old", "\(base)-wal", "\(base).sqlite2",
            ".\(name)_SUPPORT/_EXTERNAL_DATA/A", ".\(base)_SUPPORT.bak/B", "._\(base)_SUPPORT/C",
            "Bar.sqlite", "Bar.sqlite-wal", "Bar.sqlite-shm", ".Bar_SUPPORT/_EXTERNAL_DATA/D",
        ]
        for decoy in decoys {
            let url = directory.appendingPathComponent(decoy)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let source = URL(fileURLWithPath: other.path + (decoy.hasPrefix("Bar.sqlite-") ? String(decoy.dropFirst("Bar.sqlite".count)) : ""))
            if decoy.hasPrefix("Bar.sqlite") {
                try FileManager.default.copyItem(at: source, to: url)
            } else {
                try Data(decoy.utf8).write(to: url)
            }
        }
        return decoys
    }

    @Test func onlyTheStoresPartsGo() throws {
        let store = try Corpus.copyStore(Stores.walOnly)
        let support = StoreFiles(path: store.path).externalDataFolder
        try FileManager.default.createDirectory(at: support, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: support.appendingPathComponent("FILE"))
        _ = try Self.addDecoys(beside: store)
        let before = try Stores.checksums(beside: store)
        let report = try StoreReset.run(path: store.path, options: .init(backup: false))
        let partNames = [store.lastPathComponent, store.lastPathComponent + "-wal", ".CoreDataMigration_Example_WAL_SUPPORT/_EXTERNAL_DATA/FILE"]
        #expect(report.parts.map(\.role) == [.main, .wal, .support])
        #expect(report.parts.map(\.bytes) == [36_864, 1_763_392, 1])
        #expect(report.removed && report.backup == nil)
        let after = try Stores.checksums(beside: store)
        #expect(after == before.filter { !partNames.contains($0.key) })
        #expect(try !Stores.entries(beside: store).contains { $0.contains("cdstore-removing") })
    }

    @Test func dryRunChangesNothing() throws {
        let store = try Corpus.copyStore(Stores.walAndShm)
        let before = try Checksums.of(directory: store.deletingLastPathComponent())
        let report = try StoreReset.run(path: store.path, options: .init(dryRun: true))
        #expect(report.dryRun && !report.removed && report.backup == nil)
        #expect(report.parts.map(\.role) == [.main, .wal, .shm])
        #expect(try Checksums.of(directory: store.deletingLastPathComponent()) == before)
        #expect(try Stores.entries(beside: store).count == 3)
    }

    /// Copying the backup folder's contents back gives the same bytes, the support folder included.
    @Test(arguments: [Stores.walOnly, Stores.walAndShm, Stores.rollback, "external"])
    func backupRestoresEveryByte(_ store: String) throws {
        let copy = store == "external" ? try Stores.withExternalData() : try Corpus.copyStore(store)
        let directory = copy.deletingLastPathComponent()
        let before = try Checksums.of(directory: directory)
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let report = try StoreReset.run(path: copy.path, options: .init(), date: date)
        let backup = try #require(report.backup)
        #expect(URL(fileURLWithPath: backup).lastPathComponent == copy.lastPathComponent + ".cdstore-backup-20270115T080000Z")
        #expect(try Stores.entries(beside: copy) == [URL(fileURLWithPath: backup).lastPathComponent])
        for name in try FileManager.default.contentsOfDirectory(atPath: backup) {
            try FileManager.default.copyItem(at: URL(fileURLWithPath: backup).appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        #expect(try Stores.checksums(beside: copy) == before)
        if store == "external" { #expect(before.keys.contains(".SampleModel2_V1_SUPPORT/_EXTERNAL_DATA/COVER-2")) }
    }

    @Test func anExistingBackupFolderIsNeverReused() throws {
        let store = try Corpus.copyStore(Stores.walOnly)
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let taken = store.deletingLastPathComponent().appendingPathComponent(StoreBackup.folderName(for: StoreFiles(path: store.path), at: date))
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: taken.appendingPathComponent("note"))
        let report = try StoreReset.run(path: store.path, options: .init(), date: date)
        #expect(report.backup == taken.path + "-2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: taken.path) == ["note"])
    }

    /// Every step fails once in turn: the store is then either whole or entirely gone.
    @Test(arguments: [true, false])
    func anInterruptedResetLeavesTheOldStoreOrNothing(backup: Bool) throws {
        var failures = 0
        for step in 1... {
            let store = try Stores.withExternalData()
            let before = try Stores.checksums(beside: store)
            let operations = FaultyFileOperations(failingStep: step)
            do {
                _ = try StoreReset.run(path: store.path, options: .init(backup: backup), using: operations)
                #expect(try Stores.checksums(beside: store).isEmpty)
                break
            } catch let error as UserFacingError {
                failures += 1
                let after = try Stores.checksums(beside: store)
                #expect(after == before || after.isEmpty, "step \(step): \(error)")
                #expect(!error.description.contains("\n"))
                if after.isEmpty { #expect(error.description.contains("delete"), "step \(step): \(error)") }
            }
        }
        // The copy has a main file and a support folder: with a backup, createDirectory and a copy
        // per part; then createDirectory, a move per part, removeItem.
        #expect(failures == (backup ? 7 : 4))
    }

    @Test func aReadOnlyDirectoryIsRefusedBeforeAnythingMoves() throws {
        let store = try Stores.withExternalData()
        let before = try Stores.checksums(beside: store)
        #expect {
            _ = try StoreReset.run(path: store.path, options: .init(), using: FaultyFileOperations(readOnly: true))
        } throws: { error in
            "\(error)".contains("is read-only") && "\(error)".contains("nothing was changed")
        }
        #expect(try Stores.checksums(beside: store) == before)
        #expect(try Stores.entries(beside: store).count == 2)
    }

    /// With real permissions: refused exactly when `access(2)` says the folder cannot be written
    /// (as root it can, and the reset goes ahead).
    @Test func aReallyReadOnlyDirectory() throws {
        let store = try Corpus.copyStore(Stores.walOnly)
        let directory = store.deletingLastPathComponent()
        let before = try Checksums.of(directory: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path) }
        let writable = access(directory.path, W_OK) == 0
        do {
            _ = try StoreReset.run(path: store.path, options: .init(backup: false))
            #expect(writable)
            #expect(try Checksums.of(directory: directory).isEmpty)
        } catch {
            #expect(!writable)
            #expect("\(error)".contains("is read-only"))
            #expect(try Checksums.of(directory: directory) == before)
        }
    }

    @Test(
        .enabled(if: HeldStore.isAvailable),
        arguments: [
            (Stores.walOnly, "SELECT COUNT(*) FROM ZPOST;\n"),
            (Stores.rollback, "BEGIN IMMEDIATE;\n"),
        ])
    func aStoreHeldByAnotherProcessIsRefusedUnlessForced(_ store: String, _ commands: String) throws {
        let copy = try Corpus.copyStore(store)
        let held = try HeldStore(copy, commands: commands)
        defer { held.release() }
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        #expect {
            _ = try StoreReset.run(path: copy.path, options: .init())
        } throws: { error in
            "\(error)".contains("is in use: process") && "\(error)".contains("--force")
        }
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
        let forced = try StoreReset.run(path: copy.path, options: .init(backup: false, force: true))
        #expect(forced.removed)
        #expect(try Stores.checksums(beside: copy).isEmpty)
    }

    @Test func notACoreDataStoreIsRefused() throws {
        let directory = try TemporaryDirectory.make()
        let plain = directory.appendingPathComponent("plain.sqlite")
        let queue = try DatabaseQueue(path: plain.path)
        try queue.write { try $0.execute(sql: "CREATE TABLE t (x)") }
        try queue.close()
        let before = try Checksums.of(directory: directory)
        #expect {
            _ = try StoreReset.run(path: plain.path, options: .init())
        } throws: { error in
            "\(error)".contains("not a Core Data store")
        }
        #expect(try Checksums.of(directory: directory) == before)
    }
}
