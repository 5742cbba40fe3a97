import CDTestSupport
import Foundation
import Testing

/// The built `cdstore` executable end to end: what the in-process tests cannot see (the process's
/// exit status, its real standard streams, output larger than a pipe's buffer).
@Suite(.temporaryDirectories) struct ExecutableTests {
    static let bigStore = "wibosco-migration/CoreDataMigration_Example_3.sqlite"

    @Test func version() throws {
        let result = try CommandRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "cdstore 0.1.0\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func errorStatusAndMessage() throws {
        let path = try TemporaryDirectory.make().appendingPathComponent("gone.sqlite").path
        let result = try CommandRunner.run(["inspect", path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "cdstore: error: \(path): no such file\n")
    }

    @Test func predicateErrorShowsWhere() throws {
        let copy = try Corpus.copyStore(QueryCommandTests.books)
        let arguments = ["query", copy.path, "--entity", "Book", "--where", "title ==== 'x'"]
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("cdstore: error: predicate error at character 8: "))
        #expect(result.stderr.hasSuffix("\n  title ==== 'x'\n          ^\n"))
        #expect(result.stderr == CommandRunner.runInProcess(arguments).stderr)
    }

    @Test func usageError() throws {
        let result = try CommandRunner.run(["inspect"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("Missing expected argument '<store>'"))
    }

    /// Help goes to standard output with status 0, as ArgumentParser prints it.
    @Test func help() throws {
        let result = try CommandRunner.run(["inspect", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: Show a store's files"))
        #expect(result.stdout == CommandRunner.runInProcess(["inspect", "--help"]).stdout)
        #expect(result.stderr.isEmpty)
    }

    /// Dump's buffered output written to a pipe, many buffers' worth, is the same as in memory.
    @Test func largeDumpThroughAPipe() throws {
        let copy = try Corpus.copyStore(Self.bigStore)
        let arguments = ["dump", copy.path, "--format", "json"]
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.utf8.count > 4 * 64 * 1024)
        #expect(result.stdout == CommandRunner.runInProcess(arguments).stdout)
    }

    /// A log larger than a pipe's buffer on standard error, while the output is read too.
    @Test func largeSQLDebugLog() throws {
        let copy = try Corpus.copyStore("osxphotos-photos-14.6.0/Photos.sqlite")
        let arguments = ["validate", copy.path, "--sql-debug", "4"]
        let result = try CommandRunner.run(arguments)
        let inProcess = CommandRunner.runInProcess(arguments)
        #expect(result.status == inProcess.status)
        #expect(result.stderr.utf8.count > 64 * 1024)
        #expect(InProcessTests.withoutTimes(result.stderr) == InProcessTests.withoutTimes(inProcess.stderr))
        #expect(result.stdout == inProcess.stdout)
    }
}
