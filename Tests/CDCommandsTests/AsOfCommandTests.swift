import CDTestSupport
import Foundation
import Testing

/// `--as-of` on the read commands: each reads the store as `sqlite3` reads a copy whose `-wal`
/// is cut after that commit, nothing of the store changes, and bad commits are one line.
@Suite(.temporaryDirectories) struct AsOfCommandTests {
    static let store = "osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite"

    @Test func readCommandsReadTheStoreAsOfACommit() throws {
        let copy = try Corpus.copyStore(Self.store)
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        func run(_ arguments: [String]) -> String {
            let result = CommandRunner.runInProcess(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout
        }
        let log = try #require(IndependentWAL(try Data(contentsOf: URL(fileURLWithPath: copy.path + "-wal"))))
        for commit in 2...log.transactions.count {
            let cut = try WALCut.copy(of: copy, logBytes: log.transactions[commit - 1].endOffset)
            for (entity, table) in [("Entry", "ZENTRY"), ("Info", "ZINFO")] {
                let expected = try SQLiteShell.run(cut, "SELECT COUNT(*) FROM \(table);")
                #expect(run(["query", copy.path, "--entity", entity, "--count", "--as-of", String(commit)]) == expected, "\(entity) as of \(commit)")
            }
        }
        let last = String(log.transactions.count)
        #expect(run(["dump", copy.path, "--as-of", last]) == run(["dump", copy.path]))
        #expect(run(["dump", copy.path, "--as-of", "3"]) != run(["dump", copy.path]))
        #expect(run(["sql", copy.path, "--entity", "Entry", "--count", "--as-of", "8"]).contains("SELECT COUNT"))
        #expect(run(["validate", copy.path, "--as-of", last, "--json"]) == run(["validate", copy.path, "--json"]))
        #expect(run(["inspect", copy.path, "--as-of", last, "--json"]) == run(["inspect", copy.path, "--json"]))
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
    }

    /// A Photos library's history as of commits along its log: one JSON line per ATRANSACTION row
    /// of the cut copy.
    @Test func historyAsOfACommit() throws {
        let copy = try Corpus.copyStore("osxphotos-photos-10.15.4/Photos.sqlite")
        let log = try #require(IndependentWAL(try Data(contentsOf: URL(fileURLWithPath: copy.path + "-wal"))))
        for commit in [0, log.transactions.count / 2, log.transactions.count] {
            let cut = try WALCut.copy(of: copy, logBytes: commit == 0 ? 0 : log.transactions[commit - 1].endOffset)
            let expected = try SQLiteShell.run(cut, "SELECT COUNT(*) FROM ATRANSACTION;").trimmingCharacters(in: .whitespacesAndNewlines)
            let result = CommandRunner.runInProcess(["history", copy.path, "--json", "--as-of", String(commit)])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(String(result.stdout.split(separator: "\n").count) == expected, "as of \(commit)")
        }
    }

    @Test func badCommitsAreOneLine() throws {
        let copy = try Corpus.copyStore(Self.store).path
        let past = CommandRunner.runInProcess(["inspect", copy, "--as-of", "9"])
        #expect(past.status == 2)
        #expect(past.stderr == "cdstore: error: --as-of 9: \(copy)-wal holds 8 commits; --as-of takes 0 (the main file alone) to 8\n")
        let negative = CommandRunner.runInProcess(["dump", copy, "--as-of=-1"])
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("--as-of -1: a commit number is 0 or more"))
    }
}
