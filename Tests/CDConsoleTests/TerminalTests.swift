import CDTestSupport
import Foundation
import Testing

/// The console on a real pseudo-terminal, driven through tmux: completion, history across
/// sessions, Ctrl-C during a query, Ctrl-D. Each test has its own tmux server (`-L`), always
/// killed at the end.
@Suite(.serialized) struct TerminalTests {
    /// One tmux server running one console session on a private copy of a sample store.
    final class Terminal {
        let home: URL
        let store: URL
        let server: TmuxServer

        init() throws {
            // Not a cdstore-tests-* folder: the tmux socket must outlive any sweep of those
            // while the test runs, or the server could not be reached to kill it.
            home = FileManager.default.temporaryDirectory.appendingPathComponent("cdstore-console-tests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            store = home.appendingPathComponent("Articles.sqlite")
            server = try TmuxServer()
            try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/Articles.sqlite"), to: store)
        }

        /// The process group of the pane's shell, killed at the end so the server, left without
        /// sessions, exits even if `kill-server` (when ``server`` goes) cannot reach it.
        private var paneProcess: pid_t?

        deinit {
            if let paneProcess { kill(-paneProcess, SIGKILL) }
            try? FileManager.default.removeItem(at: home)
        }

        /// Starts a console (after `environment`, e.g. `NO_COLOR=1`, and with `options`); when it
        /// exits the pane prints `EXIT=<status>` and stays open.
        func startConsole(environment: String = "", options: String = "") throws {
            let executable = try #require(CommandRunner.executable)
            let command =
                "env -u NO_COLOR HOME=\(home.path) XDG_STATE_HOME=\(home.path)/state TMPDIR=\(home.path) TERM=xterm \(environment) "
                + "\(executable.path) console \(store.path) \(options); echo EXIT=$?; sleep 60"
            if (try? tmux(["has-session"])) == nil {
                try tmux(["new-session", "-d", "-x", "120", "-y", "40", command])
            } else {
                try tmux(["respawn-pane", "-k", command])
            }
            paneProcess = pid_t(try tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
            try waitFor("Articles>")
        }

        /// Runs a tmux command on the test's own server (``TmuxServer/run(_:)``).
        @discardableResult
        func tmux(_ arguments: [String]) throws -> String {
            try server.run(arguments)
        }

        func send(_ keys: String...) throws {
            try tmux(["send-keys"] + keys)
        }

        /// Types `text` literally (no key names).
        func type(_ text: String) throws {
            try tmux(["send-keys", "-l", text])
        }

        func screen(escapes: Bool = false) throws -> String {
            try server.screen(escapes: escapes)
        }

        /// Waits until the screen shows `text`; fails the test with the screen otherwise.
        func waitFor(_ text: String, seconds: Double = 20) throws {
            try server.waitFor(text, seconds: seconds)
        }

        /// The line the cursor is on.
        func currentLine() throws -> String {
            let lines = try screen().split(separator: "\n", omittingEmptySubsequences: false)
            let row = Int(try tmux(["display-message", "-p", "#{cursor_y}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            return row < lines.count ? String(lines[row]) : ""
        }
    }

    static let hasTmux = TmuxServer.isAvailable

    @Test func tabCompletesEntitiesAttributesAndKeyPaths() throws {
        try #require(Self.hasTmux, "tmux is needed for the terminal tests (.ci/run installs it)")
        let terminal = try Terminal()
        try terminal.startConsole()
        try terminal.type("Art")
        try terminal.send("Tab")
        try terminal.waitFor("Articles> Article")
        try terminal.type(".where(:ti")
        try terminal.send("Tab")
        try terminal.waitFor("Articles> Article.where(:title")
        try terminal.type(").contains('bridge').count")
        try terminal.send("Enter")
        try terminal.waitFor("Article.where(:title).contains('bridge').count\n1")
        try terminal.type("Article where author.na")
        try terminal.send("Tab")
        try terminal.waitFor("Articles> Article where author.name")
        try terminal.send("C-u")
        try terminal.type("Article.where(:")
        try terminal.send("Tab")
        try terminal.waitFor("author        body          published_at  title")
        try terminal.send("C-u", "C-d")
        try terminal.waitFor("EXIT=0")
    }

    @Test func historySurvivesTheSession() throws {
        try #require(Self.hasTmux, "tmux is needed for the terminal tests (.ci/run installs it)")
        let terminal = try Terminal()
        try terminal.startConsole()
        try terminal.type("Author.where(:name).begins_with('T').count")
        try terminal.send("Enter")
        try terminal.waitFor("begins_with('T').count\n1")
        try terminal.send("C-d")
        try terminal.waitFor("EXIT=0")
        #expect(FileManager.default.fileExists(atPath: terminal.home.path + "/state/cdstore/history"))
        try terminal.startConsole()
        // Ctrl-R searches the history of the earlier session.
        try terminal.send("C-r")
        try terminal.type("begins")
        try terminal.waitFor("begins_with('T').count")
        try terminal.send("C-g", "C-u")
        try terminal.send("Up")
        try terminal.waitFor("Articles> Author.where(:name).begins_with('T').count")
        try terminal.send("Enter")
        try terminal.waitFor("begins_with('T').count\n1")
        try terminal.send("C-d")
        try terminal.waitFor("EXIT=0")
    }

    /// `--as-of` reads the store as it stood after a commit of its -wal: a copy of a corpus log
    /// whose commits 6 and 8 each insert an Entry (as `wal --changes` lists them, golden
    /// Tests/Fixtures/wal/CLSContactCache-changes.txt), under the terminal's store name.
    @Test func asOfReadsTheStoreAfterACommit() throws {
        try #require(Self.hasTmux, "tmux is needed for the terminal tests (.ci/run installs it)")
        let terminal = try Terminal()
        let source = Corpus.url("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        try FileManager.default.removeItem(at: terminal.store)
        try FileManager.default.copyItem(at: source, to: terminal.store)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: source.path + "-wal"), to: URL(fileURLWithPath: terminal.store.path + "-wal"))
        for (options, count) in [("--as-of 5", 0), ("--as-of 6", 1), ("", 2)] {
            try terminal.startConsole(options: options)
            try terminal.type("Entry.count")
            try terminal.send("Enter")
            try terminal.waitFor("Entry.count\n\(count)\n")
            try terminal.send("C-d")
            try terminal.waitFor("EXIT=0")
        }
    }

    @Test func ctrlCInterruptsAQueryAndCtrlDExits() throws {
        try #require(Self.hasTmux, "tmux is needed for the terminal tests (.ci/run installs it)")
        let terminal = try Terminal()
        try terminal.startConsole()
        // A query that never ends on its own.
        try terminal.type(".raw WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n")
        try terminal.send("Enter")
        Thread.sleep(forTimeInterval: 0.5)
        try terminal.send("C-c")
        try terminal.waitFor("Interrupted.")
        try terminal.type("Author.count")
        try terminal.send("Enter")
        try terminal.waitFor("Author.count\n4")
        // Ctrl-C at an empty prompt warns once; Ctrl-D leaves, and the snapshot is gone.
        try terminal.send("C-c")
        try terminal.waitFor("Ctrl-C again")
        try terminal.send("C-d")
        try terminal.waitFor("EXIT=0")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: terminal.home.path).filter { $0.hasPrefix("cdstore-") }
        #expect(leftovers.isEmpty)
    }

    /// On a terminal, reports and errors are coloured as the one-shot commands colour theirs and
    /// results stay plain; `--color never` and NO_COLOR turn colour off.
    @Test func coloursReportsAndErrorsOnATerminal() throws {
        try #require(Self.hasTmux, "tmux is needed for the terminal tests (.ci/run installs it)")
        let escape = "\u{1B}[", bold = "\u{1B}[1m", red = "\u{1B}[31m"
        for (environment, options, coloured) in [("", "", true), ("", "--color never", false), ("NO_COLOR=1", "", false)] {
            let terminal = try Terminal()
            try terminal.startConsole(environment: environment, options: options)
            try terminal.type(".validate Author")
            try terminal.send("Enter")
            try terminal.waitFor("Result: no problems found.")
            try terminal.type("Nope.count")
            try terminal.send("Enter")
            try terminal.waitFor("error: unknown entity \"Nope\"")
            try terminal.type("Author.count")
            try terminal.send("Enter")
            try terminal.waitFor("Author.count\n4")
            let screen = try terminal.screen(escapes: true)
            if coloured {
                #expect(screen.contains("\(bold)Validation errors"))
                #expect(screen.contains("\(red)error: unknown entity \"Nope\""))
                #expect(screen.contains("Author.count\n4\n"))
            } else {
                #expect(!screen.contains(escape), "\(environment) \(options)")
            }
            try terminal.send("C-d")
            try terminal.waitFor("EXIT=0")
        }
    }

    @Test func twoCtrlCsAtAnEmptyPromptExit() throws {
        try #require(Self.hasTmux, "tmux is needed for the terminal tests (.ci/run installs it)")
        let terminal = try Terminal()
        try terminal.startConsole()
        try terminal.send("C-c")
        try terminal.waitFor("Ctrl-C again")
        try terminal.send("C-c")
        try terminal.waitFor("EXIT=0")
    }
}
