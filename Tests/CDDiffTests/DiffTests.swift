import CDTestSupport
import Foundation
import GRDB
import Testing

/// `cdstore diff` on copies of corpus stores changed with `sqlite3`, against golden reports.
@Suite(.temporaryDirectories, .enabled(if: SQLiteShell.isAvailable)) struct DiffTests {
    /// Every kind of change to SampleModel2: attributes of every type (string, integer,
    /// decimal, date, UUID, transformable, boolean, double, URI), an object deleted and one
    /// inserted, a page moved to another book (to-many members removed and added).
    static func changedSampleModel2() throws -> (a: URL, b: URL) {
        let (a, b) = try DiffFixtures.pair("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        try SQLiteShell.run(
            b,
            """
            UPDATE ZBOOK SET ZTITLE = 'A new "title"', ZPRICE = 12.5, ZPUBLISHEDAT = 700000000, \
                ZUNIQUEID = X'00112233445566778899AABBCCDDEEFF', ZCOVER = NULL WHERE Z_PK = 1;
            UPDATE ZBOOK SET ZISBLACKANDWHITE = 1 - ZISBLACKANDWHITE WHERE Z_PK = (SELECT MIN(Z_PK) FROM ZBOOK WHERE Z_ENT = 2);
            UPDATE ZFEEDBACK SET ZRATING = 4.5, ZCOMMENT = 'changed' WHERE Z_PK = 1;
            UPDATE ZWRITER SET ZAGE = 31, ZSITEURL = 'https://example.com/andrea' WHERE Z_PK = 1;
            DELETE FROM ZFEEDBACK WHERE Z_PK = 2;
            INSERT INTO ZFEEDBACK (Z_PK, Z_ENT, Z_OPT, ZRATING, ZAUTHORALIAS, ZCOMMENT, ZBOOKID)
                VALUES (445, 3, 1, 3.0, 'Zoe', 'new', X'FFEEDDCCBBAA99887766554433221100');
            UPDATE Z_PRIMARYKEY SET Z_MAX = 445 WHERE Z_ENT = 3;
            UPDATE ZPAGE SET ZBOOK = 2, Z1_BOOK = 1 WHERE Z_PK = 1;
            """)
        return (a, b)
    }

    /// SampleModel2 and a copy whose books and writers are renumbered (as an import into a fresh
    /// store would renumber them), references following, then changed by `change` (SQL).
    static func renumberedSampleModel2(then change: String) throws -> (a: URL, b: URL) {
        let (a, b) = try DiffFixtures.pair("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        try SQLiteShell.run(
            b,
            """
            UPDATE ZBOOK SET Z_PK = Z_PK + 1000;
            UPDATE ZPAGE SET ZBOOK = ZBOOK + 1000;
            UPDATE ZWRITER SET Z_PK = Z_PK + 500;
            UPDATE ZBOOK SET ZAUTHOR = ZAUTHOR + 500;
            \(change)
            """)
        return (a, b)
    }

    @Test func everyKindOfChange() throws {
        let (a, b) = try Self.changedSampleModel2()
        let text = DiffFixtures.diff(a, b, ["--limit", "5"])
        #expect(text.status == 1, "\(text.stderr)")
        try DiffFixtures.expectGolden("samplemodel2-changes.txt", text.stdout)
        let values = DiffFixtures.diff(a, b, ["Feedback", "--values"])
        #expect(values.status == 1)
        try DiffFixtures.expectGolden("samplemodel2-feedback-values.txt", values.stdout)
        let json = DiffFixtures.diff(a, b, ["--format", "json", "--limit", "5"])
        #expect(json.status == 1)
        try DiffFixtures.expectGolden("samplemodel2-changes.json", json.stdout)
    }

    /// An ordered to-many whose members stay but change places (netusage: an app's typical
    /// usages, kept in order by `Z_FOK_HASAPP`).
    @Test func orderedRelationshipReordered() throws {
        let (a, b) = try DiffFixtures.pair("plaso-netusage/netusage.sqlite")
        let app = try DatabaseQueue(path: a.path).read { db in try Int64.fetchOne(db, sql: "SELECT MIN(Z_PK) FROM ZPROCESS WHERE Z_ENT = 16") } ?? 0
        let rows = (1...3).map { "(\($0), 5, 1, \(app), \($0 * 1024))" }.joined(separator: ", ")
        for store in [a, b] {
            try SQLiteShell.run(store, "INSERT INTO ZAPPTYPICALUSAGE (Z_PK, Z_ENT, Z_OPT, ZHASAPP, Z_FOK_HASAPP) VALUES \(rows);")
        }
        try SQLiteShell.run(b, "UPDATE ZAPPTYPICALUSAGE SET Z_FOK_HASAPP = 4096 - Z_FOK_HASAPP;")
        let result = DiffFixtures.diff(a, b, ["--only", "data"])
        #expect(result.status == 1, "\(result.stderr)")
        try DiffFixtures.expectGolden("netusage-reordered.txt", result.stdout)
    }

    @Test func identicalStoresHaveNoDifferences() throws {
        let (a, b) = try DiffFixtures.pair("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        for format in ["text", "json", "ndjson"] {
            let result = DiffFixtures.diff(a, b, ["--format", format])
            #expect(result.status == 0, "\(format): \(result.stderr)")
            if format == "text" { #expect(result.stdout == "no differences\n") }
            if format == "json" { #expect(result.stdout.contains("\"same\":true")) }
            if format == "ndjson" { #expect(result.stdout.hasSuffix("{\"section\":\"summary\",\"same\":true}\n")) }
        }
    }

    /// A store compared with itself, for every corpus store cdstore can read objects from: no
    /// difference, exit 0, and the store unchanged.
    @Test func everyCorpusStoreEqualsItself() throws {
        var compared = 0
        for store in Corpus.stores {
            let copy = try Corpus.copyStore(store)
            let before = try Checksums.of(directory: copy.deletingLastPathComponent())
            let result = CommandRunner.runInProcess(["diff", copy.path, copy.path])
            let after = try Checksums.of(directory: copy.deletingLastPathComponent())
            #expect(before == after, "\(store) changed")
            if result.stderr.contains("no model cache") { continue }
            #expect(result.status == 0 && result.stdout == "no differences\n", "\(store): \(result.status) \(result.stderr)\(result.stdout.prefix(400))")
            compared += 1
        }
        #expect(compared >= 20)
    }

    /// Two versions of a model: the migration pairs of the corpus.
    @Test(arguments: [
        ("wibosco-migration/CoreDataMigration_Example_1.sqlite", "wibosco-migration/CoreDataMigration_Example_2.sqlite", "wibosco-1-2.txt"),
        ("wibosco-revised/CoreDataMigration_Example_2.sqlite", "wibosco-revised/CoreDataMigration_Example_3.sqlite", "wibosco-revised-2-3.txt"),
        ("cdplus-samplemodel/SampleModel_V1.sqlite", "cdplus-samplemodel/SampleModel_V2.sqlite", "samplemodel-v1-v2.txt"),
    ])
    func migrationPairs(_ old: String, _ new: String, _ golden: String) throws {
        let a = try Corpus.copyStore(old), b = try Corpus.copyStore(new)
        let result = DiffFixtures.diff(a, b, ["--limit", "3"])
        #expect(result.status == 1, "\(result.stderr)")
        try DiffFixtures.expectGolden(golden, result.stdout)
    }

    /// Stores `create` writes for two framework versions of one model version, and for two
    /// model versions.
    @Test func storesCreatedByDifferentVersions() throws {
        let folder = try TemporaryDirectory.make()
        let model = Corpus.url("wibosco-revised/CoreDataMigration_Example.xcdatamodeld").path
        let old = folder.appendingPathComponent("Old.sqlite"), new = folder.appendingPathComponent("New.sqlite")
        let newest = folder.appendingPathComponent("Newest.sqlite")
        #expect(
            CommandRunner.runInProcess(["create", old.path, "--model", model, "--version", "CoreDataMigration_Example 2", "--framework-version", "866"]).status
                == 0)
        #expect(
            CommandRunner.runInProcess(["create", new.path, "--model", model, "--version", "CoreDataMigration_Example 2", "--framework-version", "1344"]).status
                == 0)
        #expect(
            CommandRunner.runInProcess(["create", newest.path, "--model", model, "--version", "CoreDataMigration_Example 3", "--framework-version", "1344"])
                .status == 0)
        var frameworks = DiffFixtures.diff(old, new, ["--only", "schema"])
        frameworks = DiffFixtures.Run(status: frameworks.status, stdout: Self.withoutUUIDs(frameworks.stdout), stderr: frameworks.stderr)
        #expect(frameworks.status == 1, "\(frameworks.stderr)")
        try DiffFixtures.expectGolden("created-frameworks-866-1344.txt", frameworks.stdout)
        let versions = DiffFixtures.diff(new, newest, ["--only", "model"])
        #expect(versions.status == 1, "\(versions.stderr)")
        try DiffFixtures.expectGolden("created-versions-2-3.txt", versions.stdout)
    }

    /// Store UUIDs and hash digests of newly created stores change from run to run.
    static func withoutUUIDs(_ text: String) -> String {
        text.replacing(/[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/, with: "<UUID>")
    }

    /// Rows renumbered match by a business key.
    @Test func keyMatchingAfterRenumbering() throws {
        let (a, b) = try Self.renumberedSampleModel2(
            then: "UPDATE ZBOOK SET ZTITLE = 'retitled' WHERE ZUNIQUEID = (SELECT ZUNIQUEID FROM ZBOOK ORDER BY Z_PK LIMIT 1 OFFSET 4);")
        let byPK = DiffFixtures.diff(a, b, ["Book", "--only", "data", "--limit", "0", "--format", "json"])
        #expect(byPK.status == 1)
        #expect(
            byPK.stdout.contains("\"entity\":\"Book\",\"renamedFrom\":null,\"key\":null,\"deleted\":51,\"inserted\":51,\"updated\":0"),
            "\(byPK.stdout.prefix(600))")
        // Books point to renumbered writers: compared by Z_PK, every author changes.
        let authorsByPK = DiffFixtures.diff(a, b, ["Book", "--only", "data", "--key", "Book=uniqueID", "--format", "json", "--limit", "0"])
        let authored =
            try DatabaseQueue(path: a.path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZBOOK WHERE Z_ENT = 1 AND ZAUTHOR IS NOT NULL") } ?? 0
        #expect(authored > 40)
        #expect(
            authorsByPK.stdout.contains(
                "{\"entity\":\"Book\",\"renamedFrom\":null,\"key\":[\"uniqueID\"],\"deleted\":0,\"inserted\":0,\"updated\":\(authored),"),
            "\(authorsByPK.stdout.prefix(600))")
        // With the writers' key too, the targets are the same writers: only the retitled book differs.
        let byKey = DiffFixtures.diff(a, b, ["Book", "--only", "data", "--key", "Book=uniqueID", "--key", "Writer=alias"])
        #expect(byKey.status == 1, "\(byKey.stderr)")
        try DiffFixtures.expectGolden("samplemodel2-key.txt", byKey.stdout)
    }

    /// A sub-entity with a `--key` of its own is matched by it, and so is every target of that
    /// entity: the graphic novel, renumbered and given a new uniqueID (Book's key), is the same
    /// graphic novel by its title (its own key), as an object, as the book of its 19 pages and
    /// among its author's books; only its uniqueID changed.
    @Test func subEntityWithItsOwnKey() throws {
        let (a, b) = try Self.renumberedSampleModel2(then: "UPDATE ZBOOK SET ZUNIQUEID = X'00112233445566778899AABBCCDDEEFF' WHERE Z_ENT = 2;")
        let own = DiffFixtures.diff(a, b, ["--only", "data", "--key", "Book=uniqueID", "--key", "GraphicNovel=title", "--key", "Author=alias"])
        #expect(own.status == 1, "\(own.stderr)")
        try DiffFixtures.expectGolden("samplemodel2-subentity-key.txt", own.stdout)
        // By Book's key alone, the graphic novel is another object, and so is every page's and
        // the author's target.
        let inherited = DiffFixtures.diff(a, b, ["--only", "data", "--key", "Book=uniqueID", "--key", "Author=alias", "--format", "json", "--limit", "0"])
        #expect(inherited.status == 1, "\(inherited.stderr)")
        for counts in [
            "{\"entity\":\"GraphicNovel\",\"renamedFrom\":null,\"key\":[\"uniqueID\"],\"deleted\":1,\"inserted\":1,\"updated\":0,",
            "{\"entity\":\"Page\",\"renamedFrom\":null,\"key\":null,\"deleted\":0,\"inserted\":0,\"updated\":19,",
            "{\"entity\":\"Author\",\"renamedFrom\":null,\"key\":[\"alias\"],\"deleted\":0,\"inserted\":0,\"updated\":1,",
        ] {
            #expect(inherited.stdout.contains(counts), "\(counts) in \(inherited.stdout.prefix(800))")
        }
    }

    /// To-many members whose destination has a `--key` are compared by it: after a renumbering,
    /// an author's books are the same books, and only the book moved to the other author is
    /// reported, removed from one and added to the other.
    @Test func toManyMembersByKeyAfterRenumbering() throws {
        let (a, b) = try Self.renumberedSampleModel2(
            then:
                "UPDATE ZBOOK SET ZAUTHOR = 3 - (ZAUTHOR - 500) + 500 WHERE ZUNIQUEID = (SELECT ZUNIQUEID FROM ZBOOK WHERE ZAUTHOR IS NOT NULL ORDER BY Z_PK LIMIT 1 OFFSET 4);"
        )
        let byPK = DiffFixtures.diff(a, b, ["Author", "--only", "data", "--key", "Author=alias", "--format", "json", "--limit", "0"])
        #expect(
            byPK.stdout.contains("{\"entity\":\"Author\",\"renamedFrom\":null,\"key\":[\"alias\"],\"deleted\":0,\"inserted\":0,\"updated\":2,"),
            "\(byPK.stdout.prefix(600))")
        let byKey = DiffFixtures.diff(a, b, ["Author", "--only", "data", "--key", "Author=alias", "--key", "Book=uniqueID"])
        #expect(byKey.status == 1, "\(byKey.stderr)")
        try DiffFixtures.expectGolden("samplemodel2-members-key.txt", byKey.stdout)
        let json = DiffFixtures.diff(a, b, ["Author", "--only", "data", "--key", "Author=alias", "--key", "Book=uniqueID", "--format", "json"])
        try DiffFixtures.expectGolden("samplemodel2-members-key.json", json.stdout)
    }

    /// An ordered to-many renumbered: by its destination's key its members are the same, in
    /// the same order (no difference), and a reordering is still reported as one.
    @Test func orderedMembersByKeyAfterRenumbering() throws {
        let (a, b) = try DiffFixtures.pair("plaso-netusage/netusage.sqlite")
        let app = try DatabaseQueue(path: a.path).read { db in try Int64.fetchOne(db, sql: "SELECT MIN(Z_PK) FROM ZPROCESS WHERE Z_ENT = 16") } ?? 0
        let rows = (1...3).map { "(\($0), 5, 1, \(app), \($0 * 1024), \(700000000 + $0))" }.joined(separator: ", ")
        for store in [a, b] {
            try SQLiteShell.run(store, "INSERT INTO ZAPPTYPICALUSAGE (Z_PK, Z_ENT, Z_OPT, ZHASAPP, Z_FOK_HASAPP, ZTIMESTAMP) VALUES \(rows);")
        }
        try SQLiteShell.run(b, "UPDATE ZAPPTYPICALUSAGE SET Z_PK = 10 - Z_PK;")
        let key = ["App", "--only", "data", "--key", "AppTypicalUsage=timeStamp"]
        let byPK = DiffFixtures.diff(a, b, ["App", "--only", "data"])
        #expect(byPK.status == 1, "\(byPK.stderr)")
        let renumbered = DiffFixtures.diff(a, b, key)
        #expect(renumbered.status == 0, "\(renumbered.stderr)\(renumbered.stdout)")
        #expect(renumbered.stdout == "no differences\n")
        try SQLiteShell.run(b, "UPDATE ZAPPTYPICALUSAGE SET Z_FOK_HASAPP = 4096 - Z_FOK_HASAPP;")
        let reordered = DiffFixtures.diff(a, b, key)
        #expect(reordered.status == 1, "\(reordered.stderr)")
        try DiffFixtures.expectGolden("netusage-members-key-reordered.txt", reordered.stdout)
    }

    @Test func keyThatIsNotUnique() throws {
        let (a, b) = try DiffFixtures.pair("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let result = DiffFixtures.diff(a, b, ["--key", "Feedback=authorAlias"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix("cdstore: error: --key Feedback=authorAlias is not unique in A: several Feedback objects have authorAlias = \""),
            "\(result.stderr)")
        let unknown = DiffFixtures.diff(a, b, ["--key", "Feedback=nothing"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "cdstore: error: --key Feedback=…: nothing is not a stored attribute of Feedback in B\n")
        let malformed = DiffFixtures.diff(a, b, ["--key", "Feedback"])
        #expect(malformed.status == 2)
        #expect(malformed.stderr == "cdstore: error: --key Feedback: expected Entity=attribute[,attribute]\n")
    }

    @Test func troubleExitsWithTwo() throws {
        let store = try Corpus.copyStore("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let text = try TemporaryDirectory.make().appendingPathComponent("notes.txt")
        try Data("not a store\n".utf8).write(to: text)
        let notAStore = DiffFixtures.diff(store, text)
        #expect(notAStore.status == 2)
        #expect(notAStore.stdout.isEmpty)
        #expect(notAStore.stderr.split(separator: "\n").count == 1, "\(notAStore.stderr)")
        #expect(notAStore.stderr.hasPrefix("cdstore: error: B"), "\(notAStore.stderr)")

        let unrelated = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_1.sqlite")
        let result = DiffFixtures.diff(store, unrelated)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                cdstore: error: A and B have no entity in common: they are not stores of the same app
                hint: compare two versions of one app's store, or pass --only schema to compare the tables

                """)
        let unknownEntity = DiffFixtures.diff(store, store, ["Nothing"])
        #expect(unknownEntity.status == 2)
        #expect(unknownEntity.stderr.hasPrefix("cdstore: error: unknown entity \"Nothing\"; entities: "))
    }
}
