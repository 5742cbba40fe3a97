import CDBase
import CDTestSupport
import Foundation
import GRDB
import Testing

/// `cdstore validate` end to end: exit status, the JSON contract, and that the store is not touched.
@Suite(.temporaryDirectories) struct ValidateCommandTests {
    /// A copy of SampleModel2_V1 with one book's mandatory title set to NULL and one page's
    /// to-one key pointing at no book (its triggers dropped so that SQLite lets the edit through).
    static func brokenCopy() throws -> URL {
        let broken = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let database = try DatabaseQueue(path: broken.path)
        try database.write { db in
            for trigger in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'") {
                try db.execute(sql: "DROP TRIGGER \(trigger.quotedSQLIdentifier)")
            }
            try db.execute(sql: "UPDATE ZBOOK SET ZTITLE = NULL WHERE Z_PK = 3; UPDATE ZPAGE SET ZBOOK = 99999 WHERE Z_PK = 5")
        }
        try database.close()
        return broken
    }

    @Test func cleanStoreExitsZero() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel3/SampleModel3_V1.sqlite")
        let result = CommandRunner.runInProcess(["validate", copy.path])
        #expect(result.status == 0 && result.stderr.isEmpty)
        #expect(result.stdout.contains("Result: no problems found."))
    }

    @Test func problemsExitOneWithTheJSONContract() throws {
        let copy = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        let clean = CommandRunner.runInProcess(["validate", copy.path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(clean.stdout.utf8)) as? [String: Any])
        #expect(Set(report.keys) == ["store", "objects", "errors", "integrity", "notChecked"])
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)

        let broken = try Self.brokenCopy()
        let text = CommandRunner.runInProcess(["validate", broken.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("1570 NSValidationMissingMandatoryPropertyError  title  1 object: title is a required value."))
        #expect(text.stdout.contains("danglingToOne: 1 Page.book key point to no Book row"))
        let json = CommandRunner.runInProcess(["validate", broken.path, "--json"])
        #expect(json.status == 1)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let errors = try #require(decoded["errors"] as? [[String: Any]])
        #expect(errors.count == 1)
        #expect(Set(errors[0].keys) == ["code", "entity", "key", "object", "value", "message", "errors"])
        #expect(errors[0]["code"] as? Int == 1570 && errors[0]["key"] as? String == "title" && errors[0]["value"] is NSNull)
        let integrity = try #require(decoded["integrity"] as? [[String: Any]])
        #expect(integrity.map { $0["kind"] as? String } == ["danglingToOne"])
        #expect(Set(integrity[0].keys) == ["kind", "entity", "key", "count", "examples", "message"])
    }

    @Test func badInputIsOneLine() throws {
        let result = CommandRunner.runInProcess(["validate", "/nonexistent/store.sqlite"])
        #expect(result.status == 2)
        #expect(result.stderr == "cdstore: error: /nonexistent/store.sqlite: no such file\n")
    }
}
