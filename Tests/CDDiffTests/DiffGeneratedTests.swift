import CDTestSupport
import Foundation
import GRDB
import Testing

/// `diff` against an independent account of the changes: a seeded random series of inserts,
/// updates and deletes made to a copy of a store, each recorded as it is made, must come back
/// from `diff` exactly (entity, object and changed properties), and its counts must equal the
/// counts of straight SQL over the two files.
@Suite(.temporaryDirectories, .enabled(if: SQLiteShell.isAvailable)) struct DiffGeneratedTests {
    /// What the mutation did, per concrete entity: keys are "Entity/pN".
    struct Recorded {
        var inserted = Set<String>()
        var deleted = Set<String>()
        /// Updated objects and the properties changed.
        var updated: [String: Set<String>] = [:]
    }

    static let entityNames = [1: "Book", 2: "GraphicNovel", 3: "Feedback", 4: "Page"]

    /// Mutates `store` (SampleModel2 with its triggers dropped) with `count` random changes.
    /// Each row is touched at most once, so the recorded changes are also the net ones.
    /// New rows get unique keys (``keys``); `keyed` leaves page numbers alone, a page's key in
    /// ``keyedStores(seed:count:)``.
    static func mutate(_ store: URL, seed: UInt64, count: Int, keyed: Bool = false) throws -> Recorded {
        var random = SeededGenerator(seed: seed)
        var recorded = Recorded()
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        try queue.write { db in
            var touched = Set<String>()
            let books = try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT FROM ZBOOK ORDER BY Z_PK").map { (pk: $0[0] as Int64, ent: $0[1] as Int) }
            var nextPK: [String: Int64] = [:]
            for table in ["ZFEEDBACK", "ZPAGE", "ZBOOK"] {
                nextPK[table] = (try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(table)") ?? 0) + 1
            }
            func name(_ ent: Int, _ pk: Int64) -> String { "\(entityNames[ent] ?? "?")/p\(pk)" }
            func markUpdated(_ object: String, _ property: String) {
                guard !recorded.inserted.contains(object), !recorded.deleted.contains(object) else { return }
                recorded.updated[object, default: []].insert(property)
            }
            func randomRow(_ table: String) throws -> (pk: Int64, ent: Int)? {
                for _ in 0..<20 {
                    guard let row = try Row.fetchOne(db, sql: "SELECT Z_PK, Z_ENT FROM \(table) ORDER BY random() LIMIT 1") else { return nil }
                    let pk: Int64 = row[0], ent: Int = row[1]
                    if touched.insert(name(ent, pk)).inserted { return (pk, ent) }
                }
                return nil
            }
            func owner(ofPage pk: Int64) throws -> String? {
                guard let row = try Row.fetchOne(db, sql: "SELECT ZBOOK, Z1_BOOK FROM ZPAGE WHERE Z_PK = ?", arguments: [pk]),
                    let book: Int64 = row[0]
                else { return nil }
                return name(row[1] ?? 1, book)
            }
            for _ in 0..<count {
                switch Int.random(in: 0..<9, using: &random) {
                case 0:
                    let pk = nextPK["ZFEEDBACK"]!; nextPK["ZFEEDBACK"] = pk + 1
                    try db.execute(
                        sql: "INSERT INTO ZFEEDBACK (Z_PK, Z_ENT, Z_OPT, ZRATING, ZAUTHORALIAS, ZCOMMENT, ZBOOKID) VALUES (?, 3, 1, ?, ?, ?, \(uniqueBlob))",
                        arguments: [pk, Double(Int.random(in: 0...50, using: &random)) / 10, "alias \(pk)", "comment \(pk)", pk])
                    recorded.inserted.insert(name(3, pk))
                    touched.insert(name(3, pk))
                case 1:
                    let pk = nextPK["ZPAGE"]!; nextPK["ZPAGE"] = pk + 1
                    let book = books[Int.random(in: 0..<books.count, using: &random)]
                    let number = Int64(Int.random(in: 1...500, using: &random))
                    try db.execute(
                        sql: "INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZISBOOKMARKED, ZNUMBER, ZBOOK, Z1_BOOK) VALUES (?, 4, 1, 0, ?, ?, ?)",
                        arguments: [pk, keyed ? pk : number, book.pk, book.ent])
                    recorded.inserted.insert(name(4, pk))
                    touched.insert(name(4, pk))
                    markUpdated(name(book.ent, book.pk), "pages")
                case 2:
                    let pk = nextPK["ZBOOK"]!; nextPK["ZBOOK"] = pk + 1
                    try db.execute(
                        sql: "INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZPRICE, ZUNIQUEID) VALUES (?, 1, 1, ?, ?, \(uniqueBlob))",
                        arguments: [pk, "new book \(pk)", Double(Int.random(in: 100...5000, using: &random)) / 100, pk])
                    recorded.inserted.insert(name(1, pk))
                    touched.insert(name(1, pk))
                case 3:
                    guard let row = try randomRow("ZFEEDBACK") else { continue }
                    try db.execute(sql: "DELETE FROM ZFEEDBACK WHERE Z_PK = ?", arguments: [row.pk])
                    recorded.deleted.insert(name(row.ent, row.pk))
                case 4:
                    guard let row = try randomRow("ZPAGE") else { continue }
                    let book = try owner(ofPage: row.pk)
                    try db.execute(sql: "DELETE FROM ZPAGE WHERE Z_PK = ?", arguments: [row.pk])
                    recorded.deleted.insert(name(row.ent, row.pk))
                    if let book { markUpdated(book, "pages") }
                case 5:
                    guard let row = try randomRow("ZFEEDBACK") else { continue }
                    let column = ["ZRATING", "ZAUTHORALIAS", "ZCOMMENT"][Int.random(in: 0..<3, using: &random)]
                    let value: DatabaseValue = column == "ZRATING" ? (100.0 + Double(row.pk)).databaseValue : "changed \(row.pk)".databaseValue
                    try db.execute(sql: "UPDATE ZFEEDBACK SET \(column) = ? WHERE Z_PK = ?", arguments: [value, row.pk])
                    markUpdated(name(row.ent, row.pk), ["ZRATING": "rating", "ZAUTHORALIAS": "authorAlias", "ZCOMMENT": "comment"][column]!)
                case 6:
                    guard let row = try randomRow("ZPAGE") else { continue }
                    let renumber = keyed ? "" : "ZNUMBER = IFNULL(ZNUMBER, 0) + 100000, "
                    try db.execute(
                        sql: "UPDATE ZPAGE SET \(renumber)ZISBOOKMARKED = 1 - IFNULL(ZISBOOKMARKED, 0) WHERE Z_PK = ?",
                        arguments: [row.pk])
                    if !keyed { markUpdated(name(row.ent, row.pk), "number") }
                    markUpdated(name(row.ent, row.pk), "isBookmarked")
                case 7:
                    guard let row = try randomRow("ZPAGE") else { continue }
                    let from = try owner(ofPage: row.pk)
                    let book = books[Int.random(in: 0..<books.count, using: &random)]
                    let to = name(book.ent, book.pk)
                    guard to != from else { continue }
                    try db.execute(sql: "UPDATE ZPAGE SET ZBOOK = ?, Z1_BOOK = ? WHERE Z_PK = ?", arguments: [book.pk, book.ent, row.pk])
                    markUpdated(name(row.ent, row.pk), "book")
                    markUpdated(to, "pages")
                    if let from { markUpdated(from, "pages") }
                default:
                    guard let row = try randomRow("ZBOOK") else { continue }
                    try db.execute(
                        sql: "UPDATE ZBOOK SET ZTITLE = ?, ZPUBLISHEDAT = ? WHERE Z_PK = ?",
                        arguments: ["retitled \(row.pk)", 600_000_000 + Double(row.pk), row.pk])
                    markUpdated(name(row.ent, row.pk), "title")
                    markUpdated(name(row.ent, row.pk), "publishedAt")
                }
            }
        }
        return recorded
    }

    /// The changes `diff --format ndjson` reports, in the recorder's terms.
    static func reported(_ output: String) throws -> Recorded {
        var reported = Recorded()
        for line in output.split(separator: "\n") {
            let value = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            guard value["section"] as? String == "object", let type = value["type"] as? String, let entity = value["entity"] as? String else { continue }
            let uri = (type == "insert" ? value["new"] : value["old"]) as? String ?? ""
            let object = entity + "/" + (uri.split(separator: "/").last.map(String.init) ?? "")
            switch type {
            case "insert": reported.inserted.insert(object)
            case "delete": reported.deleted.insert(object)
            default: reported.updated[object] = Set((value["changes"] as? [String: Any] ?? [:]).keys)
            }
        }
        return reported
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func reportsExactlyTheRecordedChanges(seed: UInt64) throws {
        let (a, b) = try DiffFixtures.pair("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let recorded = try Self.mutate(b, seed: seed, count: 60)
        let result = DiffFixtures.diff(a, b, ["--only", "data", "--format", "ndjson", "--limit", "100000"])
        #expect(result.status == (recorded.inserted.isEmpty && recorded.deleted.isEmpty && recorded.updated.isEmpty ? 0 : 1), "\(result.stderr)")
        let reported = try Self.reported(result.stdout)
        #expect(reported.inserted == recorded.inserted)
        #expect(reported.deleted == recorded.deleted)
        #expect(reported.updated == recorded.updated)

        // The counts, against SQL over both files: objects of each entity only in A, only in B.
        let (counted, countedByDiff) = try Self.onlyOnOneSide(a, b, diff: result.stdout) { _ in "Z_PK" }
        #expect(countedByDiff == counted)
    }

    /// A 16-byte blob unique to the bound integer (a valid UUID's size): the keys of new rows.
    static let uniqueBlob = "CAST(printf('%016d', ?) AS BLOB)"

    /// The `--key` of every SampleModel2 entity the mutations touch, and each key's column.
    static let keys = ["Book=uniqueID", "Feedback=bookID", "Page=number", "Author=alias"]
    static let keyColumns = ["ZBOOK": "ZUNIQUEID", "ZFEEDBACK": "ZBOOKID", "ZPAGE": "ZNUMBER"]

    /// B's `Z_PK` after ``renumber(_:)`` for a `Z_PK` of `table`: books and pages in reverse
    /// order, feedback and writers shifted.
    static func renumbered(_ table: String, _ pk: Int64) -> Int64 {
        switch table {
        case "ZBOOK": 1_000_000 - pk
        case "ZPAGE": 2_000_000 - pk
        case "ZFEEDBACK": pk + 3_000_000
        default: pk + 500
        }
    }

    /// Renumbers every object of `store`, as an import into a fresh store would, references
    /// following: only the keys still match the other store's objects.
    static func renumber(_ store: URL) throws {
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(
                sql: """
                    UPDATE ZBOOK SET Z_PK = 1000000 - Z_PK;
                    UPDATE ZPAGE SET ZBOOK = 1000000 - ZBOOK WHERE ZBOOK IS NOT NULL;
                    UPDATE ZPAGE SET Z_PK = 2000000 - Z_PK;
                    UPDATE ZFEEDBACK SET Z_PK = Z_PK + 3000000;
                    UPDATE ZWRITER SET Z_PK = Z_PK + 500;
                    UPDATE ZBOOK SET ZAUTHOR = ZAUTHOR + 500 WHERE ZAUTHOR IS NOT NULL;
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 1000000 WHERE Z_NAME IN ('Book', 'GraphicNovel');
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 2000000 WHERE Z_NAME = 'Page';
                    UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM ZFEEDBACK) WHERE Z_NAME = 'Feedback';
                    UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM ZWRITER) WHERE Z_NAME IN ('Writer', 'Author');
                    """)
        }
    }

    /// SampleModel2 whose feedback and pages get unique keys (the corpus store has none for
    /// them) in both copies, B mutated by `seed`, then renumbered.
    static func keyedStores(seed: UInt64, count: Int) throws -> (a: URL, b: URL, recorded: Recorded) {
        let (a, b) = try DiffFixtures.pair("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        for store in [a, b] {
            let queue = try DatabaseQueue(path: store.path)
            try queue.write { db in
                try db.execute(sql: "UPDATE ZFEEDBACK SET ZBOOKID = \(uniqueBlob.replacingOccurrences(of: "?", with: "Z_PK"))")
                try db.execute(sql: "UPDATE ZPAGE SET ZNUMBER = Z_PK")
            }
            try queue.close()
        }
        let recorded = try mutate(b, seed: seed, count: count, keyed: true)
        try renumber(b)
        return (a, b, recorded)
    }

    /// After B is renumbered, objects match only by their keys: the keyed report must still be
    /// exactly the recorded changes (inserted objects named by B's new numbers), and its counts
    /// those of SQL comparing the key columns of both files.
    @Test(arguments: [UInt64(21), 22, 23, 24, 25, 26])
    func keyedReportAfterRenumberingIsTheRecordedChanges(seed: UInt64) throws {
        let (a, b, recorded) = try Self.keyedStores(seed: seed, count: 60)
        let byPK = DiffFixtures.diff(a, b, ["Page", "--only", "data", "--format", "ndjson", "--limit", "0"])
        #expect(byPK.stdout.contains("\"deleted\":4970,"), "by Z_PK, every renumbered page is another object")

        let keys = Self.keys.flatMap { ["--key", $0] }
        let result = DiffFixtures.diff(a, b, ["--only", "data", "--format", "ndjson", "--limit", "100000"] + keys)
        #expect(result.status == (recorded.inserted.isEmpty && recorded.deleted.isEmpty && recorded.updated.isEmpty ? 0 : 1), "\(result.stderr)")
        let reported = try Self.reported(result.stdout)
        let tables = ["Book": "ZBOOK", "GraphicNovel": "ZBOOK", "Feedback": "ZFEEDBACK", "Page": "ZPAGE"]
        let inserted = Set(
            recorded.inserted.map { object in
                let parts = object.split(separator: "/p")
                return "\(parts[0])/p\(Self.renumbered(tables[String(parts[0])] ?? "", Int64(parts[1]) ?? 0))"
            })
        #expect(!inserted.isEmpty && !recorded.deleted.isEmpty && !recorded.updated.isEmpty)
        #expect(reported.inserted == inserted)
        #expect(reported.deleted == recorded.deleted)
        #expect(reported.updated == recorded.updated)

        // The counts, against SQL over both files: keys of each entity only in A, only in B.
        let (counted, countedByDiff) = try Self.onlyOnOneSide(a, b, diff: result.stdout) { Self.keyColumns[$0] ?? "" }
        #expect(countedByDiff == counted)
    }

    /// Per entity with any, the objects only in A and only in B ([deleted, inserted]), counted
    /// by SQL over both files with objects matched by `matchColumn(table)`, and as the NDJSON
    /// report `diff` says.
    static func onlyOnOneSide(
        _ a: URL, _ b: URL, diff: String, matchColumn: (String) -> String
    ) throws -> (sql: [String: [Int]], diff: [String: [Int]]) {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS a", arguments: [a.path])
            try db.execute(sql: "ATTACH DATABASE ? AS b", arguments: [b.path])
        }
        var counted: [String: [Int]] = [:]
        for (table, ents) in [("ZBOOK", [1, 2]), ("ZFEEDBACK", [3]), ("ZPAGE", [4])] {
            let column = matchColumn(table)
            for ent in ents {
                let counts = try queue.inDatabase { db in
                    try ["a", "b"].map { side in
                        let other = side == "a" ? "b" : "a"
                        return try Int.fetchOne(
                            db,
                            sql:
                                "SELECT COUNT(*) FROM \(side).\(table) WHERE Z_ENT = ? AND \(column) NOT IN (SELECT \(column) FROM \(other).\(table) WHERE Z_ENT = ?)",
                            arguments: [ent, ent]) ?? 0
                    }
                }
                if counts.reduce(0, +) > 0 { counted[entityNames[ent] ?? ""] = counts }
            }
        }
        var countedByDiff: [String: [Int]] = [:]
        for line in diff.split(separator: "\n") {
            let value = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            guard value["section"] as? String == "entity", let entity = value["entity"] as? String,
                let deleted = value["deleted"] as? Int, let inserted = value["inserted"] as? Int, deleted + inserted > 0
            else { continue }
            countedByDiff[entity] = [deleted, inserted]
        }
        return (counted, countedByDiff)
    }

    /// The same mutations seen from the other side: B → A swaps inserts and deletes.
    @Test func reversedComparisonSwapsInsertsAndDeletes() throws {
        let (a, b) = try DiffFixtures.pair("cdplus-samplemodel2/SampleModel2_V1.sqlite")
        let recorded = try Self.mutate(b, seed: 42, count: 40)
        let result = DiffFixtures.diff(b, a, ["--only", "data", "--format", "ndjson", "--limit", "100000"])
        let reported = try Self.reported(result.stdout)
        #expect(reported.inserted == recorded.deleted)
        #expect(reported.deleted == recorded.inserted)
        #expect(reported.updated == recorded.updated)
    }
}
