import CDTestSupport
import Foundation
import Testing

/// `--color` and `NO_COLOR`: reports and error messages coloured on a terminal, never data.
@Suite(.temporaryDirectories) struct ColorTests {
    static let escape = "\u{1B}["
    static let bold = "\u{1B}[1m", yellow = "\u{1B}[33m", red = "\u{1B}[31m", dim = "\u{1B}[2m", reset = "\u{1B}[0m"

    /// A copy of the Articles sample: a WAL-mode header without a -wal file, so inspect warns.
    static func articles() throws -> URL {
        let folder = try TemporaryDirectory.make()
        let store = folder.appendingPathComponent("Articles.sqlite")
        try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/Articles.sqlite"), to: store)
        return store
    }

    /// `text` without SGR sequences.
    static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }

    @Test func alwaysColoursAReport() throws {
        let store = try Self.articles().path
        let coloured = CommandRunner.runInProcess(["inspect", store, "--color", "always"])
        let uncoloured = CommandRunner.runInProcess(["inspect", store])
        #expect(coloured.status == 0 && uncoloured.status == 0)
        #expect(!uncoloured.stdout.contains(Self.escape))
        // Colour adds escape sequences and changes nothing else.
        #expect(Self.plain(coloured.stdout) == uncoloured.stdout)
        #expect(coloured.stdout.contains("\n\n\(Self.bold)Files\(Self.reset)\n  ROLE  FILE "))
        #expect(coloured.stdout.contains("\n\(Self.bold)Warnings\(Self.reset)\n  \(Self.yellow)- the header says WAL mode but there is no -wal file"))
        #expect(coloured.stdout.hasSuffix("(copy the -wal and -shm too)\(Self.reset)\n"))
        #expect(coloured.stdout.hasPrefix("Store: \(store)\n\n"))

        let validation = CommandRunner.runInProcess(["validate", store, "--color", "always"])
        #expect(validation.stdout.contains("\n\(Self.bold)Integrity\(Self.reset)\n  \(Self.dim)none\(Self.reset)\n"))
        #expect(validation.stdout.hasSuffix("\n\(Self.dim)See cdstore-troubleshooting(7) and `cdstore explain CODE` for what each code means.\(Self.reset)\n"))
    }

    @Test func alwaysColoursErrors() throws {
        let missing = try TemporaryDirectory.make().appendingPathComponent("missing.sqlite").path
        let result = CommandRunner.runInProcess(["inspect", missing, "--color", "always"])
        #expect(result.status == 2)
        #expect(result.stderr == "\(Self.red)cdstore: error: \(missing): no such file\(Self.reset)\n")
    }

    /// Auto: colour on a terminal unless NO_COLOR has a value; never when the streams are not
    /// terminals (every other in-process test) or with --color never.
    @Test func autoFollowsTheTerminalAndNoColor() throws {
        let store = try Self.articles().path
        let missing = store + ".missing"
        let onTerminal = CommandRunner.runInProcess(["inspect", store], outputIsTerminal: true)
        #expect(onTerminal.stdout.contains("\(Self.bold)Files\(Self.reset)"))
        let error = CommandRunner.runInProcess(["inspect", missing], outputIsTerminal: true)
        #expect(error.stderr.hasPrefix("\(Self.red)cdstore: error: "))
        let emptyNoColor = CommandRunner.runInProcess(["inspect", store], environment: ["NO_COLOR": ""], outputIsTerminal: true)
        #expect(emptyNoColor.stdout.contains("\(Self.bold)Files\(Self.reset)"))

        for arguments in [[store], [missing]] {
            let cases = [
                CommandRunner.runInProcess(["inspect"] + arguments, environment: ["NO_COLOR": "1"], outputIsTerminal: true),
                CommandRunner.runInProcess(["inspect"] + arguments + ["--color", "never"], outputIsTerminal: true),
                CommandRunner.runInProcess(["inspect"] + arguments + ["--color", "auto"]),
            ]
            for result in cases {
                #expect(!result.stdout.contains(Self.escape) && !result.stderr.contains(Self.escape), "\(result)")
                #expect(!(result.stdout + result.stderr).isEmpty)
            }
        }
    }

    /// Usage errors, found before the command runs, follow --color too.
    @Test func usageErrors() {
        let auto = CommandRunner.runInProcess(["inspect", "--no-such-option"], outputIsTerminal: true)
        #expect(auto.status == 64)
        #expect(auto.stderr.hasPrefix("\(Self.red)cdstore: error: Missing expected argument '<store>'\(Self.reset)\n"))
        let never = CommandRunner.runInProcess(["inspect", "--color", "never", "--no-such-option"], outputIsTerminal: true)
        #expect(never.stderr.hasPrefix("cdstore: error: Missing expected argument '<store>'\n"))
        #expect(!never.stderr.contains(Self.escape))
        let always = CommandRunner.runInProcess(["query", "x.sqlite", "--color=always"])
        #expect(always.status == 64)
        #expect(always.stderr.hasPrefix("\(Self.red)cdstore: error: give a query expression"))
    }

    @Test func badColorValueIsAUsageError() {
        let result = CommandRunner.runInProcess(["inspect", "x", "--color", "sometimes"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'sometimes'"))
    }

    /// Every command takes --color (else: "Unknown option") and colours its errors with it.
    @Test(arguments: [
        ["inspect", "%MISSING%"], ["model", "%MISSING%"], ["dump", "%MISSING%"], ["query", "%MISSING%", "Article"],
        ["sql", "%MISSING%", "Article"],
        ["validate", "%MISSING%"], ["compat", "%MISSING%", "--model", "%MISSING%"], ["explain", "99999999"],
        ["console", "%MISSING%"], ["create", "%MISSING%", "--model", "%MISSING%"], ["reset", "%MISSING%"], ["clean", "%MISSING%"],
        ["find", "%MISSING%", "--sort", "sideways"], ["history", "%MISSING%"], ["watch", "%MISSING%"], ["trace", "%MISSING%"],
    ])
    func everyCommandColoursItsErrors(_ arguments: [String]) throws {
        let missing = try TemporaryDirectory.make().appendingPathComponent("missing.sqlite").path
        let line = arguments.map { $0 == "%MISSING%" ? missing : $0 }
        let coloured = CommandRunner.runInProcess(line + ["--color", "always"])
        #expect(coloured.status != 0 && !coloured.stderr.contains("Unknown option"), "\(coloured)")
        #expect(coloured.stderr.hasPrefix("\(Self.red)cdstore: error: "), "\(coloured)")
        let never = CommandRunner.runInProcess(line + ["--color", "never"], outputIsTerminal: true)
        #expect(never.stderr.hasPrefix("cdstore: error: "), "\(never)")
        #expect(Self.plain(coloured.stderr) == never.stderr)
    }

    /// Data is never coloured, even with --color always.
    @Test func dataNeverGetsColour() throws {
        let store = try Self.articles().path
        let lines: [[String]] = [
            ["dump", store, "--format", "json"], ["dump", store, "--format", "ndjson"], ["dump", store, "--format", "csv"],
            ["dump", store, "--format", "table"], ["query", store, "Author.count"], ["sql", store, "Article"],
            ["inspect", store, "--json"], ["model", store, "--json"], ["model", store, "--format", "dot"],
            ["model", store, "--format", "mermaid"], ["model", store, "--format", "svg"], ["model", store, "--sql"], ["validate", store, "--json"],
        ]
        for line in lines {
            let result = CommandRunner.runInProcess(line + ["--color", "always"], outputIsTerminal: true)
            #expect(result.status == 0, "\(line): \(result.stderr)")
            #expect(!result.stdout.isEmpty && !result.stdout.contains(Self.escape), "\(line)")
        }
    }
}

/// The real executable on a pseudo-terminal (tmux), where `--color auto` has to find the
/// terminal by itself.
@Suite(.serialized, .temporaryDirectories) struct ColorTerminalTests {
    /// What the pane shows, with tmux's escape sequences for its colours and attributes, after
    /// `command` ran in it (with the test's environment, NO_COLOR removed).
    static func screen(running command: String) throws -> String {
        let server = try TmuxServer()
        try server.run(["new-session", "-d", "-x", "250", "-y", "60", "unset NO_COLOR; \(command); echo EXIT=$?; sleep 60"])
        try server.waitFor("EXIT=")
        return try server.screen(escapes: true)
    }

    @Test func autoColoursOnATerminal() throws {
        try #require(TmuxServer.isAvailable, "tmux is needed for the terminal tests (.ci/run installs it)")
        let executable = try #require(CommandRunner.executable).path
        let store = try ColorTests.articles().path
        let screen = try Self.screen(running: "\(executable) inspect \(store); \(executable) inspect \(store).missing")
        #expect(screen.contains("\(ColorTests.bold)Files"))
        #expect(screen.contains("\(ColorTests.yellow)- the header says WAL mode"))
        #expect(screen.contains("\(ColorTests.red)cdstore: error: \(store).missing: no such file"))
    }

    /// NO_COLOR, --color never, and a standard output that is a file: no colour, while the
    /// error stream, still the terminal, is coloured unless NO_COLOR or never says otherwise.
    @Test func noColourWhenToldOrNotATerminal() throws {
        try #require(TmuxServer.isAvailable, "tmux is needed for the terminal tests (.ci/run installs it)")
        let executable = try #require(CommandRunner.executable).path
        let store = try ColorTests.articles().path
        for command in [
            "NO_COLOR=1 \(executable) inspect \(store); NO_COLOR=1 \(executable) inspect \(store).missing",
            "\(executable) inspect \(store) --color never; \(executable) inspect \(store).missing --color never",
        ] {
            let screen = try Self.screen(running: command)
            #expect(screen.contains("Files") && screen.contains("cdstore: error: "))
            #expect(!screen.contains(ColorTests.escape), "\(command)")
        }
        let report = store + ".txt"
        let screen = try Self.screen(running: "\(executable) inspect \(store) > \(report); \(executable) inspect \(store).missing > \(report).2")
        let written = try String(contentsOfFile: report, encoding: .utf8)
        #expect(written.contains("\nFiles\n") && !written.contains(ColorTests.escape))
        #expect(screen.contains("\(ColorTests.red)cdstore: error: "))
    }
}
