import CDMaintenance
import CDServe
import CDTestSupport
import Foundation
import GRDB
import Hummingbird
import Testing

/// The model, report, history and diff pages of `serve` on copies of corpus stores: each JSON
/// twin against its schema and equal in content to the matching command's `--json` run on the
/// same copy (the command's own code path, in process), the HTML escaped, bad parameters 4xx,
/// and nothing written to the stores.
@Suite(.temporaryDirectories) struct ServePagesTests {
    static let wiboscoOld = "wibosco-revised/CoreDataMigration_Example_2.sqlite"
    static let wiboscoNew = "wibosco-revised/CoreDataMigration_Example_3.sqlite"
    static let wiboscoModel = "wibosco-revised/CoreDataMigration_Example.xcdatamodeld"

    /// The command's standard output parsed, after checking it ran (`allowed` exit statuses).
    static func command(_ arguments: [String], allowed: Set<Int32> = [0], sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        let result = CommandRunner.runInProcess(arguments)
        #expect(allowed.contains(result.status), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return try JSONValue(parsing: result.stdout)
    }

    static func checksums(_ copies: [URL]) throws -> [[String: String]] {
        try copies.map { try Checksums.of(directory: $0.deletingLastPathComponent()) }
    }

    @Test func modelPageEqualsTheModelCommand() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample, ServeHarness.photos])
        let before = try Self.checksums(copies)
        let answers = try await ServeHarness.withServer(copies) { client in
            try await ["/stores/1/model", "/stores/1/model.json", "/stores/2/model.json", "/stores/2/model"].asyncMap { uri in
                (uri, try await ServeHarness.get(client, uri))
            }
        }
        for (uri, answer) in answers {
            #expect(answer.status == 200, "\(uri): \(answer.body.prefix(300))")
            ServeHarness.expectSecurityHeaders(answer, uri)
        }
        for (index, copy) in [(1, copies[0]), (2, copies[1])] {
            let json = answers[index].1.body
            #expect(try ServeHarness.problems(json, schema: "serve-model.schema.json") == [])
            let page = try JSONValue(parsing: json)
            let versions = try Self.command(["model", copy.path, "--json"])
            #expect(page["version"] == versions.array?.first, "\(copy.lastPathComponent)")
            let hashes = try Self.command(["model", copy.path, "--hashes", "--json"])
            #expect(page["hashes"] == hashes["versions"]?.array?.first, "\(copy.lastPathComponent)")
        }
        // The HTML names each entity with its parent, inlines the diagram and links its JSON.
        let sample = answers[0].1.body
        #expect(sample.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(sample.contains("<h3 id=\"entity-SportCar\">SportCar</h3>") && sample.contains("<dt>Parent</dt><dd>Car</dd>"))
        #expect(sample.contains("href=\"/stores/SampleModel_V2/model.json\""))
        #expect(answers[3].1.body.components(separatedBy: "<h3 id=\"entity-").count - 1 >= 60)
        #expect(try Self.checksums(copies) == before)
    }

    @Test func validateAndCompatEqualTheirCommands() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample, ServeHarness.photos, Self.wiboscoOld])
        let model = Corpus.url(Self.wiboscoModel).path
        let before = try Self.checksums(copies)
        // Validating Photos reads every object: more than the default 10 s on a loaded debug build.
        let answers = try await ServeHarness.withServer(copies, queryTimeout: 300) { client in
            try await [
                "/stores/1/validate.json", "/stores/2/validate.json", "/stores/3/validate.json", "/stores/2/validate", "/stores/3/compat",
                "/stores/3/compat.json",
            ]
            .asyncMap { uri in (uri, try await ServeHarness.get(client, uri)) }
        }
        for (uri, answer) in answers {
            #expect(answer.status == 200, "\(uri): \(answer.body.prefix(300))")
        }
        for index in 0..<3 {
            let body = answers[index].1.body
            #expect(try ServeHarness.problems(body, schema: "serve-validate.schema.json") == [])
            let expected = try Self.command(["validate", copies[index].path, "--json"], allowed: [0, 1])
            let page = try JSONValue(parsing: body)
            #expect(page["report"] == expected, "\(copies[index].lastPathComponent)")
            #expect(page["problems"] == .bool(!(expected["errors"]?.array?.isEmpty ?? true) || !(expected["integrity"]?.array?.isEmpty ?? true)))
        }
        // Without --model, compat says how to start the server and its JSON has no report.
        #expect(answers[4].1.body.contains("cdstore serve STORE --model PATH"))
        #expect(try ServeHarness.problems(answers[5].1.body, schema: "serve-compat.schema.json") == [])
        #expect(try answers[5].1.json["report"] == .null)
        // With --model, the report is compat's.
        let compat = try await ServeHarness.withServer([copies[2]], modelPath: model) { client in
            try await [ServeHarness.get(client, "/stores/1/compat.json"), ServeHarness.get(client, "/stores/1/compat")]
        }
        #expect(compat[0].status == 200 && compat[1].status == 200, "\(compat[0].body.prefix(300))")
        #expect(try ServeHarness.problems(compat[0].body, schema: "serve-compat.schema.json") == [])
        let expected = try Self.command(["compat", copies[2].path, "--model", model, "--json"], allowed: [0, 1])
        #expect(try compat[0].json["report"] == expected)
        #expect(compat[1].body.contains("CoreDataMigration_Example"))
        #expect(try Self.checksums(copies) == before)
    }

    @Test func explainShowsTheCommandsExplanationEscaped() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let dump = try String(contentsOf: Golden.fixtures.appendingPathComponent("explain/errors-md-5.1-1.dump"), encoding: .utf8)
        let hostile = "<script>alert(1)</script>\"><img src=x onerror=alert(2)>\n" + dump
        let encoded = Self.queryValue(hostile)
        let tooLong = Self.queryValue(String(repeating: "x", count: 16_385))
        let answers = try await ServeHarness.withServer(copies) { client in
            try await [
                "/explain", "/explain.json?dump=\(encoded)", "/explain.json?dump=\(encoded)&store=1", "/explain?dump=\(encoded)&store=SampleModel_V2",
                "/explain?dump=\(tooLong)", "/explain.json?dump=\(tooLong)", "/explain?dump=no+error+here", "/explain.json", "/explain?dump=x&store=9",
                "/explain?code=1570",
            ].asyncMap { uri in (uri, try await ServeHarness.get(client, uri)) }
        }
        #expect(answers.map { $0.1.status } == [200, 200, 200, 200, 414, 414, 400, 400, 404, 400])
        for (uri, answer) in answers { ServeHarness.expectSecurityHeaders(answer, uri) }
        #expect(answers[0].1.body.contains("<textarea id=\"dump\" name=\"dump\""))
        let plain = try Self.command(["explain", "--text", hostile, "--json"])
        let checked = try Self.command(["explain", "--text", hostile, "--store", copies[0].path, "--json"])
        for (index, expected) in [(1, plain), (2, checked)] {
            #expect(try ServeHarness.problems(answers[index].1.body, schema: "serve-explain.schema.json") == [])
            #expect(try answers[index].1.json["explanation"] == expected)
        }
        #expect(try answers[1].1.json["store"] == .null)
        // The pasted text comes back escaped in the form, never as markup.
        let page = answers[3].1.body
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"))
        #expect(!page.contains("<script>alert") && !page.contains("<img src=x"))
        #expect(page.contains("<option value=\"SampleModel_V2\" selected>"))
        #expect(page.contains("134100"))
        #expect(answers[5].1.body.contains("16,385 bytes"))
        #expect(try ServeHarness.problems(answers[5].1.body, schema: "serve-error.schema.json") == [])
        #expect(try ServeHarness.problems(answers[7].1.body, schema: "serve-error.schema.json") == [])
        let post = try await ServeHarness.withServer(copies) { client in try await ServeHarness.get(client, "/explain?dump=x", method: .post) }
        #expect(post.status == 405)
    }

    /// `text` as a query value (`+` and `&` encoded too).
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    @Test func historyPagesWalkTheCommandsHistoryNewestFirst() async throws {
        let copies = try ServeHarness.copies([ServeHarness.photos, ServeHarness.sample])
        let before = try Self.checksums(copies)
        let lines = CommandRunner.runInProcess(["history", copies[0].path, "--json"])
        #expect(lines.status == 0, "\(lines.stderr)")
        let expected = try lines.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }.reversed().map { $0 }
        #expect(expected.count == 403)
        let (pages, others) = try await ServeHarness.withServer(copies) { client in
            var pages: [ServeHarness.Answer] = []
            var next: String? = "/stores/1/history.json?size=50"
            while let uri = next, pages.count < 20 {
                let answer = try await ServeHarness.get(client, uri)
                pages.append(answer)
                next = try answer.json["next"]?.string
            }
            let others = try await [
                "/stores/1/history", "/stores/2/history", "/stores/2/history.json", "/stores/1/history?before=0", "/stores/1/history?size=1001",
                "/stores/1/history?before=x", "/stores/1/history?page=2", "/stores/1/history.json?size=1&before=1",
            ].asyncMap { uri in (uri, try await ServeHarness.get(client, uri)) }
            return (pages, others)
        }
        #expect(pages.count == 9)
        var walked: [JSONValue] = []
        for page in pages {
            #expect(page.status == 200, "\(page.body.prefix(300))")
            #expect(try ServeHarness.problems(page.body, schema: "serve-history.schema.json") == [])
            walked += try page.json["transactions"]?.array ?? []
        }
        #expect(walked == expected)
        #expect(try pages[0].json["next"]?.string == "/stores/Photos/history.json?before=\(expected[49]["id"]?.integer ?? 0)")
        #expect(others.map { $0.1.status } == [200, 200, 200, 400, 400, 400, 400, 200])
        let html = others[0].1.body
        #expect(html.contains("<li id=\"transaction-\(expected[0]["id"]?.integer ?? 0)\">"))
        #expect(html.contains("Older ›") && html.contains("Updated properties are decoded from ACHANGE.ZCOLUMNS"))
        #expect(others[1].1.body.contains("This store keeps no persistent history"))
        #expect(try others[2].1.json["history"] == .bool(false))
        #expect(try others[7].1.json["transactions"]?.array == [] && others[7].1.json["next"] == .null)
        #expect(try Self.checksums(copies) == before)
    }

    /// `history --json` of `store` with `options`, newest transaction first.
    static func historyLines(_ store: URL, _ options: [String]) throws -> [JSONValue] {
        let result = CommandRunner.runInProcess(["history", store.path, "--json"] + options)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }.reversed()
    }

    /// The pages reached from `start` by following `link` (`next` or `newer`), each page's
    /// transactions.
    static func walk(_ client: ServeClient, from start: String, following link: String) async throws -> [[JSONValue]] {
        var pages: [[JSONValue]] = []
        var uri: String? = start
        while let current = uri, pages.count < 100 {
            let answer = try await ServeHarness.get(client, current)
            #expect(answer.status == 200, "\(current): \(answer.body.prefix(300))")
            #expect(try ServeHarness.problems(answer.body, schema: "serve-history.schema.json") == [], "\(current)")
            pages.append(try answer.json["transactions"]?.array ?? [])
            uri = try answer.json[link]?.string
        }
        return pages
    }

    /// The author and entity filters select what `history --author/--entity` selects, page after
    /// page (7 transactions a page), and the `newer` links walk back from the oldest page to the
    /// newest over the same pages.
    @Test func historyFiltersAndNewerLinksEqualTheCommand() async throws {
        let copies = try ServeHarness.copies([ServeHarness.photos])
        let all = try Self.historyLines(copies[0], [])
        let authors = all.compactMap { $0["author"]?.string }
        let entities = all.compactMap { $0["changes"]?.array?.first?["entity"]?.string }
        let author = try #require(authors.first)
        let entity = try #require(entities.first)
        for (query, options) in [("author=\(Self.queryValue(author))", ["--author", author]), ("entity=\(Self.queryValue(entity))", ["--entity", entity])] {
            let expected = try Self.historyLines(copies[0], options)
            #expect(!expected.isEmpty && expected.count < all.count, "\(options)")
            let (older, newer) = try await ServeHarness.withServer(copies) { client in
                let older = try await Self.walk(client, from: "/stores/1/history.json?size=7&\(query)", following: "next")
                let oldestFirst = older.last?.last?["id"]?.integer ?? 0
                let newer = try await Self.walk(client, from: "/stores/1/history.json?size=7&\(query)&after=\(oldestFirst - 1)", following: "newer")
                return (older, newer)
            }
            #expect(older.flatMap { $0 } == expected, "\(options)")
            #expect(older.dropLast().allSatisfy { $0.count == 7 })
            #expect(newer.reversed().flatMap { $0 } == expected, "\(options)")
            #expect(newer.dropLast().allSatisfy { $0.count == 7 })
        }
    }

    @Test func objectPagesListTheTransactionsThatChangedThem() async throws {
        let copies = try ServeHarness.copies([ServeHarness.photos])
        let lines = CommandRunner.runInProcess(["history", copies[0].path, "--json"])
        let transactions = try lines.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        // Objects updated in the history, newest first; a deleted one is a 404 and skipped.
        var candidates: [String] = []
        for transaction in transactions.reversed() {
            for change in transaction["changes"]?.array ?? [] where change["type"]?.string == "update" {
                if let id = change["objectID"]?.string, !candidates.contains(id) { candidates.append(id) }
            }
        }
        #expect(candidates.count >= 5)
        let tried = Array(candidates.prefix(40))
        let checked = try await ServeHarness.withServer(copies) { client in
            var checked: [(String, ServeHarness.Answer)] = []
            for id in tried where checked.count < 5 {
                let parts = id.split(separator: "/")
                let uri = "/stores/1/entities/\(parts[parts.count - 2])/\(parts[parts.count - 1].dropFirst()).json"
                let answer = try await ServeHarness.get(client, uri)
                if answer.status == 200 { checked.append((id, answer)) }
            }
            return checked
        }
        #expect(checked.count == 5)
        for (id, answer) in checked {
            #expect(try ServeHarness.problems(answer.body, schema: "serve-object.schema.json") == [])
            let touching = transactions.reversed().compactMap { transaction -> [Int]? in
                let changes = (transaction["changes"]?.array ?? []).filter { $0["objectID"]?.string == id }
                return changes.isEmpty ? nil : [transaction["id"]?.integer ?? 0] + changes.map { $0["id"]?.integer ?? 0 }
            }
            let history = try #require(try answer.json["history"])
            let shown = (history["transactions"]?.array ?? []).map { transaction in
                [transaction["id"]?.integer ?? 0] + (transaction["changes"]?.array ?? []).map { $0["id"]?.integer ?? 0 }
            }
            #expect(shown == Array(touching.prefix(20)), "\(id)")
            #expect(history["more"] == .bool(touching.count > 20))
        }
    }

    @Test func hostileHistoryStringsRenderAsText() async throws {
        let copies = try ServeHarness.copies([ServeHarness.photos])
        let hostile = "<script>alert(1)</script>\"><img src=x onerror=alert(2)>"
        let queue = try DatabaseQueue(path: copies[0].path)
        try await queue.write { db in try db.execute(sql: "UPDATE ATRANSACTIONSTRING SET ZNAME = ? || Z_PK", arguments: [hostile]) }
        try queue.close()
        let answers = try await ServeHarness.withServer(copies) { client in
            try await [ServeHarness.get(client, "/stores/1/history"), ServeHarness.get(client, "/stores/1/history.json")]
        }
        #expect(answers[0].status == 200)
        #expect(answers[0].body.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"))
        #expect(!answers[0].body.contains("<script>alert") && !answers[0].body.contains("<img src=x"))
        let authors = try (answers[1].json["transactions"]?.array ?? []).compactMap { $0["author"]?.string }
        #expect(!authors.isEmpty && authors.allSatisfy { $0.hasPrefix(hostile) })
    }

    @Test(arguments: [
        (Self.wiboscoOld, Self.wiboscoNew), ("cdplus-samplemodel/SampleModel_V1.sqlite", ServeHarness.sample),
    ])
    func diffEqualsTheDiffCommand(_ old: String, _ new: String) async throws {
        let copies = try ServeHarness.copies([old, new])
        let before = try Self.checksums(copies)
        let answers = try await ServeHarness.withServer(copies) { client in
            try await ["/diff/1/2.json", "/diff/1/2.json?limit=3", "/diff/1/2", "/stores/1", "/diff/1/9", "/diff/1/2?limit=-1", "/diff/1", "/diff/1/2.csv"]
                .asyncMap { uri in (uri, try await ServeHarness.get(client, uri)) }
        }
        #expect(answers.map { $0.1.status } == [200, 200, 200, 200, 404, 400, 404, 400], "\(answers.map { $0.1.body.prefix(200) })")
        for (index, limit) in [(0, "20"), (1, "3")] {
            #expect(try ServeHarness.problems(answers[index].1.body, schema: "serve-diff.schema.json") == [])
            let expected = try Self.command(["diff", copies[0].path, copies[1].path, "--format", "json", "--limit", limit], allowed: [0, 1])
            #expect(try answers[index].1.json["diff"] == expected, "limit \(limit)")
        }
        let nameA = copies[0].deletingPathExtension().lastPathComponent, nameB = copies[1].deletingPathExtension().lastPathComponent
        #expect(answers[2].1.body.contains("<th>Deleted (only in A)</th>"))
        #expect(answers[3].1.body.contains("Compare with <a href=\"/diff/\(nameA)/\(nameB)\">\(nameB)</a>"))
        #expect(try Self.checksums(copies) == before)
    }

    /// A store written before framework 754 has no model cache: the pages that need its model
    /// say so with a 409 that names the remedy (`--model`), and the store page still answers.
    @Test func aStoreWithoutModelCacheGetsAClearConflict() async throws {
        let copies = try ServeHarness.copies(["failedbankcd-seed/2013-12-12-wal/CoreDataTutorial2.sqlite"])
        let answers = try await ServeHarness.withServer(copies) { client in
            try await ["/stores/1/model", "/stores/1/model.json", "/stores/1/validate.json", "/stores/1/entities/FailedBankInfo.json", "/stores/1.json"]
                .asyncMap { uri in (uri, try await ServeHarness.get(client, uri)) }
        }
        #expect(answers.map { $0.1.status } == [409, 409, 409, 409, 200])
        for (uri, answer) in answers.prefix(4) {
            #expect(answer.body.contains("has no model cache (Z_MODELCACHE)") && answer.body.contains("--model"), "\(uri): \(answer.body.prefix(300))")
            if uri.hasSuffix(".json") { #expect(try ServeHarness.problems(answer.body, schema: "serve-error.schema.json") == [], "\(uri)") }
        }
    }

    /// Whole-store reports stopped by the time limit advise their command, which has none,
    /// instead of a filter: validate, history and diff through the session pool.
    @Test func reportsOverTheTimeLimitAdviseTheirCommand() async throws {
        let copies = try ServeHarness.copies([ServeHarness.photos, ServeHarness.photos])
        let answers = try await ServeHarness.withServer(copies, queryTimeout: 0.000_001) { client in
            try await ["/stores/1/validate.json", "/stores/1/history.json", "/diff/1/2.json"].asyncMap { uri in
                (uri, try await ServeHarness.get(client, uri))
            }
        }
        for ((uri, answer), command) in zip(answers, ["validate", "history", "diff"]) {
            #expect(answer.status == 504, "\(uri): \(answer.body.prefix(300))")
            let message = try answer.json["error"]?["message"]?.string ?? ""
            #expect(message.hasPrefix("the query was stopped after "), "\(uri): \(message)")
            #expect(
                message.hasSuffix(
                    " s (--query-timeout); run `cdstore \(command)` on the store, which has no time limit, or start serve with a longer --query-timeout"),
                "\(uri): \(message)")
        }
    }

    /// An explanation checked against a store runs its queries under the time limit too: a
    /// 1570 on Car.maker counts the cars whose maker is NULL, over a million cars, and is
    /// stopped with the advice to run `explain --store`.
    @Test func anExplanationCheckedAgainstAStoreStopsAtTheTimeLimit() async throws {
        let big = try await ServeHarness.sampleWithAMillionCars()
        let dump =
            "Error Domain=NSCocoaErrorDomain Code=1570 \"The operation couldn't be completed. (Cocoa error 1570.)\" UserInfo={NSValidationErrorObject=<Car: 0x600000a8c0a0> (entity: Car; id: 0x600000a2e5a0 <x-coredata:///Car/t1> ; data: {model = nil;}), NSValidationErrorKey=model}"
        let answers = try await ServeHarness.withServer([big], queryTimeout: 0.000_001) { client in
            [
                try await ServeHarness.get(client, "/explain.json?store=1&dump=" + Self.queryValue(dump)),
                try await ServeHarness.get(client, "/explain?store=1&dump=" + Self.queryValue(dump)),
                try await ServeHarness.get(client, "/explain.json?dump=" + Self.queryValue(dump)),
            ]
        }
        #expect(answers.map(\.status) == [504, 504, 200])
        let message = try answers[0].json["error"]?["message"]?.string ?? ""
        #expect(message.hasPrefix("the query was stopped after "), "\(message)")
        #expect(message.hasSuffix("run `cdstore explain --store` on the store, which has no time limit, or start serve with a longer --query-timeout"))
        #expect(answers[1].body.contains("explain --store"))
        #expect(try answers[2].json["explanation"]?["code"]?.integer == 1570)
    }

    /// A filter's count runs last, in the time the page's rows left: one past `--query-timeout`
    /// (three MATCHES on every row of a million cars, about 6 s unloaded, against a limit of 2 s
    /// that the first page, which needs five rows, has to spare on a machine busy with the
    /// other suites) leaves the page
    /// answering 200 with its rows and saying that the matching objects were not counted (JSON:
    /// count null, counted false), and the next page says so without counting again. The same
    /// filter on the corpus store, within the limit, is counted.
    @Test func aFilteredCountPastTheTimeLimitLeavesThePageItsRows() async throws {
        let big = try await ServeHarness.sampleWithAMillionCars()
        let filter = "maker MATCHES '.*' AND numberPlate MATCHES '.*' AND model MATCHES '.*'"
        let uri = "/stores/1/entities/Car.json?size=5&where=" + ServePagingTests.encode(filter)
        let answers = try await ServeHarness.withServer([big], queryTimeout: 2) { client in
            let first = try await ServeHarness.get(client, uri)
            let next = try first.json["next"]?.string ?? ""
            return [first, try await ServeHarness.get(client, next), try await ServeHarness.get(client, String(uri.replacing(".json", with: "")))]
        }
        for answer in answers.prefix(2) {
            #expect(answer.status == 200, "\(answer.body.prefix(300))")
            #expect(try ServeHarness.problems(answer.body, schema: "serve-entity.schema.json") == [])
            let json = try answer.json
            #expect(json["objects"]?.array?.count == 5)
            #expect(json["count"] == .null && json["counted"] == .bool(false), "\(answer.body.prefix(300))")
        }
        #expect(answers[2].status == 200)
        #expect(
            answers[2].body.contains(
                "<p class=\"muted count\">Matching objects not counted: the count did not finish within the 2 s --query-timeout.</p>"))
        #expect(answers[2].body.components(separatedBy: "<tr><td>").count == 6)
        let small = try ServeHarness.copies([ServeHarness.sample])
        let counted = try await ServeHarness.withServer(small) { client in
            [try await ServeHarness.get(client, uri), try await ServeHarness.get(client, String(uri.replacing(".json", with: "")))]
        }
        #expect(try counted[0].json["count"]?.integer == 125 && counted[0].json["counted"] == .bool(true))
        #expect(counted[1].body.contains("<p class=\"muted count\">125 matching objects</p>"))
    }

    @Test func newRoutesRefuseGarbage() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let answers = try await ServeHarness.withServer(copies) { client in
            try await [
                "/stores/1/model?x=1", "/stores/1/nothing", "/stores/9/model", "/stores/1/validate.csv", "/explain/more", "/stores/1/compat.json?model=/etc",
            ].asyncMap { uri in (uri, try await ServeHarness.get(client, uri, accept: "application/json")) }
        }
        #expect(answers.map { $0.1.status } == [400, 404, 404, 400, 404, 400])
        for (uri, answer) in answers {
            #expect(try ServeHarness.problems(answer.body, schema: "serve-error.schema.json") == [], "\(uri)")
        }
    }
}
