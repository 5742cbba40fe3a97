import CDMaintenance
import CDServe
import CDTestSupport
import Foundation
import Hummingbird
import Testing

/// The live updates of `serve`: `/stores/{store}/events` on a server listening on a real port,
/// read by `curl -N` while the real `sqlite3` writes to a copy of a corpus store as Core Data
/// would (`Z_PRIMARYKEY`, `Z_OPT`); each event is checked against the rows `sqlite3` itself
/// reads before and after the write. Then the shared watcher, its end when the clients leave or
/// the store goes, and the changed-row marks of the entity page.
@Suite(.temporaryDirectories) struct ServeLiveTests {
    /// Fast polls and heartbeats, so that the tests wait little.
    static let fast = LiveSettings(pollInterval: 0.05, heartbeatInterval: 0.3)

    /// A served copy of the sample store, its catalog, the server's base URL and a client of it
    /// inside `body`.
    static func withLiveServer(
        _ copy: URL, modelPath: String? = nil,
        _ body: @escaping @Sendable (_ catalog: StoreCatalog, _ base: String, _ client: ServeClient) async throws -> Void
    ) async throws {
        let catalog = StoreCatalog(stores: [ServedStore(number: 1, path: copy.path, modelPath: modelPath)], queryTimeout: 10, live: fast)
        try await LiveServer.with(catalog) { port in
            let base = "http://127.0.0.1:\(port)"
            try await body(catalog, base, ServeClient(port: port))
        }
    }

    @Test func everyWriteArrivesAsTheEventsThatSQLiteCounts() async throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let directory = copy.deletingLastPathComponent()
        try await Self.withLiveServer(copy) { catalog, base, client in
            let events = try EventClient(base + "/stores/1/events")
            defer { events.stop() }
            try await events.waitForWatching()
            let names = try SQLite.modelEntityNames(copy)
            var generator = SeededGenerator(seed: 25)
            for round in 0..<8 {
                let before = try SQLite.versions(copy)
                let writes = Writes.random(round: round, rows: before, using: &generator)
                try SQLiteShell.run(copy, writes.sql)
                let after = try SQLite.versions(copy)
                let written = try Checksums.of(directory: directory)
                let expected = Expected.changes(from: before, to: after, names: names)
                #expect(!expected.isEmpty, "round \(round) wrote nothing")
                let received = try await events.changes(count: expected.count)
                #expect(received.map(\.json) == expected.map(\.json), "round \(round): \(writes.sql)")
                for change in received {
                    #expect(try ServeHarness.problems(change.text, schema: "serve-event.schema.json") == [], "\(change.text)")
                }
                // Nothing more: the next message is a heartbeat, sent after at least one more poll.
                #expect(try await events.nextBlock() == ": heartbeat", "round \(round)")
                #expect(try Checksums.of(directory: directory) == written, "round \(round): the server changed the store")
                // The pages read the new version too: the pool opened a new session.
                let page = try await ServeHarness.get(client, "/stores/1/entities/Car.json?size=1")
                #expect(try page.json["count"]?.integer == after.values.filter { $0.table == "ZCAR" }.count, "round \(round)")
                // The Refresh of the Car page marks exactly the cars sqlite3 saw inserted or saved,
                // from the keys of the events of the entities the page names (as the script does).
                let cars = try await ServeHarness.get(client, "/stores/1/entities/Car")
                let family = Self.watchedEntities(cars.body)
                #expect(family == ["Car", "LuxuryCar", "SportCar"])
                let changed = try Set(received.filter { try family.contains($0.entity) }.flatMap { try $0.keys("inserted_pks") + $0.keys("updated_pks") })
                let saved = Set(after.filter { row, version in row.table == "ZCAR" && before[row]?.opt != version.opt }.map(\.key.pk))
                #expect(changed == saved, "round \(round)")
                if !changed.isEmpty {
                    let query = changed.sorted().map(String.init).joined(separator: ",")
                    let marked = try await ServeHarness.get(client, "/stores/1/entities/Car?size=1000&changed=" + query)
                    #expect(Self.markedRows(marked.body) == saved, "round \(round)")
                }
            }
            #expect(catalog.feeds[0].watchersStarted == 1)
        }
    }

    /// A stream says it is alive on its own whenever it has sent nothing for the heartbeat
    /// interval, whatever its watcher is doing: here the watcher polls once an hour (its own
    /// heartbeats come only after a poll), so every heartbeat after `: watching` is the stream's;
    /// before it, heartbeats come too while the first snapshot takes longer than 0.1 s.
    @Test func theStreamSendsHeartbeatsOfItsOwn() async throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let settings = LiveSettings(pollInterval: 3600, heartbeatInterval: 0.1)
        let catalog = StoreCatalog(stores: [ServedStore(number: 1, path: copy.path, modelPath: nil)], queryTimeout: 10, live: settings)
        try await LiveServer.with(catalog) { port in
            let events = try EventClient("http://127.0.0.1:\(port)/stores/1/events")
            defer { events.stop() }
            var block = try await events.nextBlock()
            var heartbeats = 0
            while block == ": heartbeat" && heartbeats < 600 {
                heartbeats += 1
                block = try await events.nextBlock()
            }
            #expect(block?.hasPrefix(": watching ") == true, "\(block ?? "no message") after \(heartbeats) heartbeats")
            for _ in 0..<3 { #expect(try await events.nextBlock() == ": heartbeat") }
            #expect(catalog.feeds[0].watchersStarted == 1)
        }
    }

    @Test func clientsShareOneWatcherThatStopsWhenTheLastLeaves() async throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        try await Self.withLiveServer(copy) { catalog, base, _ in
            let feed = catalog.feeds[0]
            #expect(!feed.isWatching && feed.watchersStarted == 0)
            let first = try EventClient(base + "/stores/SampleModel_V2/events")
            defer { first.stop() }
            try await first.waitForWatching()
            let second = try EventClient(base + "/stores/1/events")
            defer { second.stop() }
            try await second.waitForWatching()
            #expect(feed.watchersStarted == 1 && feed.clientCount == 2)
            try SQLiteShell.run(copy, Writes.insert(plate: "shared", ent: 2))
            let one = try await first.changes(count: 1), other = try await second.changes(count: 1)
            #expect(one.map(\.json) == other.map(\.json))
            #expect(one.first?.json.hasPrefix("{\"entity\":\"SportCar\",\"inserted\":1,\"updated\":0,\"deleted\":0,\"inserted_pks\":[126]") == true)
            first.stop()
            #expect(try await Self.waitUntil { feed.clientCount == 1 }, "the server did not notice the first client leave")
            #expect(feed.isWatching)
            second.stop()
            #expect(try await Self.waitUntil { !feed.isWatching }, "the watcher outlived its last client")
            #expect(feed.clientCount == 0 && feed.watchersStarted == 1)
            // A new client starts a new watcher.
            let third = try EventClient(base + "/stores/1/events")
            defer { third.stop() }
            try await third.waitForWatching()
            #expect(feed.watchersStarted == 2)
        }
    }

    @Test func aStoreThatGoesEndsTheStreamWithAnErrorEvent() async throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        try await Self.withLiveServer(copy) { catalog, base, _ in
            let events = try EventClient(base + "/stores/1/events")
            defer { events.stop() }
            try await events.waitForWatching()
            try FileManager.default.moveItem(at: copy, to: copy.deletingLastPathComponent().appendingPathComponent("moved.sqlite"))
            var block = try await events.nextBlock()
            while block == ": heartbeat" { block = try await events.nextBlock() }
            let lines = block?.split(separator: "\n").map(String.init) ?? []
            #expect(lines.first == "event: error", "\(block ?? "the stream ended")")
            let data = String(lines.last?.dropFirst("data: ".count) ?? "")
            #expect(try ServeHarness.problems(data, schema: "serve-error.schema.json") == [], "\(data)")
            #expect(data.contains("SampleModel_V2.sqlite"), "\(data)")
            #expect(try await Self.waitUntil { events.hasEnded }, "the stream went on after its error")
            #expect(try await Self.waitUntil { !catalog.feeds[0].isWatching })
        }
    }

    /// With `--model`, the watcher reads the store with the given model, as the pages do: a
    /// store without a model cache (Apple's Recipes sample, framework 241) is watched and its
    /// changes named by that model's entities; served without the model, its stream ends with
    /// the error the pages give (no model cache).
    @Test func theWatcherReadsTheStoreWithTheServedModel() async throws {
        let copy = try Corpus.copyStore("apple-recipes/Recipes.sqlite")
        let model = Corpus.url("apple-recipes/Recipes.xcdatamodel").path
        let insert = """
            BEGIN;
            UPDATE Z_PRIMARYKEY SET Z_MAX = 11 WHERE Z_ENT = 3;
            INSERT INTO ZRECIPE (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (11, 3, 1, 'Live');
            UPDATE ZRECIPE SET ZNAME = 'Cake', Z_OPT = Z_OPT + 1 WHERE Z_PK = 1;
            DELETE FROM ZINGREDIENT WHERE Z_PK = 2;
            COMMIT;
            """
        try await Self.withLiveServer(copy, modelPath: model) { catalog, base, client in
            let events = try EventClient(base + "/stores/1/events")
            defer { events.stop() }
            try await events.waitForWatching()
            try SQLiteShell.run(copy, insert)
            let received = try await events.changes(count: 2)
            #expect(
                received.map(\.json) == [
                    "{\"entity\":\"Ingredient\",\"inserted\":0,\"updated\":0,\"deleted\":1,\"inserted_pks\":[],\"updated_pks\":[],\"deleted_pks\":[2],\"truncated\":false}",
                    "{\"entity\":\"Recipe\",\"inserted\":1,\"updated\":1,\"deleted\":0,\"inserted_pks\":[11],\"updated_pks\":[1],\"deleted_pks\":[],\"truncated\":false}",
                ])
            // The page the events are for names the same entity.
            let page = try await ServeHarness.get(client, "/stores/1/entities/Recipe")
            #expect(page.status == 200 && Self.watchedEntities(page.body) == ["Recipe"], "\(page.body.prefix(300))")
            #expect(catalog.feeds[0].watchersStarted == 1)
        }
        let plain = try Corpus.copyStore("apple-recipes/Recipes.sqlite")
        try await Self.withLiveServer(plain) { _, base, _ in
            let events = try EventClient(base + "/stores/1/events")
            defer { events.stop() }
            let block = try await events.nextBlock()
            #expect(block?.hasPrefix("event: error\n") == true && block?.contains("has no model cache (Z_MODELCACHE)") == true, "\(block ?? "no message")")
        }
    }

    @Test func theStreamAnswersOnlyAsAStream() async throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let answers = try await ServeHarness.withServer([copy]) { client in
            try await ["/stores/1/events.json", "/stores/9/events", "/stores/1/events?x=1"].asyncMap { uri in
                (uri, try await ServeHarness.get(client, uri))
            }
        }
        #expect(answers.map(\.1.status) == [400, 404, 400])
        #expect(answers[0].1.body.contains("text/event-stream"))
        for (uri, answer) in answers { ServeHarness.expectSecurityHeaders(answer, uri) }
        try await Self.withLiveServer(copy) { _, _, client in
            let head = try await ServeHarness.get(client, "/stores/1/events", method: .head)
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Type") == "text/event-stream; charset=utf-8")
            // The script's EventSource connects to the server itself: default-src 'self' covers
            // connect-src as long as the policy names no connect-src of its own.
            let policy = head.header("Content-Security-Policy") ?? ""
            #expect(policy.contains("default-src 'self'") && !policy.contains("connect-src"))
        }
    }

    /// The pages name the entities as the model does, in the model's order, as the events do:
    /// the script keeps an event's keys only when its entity is one of the page's names, so a
    /// renamed entity named by `Z_PRIMARYKEY` (`ExpensiveSportCar`) would never be marked.
    @Test func pagesTellTheScriptWhatToWatch() async throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let pages = try await ServeHarness.withServer([copy]) { client in
            try await ["/stores/1", "/stores/1/entities/Car", "/stores/1/entities/SportCar", "/stores/1/entities/Car/1", "/"].asyncMap { uri in
                try await ServeHarness.get(client, uri).body
            }
        }
        #expect(pages[0].contains("<body data-events=\"/stores/SampleModel_V2/events\">"))
        #expect(
            pages[1].contains(
                "<body data-events=\"/stores/SampleModel_V2/events\" data-entities=\"[&quot;Car&quot;,&quot;LuxuryCar&quot;,&quot;SportCar&quot;]\">"))
        #expect(pages[2].contains("<body data-events=\"/stores/SampleModel_V2/events\" data-entities=\"[&quot;LuxuryCar&quot;,&quot;SportCar&quot;]\">"))
        #expect(Self.watchedEntities(pages[1]) == ["Car", "LuxuryCar", "SportCar"])
        #expect(pages[3].contains("<body data-events=\"/stores/SampleModel_V2/events\">"))
        #expect(pages[4].contains("<body>"))
    }

    /// Entity names come from the store's model cache, which is untrusted: a name with quotes,
    /// angle brackets, spaces and an entity reference stays inside its attribute, escaped, and
    /// an HTML parser reads the attribute back as the JSON array of that very name (the
    /// browser's half, the script reading it and marking the rows, is in ServeBrowserTests).
    @Test func aHostileEntityNameStaysInsideTheAttributeTheScriptReads() async throws {
        let store = try HostileStore.make(objects: 2)
        let storeSegment = HostileStore.segment(String(HostileStore.file.dropLast(".sqlite".count)))
        let pages = try await ServeHarness.withServer([store]) { client in
            try await ["/stores/1", "/stores/1/entities/Car", "/stores/1/entities/" + HostileStore.segment(HostileStore.entity)].asyncMap { uri in
                try await ServeHarness.get(client, uri)
            }
        }
        #expect(pages.map(\.status) == [200, 200, 200])
        let events = "/stores/\(storeSegment)/events"
        for page in pages {
            #expect(Self.bodyAttribute("data-events", in: page.body) == events)
            #expect(!page.body.contains("<img") && !page.body.contains("<b>") && !page.body.contains(" data-x='1'") && !page.body.contains(" data-y='2'"))
        }
        #expect(Self.bodyAttribute("data-entities", in: pages[0].body) == nil)
        #expect(Self.watchedEntities(pages[1].body) == ["Car", HostileStore.entity])
        #expect(Self.watchedEntities(pages[2].body) == [HostileStore.entity])
        // The tag holds these two attributes and nothing else.
        for page in pages[1...] {
            let tag = try #require(page.body.components(separatedBy: "<body").dropFirst().first?.prefix { $0 != ">" })
            let raw = tag.components(separatedBy: "\"")
            #expect(raw.count == 5 && raw[0] == " data-events=" && raw[2] == " data-entities=" && raw[4].isEmpty, "\(tag)")
            #expect(raw.count == 5 && raw[1] == events && !raw[3].contains("<") && !raw[3].contains(">") && !raw[3].contains("'"), "\(tag)")
        }
    }

    @Test func theEntityPageMarksExactlyTheChangedRows() async throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let versions = try SQLite.versions(copy)
        let cars = versions.keys.filter { versions[$0]?.table == "ZCAR" }.map(\.pk).sorted()
        var generator = SeededGenerator(seed: 2_025)
        var cases: [(query: String, marked: Set<Int64>)] = []
        for _ in 0..<6 {
            let chosen = Set(cars.shuffled(using: &generator).prefix(Int.random(in: 1...12, using: &generator)))
            // Keys of no object are ignored; the query lists them in any order.
            let query = (Array(chosen) + [9_999]).shuffled(using: &generator).map(String.init).joined(separator: ",")
            cases.append((query, chosen))
        }
        let pages = try await ServeHarness.withServer([copy]) { [cases] client in
            try await cases.asyncMap { item in try await ServeHarness.get(client, "/stores/1/entities/Car?size=1000&changed=" + item.query) }
        }
        for (page, item) in zip(pages, cases) {
            #expect(page.status == 200)
            #expect(Self.markedRows(page.body) == item.marked, "changed=\(item.query)")
            #expect(page.body.contains("<p class=\"notice\">Marked:"))
        }
        let plain = try await ServeHarness.withServer([copy]) { client in
            try await [
                "/stores/1/entities/Car?size=1000", "/stores/1/entities/Car?changed=1,x", "/stores/1/entities/Car?changed=0",
                "/stores/1/entities/Car?changed=" + (1...1001).map(String.init).joined(separator: ","),
            ].asyncMap { uri in
                try await ServeHarness.get(client, uri)
            }
        }
        #expect(Self.markedRows(plain[0].body) == [] && !plain[0].body.contains("Marked:"))
        #expect(plain[1...].map(\.status) == [400, 400, 400])
        #expect(plain[3].body.contains("at most 1000 primary keys"))
    }

    /// Ctrl-C and SIGTERM stop the built `cdstore serve` with two event streams open: the
    /// streams end, the server exits 0 and prints nothing more, the store is as it was.
    @Test(arguments: [SIGINT, SIGTERM])
    func theServerStopsCleanlyWithStreamsOpen(_ signal: Int32) async throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        let server = try ServeCommandTests.Server([copy.path, "--port", "0"])
        let streams = try [EventClient(server.url + "stores/1/events"), EventClient(server.url + "stores/SampleModel_V2/events")]
        defer { streams.forEach { $0.stop() } }
        for stream in streams { try await stream.waitForWatching() }
        kill(server.process.processIdentifier, signal)
        let exited = try await Self.waitUntil { !server.process.isRunning }
        if !exited { kill(server.process.processIdentifier, SIGKILL) }
        #expect(exited, "the server did not stop with event streams open")
        #expect(try await Self.waitUntil { streams.allSatisfy(\.hasEnded) }, "a stream outlived the server")
        let stopped = server.stop(signal)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr == "")
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
    }

    /// The entity names of a page's `data-entities`: those whose events the script keeps the
    /// keys of for the page's Refresh. The attribute's value, its character references
    /// decoded as an HTML parser does, is a JSON array of names.
    static func watchedEntities(_ html: String) -> [String] {
        guard let value = bodyAttribute("data-entities", in: html), let names = try? JSONValue(parsing: value) else { return [] }
        return names.array?.compactMap(\.string) ?? []
    }

    /// The value of the `<body>` attribute `name` as an HTML parser reads it: up to the closing
    /// quote, with the character references the pages write (`&amp; &lt; &gt; &quot; &#39;`)
    /// decoded; nil when the body has no such attribute or a reference is of another kind.
    static func bodyAttribute(_ name: String, in html: String) -> String? {
        guard let body = html.range(of: "<body"), let tagEnd = html[body.upperBound...].firstIndex(of: ">"),
            let start = html[body.upperBound..<tagEnd].range(of: " \(name)=\"")
        else { return nil }
        let raw = html[start.upperBound..<tagEnd].prefix { $0 != "\"" }
        var value = ""
        var rest = Substring(raw)
        let references = ["&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": "\"", "&#39;": "'"]
        while let ampersand = rest.firstIndex(of: "&") {
            value += rest[..<ampersand]
            guard let reference = references.first(where: { rest[ampersand...].hasPrefix($0.key) }) else { return nil }
            value += reference.value
            rest = rest[rest.index(ampersand, offsetBy: reference.key.count)...]
        }
        return value + rest
    }

    /// The Z_PKs of the rows an entity page marks as changed.
    static func markedRows(_ html: String) -> Set<Int64> {
        var result = Set<Int64>()
        for row in html.components(separatedBy: "<tr class=\"changed\"><td><a href=\"").dropFirst() {
            guard let text = row.split(separator: ">", maxSplits: 1).last?.split(separator: "<").first, let key = Int64(text) else { continue }
            result.insert(key)
        }
        return result
    }

    /// Waits `milliseconds` on a thread of its own (``BlockingWork/pause(milliseconds:)``).
    static func pause(milliseconds: Int) async {
        await BlockingWork.pause(milliseconds: milliseconds)
    }

    /// Waits up to 3,000 pauses of 20 ms (a minute at least) for `condition`. Counted in
    /// pauses, not by the clock: in a full parallel run the other suites can hold every thread
    /// of the concurrency pool, and then this task and the in-process server resume late
    /// together; a clock deadline would expire while neither could run.
    static func waitUntil(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<3000 {
            if condition() { return true }
            await pause(milliseconds: 20)
        }
        return condition()
    }
}

/// One `change` event as received: its data, and the parts the tests compare.
struct ReceivedChange: Sendable {
    var text: String
    var json: String { text }

    var entity: String {
        get throws { try JSONValue(parsing: text)["entity"]?.string ?? "" }
    }

    /// The primary keys of one of the event's lists.
    func keys(_ list: String) throws -> [Int64] {
        try JSONValue(parsing: text)[list]?.array?.compactMap { $0.integer.map(Int64.init) } ?? []
    }
}

/// A client of an event stream: `curl -N` on its URL, its output cut into messages (blocks
/// ending with a blank line) as it arrives.
final class EventClient: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var buffer = Data()
    private var ended = false

    init(_ url: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-sN", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // A thread of its own reads curl's output with blocking reads until the end, rather
        // than a readabilityHandler, which depends on Foundation's run-loop machinery.
        let reading = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = reading.availableData
                lock.withLock {
                    if data.isEmpty { ended = true } else { buffer.append(data) }
                }
                if data.isEmpty { return }
            }
        }
    }

    /// Whether the server ended the stream (curl saw its end and exited).
    var hasEnded: Bool { lock.withLock { ended } && !process.isRunning }

    /// The next message without its blank line, after at most 6,000 pauses of 10 ms; nil when the stream
    /// ended or nothing came. The server forwards events on the shared Swift concurrency pool,
    /// which the other suites' blocking process waits can hold for many seconds in a full run.
    func nextBlock() async throws -> String? {
        let separator = Data("\n\n".utf8)
        // Counted in pauses, not by the clock, as in ``ServeLiveTests/waitUntil(_:)``.
        for _ in 0...6000 {
            let block: Data? = lock.withLock {
                guard let range = buffer.range(of: separator) else { return nil }
                let block = buffer.subdata(in: buffer.startIndex..<range.lowerBound)
                buffer.removeSubrange(buffer.startIndex..<range.upperBound)
                return block
            }
            if let block { return String(decoding: block, as: UTF8.self) }
            if lock.withLock({ ended }) { return nil }
            await ServeLiveTests.pause(milliseconds: 10)
        }
        return nil
    }

    /// Waits for the stream's `: watching` comment: from then on every write is reported. The
    /// stream's own heartbeats come before it while the first snapshot takes longer than the
    /// heartbeat interval (as on a machine busy with the other suites); at most 200 are skipped.
    func waitForWatching() async throws {
        var block = try await nextBlock()
        var heartbeats = 0
        while block == ": heartbeat" && heartbeats < 200 {
            heartbeats += 1
            block = try await nextBlock()
        }
        #expect(block?.hasPrefix(": watching ") == true, "\(block ?? "no message") after \(heartbeats) heartbeats")
    }

    /// The next `count` change events, skipping heartbeats (at most 200 of them: a change the
    /// server never sends fails the test rather than hanging it between heartbeats).
    func changes(count: Int) async throws -> [ReceivedChange] {
        var result: [ReceivedChange] = []
        var heartbeats = 0
        while result.count < count {
            guard let block = try await nextBlock(), heartbeats < 200 else {
                Issue.record("the stream ended, stalled or sent only heartbeats after \(result.count) of \(count) change events")
                return result
            }
            if block == ": heartbeat" {
                heartbeats += 1
                continue
            }
            let lines = block.split(separator: "\n")
            #expect(lines.count == 2 && lines[0] == "event: change", "\(block)")
            result.append(ReceivedChange(text: String(lines.last?.dropFirst("data: ".count) ?? "")))
        }
        return result
    }

    /// Kills curl. SIGKILL, not ``Process/terminate()``'s SIGTERM: curl inherits the signal mask
    /// of the thread that started it, and the Dispatch worker threads that run the tests block
    /// SIGTERM, so a terminated curl would keep its stream open and `waitUntilExit` never return.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// The real `sqlite3` on the test's own copy: the writer, and the independent reader of what
/// changed.
enum SQLite {
    struct Row: Hashable {
        var table: String
        var pk: Int64
    }

    struct Version: Equatable {
        var table: String
        var ent: Int
        var opt: Int64
    }

    /// `Z_ENT` and `Z_OPT` of every row of the sample store's two tables.
    static func versions(_ store: URL) throws -> [Row: Version] {
        var result: [Row: Version] = [:]
        for table in ["ZCAR", "ZPERSON"] {
            for line in try SQLiteShell.run(store, "SELECT Z_PK, Z_ENT, Z_OPT FROM \(table);").split(separator: "\n") {
                let fields = line.split(separator: "|")
                guard fields.count == 3, let pk = Int64(fields[0]), let ent = Int(fields[1]), let opt = Int64(fields[2]) else {
                    Issue.record("unexpected row \(line)")
                    continue
                }
                result[Row(table: table, pk: pk)] = Version(table: table, ent: ent, opt: opt)
            }
        }
        return result
    }

    /// The model's entity names by `Z_ENT`: `Z_PRIMARYKEY`'s names, with the one entity of the
    /// sample store that a migration renamed. Its row keeps the old name (store-format.md §4),
    /// while the pages, and so the events whose rows they mark, name it as the model does.
    static func modelEntityNames(_ store: URL) throws -> [Int: String] {
        var result: [Int: String] = [:]
        for line in try SQLiteShell.run(store, "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY;").split(separator: "\n") {
            let fields = line.split(separator: "|")
            if fields.count == 2, let ent = Int(fields[0]) { result[ent] = String(fields[1]) }
        }
        #expect(result[3] == "ExpensiveSportCar", "the sample store's renamed entity")
        result[3] = "LuxuryCar"
        return result
    }
}

/// One transaction of Core Data-like writes to the sample store's cars.
struct Writes {
    var sql: String

    /// An insert as Core Data makes it: the next key of the hierarchy's root in `Z_PRIMARYKEY`,
    /// `Z_OPT` 1. `ent` is 1 (Car), 2 (SportCar) or 3 (LuxuryCar).
    static func insert(plate: String, ent: Int) -> String {
        "BEGIN; UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 1; "
            + "INSERT INTO ZCAR (Z_PK, Z_ENT, Z_OPT, ZMAKER, ZMODEL, ZNUMBERPLATE) "
            + "VALUES ((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1), \(ent), 1, 'Test', 'Live', '\(plate)'); COMMIT;"
    }

    /// Up to four inserts, updates and deletes of cars (at least one write), in one transaction.
    /// An update bumps `Z_OPT`; a delete of a car with an owner also saves the owner (its cars
    /// changed), as Core Data does.
    static func random(round: Int, rows: [SQLite.Row: SQLite.Version], using generator: inout SeededGenerator) -> Writes {
        let cars = rows.keys.filter { $0.table == "ZCAR" }.map(\.pk).sorted().shuffled(using: &generator)
        var counts = (0..<3).map { _ in Int.random(in: 0...4, using: &generator) }
        if counts.allSatisfy({ $0 == 0 }) { counts[Int.random(in: 0...2, using: &generator)] = 1 }
        var sql = "BEGIN;\n"
        for index in 0..<counts[0] {
            let ent = Int.random(in: 1...3, using: &generator)
            sql += "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 1;\n"
            sql += "INSERT INTO ZCAR (Z_PK, Z_ENT, Z_OPT, ZMAKER, ZMODEL, ZNUMBERPLATE) "
            sql += "VALUES ((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1), \(ent), 1, 'Test', 'Round \(round)', 'R\(round)-\(index)');\n"
        }
        for pk in cars.prefix(counts[1]) {
            sql += "UPDATE ZCAR SET ZMODEL = 'Updated \(round)', Z_OPT = Z_OPT + 1 WHERE Z_PK = \(pk);\n"
        }
        for pk in cars.dropFirst(counts[1]).prefix(counts[2]) {
            sql += "UPDATE ZPERSON SET Z_OPT = Z_OPT + 1 WHERE Z_PK = (SELECT ZOWNER FROM ZCAR WHERE Z_PK = \(pk));\n"
            sql += "DELETE FROM ZCAR WHERE Z_PK = \(pk);\n"
        }
        return Writes(sql: sql + "COMMIT;\n")
    }
}

/// The events a write should cause, from `sqlite3`'s rows before and after it: per entity
/// (by `Z_ENT`), the keys that appeared, went, or kept their key with another `Z_OPT`.
enum Expected {
    static func changes(from before: [SQLite.Row: SQLite.Version], to after: [SQLite.Row: SQLite.Version], names: [Int: String]) -> [ReceivedChange] {
        var lists: [String: (inserted: [Int64], updated: [Int64], deleted: [Int64])] = [:]
        for (row, version) in after {
            let name = names[version.ent] ?? "?"
            if let old = before[row] {
                if old.opt != version.opt { lists[name, default: ([], [], [])].updated.append(row.pk) }
            } else {
                lists[name, default: ([], [], [])].inserted.append(row.pk)
            }
        }
        for (row, version) in before where after[row] == nil {
            lists[names[version.ent] ?? "?", default: ([], [], [])].deleted.append(row.pk)
        }
        return lists.keys.sorted().map { name in
            let list = lists[name] ?? ([], [], [])
            func keys(_ values: [Int64]) -> String { "[" + values.sorted().map(String.init).joined(separator: ",") + "]" }
            return ReceivedChange(
                text: "{\"entity\":\"\(name)\",\"inserted\":\(list.inserted.count),\"updated\":\(list.updated.count),\"deleted\":\(list.deleted.count),"
                    + "\"inserted_pks\":\(keys(list.inserted)),\"updated_pks\":\(keys(list.updated)),\"deleted_pks\":\(keys(list.deleted)),\"truncated\":false}"
            )
        }
    }
}
