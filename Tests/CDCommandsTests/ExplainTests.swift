import CDTestSupport
import Foundation
import GRDB
import Testing

/// `cdstore explain` end to end: codes, pasted dumps on stdin and inline, JSON, exit statuses, and
/// the cross-check against a real store and model from the corpus.
@Suite(.temporaryDirectories) struct ExplainTests {
    static let store = "cdplus-samplemodel3/SampleModel3_V1.sqlite"
    static let model = Corpus.url("cdplus-samplemodel3/SampleModel3.xcdatamodeld").path
    static let storeUUID = "5443A63D-EF0E-44C2-B216-AE8B5ED2FD09"

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func explainsACode() throws {
        let result = CommandRunner.runInProcess(["explain", "1570"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.hasPrefix("1570 NSValidationMissingMandatoryPropertyError (NSCocoaErrorDomain)\n"))
        #expect(result.stdout.contains("See cdstore-troubleshooting(7), section \"Required value missing (1570, 1560)\"."))
    }

    @Test func explainsAConstantNameAndAnExtendedSQLiteCode() throws {
        let busy = CommandRunner.runInProcess(["explain", "SQLITE_BUSY", "--json"])
        #expect(busy.status == 0)
        let object = try Self.json(busy.stdout)
        #expect(object["code"] as? Int == 5)
        #expect(object["finding"] is NSNull)
        #expect(object["section"] as? String == "Database is locked (5)")
        let extended = CommandRunner.runInProcess(["explain", "266"])
        #expect(extended.status == 0)
        #expect(extended.stdout.hasPrefix("266 SQLITE_IOERR (extended code 266 = 10 + 1·256)"))
    }

    @Test func unknownCodeIsAnInputError() throws {
        let result = CommandRunner.runInProcess(["explain", "4242"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "cdstore: error: unknown error code \"4242\": not in cdstore's catalogue (see cdstore-troubleshooting(7))\n")
    }

    @Test func usageErrors() throws {
        #expect(CommandRunner.runInProcess(["explain"]).status == 64)
        #expect(CommandRunner.runInProcess(["explain", "1570", "--text", "x"]).status == 64)
        #expect(CommandRunner.runInProcess(["explain", "1570", "--store", "a.sqlite"]).status == 64)
    }

    @Test func emptyOrErrorlessInputIsAnInputError() throws {
        let empty = CommandRunner.runInProcess(["explain", "-"], stdin: Data())
        #expect(empty.status == 2)
        #expect(empty.stderr.hasPrefix("cdstore: error: the input is empty"))
        #expect(empty.stderr.split(separator: "\n").count == 1)
        let prose = CommandRunner.runInProcess(["explain", "--text", "all is well"])
        #expect(prose.status == 2)
        #expect(prose.stderr.hasPrefix("cdstore: error: no Core Data error found in the input"))
    }

    /// The reference dumps give the same explanation through the CLI as through the library.
    @Test(arguments: ["errors-md-5.8-1", "errors-md-5.11-2", "errors-md-5.1-1"])
    func stdinMatchesGolden(_ fixture: String) throws {
        let dump = try String(contentsOf: Golden.fixtures.appendingPathComponent("explain/\(fixture).dump"), encoding: .utf8)
        let text = CommandRunner.runInProcess(["explain", "-"], stdin: Data(dump.utf8))
        #expect(text.status == 0, "stderr: \(text.stderr)")
        #expect(text.stdout == (try Golden.expected("explain/\(fixture).txt", actual: text.stdout)))
        let json = CommandRunner.runInProcess(["explain", "--json", "--text", dump])
        #expect(json.status == 0)
        #expect(json.stdout == (try Golden.expected("explain/\(fixture).json", actual: json.stdout)))
    }

    /// A 1570 naming a real object of a store copy whose value was set to NULL: explain finds it.
    @Test func crossCheckFindsTheOffendingRow() throws {
        let copy = try Corpus.copyStore(Self.store)
        let queue = try DatabaseQueue(path: copy.path)
        try queue.write { db in try db.execute(sql: "UPDATE ZUSER SET ZPETNAME = NULL WHERE Z_PK = 2") }
        try queue.close()
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        let uri = "x-coredata://\(Self.storeUUID)/User/p2"
        let dump = """
            2026-11-22 10:00:00.000 App[1:2] save failed: Error Domain=NSCocoaErrorDomain Code=1570 "petName is a required value." UserInfo={NSValidationErrorObject=<User: 0x600001> (entity: User; id: 0xd000000000080000 <\(uri)>; data: {
                name = "User_1";
                petName = nil;
            }), NSValidationErrorKey=petName, NSLocalizedDescription=petName is a required value.}
            """
        let result = CommandRunner.runInProcess(["explain", "-", "--json", "--store", copy.path, "--model", Self.model], stdin: Data(dump.utf8))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let object = try Self.json(result.stdout)
        let finding = try #require(object["finding"] as? [String: Any])
        #expect(finding["entity"] as? String == "User")
        #expect(finding["key"] as? String == "petName")
        #expect(finding["value"] as? String == "nil")
        let check = try #require(object["crossCheck"] as? [String: Any])
        #expect(check["uuidMatches"] as? Bool == true)
        let row = try #require((check["rows"] as? [[String: Any]])?.first)
        #expect(row["object"] as? String == uri)
        #expect(row["objectFound"] as? Bool == true)
        #expect(row["objectValueIsNull"] as? Bool == true)
        #expect(row["nullRowCount"] as? Int == 1)
        #expect(row["nullRows"] as? [String] == [uri])
        #expect(row["optionalInModel"] as? Bool == true)
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before, "the store changed")

        let text = CommandRunner.runInProcess(["explain", "-", "--store", copy.path], stdin: Data(dump.utf8))
        #expect(text.stdout.contains("\(uri): the row exists and its petName is NULL."))
    }

    @Test func crossCheckOfAnotherStoreUUID() throws {
        let copy = try Corpus.copyStore(Self.store)
        let dump =
            #"Error Domain=NSCocoaErrorDomain Code=1570 "name is a required value." UserInfo={NSValidationErrorObject=<User: 0x1> (entity: User; id: 0x2 <x-coredata://00000000-0000-0000-0000-000000000000/User/p999>; data: <fault>), NSValidationErrorKey=name}"#
        let result = CommandRunner.runInProcess(["explain", "--json", "--text", dump, "--store", copy.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let check = try #require(try Self.json(result.stdout)["crossCheck"] as? [String: Any])
        #expect(check["uuidMatches"] as? Bool == false)
        let row = try #require((check["rows"] as? [[String: Any]])?.first)
        #expect(row["objectFound"] as? Bool == false)
        #expect(row["nullRowCount"] as? Int == 0)
    }

    /// A 134100 whose metadata is that of model version SampleModel3_v2, checked against a store
    /// written by version SampleModel3: the versions that wrote each are named.
    @Test func crossCheckNamesTheModelVersions() throws {
        let copy = try Corpus.copyStore(Self.store)
        func dump(_ hashes: String) -> String {
            """
            CoreData: error: -addPersistentStoreWithType:SQLite configuration:(null) URL:file:///tmp/App.sqlite options:(null) ... returned error Error Domain=NSCocoaErrorDomain Code=134100 "The managed object model version used to open the persistent store is incompatible with the one that was used to create the persistent store." UserInfo={metadata={
                NSPersistenceFrameworkVersion = 1344;
                NSStoreModelVersionHashes =     {
            \(hashes)
                };
                NSStoreModelVersionIdentifiers =     (
                    1
                );
                NSStoreType = SQLite;
                NSStoreUUID = "\(Self.storeUUID)";
            }, reason=The model used to open the store is incompatible with the one used to create the store}
            """
        }
        let storeHashes = "        User = <6b31f4e9 7b691d16 c4c820ba e55f8940 8d47013b d42151ec fde1eac7 fe4be798>;"
        let same = CommandRunner.runInProcess(["explain", "-", "--json", "--store", copy.path, "--model", Self.model], stdin: Data(dump(storeHashes).utf8))
        #expect(same.status == 0, "stderr: \(same.stderr)")
        let sameHashes = try #require((try Self.json(same.stdout)["crossCheck"] as? [String: Any])?["hashes"] as? [String: Any])
        #expect(sameHashes["dumpMatchesStore"] as? Bool == true)
        #expect(sameHashes["storeWrittenBy"] as? String == "SampleModel3")
        #expect(sameHashes["dumpWrittenBy"] as? String == "SampleModel3")

        let v2Hashes = """
                    Pet = <76734226 2a645873 0c78aae7 3c5328d0 fcaa4e35 96d2f87f 22e366eb 46a9f46f>;
                    User = <6a47cbef 0e3f84c2 449249fd c83f003d 7e514378 f8ee9a76 a8d4c0ec 8bb1b822>;
            """
        let other = CommandRunner.runInProcess(["explain", "-", "--store", copy.path, "--model", Self.model], stdin: Data(dump(v2Hashes).utf8))
        #expect(other.status == 0, "stderr: \(other.stderr)")
        #expect(other.stdout.contains("The dump's entity hashes differ from this store's for Pet, User"))
        #expect(other.stdout.contains("Model version \"SampleModel3\" has the store's hashes: it wrote the store."))
        #expect(other.stdout.contains("Model version \"SampleModel3_v2\" has the dump's hashes."))

        let modelOnly = CommandRunner.runInProcess(["explain", "--json", "--text", dump(v2Hashes), "--model", Self.model])
        let modelHashes = try #require((try Self.json(modelOnly.stdout)["crossCheck"] as? [String: Any])?["hashes"] as? [String: Any])
        #expect(modelHashes["dumpWrittenBy"] as? String == "SampleModel3_v2")
        #expect(modelHashes["storeWrittenBy"] is NSNull)

        // Cut after one entity: the version is still named from the entities the paste lists.
        let full = dump(v2Hashes)
        let petLine = try #require(full.range(of: "Pet = <"))
        let cut = String(full[..<petLine.lowerBound]) + "User = <6a47cbef 0e3f84c2 449249fd c83f003d 7e514378 f8ee9a76 a8d4c0ec 8bb1b822>;\n"
        let partial = CommandRunner.runInProcess(["explain", "--json", "--text", cut, "--model", Self.model])
        #expect(partial.status == 0, "stderr: \(partial.stderr)")
        let partialObject = try Self.json(partial.stdout)
        #expect(partialObject["truncated"] as? Bool == true)
        let partialHashes = try #require((partialObject["crossCheck"] as? [String: Any])?["hashes"] as? [String: Any])
        #expect(partialHashes["dumpWrittenBy"] as? String == "SampleModel3_v2")
    }

    /// "Could not fulfill a fault": the object is there, was deleted, or never existed in the store.
    @Test func crossCheckOfAFault() throws {
        let copy = try Corpus.copyStore(Self.store)
        let queue = try DatabaseQueue(path: copy.path)
        try queue.write { db in try db.execute(sql: "DELETE FROM ZUSER WHERE Z_PK = 3") }
        try queue.close()
        func verdict(_ pk: Int) throws -> String? {
            let dump = "CoreData: error: CoreData could not fulfill a fault for '0xd0000000000c0000 <x-coredata://\(Self.storeUUID)/User/p\(pk)>'"
            let result = CommandRunner.runInProcess(["explain", "--json", "--text", dump, "--store", copy.path])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let object = try Self.json(result.stdout)
            #expect(object["code"] as? Int == 133000)
            let check = try #require(object["crossCheck"] as? [String: Any])
            return (check["objects"] as? [[String: Any]])?.first?["verdict"] as? String
        }
        #expect(try verdict(2) == "exists")
        #expect(try verdict(3) == "deleted")
        #expect(try verdict(99) == "never allocated")
    }

    /// A merge conflict's object is looked up and its current Z_OPT compared with the dump's.
    @Test func crossCheckOfAMergeConflict() throws {
        let copy = try Corpus.copyStore(Self.store)
        let uri = "x-coredata://\(Self.storeUUID)/User/p4"
        let dump =
            "Error Domain=NSCocoaErrorDomain Code=133020 \"Could not merge changes.\" UserInfo={conflictList=(\n    \"NSMergeConflict (0x1) for NSManagedObject (0x2) with objectID '0x3 <\(uri)>' with oldVersion = 1 and newVersion = 7 and old object snapshot = {}\"\n)}"
        let result = CommandRunner.runInProcess(["explain", "--text", dump, "--store", copy.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("\(uri): the row exists (Z_OPT 1); the conflict saw 7, so it changed again since."))
    }

    @Test func missingStoreIsAnInputError() throws {
        let result = CommandRunner.runInProcess(["explain", "--text", "database is locked", "--store", "/nonexistent/App.sqlite"])
        #expect(result.status == 2)
        #expect(result.stderr == "cdstore: error: /nonexistent/App.sqlite: no such file\n")
    }
}
