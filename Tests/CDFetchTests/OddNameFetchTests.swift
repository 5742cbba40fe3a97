import CDFetch
import CDTestSupport
import Foundation
import Testing

/// Fetches from a store whose table and column names need quoting (``OddNameStore``): the SQL
/// the fetch writes names them quoted, and reads exactly the objects the independent oracle
/// (``PredicateDifferential``: ``ObjectGraphEvaluator`` over the loaded object graph) finds,
/// for generated predicates over attributes, to-one keys, a many-to-many and an ordered to-many.
@Suite(.temporaryDirectories) struct OddNameFetchTests {
    @Test func generatedPredicatesReturnTheOraclesObjects() throws {
        let url = try OddNameStore.make(seed: 21, cars: 60)
        let store = try #require(try PredicateDifferential.openStore(url, named: "OddNameStore"))
        #expect(Set(store.entities) == [OddNameStore.car, OddNameStore.tag, OddNameStore.part])
        let report = PredicateDifferential.run([store], cases: 400, seed: 21)
        print(report.summary)
        for failure in report.failures { Issue.record(Comment(rawValue: failure)) }
        #expect(report.cases == 400)
        // Most predicates must be compared, and none refused for a reason other than the
        // predicate itself (a syntax error in the SQL would show as a refusal).
        #expect(report.compared * 10 >= report.cases * 8, "\(report.summary)")
        #expect(!report.refused.keys.contains { $0.contains("syntax") || $0.contains("no such") }, "\(report.summary)")
    }

    /// The statements name the odd tables and columns quoted, the plain ones (`Z_PK`, aliases)
    /// bare, as Core Data would; and `query`, `query --count` and a sorted `dump` read them.
    @Test func theCommandsReadTheQuotedTables() throws {
        let url = try OddNameStore.make(seed: 5, cars: 12)
        let sql = CommandRunner.runInProcess(["sql", url.path, "--entity", OddNameStore.car, "--where", "größe > 2 AND ANY tägs.name == 'tag 1'"])
        #expect(sql.status == 0, "\(sql.stderr)")
        #expect(sql.stdout.contains(" FROM \"ZODD \"\"CAR\"\" X\" t0"), "\(sql.stdout)")
        #expect(sql.stdout.contains("t0.\"ZGRÖSSE\" > ?"), "\(sql.stdout)")
        #expect(sql.stdout.contains(" JOIN \"Z_1TÄGS\" t1 ON t0.Z_PK = t1.\"Z_1CÄRS\" JOIN \"ZTAG-Ü\" t2 ON t1.\"Z_3TÄGS\" = t2.Z_PK "), "\(sql.stdout)")

        // Independent answers: sqlite3 on the same file, its names quoted by hand.
        let expected = try SQLiteShell.run(
            url,
            """
            SELECT COUNT(*) FROM "ZODD ""CAR"" X" c WHERE c."ZGRÖSSE" > 2
              AND EXISTS (SELECT 1 FROM "Z_1TÄGS" j JOIN "ZTAG-Ü" t ON t.Z_PK = j."Z_3TÄGS" WHERE j."Z_1CÄRS" = c.Z_PK AND t.ZNAME = 'tag 1');
            """)
        let count = CommandRunner.runInProcess([
            "query", url.path, "--entity", OddNameStore.car, "--where", "größe > 2 AND ANY tägs.name == 'tag 1'", "--count",
        ])
        #expect(count.status == 0, "\(count.stderr)")
        #expect(count.stdout == expected)

        // A sorted dump is a fetch: its sizes come in sqlite3's order (NULL first), its keys are all of them.
        let sorted = CommandRunner.runInProcess(["dump", url.path, OddNameStore.car, "--sort", "größe", "--format", "ndjson"])
        #expect(sorted.status == 0, "\(sorted.stderr)")
        let objects = try sorted.stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let sizes = objects.map { ($0["größe"] as? Int).map(String.init) ?? "" }.joined(separator: "\n") + "\n"
        #expect(sizes == (try SQLiteShell.run(url, "SELECT \"ZGRÖSSE\" FROM \"ZODD \"\"CAR\"\" X\" ORDER BY \"ZGRÖSSE\";")), "\(sorted.stdout)")
        let prefix = "x-coredata://" + (try SQLiteShell.run(url, "SELECT Z_UUID FROM Z_METADATA;")).dropLast() + "/" + OddNameStore.car + "/p"
        let keys = objects.compactMap { ($0["_id"] as? String).flatMap { $0.hasPrefix(prefix) ? Int($0.dropFirst(prefix.count)) : nil } }.sorted()
        #expect(keys.map(String.init).joined(separator: "\n") + "\n" == (try SQLiteShell.run(url, "SELECT Z_PK FROM \"ZODD \"\"CAR\"\" X\" ORDER BY Z_PK;")))
    }
}
