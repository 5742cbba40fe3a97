import CDMaintenance
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

    /// `diff` of a store with itself as of two consecutive commits: per entity, the objects
    /// inserted, deleted and updated are those whose Z_PK appears, goes or keeps it with another
    /// Z_OPT between two copies cut after those commits (Core Data bumps Z_OPT on every save).
    @Test(arguments: ["osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite", "wibosco-migration/CoreDataMigration_Example_WAL.sqlite"])
    func diffOfTwoCommitsIsWhatTheyChanged(_ store: String) throws {
        let copy = try Corpus.copyStore(store)
        let log = try #require(IndependentWAL(try Data(contentsOf: URL(fileURLWithPath: copy.path + "-wal"))))
        let count = log.transactions.count
        func rows(_ commit: Int) throws -> [String: [Int: Int]] {
            let cut = try WALCut.copy(of: copy, logBytes: log.transactions[commit - 1].endOffset)
            var result: [String: [Int: Int]] = [:]
            let names = try SQLiteShell.run(cut, "SELECT Z_ENT || '|' || Z_NAME FROM Z_PRIMARYKEY;").split(separator: "\n").map { $0.split(separator: "|") }
            let tables = Set(try SQLiteShell.run(cut, "SELECT name FROM sqlite_master WHERE type = 'table';").split(separator: "\n").map(String.init))
            for name in names where tables.contains("Z" + name[1].uppercased()) {
                let table = "Z" + name[1].uppercased()
                for line in try SQLiteShell.run(cut, "SELECT Z_PK || '|' || Z_OPT FROM \(table) WHERE Z_ENT = \(name[0]);").split(separator: "\n") {
                    let parts = line.split(separator: "|").compactMap { Int($0) }
                    result[String(name[1]), default: [:]][parts[0]] = parts[1]
                }
            }
            return result
        }
        let pairs = Array(stride(from: 3, through: count, by: max(1, count / 6))).map { ($0 - 1, $0) }
        for (a, b) in pairs {
            let before = try rows(a), after = try rows(b)
            let result = CommandRunner.runInProcess(
                ["diff", copy.path, copy.path, "--only", "data", "--format", "json", "--limit", "0", "--as-of-a", String(a), "--as-of-b", String(b)])
            #expect(result.status == 0 || result.status == 1, "\(result.stderr)")
            let document = try JSONValue(parsing: result.stdout)
            var seen: [String: [Int]] = [:]
            guard case .array(let entities)? = document.members?["data"] else {
                Issue.record("no data in \(result.stdout)")
                continue
            }
            for entity in entities {
                guard let members = entity.members, case .string(let name)? = members["entity"] else { continue }
                seen[name] = ["inserted", "deleted", "updated"].map { key in
                    guard case .number(let text)? = members[key] else { return -1 }
                    return Int(text) ?? -1
                }
            }
            var expected: [String: [Int]] = [:]
            for name in Set(before.keys).union(after.keys) {
                let old = before[name] ?? [:], new = after[name] ?? [:]
                let counts = [
                    new.keys.filter { old[$0] == nil }.count, old.keys.filter { new[$0] == nil }.count,
                    new.filter { old[$0.key] != nil && old[$0.key] != $0.value }.count,
                ]
                if counts != [0, 0, 0] { expected[name] = counts }
            }
            #expect(seen.filter { $0.value != [0, 0, 0] } == expected, "\(store) commits \(a) to \(b)")
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
