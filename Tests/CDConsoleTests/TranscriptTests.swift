import CDTestSupport
import Foundation
import Testing

/// Scripts fed to `cdstore console` on standard input, compared with golden transcripts under
/// `Tests/Fixtures/console/`. Each script starts with `.echo on`, so a transcript reads as the
/// session did; errors go to the same pipe, so they appear where they happened.
@Suite(.temporaryDirectories) struct TranscriptTests {
    /// Runs the console on private copies and returns the merged output with the temporary
    /// directory, timings and store UUID-independent noise made stable.
    static func transcript(store: URL, arguments: [String] = [], script: String) throws -> (status: Int32, text: String) {
        let directory = store.deletingLastPathComponent()
        let run = try ConsoleProcess.run(
            ["console", store.path] + arguments, stdin: script,
            environment: ["HOME": directory.path, "TMPDIR": directory.path])
        var text = run.output.replacingOccurrences(of: directory.path, with: "<tmp>")
        text = text.replacingOccurrences(of: #"\d+\.\d{4}s"#, with: "N.NNNNs", options: .regularExpression)
        text = text.replacingOccurrences(
            of: #"Run Time: real [0-9.]+ user [0-9.]+ sys [0-9.]+"#, with: "Run Time: …",
            options: .regularExpression)
        return (run.status, text)
    }

    static func check(_ name: String, _ result: (status: Int32, text: String)) throws {
        let expected = try Golden.expected("console/\(name).txt", actual: result.text)
        #expect(result.text == expected, "transcript \(name) differs from Tests/Fixtures/console/\(name).txt")
    }

    static func sample(_ name: String) throws -> URL {
        let directory = try TemporaryDirectory.make()
        let target = directory.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/\(name)"), to: target)
        return target
    }

    @Test func everyInputForm() throws {
        let store = try Self.sample("TaskList.sqlite")
        let result = try Self.transcript(
            store: store,
            script: """
                .echo on
                Task.where(:priority).gt(1).sort_by(:priority).limit(3)
                Task where priority > 3 sort by priority desc
                Task.count
                Task.sum(:priority)
                Task.where(:completed).eq(true).average(:priority)
                Task/p3
                Task.where(:priority).gt(
                Task where priority >> 2
                Nothing.count
                Task/p99
                .format line
                Task.limit(2)
                Task.where("task_description CONTAINS[c] %@", 'the').count
                """)
        #expect(result.status == 1)
        try Self.check("input-forms", result)
    }

    @Test func relationshipsAndObjectIDs() throws {
        let store = try Self.sample("Articles.sqlite")
        let result = try Self.transcript(
            store: store,
            script: """
                .echo on
                .format line
                Article/p1.author
                Author/p1.articles
                .sql Author/p1.articles
                Author/p1.nope
                Author.where(:name).begins_with('T')
                Article where author.name BEGINSWITH 'N' sort by title limit 2
                """)
        try Self.check("relationships", result)
    }

    @Test func everyDotCommand() throws {
        let store = try Self.sample("Articles.sqlite")
        let other = store.deletingLastPathComponent().appendingPathComponent("TaskList.sqlite")
        try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/TaskList.sqlite"), to: other)
        let result = try Self.transcript(
            store: store,
            script: """
                .echo on
                .help
                .entities
                .schema Author
                .model
                .hashes
                .sql Article.where(:title).contains('bridge')
                .raw SELECT Z_PK, ZNAME FROM ZAUTHOR ORDER BY Z_PK
                .raw DELETE FROM ZAUTHOR
                .validate
                .validate Author
                .compat \(store.path)
                .explain 1570
                .explain 999999
                .format table
                Author
                .format csv
                Author
                .format json
                Author.first
                .format expanded
                Author.first
                .format nonsense
                .format description
                .template Author "{name} <{email}>"
                Author
                .template Author "{name} {phone}"
                .template Author
                .limit 2
                Article
                .limit 0
                .timer on
                Author.count
                .timer off
                .trace 1
                Author.count
                .trace 0
                .output \(store.deletingLastPathComponent().path)/out.txt
                Author.count
                .output stdout
                .raw SELECT 'written before: ' || 1
                .show
                .reload
                Author.count
                .open \(other.path)
                .entities
                .bogus
                .quit
                Task.count
                """)
        #expect(result.status == 1)
        try Self.check("dot-commands", result)
        let written = try String(contentsOf: store.deletingLastPathComponent().appendingPathComponent("out.txt"), encoding: .utf8)
        // As in sqlite3, .echo writes to the current output, so the file has the commands too.
        #expect(written == "Author.count\n4\n.output stdout\n")
    }

    @Test func bailStopsAtTheFirstError() throws {
        let store = try Self.sample("TaskList.sqlite")
        let result = try Self.transcript(
            store: store, arguments: ["--bail"],
            script: """
                .echo on
                Task.count
                Task.where(
                Task.count
                """)
        #expect(result.status == 1)
        try Self.check("bail", result)
    }

    @Test func commandsFromTheCommandLine() throws {
        let store = try Self.sample("TaskList.sqlite")
        let ok = try Self.transcript(store: store, arguments: ["-c", "Task.count", "-c", ".format line", "-c", "Task.first"], script: "")
        #expect(ok.status == 0)
        let failing = try Self.transcript(store: store, arguments: ["-c", "Nope.count", "-c", "Task.count"], script: "")
        #expect(failing.status == 1)
        try Self.check("dash-c", (ok.status, ok.text + "--- with an error\n" + failing.text))
    }

    /// `--color always` colours reports and errors as the one-shot commands do, leaves results
    /// plain, and never colours a `.output` file.
    @Test func colourOnReportsAndErrorsOnly() throws {
        let store = try Self.sample("Articles.sqlite")
        let file = store.deletingLastPathComponent().appendingPathComponent("report.txt")
        let result = try Self.transcript(
            store: store,
            arguments: [
                "--color", "always", "-c", ".validate Author", "-c", "Nope.count", "-c", "Author.count",
                "-c", ".output \(file.path)", "-c", ".validate Author",
            ], script: "")
        #expect(result.status == 1)
        try Self.check("colour", result)
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(written.contains("\nValidation errors\n  none\n") && !written.contains("\u{1B}["))
    }

    @Test func startUpFile() throws {
        let store = try Self.sample("TaskList.sqlite")
        let rc = store.deletingLastPathComponent().appendingPathComponent(".cdstorerc")
        try """
        -- a project's templates
        .template Task "[{completed}] {task_description} (priority {priority})"
        .limit 3
        """.write(to: rc, atomically: true, encoding: .utf8)
        // HOME is the copy's directory, so ~/.cdstorerc is read without --init.
        let implicit = try Self.transcript(store: store, script: "Task.sort_by(:priority, :desc)\n")
        let custom = store.deletingLastPathComponent().appendingPathComponent("custom.rc")
        try ".format line\n.bogus\n".write(to: custom, atomically: true, encoding: .utf8)
        let explicit = try Self.transcript(store: store, arguments: ["--init", custom.path], script: "Task.first\n")
        #expect(explicit.status == 1)
        try Self.check("init-file", (implicit.status, implicit.text + "--- with --init\n" + explicit.text))
    }

    @Test func photosStoreFromTheCorpus() throws {
        let store = try Corpus.copyStore("osxphotos-photos-15.4.1/Photos.sqlite")
        let result = try Self.transcript(
            store: store,
            script: """
                .echo on
                .entities
                Asset.count
                .format line
                .template Asset "{filename} {width}x{height}"
                Asset.where(:width).gt(2000).sort_by(:filename).limit(3)
                Asset/p2.detectedFaces
                .template DetectedFace "{_id} size {size}"
                Asset/p2.detectedFaces
                Asset where hidden == 1
                """)
        #expect(result.status == 0)
        try Self.check("photos", result)
    }

    /// An app writing while a session is open: commits it appends to the `-wal` are not seen
    /// until `.reload` (the snapshot holds); a checkpoint, which the snapshot cannot read past,
    /// makes the next command take a new snapshot and say so, instead of failing from then on;
    /// a store deleted under the session gets a warning and leaves the session usable.
    @Test func anAppWritingWhileTheSessionIsOpen() throws {
        try #require(SQLiteShell.isAvailable, "the sqlite3 CLI writes as an app would")
        let store = try Self.sample("Articles.sqlite")
        let directory = store.deletingLastPathComponent()
        /// Adds an author as an app would; without `checkpoint` the commit stays in the `-wal`.
        func appAddsAuthor(_ pk: Int, checkpoint: Bool) throws {
            try SQLiteShell.run(
                store,
                (checkpoint ? "" : ".dbconfig no_ckpt_on_close on\n")
                    + "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (\(pk), 2, 1, 'Author \(pk)');\n")
        }
        try appAddsAuthor(90, checkpoint: false)
        let transcript = directory.appendingPathComponent("transcript.txt")
        let console = try ConsoleProcess.start(
            ["console", store.path], environment: ["HOME": directory.path, "TMPDIR": directory.path],
            output: transcript)
        defer { if console.process.isRunning { console.process.terminate() } }
        func send(_ line: String, thenShow expected: String) throws {
            console.input.fileHandleForWriting.write(Data((line + "\n").utf8))
            try ConsoleProcess.waitFor({ try String(contentsOf: transcript, encoding: .utf8).hasSuffix(expected) }, seconds: 20)
        }
        try send("Author.count", thenShow: "5\n")
        try appAddsAuthor(91, checkpoint: false)
        try send("Author.count", thenShow: "5\n5\n")
        try send(".reload", thenShow: "5\n5\n")
        try send("Author.count", thenShow: "5\n5\n6\n")
        try appAddsAuthor(92, checkpoint: true)
        try send("Author.count", thenShow: "7\n")
        // A store deleted under the session: a warning, and .quit still works.
        try FileManager.default.removeItem(at: store)
        try send(".quit", thenShow: "no such file\n")
        try console.input.fileHandleForWriting.close()
        console.process.waitUntilExit()
        #expect(console.process.terminationStatus == 0)
        #expect(
            try String(contentsOf: transcript, encoding: .utf8) == """
                5
                5
                6
                note: an app changed \(store.path) in a way this snapshot cannot read past; took a new one
                7
                warning: the store changed and cannot be opened again: \(store.path): no such file

                """)
    }

    @Test func theSnapshotIsRemovedOnEveryExit() throws {
        let store = try Self.sample("TaskList.sqlite")
        let directory = store.deletingLastPathComponent()
        func snapshots() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("cdstore-") }
        }
        _ = try Self.transcript(store: store, script: "Task.count\n")
        _ = try Self.transcript(store: store, script: "Task.count\n.quit\n")
        _ = try Self.transcript(store: store, arguments: ["--bail"], script: "Nope\nTask.count\n")
        _ = try Self.transcript(store: store, arguments: ["-c", "Task.count"], script: "")
        #expect(try snapshots().isEmpty)
        // SIGTERM while waiting for input: the session ends and exits with 128+15. An empty
        // -journal beside the store makes the console read a private copy, the kind of snapshot
        // that is a folder to remove.
        try Data().write(to: URL(fileURLWithPath: store.path + "-journal"))
        let process = try ConsoleProcess.start(["console", store.path], environment: ["HOME": directory.path, "TMPDIR": directory.path])
        try ConsoleProcess.waitFor({ try snapshots().count == 1 }, seconds: 20)
        process.process.terminate()
        try ConsoleProcess.waitFor({ !process.process.isRunning }, seconds: 20)
        if process.process.isRunning { kill(process.process.processIdentifier, SIGKILL) }
        process.process.waitUntilExit()
        #expect(process.process.terminationStatus == 143)
        #expect(try snapshots().isEmpty)
    }
}

/// The built `cdstore`, run with standard output and standard error on one pipe.
enum ConsoleProcess {
    struct Started {
        let process: Process
        let input: Pipe
    }

    /// Starts the console reading from a pipe; its standard output and error go to `output`
    /// (created empty) or nowhere.
    static func start(_ arguments: [String], environment: [String: String], output: URL? = nil) throws -> Started {
        guard let executable = CommandRunner.executable else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
            .filter { $0.key != "XDG_STATE_HOME" && $0.key != "CDSTORE_SQL_DEBUG" }
        let input = Pipe()
        process.standardInput = input
        if let output {
            try Data().write(to: output)
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return Started(process: process, input: input)
    }

    static func run(_ arguments: [String], stdin: String, environment: [String: String]) throws -> (status: Int32, output: String) {
        guard let executable = CommandRunner.executable else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
            .filter { $0.key != "XDG_STATE_HOME" && $0.key != "CDSTORE_SQL_DEBUG" && $0.key != "COLUMNS" }
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func waitFor(_ condition: () throws -> Bool, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("timed out after \(seconds) s")
    }
}
