@testable import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// Bad input gets a one-line ``StoreError`` naming the problem, never a crash.
@Suite(.temporaryDirectories) struct BadInputTests {
    private func error(opening path: String) -> StoreError? {
        do {
            _ = try StoreInspector.inspect(path: path)
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    @Test func missingPath() throws {
        let path = try TemporaryDirectory.make().appendingPathComponent("Nope.sqlite").path
        #expect(error(opening: path)?.description == "\(path): no such file")
    }

    @Test func directory() throws {
        let path = try TemporaryDirectory.make().path
        #expect(error(opening: path)?.description == "\(path) is a directory, not a store file")
    }

    @Test func emptyFile() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Empty.sqlite")
        try Data().write(to: url)
        #expect(error(opening: url.path)?.description == "\(url.path) is empty (0 bytes), not a SQLite database")
    }

    @Test func randomBytes() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Random.sqlite")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: url)
        #expect(error(opening: url.path)?.description == "\(url.path) is not a SQLite database (no SQLite header)")
    }

    @Test func plainSQLiteIsNotCoreData() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Plain.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)") }
        try queue.close()
        #expect(
            error(opening: url.path)?.description
                == "\(url.path) is a SQLite database but not a Core Data store: missing tables Z_METADATA, Z_PRIMARYKEY")
    }

    @Test func truncatedStore() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let data = try Data(contentsOf: copy)
        try data.prefix(data.count / 2).write(to: copy)
        let message = try #require(error(opening: copy.path)).description
        let grouped = { (count: Int) in count.formatted(.number.locale(Locale(identifier: "en_US"))) }
        #expect(message == "\(copy.path) is truncated: the header expects \(grouped(data.count)) bytes, the file has \(grouped(data.count / 2))")
    }

    /// A file cut mid-page (not a whole number of pages) is caught even without a valid header size.
    @Test func truncatedMidPage() throws {
        let copy = try Corpus.copyStore("apple-recipes/Recipes.sqlite")
        let data = try Data(contentsOf: copy)
        try data.prefix(data.count - 1000).write(to: copy)
        let message = try #require(error(opening: copy.path)).description
        #expect(message.hasPrefix("\(copy.path) is truncated"))
    }

    @Test func corruptPages() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        var data = try Data(contentsOf: copy)
        // Overwrite everything after the first page: the schema page survives, the tables do not.
        let pageSize = 4096
        for index in pageSize..<data.count { data[index] = UInt8(truncatingIfNeeded: index &* 31) }
        try data.write(to: copy)
        let message = try #require(error(opening: copy.path)).description
        #expect(message.hasPrefix(copy.path))
        #expect(!message.contains("\n"))
    }

    @Test func corruptMetadataPlist() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let queue = try DatabaseQueue(path: copy.path)
        try queue.write { db in try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = x'62706c6973743030ffff'") }
        try queue.close()
        #expect(
            error(opening: copy.path)?.description
                == "\(copy.path): the metadata (Z_METADATA.Z_PLIST) is corrupt: binary property list is truncated")
    }

    /// A damaged model cache does not stop inspection; it becomes a warning.
    @Test func corruptModelCacheIsAWarning() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let queue = try DatabaseQueue(path: copy.path)
        try queue.write { db in try db.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = substr(Z_CONTENT, 1, 100)") }
        try queue.close()
        let inspection = try StoreInspector.inspect(path: copy.path)
        #expect(inspection.modelCache.present)
        #expect(inspection.modelCache.error == "\(copy.path): the model cache (Z_MODELCACHE) is corrupt: compressed data is corrupt or truncated")
        #expect(inspection.warnings.contains { $0.hasPrefix("model cache cannot be read") })
        #expect(inspection.entities.map(\.name) == ["Color", "Post"])
    }

    @Test func nullMetadataPlistIsAWarning() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let queue = try DatabaseQueue(path: copy.path)
        try queue.write { db in try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = NULL") }
        try queue.close()
        let inspection = try StoreInspector.inspect(path: copy.path)
        #expect(inspection.metadata.plistPresent == false)
        #expect(inspection.warnings.contains { $0.contains("Z_PLIST) is NULL") })
    }

    @Test func loweredZMaxIsAWarning() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        let queue = try DatabaseQueue(path: copy.path)
        let maxPK = try queue.write { db -> Int in
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_NAME = 'Post'")
            return try Int.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ZPOST")!
        }
        try queue.close()
        let inspection = try StoreInspector.inspect(path: copy.path)
        #expect(inspection.warnings.contains("Post: Z_MAX is 3 but the largest Z_PK in ZPOST is \(maxPK): the next insert would reuse a primary key"))
    }

    /// Root reads any file, so this case can only be checked as a normal user.
    @Test(.enabled(if: getuid() != 0)) func permissionDenied() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_3.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: copy.path)
        #expect(error(opening: copy.path)?.description == "\(copy.path): permission denied")
    }
}
