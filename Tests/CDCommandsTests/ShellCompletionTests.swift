@testable import CDCommands
import CDTestSupport
import Foundation
import GRDB
import Testing

/// Shell completion: the `---completion` requests the generated scripts send for entity names
/// (answered from the store named earlier on the line, silently empty for anything else), the
/// reading of shell words as paths, and bash completing paths and entity names on a real
/// terminal.
@Suite(.temporaryDirectories) struct ShellCompletionTests {
    /// A copy of `Samples/Stores/<name>` in a fresh temporary folder, under `fileName`.
    static func sample(_ name: String, as fileName: String? = nil) throws -> URL {
        let copy = try TemporaryDirectory.make().appendingPathComponent(fileName ?? name)
        try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/\(name)"), to: copy)
        return copy
    }

    /// What `cdstore ---completion` prints for `line` with the cursor at the end of its last
    /// word, as the generated scripts ask: the command, the argument and the word's position.
    static func complete(_ command: String, argument: String, line: [String]) -> CommandRunner.Result {
        let index = line.count - 1
        let request = ["---completion", command, "--", argument, String(index), String(line[index].count)] + line
        return CommandRunner.runInProcess(request)
    }

    @Test func dumpCompletesTheEntitiesOfTheStoreBeforeIt() throws {
        let store = try Self.sample("FailedBank.sqlite")
        let checksum = try Checksums.of(directory: store.deletingLastPathComponent())
        let result = Self.complete("dump", argument: "positional@1", line: ["cdstore", "dump", store.path, "Fa"])
        #expect(result.status == 0)
        #expect(result.stdout == "FailedBankDetails\nFailedBankInfo\n")
        #expect(result.stderr.isEmpty)
        #expect(try Checksums.of(directory: store.deletingLastPathComponent()) == checksum)
    }

    @Test func everyEntityArgumentCompletes() throws {
        let store = try Self.sample("Articles.sqlite").path
        let requests: [(command: String, argument: String, line: [String])] = [
            ("dump", "positional@1", ["cdstore", "dump", store, "Article", ""]),
            ("query", "positional@1", ["cdstore", "query", store, ""]),
            ("query", "--entity", ["cdstore", "query", store, "--entity", "Au"]),
            ("sql", "--entity", ["cdstore", "sql", "--sql-debug", "1", store, "--entity", ""]),
            ("watch", "positional@1", ["cdstore", "watch", store, ""]),
            ("history", "--entity", ["cdstore", "history", store, "--entity", ""]),
        ]
        for request in requests {
            let result = Self.complete(request.command, argument: request.argument, line: request.line)
            #expect(result.stdout == "Article\nAuthor\n", "\(request.line)")
            #expect(result.status == 0)
        }
    }

    @Test func optionValuesAndOtherFilesBeforeTheStoreAreSkipped() throws {
        let store = try Self.sample("TaskList.sqlite")
        let model = Corpus.repositoryRoot.appendingPathComponent("Samples/CoreDataPlus/SampleModel.momd/SampleModel.mom").path
        let result = Self.complete(
            "dump", argument: "positional@1",
            line: ["cdstore", "dump", "--model", model, "--limit=3", store.path, "T"])
        #expect(result.stdout == "Task\n")
    }

    @Test func quotedEscapedAndHomeRelativeWordsAreRead() throws {
        let store = try Self.sample("TaskList.sqlite", as: "Task List's.sqlite")
        let folder = store.deletingLastPathComponent().path
        let words = [
            "'\(folder)/Task List'\\''s.sqlite'",
            "\"\(folder)/Task List's.sqlite\"",
            "\(folder)/Task\\ List\\'s.sqlite",
        ]
        for word in words {
            let result = Self.complete("dump", argument: "positional@1", line: ["cdstore", "dump", word, ""])
            #expect(result.stdout == "Task\n", "\(word)")
        }
        #expect(ShellCompletion.path(fromShellWord: "~/Stores/\"A b\".sqlite", home: "/home/me") == "/home/me/Stores/A b.sqlite")
        #expect(ShellCompletion.path(fromShellWord: "~", home: "/home/me") == "/home/me")
        #expect(ShellCompletion.path(fromShellWord: "'~/x'", home: "/home/me") == "~/x")
        #expect(ShellCompletion.path(fromShellWord: "\"a\\b\\$c\"", home: nil) == "a\\b$c")
        #expect(ShellCompletion.path(fromShellWord: "trailing\\", home: nil) == "trailing")
    }

    @Test func anythingButAStorePrintsNothing() throws {
        let folder = try TemporaryDirectory.make()
        let notCoreData = folder.appendingPathComponent("plain.sqlite")
        let queue = try DatabaseQueue(path: notCoreData.path)
        try queue.write { try $0.execute(sql: "CREATE TABLE t(x)") }
        try queue.close()
        let text = folder.appendingPathComponent("notes.txt")
        try Data("not a store".utf8).write(to: text)
        let candidates = [folder.path, text.path, notCoreData.path, folder.appendingPathComponent("gone.sqlite").path]
        for candidate in candidates {
            let result = Self.complete("dump", argument: "positional@1", line: ["cdstore", "dump", candidate, ""])
            #expect(result.status == 0, "\(candidate)")
            #expect(result.stdout.isEmpty, "\(candidate)")
            #expect(result.stderr.isEmpty, "\(candidate)")
        }
        // No store on the line at all, and the word being completed is not read.
        let store = try Self.sample("TaskList.sqlite").path
        #expect(Self.complete("dump", argument: "positional@1", line: ["cdstore", "dump", store]).stdout.isEmpty)
        #expect(Self.complete("query", argument: "--entity", line: ["cdstore", "query", "--entity", ""]).stdout.isEmpty)
    }

    @Test func bashCompletesPathsAndEntityNamesOnATerminal() throws {
        try #require(TmuxServer.isAvailable, "tmux is needed for the terminal tests (.ci/run installs it)")
        let executable = try #require(CommandRunner.executable)
        let home = try TemporaryDirectory.make()
        let stores = home.appendingPathComponent("Samples/Stores")
        try FileManager.default.createDirectory(at: stores, withIntermediateDirectories: true)
        for name in ["TaskList.sqlite", "FailedBank.sqlite", "Articles.sqlite"] {
            try FileManager.default.copyItem(
                at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/\(name)"),
                to: stores.appendingPathComponent(name))
        }
        let checksums = try Checksums.of(directory: stores)
        // The documented set-up line, in a bash that reads nothing else.
        try Data(
            """
            PS1='$ '
            cd '\(home.path)'
            source <(cdstore --generate-completion-script bash)
            echo ready

            """.utf8
        ).write(to: home.appendingPathComponent("bashrc"))
        let path = executable.deletingLastPathComponent().path + ":/usr/bin:/bin"
        let server = try TmuxServer()
        try server.run([
            "new-session", "-d", "-x", "120", "-y", "40",
            "env -i HOME='\(home.path)' TMPDIR='\(home.path)' PATH='\(path)' TERM=xterm "
                + "bash --noprofile --rcfile '\(home.path)/bashrc' -i",
        ])
        try server.waitFor("ready\n$")

        /// Clears the line, types `line`, presses Tab and waits for `screen`. capture-pane drops
        /// trailing spaces, so the space after a full completion is not part of `screen`.
        func expectCompletion(of line: String, shows screen: String) throws {
            try server.run(["send-keys", "C-u"])
            try server.run(["send-keys", "-l", line])
            try server.run(["send-keys", "Tab"])
            try server.waitFor(screen)
        }
        try expectCompletion(of: "cdstore inspect Samples/St", shows: "$ cdstore inspect Samples/Stores/")
        try expectCompletion(of: "cdstore inspect Samples/Stores/Ta", shows: "$ cdstore inspect Samples/Stores/TaskList.sqlite")
        try expectCompletion(
            of: "cdstore dump Samples/Stores/TaskList.sqlite Ta",
            shows: "$ cdstore dump Samples/Stores/TaskList.sqlite Task")
        try expectCompletion(
            of: "cdstore dump Samples/Stores/FailedBank.sqlite F",
            shows: "$ cdstore dump Samples/Stores/FailedBank.sqlite FailedBank")
        try server.run(["send-keys", "Tab", "Tab"])
        try server.waitFor("FailedBankDetails  FailedBankInfo")
        try expectCompletion(
            of: "cdstore query Samples/Stores/Articles.sqlite --entity Au",
            shows: "$ cdstore query Samples/Stores/Articles.sqlite --entity Author")
        try expectCompletion(
            of: "cdstore compat Samples/Stores/Articles.sqlite --model Samples/Stores/Fa",
            shows: "--model Samples/Stores/FailedBank.sqlite")
        try server.run(["send-keys", "C-u"])

        #expect(try Checksums.of(directory: stores) == checksums)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.hasPrefix("cdstore-") }
        #expect(leftovers.isEmpty)
    }
}
