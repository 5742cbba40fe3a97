import CDFinder
import CDTestSupport
import Foundation
import GRDB
import Testing

/// `find` on a folder tree shaped like CoreSimulator's, built from corpus copies.
@Suite(.temporaryDirectories) struct FinderTests {
    struct Tree {
        let root: URL
        /// Expected stores: path relative to `root` → (device, runtime, bundle ID, container).
        var expected: [String: StoreLocation] = [:]
        let lockedFolder: URL
    }

    static func makeTree() throws -> Tree {
        let root = try TemporaryDirectory.make()
        let devices = root.appendingPathComponent("Library/Developer/CoreSimulator/Devices")
        let phone = "5A1D3C2B-0000-4000-8000-000000000001", pad = "5A1D3C2B-0000-4000-8000-000000000002"
        try writePlist(
            ["name": "iPhone 15 Pro", "runtime": "com.apple.CoreSimulator.SimRuntime.iOS-17-2", "UDID": phone],
            to: devices.appendingPathComponent("\(phone)/device.plist"), format: .binary)
        try writePlist(
            ["name": "iPad Air (5th generation)", "runtime": "com.apple.CoreSimulator.SimRuntime.iOS-16-4", "UDID": pad],
            to: devices.appendingPathComponent("\(pad)/device.plist"), format: .xml)
        let metadata = ".com.apple.mobile_container_manager.metadata.plist"
        let notesApp = devices.appendingPathComponent("\(phone)/data/Containers/Data/Application/0E7A5C41-1111-4111-8111-111111111111")
        try writePlist(["MCMMetadataIdentifier": "com.example.Notes"], to: notesApp.appendingPathComponent(metadata), format: .binary)
        let booksApp = devices.appendingPathComponent("\(pad)/data/Containers/Data/Application/0E7A5C41-2222-4222-8222-222222222222")
        try writePlist(["MCMMetadataIdentifier": "com.example.Books"], to: booksApp.appendingPathComponent(metadata), format: .xml)
        let group = devices.appendingPathComponent("\(pad)/data/Containers/Shared/AppGroup/0E7A5C41-3333-4333-8333-333333333333")
        try writePlist(["MCMMetadataIdentifier": "group.com.example.Books"], to: group.appendingPathComponent(metadata), format: .binary)

        var tree = Tree(root: root, lockedFolder: notesApp.appendingPathComponent("Library/Private"))
        let phoneLocation = StoreLocation(
            device: "iPhone 15 Pro", runtime: "iOS 17.2", deviceUDID: phone,
            bundleID: "com.example.Notes", container: .app)
        let padApp = StoreLocation(
            device: "iPad Air (5th generation)", runtime: "iOS 16.4", deviceUDID: pad,
            bundleID: "com.example.Books", container: .app)
        let padGroup = StoreLocation(
            device: "iPad Air (5th generation)", runtime: "iOS 16.4", deviceUDID: pad,
            bundleID: "group.com.example.Books", container: .appGroup)
        func place(_ corpusStore: String, at folder: URL, as name: String, _ location: StoreLocation) throws {
            try copyStore(corpusStore, to: folder.appendingPathComponent(name))
            tree.expected[folder.appendingPathComponent(name).path] = location
        }
        try place(
            "cdplus-samplemodel/SampleModel_V1.sqlite", at: notesApp.appendingPathComponent("Library/Application Support"),
            as: "Notes.sqlite", phoneLocation)
        // Any file name: a store without the .sqlite extension, in Documents.
        try place("apple-coredatabooks/CoreDataBooks.sqlite", at: booksApp.appendingPathComponent("Documents"), as: "Books.db", padApp)
        // A WAL store whose main file holds nothing: every page is in the -wal.
        try place(
            "osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite", at: group.appendingPathComponent("Library/Application Support"),
            as: "Shared.sqlite", padGroup)
        try place(
            "wibosco-migration/CoreDataMigration_Example_WAL.sqlite", at: group.appendingPathComponent("Library/Application Support"),
            as: "Posts.sqlite", padGroup)
        // Negative samples: a SQLite database that is not a Core Data store, and text.
        let plain = try DatabaseQueue(path: notesApp.appendingPathComponent("Library/Caches/cache.sqlite").path(creating: true))
        try plain.write { db in try db.execute(sql: "CREATE TABLE ZTHING (Z_PK INTEGER PRIMARY KEY); INSERT INTO ZTHING VALUES (1)") }
        try plain.close()
        try Data("not a database".utf8).write(to: notesApp.appendingPathComponent("Library/Caches/notes.sqlite"))
        // A folder nobody may read.
        try copyStore("cdplus-samplemodel/SampleModel_V2.sqlite", to: tree.lockedFolder.appendingPathComponent("Hidden.sqlite"))
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: tree.lockedFolder.path)
        return tree
    }

    static func copyStore(_ corpusStore: String, to target: URL) throws {
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let copy = try Corpus.copyStore(corpusStore)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: copy.path + suffix) {
            try FileManager.default.moveItem(atPath: copy.path + suffix, toPath: target.path + suffix)
        }
        try FileManager.default.removeItem(at: copy.deletingLastPathComponent())
    }

    static func writePlist(_ value: [String: String], to url: URL, format: PropertyListSerialization.PropertyListFormat) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: value, format: format, options: 0).write(to: url)
    }

    static func remove(_ tree: Tree) {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tree.lockedFolder.path)
        try? FileManager.default.removeItem(at: tree.root)
    }

    /// Root reads every folder whatever its permissions, so the locked folder is only locked
    /// for other users.
    static var lockedFolderIsReadable: Bool { geteuid() == 0 }

    @Test func findsExactlyTheStoresWithDeviceRuntimeAndBundleID() throws {
        let tree = try Self.makeTree()
        defer { Self.remove(tree) }
        let before = try Checksums.of(directory: tree.root.appendingPathComponent("Library/Developer"))
        let report = StoreFinder.find(roots: [tree.root.path], sort: .path)
        var expected = tree.expected
        if Self.lockedFolderIsReadable {
            expected[tree.lockedFolder.appendingPathComponent("Hidden.sqlite").path] = tree.expected.values.first { $0.bundleID == "com.example.Notes" }
        }
        #expect(report.stores.map(\.path) == expected.keys.sorted())
        for store in report.stores {
            #expect(store.location == expected[store.path], "\(store.path)")
            #expect(store.problem == nil, "\(store.path): \(store.problem ?? "")")
            #expect(store.entityCount > 0)
        }
        #expect(report.unreadableFolders == (Self.lockedFolderIsReadable ? 0 : 1))
        // Nothing was written: no -shm appeared, no byte changed.
        #expect(try Checksums.of(directory: tree.root.appendingPathComponent("Library/Developer")) == before)
    }

    @Test func readsMetadataAsSQLiteDoes() throws {
        let tree = try Self.makeTree()
        defer { Self.remove(tree) }
        let report = StoreFinder.find(roots: [tree.root.path])
        let shared = try #require(report.stores.first { $0.path.hasSuffix("Shared.sqlite") })
        let posts = try #require(report.stores.first { $0.path.hasSuffix("Posts.sqlite") })
        for (store, corpus) in [
            (shared, "osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite"),
            (posts, "wibosco-migration/CoreDataMigration_Example_WAL.sqlite"),
        ] {
            let copy = try Corpus.copyStore(corpus)
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            let queue = try DatabaseQueue(path: copy.path)
            let (uuid, entities) = try queue.read { db in
                (
                    try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_PRIMARYKEY WHERE Z_ENT < 16000") ?? 0
                )
            }
            try queue.close()
            #expect(store.storeUUID == uuid)
            #expect(store.entityCount == entities)
            #expect(store.frameworkVersion != nil)
        }
    }

    @Test func filtersByAppIncludingItsGroup() throws {
        let tree = try Self.makeTree()
        defer { Self.remove(tree) }
        let report = StoreFinder.find(roots: [tree.root.path], app: "com.example.books", sort: .path)
        #expect(report.stores.map { ($0.path as NSString).lastPathComponent } == ["Books.db", "Posts.sqlite", "Shared.sqlite"])
    }

    @Test func aMissingFolderIsCountedNotFatal() {
        let report = StoreFinder.find(roots: ["/nonexistent/cdstore-find"])
        #expect(report.stores.isEmpty)
        #expect(report.unreadableFolders == 1)
    }
}

extension URL {
    /// The path, after creating the folder that holds it.
    func path(creating: Bool) throws -> String {
        try FileManager.default.createDirectory(at: deletingLastPathComponent(), withIntermediateDirectories: true)
        return path
    }
}
