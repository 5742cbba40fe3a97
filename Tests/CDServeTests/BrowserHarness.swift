import CDMaintenance
import CDTestSupport
import Foundation
import Testing

/// The browser tests' set-up: the built `cdstore serve` on a free port over copies of corpus
/// stores, a headless Chromium on it (``WebDriver``), and the checks every browser test ends
/// with: no request went anywhere but the server, no CSP violation or script error was logged,
/// the server stopped cleanly and the stores are unchanged.
///
/// A new page's test is a few lines: `withBrowser(copies) { browser in try await
/// browser.open("/stores/1/…"); … }`, reading the page with ``Browser/table(_:)``,
/// ``Browser/text(_:)`` and the session's finders.
enum BrowserHarness {
    /// The browser on the running server.
    struct Browser: Sendable {
        let session: WebDriver.Session
        /// `http://127.0.0.1:PORT/`.
        let base: String
        let checksums: StoreChecksums

        /// Runs the test's own write to the stores (`sqlite3` as the app), after checking that
        /// the server changed nothing so far; the stores are then expected as this write left
        /// them, so the server is still proven not to write before and after it.
        func write(sourceLocation: SourceLocation = #_sourceLocation, _ change: () throws -> Void) throws {
            #expect(try checksums.current() == checksums.expected, "a store changed before the test wrote", sourceLocation: sourceLocation)
            try change()
            try checksums.expectCurrent()
        }

        /// Waits, a bounded time, until the page's event stream is connected (`<body
        /// data-live="open">`, set by the script when the stream's answer arrives), then a
        /// little more: the server subscribes the stream to its store's watcher right after
        /// sending that answer's head.
        func waitForLiveStream(sourceLocation: SourceLocation = #_sourceLocation) async throws {
            var state = ""
            for _ in 0..<300 {
                state = try await session.execute("return document.body.dataset.live || ''").string ?? ""
                if state == "open" { break }
                await ServeLiveTests.pause(milliseconds: 100)
            }
            try #require(state == "open", "the page's event stream is \(state.isEmpty ? "not started" : state)", sourceLocation: sourceLocation)
            await ServeLiveTests.pause(milliseconds: 500)
        }

        /// Waits, a bounded time (the server polls the store each second), until the live
        /// notice is shown with exactly `text` before its Refresh button; false, with an issue
        /// saying what it showed, when it does not.
        @discardableResult
        func waitForLiveNotice(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Bool {
            var shown = ""
            for _ in 0..<300 {
                shown =
                    try await session.execute(
                        "const p = document.querySelector('p.notice.live:not([hidden])'); return p ? p.querySelector('span').textContent : ''"
                    ).string ?? ""
                if shown == text { return true }
                await ServeLiveTests.pause(milliseconds: 100)
            }
            Issue.record("the live notice shows \"\(shown)\", not \"\(text)\"", sourceLocation: sourceLocation)
            return false
        }

        /// The Z_PK texts of the rows the page marks as changed (`tr.changed`).
        func markedRows() async throws -> [String] {
            (try await session.execute("return [...document.querySelectorAll('table.objects tr.changed')].map(r => r.cells[0].textContent)").array ?? [])
                .compactMap(\.string)
        }

        /// Loads the server's `path` (`/stores/1`), then checks the page's requests.
        func open(_ path: String) async throws {
            try await session.navigate(to: base + path.drop { $0 == "/" })
            try await expectOnlyServerRequests()
        }

        /// Clicks `element`, waits for the page it loads, then checks that page's requests.
        func follow(_ element: WebDriver.Element) async throws {
            try await session.clickAndWait(element)
            try await expectOnlyServerRequests()
        }

        /// Follows the link whose whole text is `text`.
        func follow(link text: String) async throws {
            try await follow(try await session.find(link: text))
        }

        /// Follows the page's "Next page »" link; false on the last page.
        func nextPage() async throws -> Bool {
            guard let next = try await session.findAll(link: "Next page »").first else { return false }
            try await follow(next)
            return true
        }

        /// Types `text` into the field `css` and presses Enter, then waits for the page the
        /// form loads and checks its requests.
        func submit(_ css: String, typing text: String) async throws {
            let before = try await session.currentURL()
            try await session.find(css).type(text + "\u{E007}")
            try await session.waitForNavigation(from: before)
            try await expectOnlyServerRequests()
        }

        /// The server path of the current page (`/stores/1?x=y`).
        func path() async throws -> String {
            String(try await session.currentURL().dropFirst(base.count - 1))
        }

        /// The rendered text of the first element matching `css`.
        func text(_ css: String) async throws -> String {
            try await session.find(css).text()
        }

        /// A table as the DOM has it: header texts, and each row's cells with their text and
        /// the first link's href.
        struct Table: Sendable {
            struct Cell: Sendable, Equatable {
                var text: String
                var href: String?
                var className: String
            }
            var headers: [String]
            var rows: [[Cell]]

            /// The column `header` of every row; the sorted column's header is found without
            /// its arrow (`maker ▲`).
            func column(_ header: String) -> [Cell] {
                guard let index = headers.firstIndex(where: { $0 == header || $0 == header + " ▲" || $0 == header + " ▼" }) else { return [] }
                return rows.map { index < $0.count ? $0[index] : Cell(text: "", href: nil, className: "") }
            }
        }

        func table(_ css: String = "table.objects") async throws -> Table {
            let value = try await session.execute(
                """
                const table = document.querySelector(arguments[0]);
                if (!table) return null;
                const cell = c => { const a = c.querySelector('a'); return [c.textContent, a ? a.getAttribute('href') : null, c.className]; };
                return [[...table.tHead.rows[0].cells].map(c => c.textContent), [...table.tBodies[0].rows].map(r => [...r.cells].map(cell))];
                """, [.string(css)])
            guard let parts = value.array, parts.count == 2 else { throw WebDriver.Failure(description: "no table \(css) on \(try await path())") }
            let rows = (parts[1].array ?? []).map { row in
                (row.array ?? []).map { cell in
                    let fields = cell.array ?? []
                    return Table.Cell(
                        text: fields.first?.string ?? "", href: fields.count > 1 ? fields[1].string : nil,
                        className: fields.count > 2 ? fields[2].string ?? "" : "")
                }
            }
            return Table(headers: (parts[0].array ?? []).map { $0.string ?? "" }, rows: rows)
        }

        /// Every resource the page loaded, itself included (`performance.getEntries()`), is the
        /// server's.
        func expectOnlyServerRequests(sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let names = try await session.execute("return performance.getEntries().filter(e => e.name.includes(':')).map(e => e.name)").array ?? []
            #expect(!names.isEmpty, sourceLocation: sourceLocation)
            for name in names.compactMap(\.string) {
                #expect(name.hasPrefix(base), "a request to \(name)", sourceLocation: sourceLocation)
            }
        }

        /// Chromium's own logs since the last read: every URL requested (DevTools network
        /// events) is the server's, and the console has no CSP violation and no error but the
        /// 4xx answers the test asked for (`expectedStatuses`) and a missing favicon.
        func expectCleanLogs(expectedStatuses: Set<Int> = [], sourceLocation: SourceLocation = #_sourceLocation) async throws {
            var requested: [String] = []
            for entry in try await session.log("performance") {
                guard let message = entry["message"]?.string, let event = try? JSONValue(parsing: message),
                    event["message"]?["method"]?.string == "Network.requestWillBeSent",
                    let url = event["message"]?["params"]?["request"]?["url"]?.string
                else { continue }
                requested.append(url)
            }
            #expect(!requested.isEmpty, "no network events in chromium's performance log", sourceLocation: sourceLocation)
            for url in requested { #expect(url.hasPrefix(base), "chromium requested \(url)", sourceLocation: sourceLocation) }
            for entry in try await session.log("browser") {
                let message = entry["message"]?.string ?? ""
                #expect(
                    !message.contains("Content Security Policy") && !message.contains("Refused to"), "CSP: \(message)", sourceLocation: sourceLocation)
                guard entry["level"]?.string == "SEVERE" else { continue }
                let expected =
                    (message.contains("/favicon.ico") && message.contains("status of 404"))
                    || expectedStatuses.contains { message.contains("the server responded with a status of \($0)") }
                #expect(expected, "console error: \(message)", sourceLocation: sourceLocation)
            }
        }
    }

    /// The checksums of the folders of the served stores: those the test expects at the end
    /// (taken before the server starts, and again after each of the test's own writes), and
    /// those of now.
    final class StoreChecksums: @unchecked Sendable {
        private let folders: [URL]
        private let lock = NSLock()
        private var taken: [[String: String]] = []

        init(_ copies: [URL]) throws {
            folders = copies.map { $0.deletingLastPathComponent() }
            taken = try current()
        }

        var expected: [[String: String]] { lock.withLock { taken } }

        func current() throws -> [[String: String]] { try folders.map { try Checksums.of(directory: $0) } }

        /// Takes the stores as they are now as the expected ones.
        func expectCurrent() throws {
            let now = try current()
            lock.withLock { taken = now }
        }
    }

    /// Serves `copies` with the built executable, opens a browser on it and runs `body`; then
    /// checks the logs, stops the server with SIGINT (status 0, nothing on standard error) and
    /// compares the stores' checksums with those taken before, or after the test's last own
    /// write (``Browser/write(sourceLocation:_:)``). `expectedStatuses` are 4xx answers the test
    /// provokes on purpose. With `directory`, the server runs there and is given the stores'
    /// paths relative to it, as a user in that folder would type them.
    static func withBrowser(
        _ copies: [URL], in directory: URL? = nil, expectedStatuses: Set<Int> = [], sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (Browser) async throws -> Void
    ) async throws {
        let checksums = try StoreChecksums(copies)
        let paths = directory.map { folder in copies.map { relativePath(of: $0, from: folder) } } ?? copies.map(\.path)
        let server = try ServeCommandTests.Server(paths + ["--port", "0"], in: directory)
        do {
            try #require(server.url.hasPrefix("http://127.0.0.1:"), "the server printed no URL")
            try await WebDriver.withSession { session in
                let browser = Browser(session: session, base: server.url, checksums: checksums)
                // Chromium opens its own start tab first (Debian's: a search engine's page and
                // chrome:// resources); leave it and drop its log entries before the test.
                try await session.navigate(to: "about:blank")
                _ = try await session.log("performance")
                _ = try await session.log("browser")
                try await body(browser)
                #expect(try await session.alertText() == nil, "an alert is open", sourceLocation: sourceLocation)
                try await browser.expectCleanLogs(expectedStatuses: expectedStatuses, sourceLocation: sourceLocation)
            }
        } catch {
            _ = server.stop(SIGKILL)
            throw error
        }
        let stopped = server.stop(SIGINT)
        #expect(stopped.status == 0 && stopped.stderr == "", "serve: \(stopped.status) \(stopped.stderr)", sourceLocation: sourceLocation)
        #expect(try checksums.current() == checksums.expected, "a store changed", sourceLocation: sourceLocation)
    }

    /// `file`'s path relative to `folder` (`../b/x.sqlite`), both absolute.
    static func relativePath(of file: URL, from folder: URL) -> String {
        let target = file.standardizedFileURL.pathComponents, base = folder.standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, base.count) && target[common] == base[common] { common += 1 }
        return (Array(repeating: "..", count: base.count - common) + target[common...]).joined(separator: "/")
    }
}

extension WebDriver.Session {
    /// The link whose whole text is `text` (WebDriver's "link text" strategy).
    func find(link text: String) async throws -> WebDriver.Element {
        try element(try await command("POST", "element", Self.linkLocator(text)))
    }

    func findAll(link text: String) async throws -> [WebDriver.Element] {
        try (try await command("POST", "elements", Self.linkLocator(text)).array ?? []).map(element)
    }

    private static func linkLocator(_ text: String) -> JSONValue {
        .object([("using", .string("link text")), ("value", .string(text))])
    }
}
