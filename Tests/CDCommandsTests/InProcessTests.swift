import CDCommands
import CDTestSupport
import Foundation
import Testing

/// Commands run in-process through ``CommandLineEntry/run(_:io:)``: everything they write goes
/// to their own ``CommandIO``, even with other runs going on at the same time.
@Suite(.temporaryDirectories) struct InProcessTests {
    /// Runs of different commands, each with output on both streams, several at once on as many
    /// threads: every run gets exactly what it gets alone.
    @Test func parallelRunsKeepTheirOutputsApart() throws {
        let books = try Corpus.copyStore(QueryCommandTests.books).path
        let posts = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_2.sqlite").path
        let commands = [
            ["dump", books, "Book", "--format", "ndjson", "--sql-debug", "1"],
            ["inspect", posts, "--json", "--sql-debug", "1"],
            ["model", "--hashes", books],
            ["query", books, "--entity", "Book", "--where", "title ==== 'x'"],
        ]
        let alone = commands.map { CommandRunner.runInProcess($0) }
        for (arguments, result) in zip(commands, alone) {
            #expect(!result.stdout.isEmpty || !result.stderr.isEmpty, "\(arguments)")
        }
        // Threads of their own rather than tasks, so the runs happen now and side by side, not
        // whenever the test pool has room.
        let rounds = 3
        let together = ParallelResults(count: rounds * commands.count)
        DispatchQueue.concurrentPerform(iterations: rounds * commands.count) { slot in
            together.store(CommandRunner.runInProcess(commands[slot % commands.count]), at: slot)
        }
        for (slot, result) in together.results.enumerated() {
            let index = slot % commands.count
            #expect(result?.status == alone[index].status, "\(commands[index])")
            #expect(result?.stdout == alone[index].stdout, "\(commands[index])")
            #expect(result.map { Self.withoutTimes($0.stderr) } == Self.withoutTimes(alone[index].stderr), "\(commands[index])")
        }
    }

    /// Results written from several threads, one slot each.
    private final class ParallelResults: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [CommandRunner.Result?]

        init(count: Int) {
            slots = Array(repeating: nil, count: count)
        }

        func store(_ result: CommandRunner.Result, at slot: Int) {
            lock.lock()
            defer { lock.unlock() }
            slots[slot] = result
        }

        var results: [CommandRunner.Result?] {
            lock.lock()
            defer { lock.unlock() }
            return slots
        }
    }

    /// The SQL debug log's lines with their measured times blanked.
    static func withoutTimes(_ log: String) -> String {
        log.replacing(/\d+\.\d{4}s/, with: "#s")
    }

    /// The environment is the IO's: a variable set for one run does not reach the next.
    @Test func environmentComesFromTheIO() throws {
        let copy = try Corpus.copyStore(QueryCommandTests.books).path
        let traced = CommandRunner.runInProcess(["inspect", copy], environment: ["CDSTORE_SQL_DEBUG": "1"])
        #expect(traced.stderr.contains("CoreData: sql: "))
        #expect(CommandRunner.runInProcess(["inspect", copy]).stderr.isEmpty)
    }

    /// Help text goes to the output with status 0, wrapped at `COLUMNS` when the IO sets it (the
    /// usage line is never wrapped), as the executable wraps it.
    @Test func helpUsesTheIOsColumns() throws {
        let narrow = CommandRunner.runInProcess(["clean", "--help"], environment: ["COLUMNS": "60"])
        let wide = CommandRunner.runInProcess(["clean", "--help"])
        #expect(narrow.status == 0 && wide.status == 0)
        #expect(narrow.stderr.isEmpty)
        #expect(narrow.stdout.split(separator: "\n").allSatisfy { $0.count <= 60 || $0.hasPrefix("USAGE: ") })
        #expect(wide.stdout.split(separator: "\n").contains { $0.count > 60 && !$0.hasPrefix("USAGE: ") })
        #expect(try CommandRunner.run(["clean", "--help"], environment: ["COLUMNS": "60"]).stdout == narrow.stdout)
    }

    /// A closed output ends the command quietly, with status 141, whatever the command was doing.
    @Test func closedOutputEndsQuietly() throws {
        let copy = try Corpus.copyStore(ExecutableTests.bigStore).path
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        // Closing the read end makes every write fail (EPIPE), as behind `| head` once it quits;
        // SIGPIPE is ignored while the command runs so that the write fails instead of the process.
        close(descriptors[0])
        let previous = signal(SIGPIPE, SIG_IGN)
        defer {
            signal(SIGPIPE, previous)
            close(descriptors[1])
        }
        let io = CommandIO(
            output: .fileDescriptor(descriptors[1]), error: .memory(), input: .data(Data()),
            environment: [:], terminalColumns: nil)
        #expect(CommandLineEntry.run(["dump", copy, "--format", "json"], io: io) == 141)
        #expect(io.output.isClosed)
        #expect(io.error.text.isEmpty)
    }
}
