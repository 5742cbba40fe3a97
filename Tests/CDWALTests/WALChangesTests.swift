import CDDiff
import CDRendering
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

@testable import CDWAL

/// `wal --changes` compares only the objects on the pages a commit wrote; these tests hold it to
/// the comparison of the commit's two states whole (`diff --as-of-a N-1 --as-of-b N`), and to
/// the rows of copies cut after each commit, on the corpus's logs and on generated logs.
@Suite(.temporaryDirectories) struct WALChangesTests {
    /// The changes of the store at `path` commit by commit, each checked against the whole-store
    /// comparison of the same two states; returns the changes.
    @discardableResult
    static func checkAgainstWholeStore(_ path: String, model: String? = nil) throws -> WALChanges {
        let changes = try WALChanges.make(storePath: path, modelPath: model, limit: 1_000_000)
        for commit in changes.commits where commit.unreadable == nil && commit.created == nil {
            var options = DiffOptions()
            options.parts = [.data]
            options.limit = 1_000_000
            let whole = try StoreDiffer.compare(path, path, modelPath: model, options: options, asOf: (commit.number - 1, commit.number))
            #expect(json(commit.data) == json(whole.data ?? []), "\(path) commit \(commit.number)")
        }
        return changes
    }

    static func json(_ data: [EntityChanges]) -> String {
        var json = JSONWriter()
        DiffJSON.write(data, to: &json)
        return json.text
    }

    @Test(arguments: Corpus.storesWithLog)
    func everyCorpusCommitEqualsTheWholeStoreComparison(_ store: String) throws {
        let copy = try Corpus.copyStore(store)
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        // The one store without a model cache is read with its model, as --model does.
        let model = store.hasPrefix("failedbankcd-seed/") ? Corpus.url("failedbankcd-seed/FailedBankCD.xcdatamodeld").path : nil
        let changes = try Self.checkAgainstWholeStore(copy.path, model: model)
        #expect(changes.commits.count == changes.commitCount)
        #expect(changes.commits.contains { !$0.data.isEmpty || $0.created != nil }, "\(store): no commit changed an object")
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
        // History: each commit's transactions are the ATRANSACTION rows a copy cut after it has
        // beyond the copy cut before it.
        let log = try #require(IndependentWAL(try Data(contentsOf: URL(fileURLWithPath: copy.path + "-wal"))))
        func transactions(logBytes: Int) throws -> Set<Int64> {
            let database = try DatabaseQueue(path: try WALCut.copy(of: copy, logBytes: logBytes).path)
            defer { try? database.close() }
            return try database.read { db in
                try db.tableExists("ATRANSACTION") ? Set(try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ATRANSACTION")) : []
            }
        }
        var previous = try transactions(logBytes: 32)
        for commit in changes.commits {
            let ids = try transactions(logBytes: log.transactions[commit.number - 1].endOffset)
            #expect(Set(commit.transactions.map(\.id)) == ids.subtracting(previous), "\(store) commit \(commit.number)")
            previous = ids
        }
    }

    /// Seeded saves on two stores (join tables and incremental auto-vacuum; to-one keys and no
    /// auto-vacuum): updates, inserts, deletes, join rows, deletes that empty leaf pages, values
    /// on overflow pages and a rewrite of an overflow page's bytes alone. Every commit's changes
    /// equal the whole-store comparison; inserts and deletes equal the rows of cut copies; the
    /// whole store is compared exactly where an overflow page was rewritten in place.
    @Test(arguments: [("plaso-accounts3/Accounts3.sqlite", UInt64(36)), ("plaso-accounts3/Accounts3.sqlite", 37), ("Articles", 38)])
    func generatedCommitsEqualTheWholeStoreComparison(_ base: String, seed: UInt64) throws {
        let source: URL
        if base == "Articles" {
            source = try TemporaryDirectory.make().appendingPathComponent("Articles.sqlite")
            try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/Articles.sqlite"), to: source)
        } else {
            source = try Corpus.copyStore(base)
        }
        let generated = try GeneratedLog.write(from: source, seed: seed, commits: 30, vacuumOff: base == "Articles")
        let changes = try Self.checkAgainstWholeStore(generated.store.path)
        #expect(changes.commits.count == 30)
        let fallback = Set(changes.commits.filter { $0.wholeStoreReason != nil }.map(\.number))
        #expect(generated.inPlaceRewrites.isSubset(of: fallback), "\(fallback) \(generated.inPlaceRewrites)")
        #expect(fallback.isSubset(of: generated.inPlaceRewrites.union(generated.bigValues)), "\(fallback)")
        #expect(!generated.inPlaceRewrites.isEmpty)

        let log = try #require(IndependentWAL(try Data(contentsOf: URL(fileURLWithPath: generated.store.path + "-wal"))))
        var previous = try RowSnapshot(WALCut.copy(of: generated.store, logBytes: 32))
        for commit in changes.commits {
            let next = try RowSnapshot(WALCut.copy(of: generated.store, logBytes: log.transactions[commit.number - 1].endOffset))
            var expected: [String: [Int]] = [:]
            for entity in Set(previous.rows.keys).union(next.rows.keys) {
                let old = previous.rows[entity] ?? [:], new = next.rows[entity] ?? [:]
                let counts = [new.keys.filter { old[$0] == nil }.count, old.keys.filter { new[$0] == nil }.count]
                if counts != [0, 0] { expected[entity] = counts }
                // A row whose stored values changed is an updated object.
                let changed = Set(new.keys.filter { old[$0] != nil && old[$0] != new[$0] })
                let updated = Set(commit.data.first { $0.entity == entity }?.changes.filter { $0.type == .update }.compactMap { $0.new?.pk } ?? [])
                #expect(
                    changed.isSubset(of: updated),
                    "commit \(commit.number) \(entity): rows \(changed) changed, updated \(updated): \(changed.map { "\(old[$0] ?? "") → \(new[$0] ?? "")" })")
            }
            let seen = Dictionary(commit.data.map { ($0.entity, [$0.inserted, $0.deleted]) }, uniquingKeysWith: { first, _ in first })
            #expect(seen.filter { $0.value != [0, 0] } == expected, "commit \(commit.number)")
            previous = next
        }
    }

    @Test func aRangeAndAnEntity() throws {
        let copy = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_WAL.sqlite")
        let all = try WALChanges.make(storePath: copy.path, limit: 1_000_000)
        let some = try WALChanges.make(storePath: copy.path, from: 40, to: 60, entities: ["Post"], limit: 1_000_000)
        #expect(some.commits.map(\.number) == Array(40...60))
        for commit in some.commits {
            let whole = try #require(all.commits.first { $0.number == commit.number })
            #expect(commit.data.map(\.entity).allSatisfy { $0 == "Post" })
            #expect(Self.json(commit.data) == Self.json(whole.data.filter { $0.entity == "Post" }))
        }
    }

    /// The text of every commit of a short log (one made the store's tables, the others changed
    /// objects), and of a span of a longer one with values, against golden files.
    @Test func textOfTheChanges() throws {
        let short = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        let text = WALChangesText.render(try WALChanges.make(storePath: short.path), limit: 20).replacingOccurrences(
            of: short.path, with: "CLSContactCache.sqlite")
        #expect(text == (try Golden.expected("wal/CLSContactCache-changes.txt", actual: text)))
        let long = try Corpus.copyStore("wibosco-migration/CoreDataMigration_Example_WAL.sqlite")
        let span = WALChangesText.render(try WALChanges.make(storePath: long.path, from: 100, to: 103, limit: 3, values: true), limit: 3)
            .replacingOccurrences(of: long.path, with: "CoreDataMigration_Example_WAL.sqlite")
        #expect(span == (try Golden.expected("wal/CoreDataMigration_Example_WAL-changes-100-103.txt", actual: span)))
    }

    @Test func badRangesAreOneLine() throws {
        let copy = try Corpus.copyStore("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite")
        func message(_ arguments: [String]) -> String {
            let result = CommandRunner.runInProcess(["wal", copy.path] + arguments)
            #expect(result.status != 0)
            return result.stderr
        }
        #expect(message(["--changes", "--from", "9"]).contains("--from 9: \(copy.path)-wal holds 8 commits; --from and --to take 1 to 8"))
        #expect(message(["--changes", "--to", "0"]).contains("--to 0:"))
        #expect(message(["--changes", "--from", "5", "--to", "3"]).contains("--from 5 is after --to 3"))
        #expect(message(["--from", "2"]).contains("--from needs --changes"))
        #expect(message(["--changes", "--entity", "Nope"]).contains("unknown entity \"Nope\""))
        let noLog = try TemporaryDirectory.make().appendingPathComponent("Plain.sqlite")
        try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/ToDo.sqlite"), to: noLog)
        let result = CommandRunner.runInProcess(["wal", noLog.path, "--changes"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("has no write-ahead log"))
    }
}

/// Every row of every entity table of a store (a cut copy), by entity name and `Z_PK`, as
/// sqlite3's `quote()` of each column: read by SQLite on the copy, not by cdstore.
struct RowSnapshot {
    var rows: [String: [Int64: String]] = [:]

    init(_ store: URL) throws {
        let database = try DatabaseQueue(path: store.path)
        defer { try? database.close() }
        try database.read { db in
            let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
            let names = Dictionary(entities.map { ($0[0] as Int64, $0[1] as String) }, uniquingKeysWith: { first, _ in first })
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z[A-Z]*'") {
                let columns = try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]).map { $0[0] as String }
                guard columns.contains("Z_ENT") else { continue }
                let values = columns.map { "quote(\($0.quotedDatabaseIdentifier))" }.joined(separator: " || '|' || ")
                for row in try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT, \(values) FROM \(table.quotedDatabaseIdentifier)") {
                    guard let name = names[row[1] as Int64] else { continue }
                    rows[name, default: [:]][row[0] as Int64] = row[2] as String
                }
            }
        }
    }
}

/// A WAL store of seeded saves on a copy of a real store, written by SQLite with the log kept.
enum GeneratedLog {
    struct Result {
        var store: URL
        /// Commits that rewrote the last bytes of a value on overflow pages, leaving its cell's
        /// local bytes and `Z_OPT` alone (SQLite overwrites the overflow page in place).
        var inPlaceRewrites: Set<Int>
        /// Commits that wrote a value large enough for overflow pages.
        var bigValues: Set<Int>
    }

    static func write(from source: URL, seed: UInt64, commits: Int, vacuumOff: Bool) throws -> Result {
        var random = SeededGenerator(seed: seed)
        let writer = try DatabaseQueue(path: source.path)
        try writer.writeWithoutTransaction { db in
            if vacuumOff { try db.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA auto_vacuum = 0; VACUUM") }
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        struct Table {
            var name: String
            var columns: [(name: String, type: String)]
        }
        let (tables, joins) = try writer.read { db -> ([Table], [String]) in
            var tables: [Table] = []
            for name in try String.fetchAll(db, sql: "SELECT 'Z' || upper(Z_NAME) FROM Z_PRIMARYKEY ORDER BY Z_ENT") where try db.tableExists(name) {
                let columns = try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?)", arguments: [name]).map {
                    ($0[0] as String, $0[1] as String)
                }
                if !tables.contains(where: { $0.name == name }) { tables.append(Table(name: name, columns: columns)) }
            }
            return (tables, try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*' ORDER BY name"))
        }
        var result = Result(store: source, inPlaceRewrites: [], bigValues: [])
        func pick<T>(_ list: [T]) -> T? { list.isEmpty ? nil : list[Int.random(in: 0..<list.count, using: &random)] }
        func text(_ count: Int) -> String { String((0..<count).map { _ in "abcdefghij".randomElement(using: &random) ?? "a" }) }
        for number in 1...commits {
            try writer.write { db in
                // Sorted: a rewrite in place (7) comes last, so no delete frees its pages after it.
                let operations =
                    number == 1 ? [1, 1, 1] : (0..<Int.random(in: 1...3, using: &random)).map { _ in Int.random(in: 0..<8, using: &random) }.sorted()
                for operation in (number == 10 ? [6] : number == 11 ? [7] : operations) {
                    guard let table = pick(tables) else { continue }
                    let keys = try Int64.fetchAll(db, sql: "SELECT Z_PK FROM \(table.name) ORDER BY Z_PK")
                    let plain = table.columns.filter { !["Z_PK", "Z_ENT", "Z_OPT"].contains($0.name) }
                    let large = plain.filter { $0.type == "BLOB" || $0.type == "VARCHAR" }
                    switch operation {
                    case 0:
                        guard let key = pick(keys), let column = pick(plain) else { continue }
                        let value: DatabaseValue =
                            switch column.type {
                            case "INTEGER": Int.random(in: 0...1, using: &random).databaseValue
                            case "FLOAT", "TIMESTAMP": Double(Int.random(in: 0...1_000_000, using: &random)).databaseValue
                            case "BLOB": Data(text(16).utf8).databaseValue
                            default: text(12).databaseValue
                            }
                        try db.execute(sql: "UPDATE \(table.name) SET \(column.name) = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", arguments: [value, key])
                    case 1:
                        guard let key = pick(keys), let last = keys.last else { continue }
                        let copied = table.columns.filter { $0.name != "Z_PK" }.map(\.name).joined(separator: ", ")
                        let count = number == 1 ? 150 : 1
                        for offset in 1...count {
                            try db.execute(
                                sql: "INSERT INTO \(table.name) (Z_PK, \(copied)) SELECT ?, \(copied) FROM \(table.name) WHERE Z_PK = ?",
                                arguments: [last + Int64(offset), key])
                        }
                    case 2:
                        guard let key = pick(keys) else { continue }
                        try db.execute(sql: "DELETE FROM \(table.name) WHERE Z_PK = ?", arguments: [key])
                    case 3:
                        guard let join = pick(joins) else { continue }
                        try db.execute(
                            sql: "INSERT OR IGNORE INTO \(join) VALUES (?, ?)",
                            arguments: [Int.random(in: 1...60, using: &random), Int.random(in: 1...60, using: &random)])
                    case 4:
                        guard let join = pick(joins), let row = pick(try Int64.fetchAll(db, sql: "SELECT rowid FROM \(join)")) else { continue }
                        try db.execute(sql: "DELETE FROM \(join) WHERE rowid = ?", arguments: [row])
                    case 5:
                        try db.execute(sql: "DELETE FROM \(table.name) WHERE Z_PK % 4 = ?", arguments: [Int.random(in: 0...3, using: &random)])
                    case 6:
                        guard let key = pick(keys), let column = pick(large) else { continue }
                        let value = column.type == "BLOB" ? Data(text(6000).utf8).databaseValue : text(6000).databaseValue
                        try db.execute(sql: "UPDATE \(table.name) SET \(column.name) = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", arguments: [value, key])
                        result.bigValues.insert(number)
                    default:
                        // The last bytes of a value on overflow pages, the same length: only
                        // the overflow page changes.
                        let candidates = try Row.fetchAll(
                            db,
                            sql: tables.flatMap { table in
                                table.columns.filter { $0.type == "BLOB" || $0.type == "VARCHAR" }.map {
                                    "SELECT '\(table.name)', '\($0.name)', Z_PK, typeof(\($0.name)) FROM \(table.name) WHERE length(\($0.name)) >= 6000"
                                }
                            }.joined(separator: " UNION ALL "))
                        guard let chosen = pick(candidates) else { continue }
                        let (name, column, key, type) = (chosen[0] as String, chosen[1] as String, chosen[2] as Int64, chosen[3] as String)
                        let old = try Data.fetchOne(db, sql: "SELECT CAST(\(column) AS BLOB) FROM \(name) WHERE Z_PK = ?", arguments: [key]) ?? Data()
                        let new = old.prefix(old.count - 100) + Data(text(100).utf8)
                        let value = type == "blob" ? new.databaseValue : String(decoding: new, as: UTF8.self).databaseValue
                        try db.execute(sql: "UPDATE \(name) SET \(column) = ? WHERE Z_PK = ?", arguments: [value, key])
                        result.inPlaceRewrites.insert(number)
                    }
                }
                // Every save writes a page, as Core Data's saves do (Z_MAX): one commit each.
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 1")
            }
        }
        let kept = try TemporaryDirectory.make().appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: kept)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: source.path + "-wal"), to: URL(fileURLWithPath: kept.path + "-wal"))
        try writer.close()
        result.store = kept
        return result
    }
}
