import CDBase
import CDMapping
import CDStore
import Foundation
import GRDB

/// What `cdstore wal` reports of a store's `-wal`: the log's header, every commit in order with
/// the tables and entities whose pages it wrote, and what SQLite's recovery leaves out
/// (schemas/wal.schema.json). Built from ``WriteAheadLog`` and, for each commit, the store as it
/// stood after it (``StoreSnapshot/logState(_:walBytes:)``), whose b-trees SQLite's `dbstat`
/// table lists page by page: a page belongs to the table or index that held it at that commit,
/// not to whatever holds it now.
package struct WALReport: Codable, Sendable, Equatable {
    /// One commit of the log.
    package struct Commit: Codable, Sendable, Equatable {
        /// 1 for the log's first commit.
        package var number: Int
        /// Its first frame's index in the log, 1-based.
        package var firstFrame: Int
        package var frames: Int
        /// The pages its frames hold, each once, ascending.
        package var pages: [Int]
        /// The database's size in pages after it.
        package var databasePages: Int
        /// The tables whose pages (their own, their indexes', their overflow pages) it wrote, by
        /// name; nil where the linked SQLite has no `dbstat` table.
        @NullEncoded package var tables: [String]? = nil
        /// The entities whose tables those are, in `Z_ENT` order; nil without a model cache or
        /// `dbstat`.
        @NullEncoded package var entities: [String]? = nil
        /// Pages it wrote that no table or index held after it: free-list pages.
        @NullEncoded package var freePages: Int? = nil
    }

    /// The `-wal` file.
    package var path: String
    package var fileBytes: Int64
    package var pageSize: Int
    package var checkpointSequence: UInt32
    package var salts: [UInt32]
    /// `big-endian` or `little-endian`: how the checksums read the data (the magic number's low bit).
    package var checksumByteOrder: String
    package var commits: [Commit]
    package var uncommittedFrames: Int
    package var earlierGenerationFrames: Int
    /// The first frame of this generation whose checksum fails; SQLite uses the frames before it.
    @NullEncoded package var badChecksumFrame: Int?
    package var framesAfterBadChecksum: Int
    /// Bytes of a last frame cut short.
    package var tornBytes: Int
    /// Whether the main file alone holds no table: every table the store has is in the log.
    package var mainFileEmpty: Bool

    /// The report of the store at `path`. Throws ``StoreError/fileNotFound(path:)`` for a
    /// missing store, ``WALError/noLog(path:)`` when it has no `-wal` (or an empty one), and
    /// ``StoreError/badWAL(path:reason:)`` for a `-wal` SQLite would not read.
    package static func make(storePath path: String) throws -> WALReport {
        let files = StoreFiles(path: path)
        guard FileManager.default.fileExists(atPath: files.main.path) else { throw StoreError.fileNotFound(path: files.main.path) }
        guard let log = try WriteAheadLog.read(files.wal) else { throw WALError.noLog(path: files.main.path, walName: files.wal.lastPathComponent) }
        if let mainPageSize = try SQLiteHeader.read(files.main)?.pageSize, mainPageSize != log.header.pageSize {
            throw StoreError.badWAL(
                path: files.wal.path, reason: "its page size \(log.header.pageSize) is not the store's \(mainPageSize): it is the log of another database")
        }
        let entitiesByTable = Self.entitiesByTable(path)
        var commits: [Commit] = []
        for commit in log.commits {
            var report = Commit(
                number: commit.number, firstFrame: commit.firstFrame, frames: commit.frames, pages: commit.pages,
                databasePages: commit.databasePages)
            if let owners = try Self.owners(of: commit.pages, files: files, walBytes: commit.logBytes) {
                report.tables = Set(owners.values).sorted()
                report.freePages = commit.pages.count - owners.count
                if let entitiesByTable {
                    let numbered = report.tables?.flatMap { entitiesByTable[$0] ?? [] } ?? []
                    report.entities = numbered.sorted { $0.number < $1.number }.map(\.name)
                }
            }
            commits.append(report)
        }
        return WALReport(
            path: files.wal.path, fileBytes: log.fileBytes, pageSize: log.header.pageSize, checkpointSequence: log.header.checkpointSequence,
            salts: log.header.salts, checksumByteOrder: log.header.bigEndianChecksums ? "big-endian" : "little-endian", commits: commits,
            uncommittedFrames: log.uncommittedFrames, earlierGenerationFrames: log.earlierGenerationFrames, badChecksumFrame: log.badChecksumFrame,
            framesAfterBadChecksum: log.framesAfterBadChecksum, tornBytes: log.tornBytes,
            mainFileEmpty: try Self.tableCount(files: files, walBytes: 0).map { $0 == 0 } ?? false)
    }

    /// The table (for an index, the table it indexes) that held each of `pages` in the store as
    /// of `walBytes` of its log; pages no b-tree held are left out. Nil without `dbstat`.
    private static func owners(of pages: [Int], files: StoreFiles, walBytes: Int64) throws -> [Int: String]? {
        guard let database = try StoreSnapshot.logState(files, walBytes: walBytes) else { return nil }
        defer { try? database.close() }
        let wanted = Set(pages)
        do {
            return try database.read { db -> [Int: String]? in
                guard try hasDBStat(db) else { return nil }
                let tableOf = try Dictionary(
                    Row.fetchAll(db, sql: "SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')").map { row in
                        (row[0] as String, row[1] as String)
                    },
                    uniquingKeysWith: { first, _ in first })
                var owners: [Int: String] = [:]
                let rows = try Row.fetchCursor(db, sql: "SELECT name, pageno FROM dbstat")
                while let row = try rows.next() {
                    let page: Int = row[1]
                    guard wanted.contains(page) else { continue }
                    let name: String = row[0]
                    // Page 1's b-tree: `sqlite_master` to SQLite before 3.33, `sqlite_schema` since.
                    owners[page] = name == "sqlite_master" ? "sqlite_schema" : tableOf[name] ?? name
                }
                return owners
            }
        } catch {
            throw StoreError.corrupt(path: files.main.path, sqliteMessage: (error as? DatabaseError)?.message)
        }
    }

    /// Tables in `sqlite_master` of the store as of `walBytes` of its log; nil without the VFS.
    private static func tableCount(files: StoreFiles, walBytes: Int64) throws -> Int? {
        guard let database = try StoreSnapshot.logState(files, walBytes: walBytes) else { return nil }
        defer { try? database.close() }
        return try? database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'") }
    }

    private static func hasDBStat(_ db: Database) throws -> Bool {
        (try? db.makeStatement(sql: "SELECT 1 FROM dbstat LIMIT 0")) != nil
    }

    /// The entities of each entity table, from the store's newest state and its model cache; nil
    /// when the store cannot be read as a Core Data store with its own model.
    private static func entitiesByTable(_ path: String) -> [String: [MappedEntity]]? {
        guard let snapshot = try? StoreSnapshot(path: path), let reader = try? ObjectReader(snapshot: snapshot) else { return nil }
        return Dictionary(grouping: reader.mapping.entities, by: \.table)
    }
}

/// Why `wal` cannot report on a store.
package enum WALError: UserFacingError, Sendable, Equatable {
    /// The store has no `-wal`, or an empty one: all its data is in the main file.
    case noLog(path: String, walName: String)
    /// `--from` or `--to` names a commit the log does not hold.
    case noSuchCommit(option: String, requested: Int, path: String, commits: Int)
    /// `--from` is after `--to`.
    case emptyRange(from: Int, to: Int)

    package var message: String {
        switch self {
        case .noLog(let path, let walName): "\(path) has no write-ahead log (no \(walName), or an empty one): every commit is in the main file"
        case .noSuchCommit(let option, let requested, let path, let commits):
            commits == 0
                ? "\(option) \(requested): \(path) holds no commit"
                : "\(option) \(requested): \(path) holds \(plural(commits, "commit")); --from and --to take 1 to \(commits)"
        case .emptyRange(let from, let to): "--from \(from) is after --to \(to): no commit to show"
        }
    }
}
