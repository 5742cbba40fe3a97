import CDTestSupport
import Foundation
import GRDB
import Testing

/// `cdstore query`, `cdstore sql` and `dump --where` end to end on real stores, the SQL debug
/// trace at each level, and read-only behaviour.
@Suite(.temporaryDirectories) struct QueryCommandTests {
    static let books = "cdplus-samplemodel2/SampleModel2_V1.sqlite"

    static func plainCount(_ store: URL, _ sql: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: store.path, configuration: configuration).read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test func cdqChainKeywordFormAndOptionsAgree() throws {
        let copy = try Corpus.copyStore(Self.books)
        let expected = try Self.plainCount(copy, "SELECT COUNT(*) FROM ZBOOK WHERE ZPRICE > 10")
        let forms: [[String]] = [
            ["Book.where(:price).gt(10)"],
            ["Book where price > %@", "--arg", "10"],
            ["--entity", "Book", "--where", "price > 10"],
        ]
        for form in forms {
            let result = CommandRunner.runInProcess(["query", copy.path] + form + ["--format", "ndjson"])
            #expect(result.status == 0, "\(form): \(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count == expected)
            let counted = CommandRunner.runInProcess(["query", copy.path] + form + ["--count"])
            #expect(counted.stdout == "\(expected)\n")
        }
        let cdqCount = CommandRunner.runInProcess(["query", copy.path, "Book.where(:price).gt(10).count", "--format", "json"])
        #expect(cdqCount.stdout == "[\n{\"count\":\(expected)}\n]\n")
    }

    @Test func dumpWhereMatchesQuery() throws {
        let copy = try Corpus.copyStore(Self.books)
        let dump = CommandRunner.runInProcess([
            "dump", copy.path, "Book", "--where", "author.alias BEGINSWITH %@", "--arg", "A",
            "--sort", "title", "--format", "csv",
        ])
        let query = CommandRunner.runInProcess(["query", copy.path, "Book where author.alias BEGINSWITH 'A' sort by title", "--format", "csv"])
        #expect(dump.status == 0 && query.status == 0, "\(dump.stderr)\(query.stderr)")
        #expect(dump.stdout == query.stdout)
        let rows = try Self.plainCount(copy, "SELECT COUNT(*) FROM ZBOOK b JOIN ZWRITER w ON b.ZAUTHOR = w.Z_PK WHERE substr(w.ZALIAS, 1, 1) = 'A'")
        #expect(dump.stdout.split(separator: "\r\n").count == rows + 1)
    }

    @Test func valuesDistinctAndAggregates() throws {
        let copy = try Corpus.copyStore(Self.books)
        let distinct = CommandRunner.runInProcess(["query", copy.path, "--entity", "Page", "--distinct", "isBookmarked", "--sort", "isBookmarked"])
        #expect(distinct.stdout == "0\n1\n")
        let sum = CommandRunner.runInProcess(["query", copy.path, "--entity", "Page", "--aggregate", "sum:number", "--format", "csv"])
        let total = try Self.plainCount(copy, "SELECT total(ZNUMBER) FROM ZPAGE")
        #expect(sum.stdout == "sum(number)\r\n\(total)\r\n")
    }

    @Test func sqlPrintsTheStatementWithoutRunningIt() throws {
        let copy = try Corpus.copyStore(Self.books)
        let result = CommandRunner.runInProcess([
            "sql", copy.path, "Page where book.title == %@ AND number > %@ sort by number desc limit 2",
            "--arg", "title 1", "--arg", "3",
        ])
        #expect(
            result.stdout == """
                SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZCONTENT, t0.ZISBOOKMARKED, t0.ZNUMBER, t0.ZBOOK, t0.Z1_BOOK FROM ZPAGE t0 \
                JOIN ZBOOK t1 ON t0.ZBOOK = t1.Z_PK WHERE ( t1.ZTITLE = ? AND  t0.ZNUMBER > ?) ORDER BY t0.ZNUMBER DESC LIMIT 2
                bind[0] = "title 1"
                bind[1] = 3

                """)
        let json = CommandRunner.runInProcess(["sql", copy.path, "--entity", "Book", "--count", "--format", "json"])
        #expect(json.stdout == "{\"entity\":\"Book\",\"sql\":\"SELECT COUNT(*) FROM ZBOOK\",\"arguments\":[]}\n")
    }

    @Test func rawSQLRunsWithCoreDataFunctionsAndNeverWrites() throws {
        let copy = try Corpus.copyStore(Self.books)
        let raw = CommandRunner.runInProcess([
            "sql", copy.path, "--raw",
            "SELECT COUNT(*) AS n FROM ZBOOK t0 WHERE NSCoreDataStringSearch(t0.ZTITLE, ?, 257, 1)", "--arg", "TITLE 1",
        ])
        let expected = try Self.plainCount(copy, "SELECT COUNT(*) FROM ZBOOK WHERE instr(lower(ZTITLE), 'title 1') > 0")
        #expect(raw.stdout == "\(expected)\n")
        let sorted = CommandRunner.runInProcess(["sql", copy.path, "--raw", "SELECT ZALIAS FROM ZWRITER ORDER BY ZALIAS COLLATE NSCollateNoCase LIMIT 1"])
        #expect(sorted.status == 0 && !sorted.stdout.isEmpty)
        for statement in ["DELETE FROM ZBOOK", "UPDATE ZBOOK SET ZTITLE = 'x'", "DROP TABLE ZPAGE"] {
            let refused = CommandRunner.runInProcess(["sql", copy.path, "--raw", statement])
            #expect(refused.status == 2)
            #expect(refused.stderr == "cdstore: error: --raw runs read-only SQL; this statement would change the store\n")
        }
        let broken = CommandRunner.runInProcess(["sql", copy.path, "--raw", "SELEC nothing"])
        #expect(broken.status == 2 && broken.stderr.hasPrefix("cdstore: error: SQL error: ") && broken.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func readCommandsNeverChangeAByte() throws {
        let copy = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        #expect(before.keys.contains { $0.hasSuffix("-wal") })
        for arguments in [
            ["query", copy.path, "--entity", "Entry", "--count", "--sql-debug", "4"],
            ["sql", copy.path, "--raw", "SELECT * FROM ZENTRY"],
            ["sql", copy.path, "--entity", "Entry"],
            ["dump", copy.path, "Entry", "--where", "TRUEPREDICATE"],
        ] {
            let result = CommandRunner.runInProcess(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
    }

    @Test func badQueriesAreOneClearError() throws {
        let copy = try Corpus.copyStore(Self.books)
        let caret = CommandRunner.runInProcess(["query", copy.path, "--entity", "Book", "--where", "title ==== 'x'"])
        #expect(caret.status == 2)
        let lines = caret.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines[0].hasPrefix("cdstore: error: predicate error at character 8: "))
        #expect(lines[1] == "  title ==== 'x'" && lines[2] == "          ^")
        for arguments in [["--entity", "Nope"], ["--entity", "Book", "--where", "nothing > 1"], ["Book.where(:title).eq('x').each"]] {
            let result = CommandRunner.runInProcess(["query", copy.path] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("cdstore: error: "), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal") && !result.stderr.contains("Stack"))
        }
        let usage = CommandRunner.runInProcess(["query", copy.path, "Book", "--entity", "Book"])
        #expect(usage.status == 64)
    }
}

/// The SQL debug log at each level, in Core Data's line format (docs/format/sqldebug.md §2, §3).
@Suite(.temporaryDirectories) struct SQLDebugTraceTests {
    static func trace(_ arguments: [String], environment: [String: String] = [:]) throws -> [String] {
        try traceWithPath(arguments, environment: environment).lines
    }

    /// The log of `query` on a private copy of the Books store, and the copy's path.
    static func traceWithPath(_ arguments: [String], environment: [String: String] = [:]) throws -> (lines: [String], path: String) {
        let copy = try Corpus.copyStore(QueryCommandTests.books)
        let result = CommandRunner.runInProcess(["query", copy.path] + arguments, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return (result.stderr.split(separator: "\n").map(String.init), copy.path)
    }

    static let fetch = ["Book where price > %@ limit 2", "--arg", "10", "--format", "ndjson"]

    /// What Core Data prints when it opens a store, as docs/format/sqldebug.md §8 block 5 records
    /// it (the Books store is in WAL mode, so `pragma journal_mode=wal` is among them).
    static func connectionLines(path: String) -> [String] {
        [
            "CoreData: annotation: Connecting to sqlite database file at \"\(path)\"",
            "CoreData: sql: SELECT TBL_NAME FROM SQLITE_MASTER WHERE TBL_NAME = 'Z_METADATA'",
            "CoreData: sql: pragma recursive_triggers=1",
            "CoreData: sql: pragma journal_mode=wal",
            "CoreData: sql: SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA",
            "CoreData: sql: SELECT TBL_NAME FROM SQLITE_MASTER WHERE TBL_NAME = 'Z_METADATA'",
            "CoreData: sql: SELECT TBL_NAME FROM SQLITE_MASTER WHERE TBL_NAME = 'Z_MODELCACHE'",
            "CoreData: sql: SELECT TBL_NAME FROM SQLITE_MASTER WHERE TBL_NAME = 'ACHANGE'",
            "CoreData: sql: SELECT TBL_NAME FROM SQLITE_MASTER WHERE TBL_NAME = 'ATRANSACTION'",
        ]
    }

    /// Level 1 of a simple fetch is exactly Core Data's: the opening, the fetch and its two
    /// timing lines, and none of the statements cdstore runs for itself (issue 23, part 4).
    @Test func levelOneIsCoreDatasOwnLog() throws {
        let (lines, path) = try Self.traceWithPath(Self.fetch + ["--sql-debug", "1"])
        let connection = Self.connectionLines(path: path)
        #expect(Array(lines.prefix(connection.count)) == connection)
        let rest = Array(lines.dropFirst(connection.count))
        try #require(rest.count == 3, "\(rest)")
        #expect(rest[0].hasPrefix("CoreData: sql: SELECT t0.Z_ENT, t0.Z_PK, t0.Z_OPT,"))
        #expect(rest[0].hasSuffix("FROM ZBOOK t0 WHERE  t0.ZPRICE > ? LIMIT 2"))
        #expect(rest[1].wholeMatch(of: /CoreData: annotation: sql connection fetch time: \d+\.\d{4}s/) != nil)
        #expect(rest[2].wholeMatch(of: /CoreData: annotation: total fetch execution time: \d+\.\d{4}s for 2 rows\./) != nil)
    }

    /// No line of levels 1–3 is one of cdstore's own catalogue reads; level 4 shows them, but
    /// only under the `cdstore:` prefix.
    @Test func cdstoresOwnStatementsAreNeverCoreDataLines() throws {
        let ownReads = [
            "sqlite_master", "table_xinfo", "table_info", "index_list", "database_list",
            "Z_CONTENT", "Z_PRIMARYKEY", "SELECT Z_UUID", "BEGIN", "COMMIT",
        ]
        for level in 1...4 {
            let lines = try Self.trace(Self.fetch + ["--sql-debug", "\(level)"])
            let coreData = lines.filter { $0.hasPrefix("CoreData: sql: ") }
            #expect(!coreData.isEmpty)
            for line in coreData {
                #expect(!ownReads.contains { line.contains($0) }, "level \(level): \(line)")
            }
            let own = lines.filter { $0.hasPrefix("cdstore: ") }
            if level < 4 {
                #expect(own.isEmpty, "level \(level)")
            } else {
                #expect(own.contains { $0.hasPrefix("cdstore: sql: ") && $0.contains("Z_PRIMARYKEY") })
                #expect(own.allSatisfy { $0.hasPrefix("cdstore: sql: ") || $0.hasPrefix("cdstore: annotation: sql execution time: ") })
            }
        }
    }

    @Test func levelTwoAddsBindsAndTheStatementAnnotation() throws {
        for arguments in [["--sql-debug", "2"], ["-com.apple.CoreData.SQLDebug", "2"]] {
            let lines = try Self.trace(Self.fetch + arguments)
            #expect(lines.contains("CoreData: details: SQLite bind[0] = 10"))
            #expect(lines.contains { $0.hasPrefix("CoreData: annotation: fetch using NSSQLiteStatement <0x") && $0.hasSuffix("' returned 2 rows") })
            #expect(!lines.contains { $0.contains("with values") || $0.contains("EXPLAIN") })
        }
    }

    @Test func levelThreeAddsRowsAndFourTheQueryPlan() throws {
        let three = try Self.trace(Self.fetch, environment: ["CDSTORE_SQL_DEBUG": "3"])
        #expect(three.contains { $0.hasSuffix("returned 2 rows with values: (") })
        #expect(three.filter { $0.hasPrefix("    \"<NSManagedObject: 0x") || $0.hasPrefix("    \"<") }.count == 2)
        let four = try Self.trace(Self.fetch + ["--sql-debug", "4"])
        #expect(four.contains { $0.hasPrefix("CoreData: details: SQLite: EXPLAIN QUERY PLAN SELECT t0.Z_ENT") })
        #expect(four.contains { $0.hasPrefix("CoreData: details: ") && $0.contains("SCAN t0") })
    }

    @Test func countRequests() throws {
        let lines = try Self.trace(["--entity", "Book", "--where", "price > 10", "--count", "--sql-debug", "2"])
        #expect(lines.contains("CoreData: sql: SELECT COUNT(*) FROM ZBOOK t0 WHERE  t0.ZPRICE > ?"))
        #expect(lines.contains { $0.wholeMatch(of: /CoreData: annotation: total count request execution time: \d+\.\d{4}s for count of \d+\./) != nil })
    }

    /// Commands that only read the catalogue log Core Data's opening at level 1 and their own
    /// reads at level 4, as `cdstore:` lines.
    @Test func otherCommandsLogTheirOwnReadsOnlyAtLevelFour() throws {
        let copy = try Corpus.copyStore(QueryCommandTests.books)
        let inspect = CommandRunner.runInProcess(["inspect", copy.path, "--sql-debug", "1"])
        #expect(inspect.status == 0)
        #expect(inspect.stderr.split(separator: "\n").map(String.init) == Self.connectionLines(path: copy.path))
        let inspectFour = CommandRunner.runInProcess(["inspect", copy.path, "--sql-debug", "4"])
        #expect(inspectFour.stderr.contains("cdstore: sql: SELECT Z_UUID, Z_PLIST FROM Z_METADATA"))
        let model = CommandRunner.runInProcess(["model", copy.path, "--hashes", "--sql-debug", "4"])
        #expect(model.stderr.contains("cdstore: sql: SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1"))
        #expect(!model.stderr.contains("CoreData: sql: SELECT Z_CONTENT"))
        let quiet = CommandRunner.runInProcess(["inspect", copy.path])
        #expect(quiet.stderr.isEmpty)
        let bad = CommandRunner.runInProcess(["inspect", copy.path, "--sql-debug", "7"])
        #expect(bad.status == 64)
    }
}
