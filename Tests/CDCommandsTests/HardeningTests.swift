import CDBase
import CDTestSupport
import Foundation
import GRDB
import Testing

/// Damaged stores that SQLite opens fine: every value cdstore reads is checked for its type and
/// range, so a wrong one is a finding or a warning, never a crash or an invented object ID.
@Suite(.temporaryDirectories) struct DamagedValueTests {
    /// A copy of `store` changed by `sql`, with the store's triggers dropped first (Core Data's
    /// triggers call functions plain SQLite does not have).
    static func damagedCopy(_ store: String, _ sql: String) throws -> URL {
        let copy = try Corpus.copyStore(store)
        let database = try DatabaseQueue(path: copy.path)
        try database.write { db in
            for trigger in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'") {
                try db.execute(sql: "DROP TRIGGER \(trigger.quotedSQLIdentifier)")
            }
            try db.execute(sql: sql)
        }
        try database.close()
        return copy
    }

    static func integrity(_ result: CommandRunner.Result) throws -> [[String: Any]] {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return try #require(report["integrity"] as? [[String: Any]])
    }

    @Test(arguments: ["1099511627776", "-5"])
    func entityNumberOutOfRangeIsAFinding(_ number: String) throws {
        let copy = try Self.damagedCopy("cdplus-samplemodel3/SampleModel3_V1.sqlite", "UPDATE Z_PRIMARYKEY SET Z_ENT = \(number)")
        for format in ["description", "json"] {
            let dump = try CommandRunner.run(["dump", copy.path, "--format", format])
            #expect([0, 2].contains(dump.status), "stderr: \(dump.stderr)")
        }
        let validate = try CommandRunner.run(["validate", copy.path, "--json"])
        #expect(validate.status == 1, "stderr: \(validate.stderr)")
        let problem = try #require(try Self.integrity(validate).first { $0["kind"] as? String == "outOfRange" })
        #expect(problem["entity"] as? String == "User" && problem["key"] as? String == "Z_PRIMARYKEY.Z_ENT")
        let inspect = try CommandRunner.run(["inspect", copy.path])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("Z_PRIMARYKEY.Z_ENT (entity User) holds \(number), out of range"))
    }

    @Test(arguments: ["Z_MAX", "Z_SUPER"])
    func textInPrimaryKeyTableIsAFinding(_ column: String) throws {
        let copy = try Self.damagedCopy("cdplus-samplemodel2/SampleModel2_V1.sqlite", "UPDATE Z_PRIMARYKEY SET \(column) = 'x' WHERE Z_NAME = 'GraphicNovel'")
        let commands = [
            ["inspect"], ["dump", "--format", "json"], ["dump", "--format", "description"], ["dump", "--format", "table"],
            ["clean", "--dry-run"], ["reset", "--dry-run", "--recreate"],
        ]
        for command in commands {
            let result = try CommandRunner.run([command[0], copy.path] + command.dropFirst())
            #expect([0, 1].contains(result.status), "\(command): \(result.stderr)")
        }
        let validate = try CommandRunner.run(["validate", copy.path, "--json"])
        #expect(validate.status == 1)
        let problem = try #require(try Self.integrity(validate).first { $0["kind"] as? String == "wrongType" })
        #expect(problem["entity"] as? String == "GraphicNovel" && problem["key"] as? String == "Z_PRIMARYKEY.\(column)")
        #expect((problem["message"] as? String)?.contains("holds text 'x', not an integer") == true)
        let inspect = try CommandRunner.run(["inspect", copy.path])
        #expect(inspect.stdout.contains("Z_PRIMARYKEY.\(column) (entity GraphicNovel) holds text 'x', not an integer"))
    }

    /// Found by scripts/fuzz.sh: the Z_MAX check subtracted a negative Z_MAX and overflowed.
    @Test func negativeZMAXIsAFinding() throws {
        let copy = try Self.damagedCopy("osxphotos-photosgraph-10.12.6/photosgraph.graphdb", "UPDATE Z_PRIMARYKEY SET Z_MAX = -9223372036854775808")
        let validate = try CommandRunner.run(["validate", copy.path, "--json"])
        #expect(validate.status == 1, "stderr: \(validate.stderr)")
        #expect(try Self.integrity(validate).contains { $0["kind"] as? String == "outOfRange" && $0["key"] as? String == "Z_PRIMARYKEY.Z_MAX" })
    }

    /// Found by scripts/fuzz.sh: a date column holding Int64.max or infinity overflowed the date
    /// arithmetic in every text format.
    @Test(arguments: ["9223372036854775807", "-9e999"])
    func absurdDateIsRendered(_ value: String) throws {
        let copy = try Self.damagedCopy("cdplus-samplemodel2/SampleModel2_V1.sqlite", "UPDATE ZBOOK SET ZPUBLISHEDAT = \(value)")
        for format in ["description", "json", "table", "csv"] {
            let dump = try CommandRunner.run(["dump", copy.path, "Book", "--format", format])
            #expect(dump.status == 0, "\(format): \(dump.stderr)")
        }
    }

    @Test func textInAForeignKeyIsShownAsFound() throws {
        let copy = try Self.damagedCopy("cdplus-samplemodel2/SampleModel2_V1.sqlite", "UPDATE ZPAGE SET ZBOOK = 'abc' WHERE Z_PK = 5")
        let validate = try CommandRunner.run(["validate", copy.path, "--json"])
        #expect(validate.status == 1, "stderr: \(validate.stderr)")
        let problem = try #require(try Self.integrity(validate).first { $0["kind"] as? String == "wrongType" })
        #expect(problem["entity"] as? String == "Page" && problem["key"] as? String == "book" && problem["count"] as? Int == 1)
        #expect((problem["examples"] as? [String])?.first?.hasSuffix("/Page/p5 → text 'abc'") == true)
        let dump = try CommandRunner.run(["dump", copy.path, "Page", "--format", "ndjson"])
        #expect(dump.status == 0)
        let line = try #require(dump.stdout.split(separator: "\n").first { $0.contains("/Page/p5\"") })
        #expect(line.contains("abc") && !line.contains("Book/p0"))
    }

    @Test func blobInZENTIsAFinding() throws {
        let copy = try Self.damagedCopy("cdplus-samplemodel2/SampleModel2_V1.sqlite", "UPDATE ZBOOK SET Z_ENT = x'0102' WHERE Z_PK = 3")
        let validate = try CommandRunner.run(["validate", copy.path, "--json"])
        #expect(validate.status == 1, "stderr: \(validate.stderr)")
        let problem = try #require(try Self.integrity(validate).first { $0["kind"] as? String == "wrongType" })
        #expect(problem["key"] as? String == "ZBOOK.Z_ENT" && problem["count"] as? Int == 1)
        let inspect = try CommandRunner.run(["inspect", copy.path])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("1 row of ZBOOK have Z_ENT blob of 2 bytes, not an integer"))
    }

    @Test func unreadableModelCacheIsAFindingAndRawSQLStillRuns() throws {
        let copy = try Self.damagedCopy("cdplus-samplemodel3/SampleModel3_V1.sqlite", "UPDATE Z_MODELCACHE SET Z_CONTENT = x'00010203'")
        let model = Corpus.url("cdplus-samplemodel3/SampleModel3.xcdatamodeld").path
        let validate = try CommandRunner.run(["validate", copy.path, "--model", model, "--json"])
        #expect(validate.status == 1, "stderr: \(validate.stderr)")
        #expect(try Self.integrity(validate).contains { $0["kind"] as? String == "unreadableModelCache" })
        let sql = try CommandRunner.run(["sql", copy.path, "--raw", "SELECT COUNT(*) AS n FROM ZUSER", "--format", "csv"])
        #expect(sql.status == 0, "stderr: \(sql.stderr)")
        #expect(sql.stdout == "n\r\n12\r\n")
    }
}

/// How a store is found and refused: links, and a WAL-mode file copied without its `-wal`.
@Suite(.temporaryDirectories) struct StoreLocationTests {
    @Test func symbolicLinkOpensItsTarget() throws {
        let copy = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        let folder = try TemporaryDirectory.make()
        let link = folder.appendingPathComponent("link.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: copy)
        let result = try CommandRunner.run(["inspect", link.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("wal   CLSContactCache.sqlite-wal"))
    }

    @Test func walModeFileWithoutItsWALSaysSo() throws {
        let copy = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        try FileManager.default.removeItem(atPath: copy.path + "-wal")
        let result = try CommandRunner.run(["inspect", copy.path])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("cdstore: error: ") && result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("the data is probably in the missing -wal file") && result.stderr.contains("-shm"))
    }
}

/// `explain --store` with hashes the paste cut short compares only the bytes it shows.
@Suite(.temporaryDirectories) struct TruncatedHashTests {
    static func dump(_ hash: String) -> String {
        """
        Error Domain=NSCocoaErrorDomain Code=134100 "The managed object model version used to open the persistent store is incompatible with the one that was used to create the persistent store." UserInfo={metadata={
            NSPersistenceFrameworkVersion = 1344;
            NSStoreModelVersionHashes =     {
                User = {length = 32, bytes = \(hash) };
            };
            NSStoreType = SQLite;
        }, reason=The model used to open the store is incompatible with the one used to create the store}
        """
    }

    static func hashes(_ paste: String, store: URL) throws -> ([String: Any], [String: Any]) {
        let result = try CommandRunner.run(["explain", "-", "--json", "--store", store.path], stdin: Data(paste.utf8))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let crossCheck = try #require(json["crossCheck"] as? [String: Any])
        let finding = try #require((json["findings"] as? [[String: Any]])?.first ?? (json["finding"] as? [String: Any]) ?? json)
        return (try #require(crossCheck["hashes"] as? [String: Any]), finding)
    }

    @Test func visibleBytesDecide() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel3/SampleModel3_V1.sqlite")
        let (same, _) = try Self.hashes(Self.dump("0x6b31f4e9 7b691d16 ... d42151ec fde1eac7 fe4be798"), store: copy)
        #expect(same["dumpMatchesStore"] is NSNull && same["comparison"] as? String == "visibleBytes")
        let (other, _) = try Self.hashes(Self.dump("0x1d6a9dbb … 56a4f5f8"), store: copy)
        #expect(other["dumpMatchesStore"] as? Bool == false && other["differingEntities"] as? [String] == ["User"])
        let (unknown, _) = try Self.hashes(Self.dump("0x"), store: copy)
        #expect(unknown["dumpMatchesStore"] is NSNull && unknown["comparison"] as? String == "cannotTell")
    }

    @Test func truncatedHashesAreNotComplete() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel3/SampleModel3_V1.sqlite")
        let result = try CommandRunner.run(["explain", "-", "--json", "--store", copy.path], stdin: Data(Self.dump("0x6b31f4e9 ... fe4be798").utf8))
        #expect(!result.stdout.contains("\"hashesComplete\" : true"))
        #expect(result.stdout.contains("\"hashesComplete\" : false"))
    }
}
