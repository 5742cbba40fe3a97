import CDModel
import CDStore
import Foundation
import GRDB

/// One object's change as `watch` reports it.
package struct WatchedChange: Sendable {
    package var type: ChangeType
    package var id: ObjectID
    /// Inserts: the new object. Deletes: the object as it was, when the previous snapshot had it.
    package var object: StoredObject?
    /// Updates: each changed property with its value before and after.
    package var changes: [PropertyChange]
    /// Said instead of values when they cannot be told (an object changed by several commits
    /// between two polls shows its whole change at the first of them).
    package var note: String?
}

/// The changes of one commit: a persistent-history transaction, or everything that changed
/// between two snapshots of a store without history.
package struct WatchedCommit: Sendable {
    /// The history transaction; nil when the commit was found by comparing snapshots.
    package var transaction: HistoryTransaction?
    package var changes: [WatchedChange]
}

/// Follows a store while an app writes to it, poll by poll.
///
/// Each poll first compares the size and modification time of the main file and its `-wal`;
/// only when they moved does it take a new private snapshot (``StoreSnapshot``: a copy of the
/// store and its sidecars, opened read-only). That copy is the cost of never disturbing the app:
/// no connection to the original stays open, no lock is held between polls, nothing is
/// checkpointed or written. For a store of a few megabytes it takes milliseconds; for a large
/// one (a Photos library) every poll that sees a change copies it whole.
///
/// Changes come from persistent history when the store has it (exactly the committed
/// transactions, in order), otherwise from comparing `Z_PK` and `Z_OPT` of the watched entities
/// between the previous and the new snapshot: Core Data bumps `Z_OPT` on every save of a row.
/// The previous snapshot is kept until the next change, to read old values and versions from;
/// nothing of it is held in memory (``SnapshotComparison/changes(from:to:ents:)`` merges two
/// ordered scans).
package final class StoreWatcher {
    package let path: String
    /// The previous poll's version, on a private copy: an update's old values are read from it
    /// after the app has written, which a store read in place no longer shows.
    private var previous: ObjectReader
    private var previousSignature: [FileSignature?]
    private var watchedEnts: Set<Int>
    private var lastTransaction: Int64?
    /// The model file given instead of the store's model cache, and its versions, read once.
    private let model: (path: String, versions: [ModelVersion])?

    /// Takes the first snapshot. `entities` limits the watch to those entities and their
    /// sub-entities; empty watches every entity of the model. `modelPath` reads every snapshot
    /// with that model (the version whose hashes the snapshot's metadata names, else the current
    /// one, as `--model` is read everywhere) instead of the store's model cache.
    package init(path: String, entities: [String] = [], modelPath: String? = nil) throws {
        self.path = path
        model = try modelPath.map { ($0, try ModelSource.versions(at: $0)) }
        previousSignature = FileSignature.of(StoreFiles(path: path))
        previous = try Self.reader(path: path, model: model)
        watchedEnts = try Self.watchedEnts(previous, entities: entities)
        if try previous.snapshot.read(HistoryReader.hasHistory) {
            lastTransaction = try previous.snapshot.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") } ?? 0
        }
    }

    /// Whether changes come from persistent history.
    package var usesHistory: Bool { lastTransaction != nil }

    /// The commits since the last poll, oldest first; empty when the files have not moved.
    ///
    /// A poll that meets a commit under way reads the store at a later poll instead: when the
    /// files moved while the private copy was taken (a copy of half a commit), or when the copy
    /// failed while a rollback journal was there (the writer's journal, which SQLite would play
    /// back, a write the read-only copy refuses).
    package func poll() throws -> [WatchedCommit] {
        let files = StoreFiles(path: path)
        let signature = FileSignature.of(files)
        guard signature != previousSignature else { return [] }
        let current: ObjectReader
        do {
            current = try Self.reader(path: path, model: model)
        } catch {
            if FileManager.default.fileExists(atPath: files.journal.path) || FileSignature.of(files) != signature { return [] }
            throw error
        }
        guard FileSignature.of(files) == signature else { return [] }
        let commits: [WatchedCommit]
        if let last = lastTransaction, try current.snapshot.read(HistoryReader.hasHistory) {
            let transactions = try HistoryReader(snapshot: current.snapshot, model: current.model)
                .transactions(HistoryFilter(afterTransaction: last))
            lastTransaction = transactions.last?.id ?? last
            commits = try historyCommits(transactions, current: current)
        } else {
            commits = try snapshotCommit(current: current).map { [$0] } ?? []
        }
        previous = current
        previousSignature = signature
        return commits
    }

    /// A private snapshot of the store as it is now, read with the given model or its cache.
    private static func reader(path: String, model: (path: String, versions: [ModelVersion])?) throws -> ObjectReader {
        let snapshot = try StoreSnapshot(path: path, keepingThisVersion: true)
        return try ObjectReader(snapshot: snapshot, model: try model.map { try ModelSource.storeModel(among: $0.versions, at: $0.path, for: snapshot) })
    }

    private func historyCommits(_ transactions: [HistoryTransaction], current: ObjectReader) throws -> [WatchedCommit] {
        var requests = ObjectRequests()
        for transaction in transactions {
            for change in transaction.changes {
                guard let id = objectID(change, reader: current), watchedEnts.contains(id.ent) else { continue }
                requests.add(id)
            }
        }
        let before = try requests.read(previous)
        let after = try requests.read(current)
        var reported = Set<ObjectID>()
        var commits: [WatchedCommit] = []
        for transaction in transactions {
            var changes: [WatchedChange] = []
            for change in transaction.changes {
                guard let id = objectID(change, reader: current), watchedEnts.contains(id.ent) else { continue }
                let firstTime = reported.insert(id).inserted
                switch change.type {
                case .insert:
                    changes.append(WatchedChange(type: .insert, id: id, object: after[id], changes: [], note: nil))
                case .delete:
                    changes.append(WatchedChange(type: .delete, id: id, object: before[id], changes: [], note: nil))
                case .update:
                    if firstTime {
                        changes.append(
                            WatchedChange(
                                type: .update, id: id, object: nil,
                                changes: SnapshotComparison.differences(before[id], after[id]), note: nil))
                    } else {
                        changes.append(
                            WatchedChange(
                                type: .update, id: id, object: nil, changes: [],
                                note: "changed again; its values after this poll are shown above"))
                    }
                }
            }
            if !changes.isEmpty { commits.append(WatchedCommit(transaction: transaction, changes: changes)) }
        }
        return commits
    }

    private func snapshotCommit(current: ObjectReader) throws -> WatchedCommit? {
        let changed = try SnapshotComparison.changes(from: previous, to: current, ents: watchedEnts)
        guard !changed.isEmpty else { return nil }
        var requests = ObjectRequests()
        (changed.updated + changed.deleted).forEach { requests.add($0) }
        let before = try requests.read(previous)
        requests = ObjectRequests()
        (changed.inserted + changed.updated).forEach { requests.add($0) }
        let after = try requests.read(current)
        let changes =
            changed.inserted.map { WatchedChange(type: .insert, id: $0, object: after[$0], changes: [], note: nil) }
            + changed.updated.map {
                WatchedChange(
                    type: .update, id: $0, object: nil,
                    changes: SnapshotComparison.differences(before[$0], after[$0]), note: nil)
            }
            + changed.deleted.map { WatchedChange(type: .delete, id: $0, object: before[$0], changes: [], note: nil) }
        return WatchedCommit(transaction: nil, changes: changes)
    }

    private func objectID(_ change: HistoryChange, reader: ObjectReader) -> ObjectID? {
        guard let entity = reader.registry.entity(named: change.entity), let name = reader.modelEntityName(ent: entity.ent),
            let pk = change.objectID.split(separator: "/").last.flatMap({ Int64($0.dropFirst()) })
        else { return nil }
        return ObjectID(storeUUID: reader.storeUUID, entity: name, ent: entity.ent, pk: pk)
    }

    private static func watchedEnts(_ reader: ObjectReader, entities: [String]) throws -> Set<Int> {
        let names = entities.isEmpty ? reader.dumpableEntities : entities
        var result = Set<Int>()
        for name in names {
            guard reader.model.entity(named: name) != nil, let ent = reader.mapping.entityNumber(of: name) else {
                throw StoreError.unknownEntity(name, mapping: reader.mapping, model: reader.model)
            }
            result.insert(ent)
            result.formUnion(reader.mapping.entityNumbers(includingSubentitiesOf: name))
        }
        return result
    }
}

/// Size and modification time of one file of a store; a change in either means a new commit
/// may be there. Missing files have no signature, so a WAL or a rollback journal appearing or
/// vanishing counts too: a poll that read the store while `sqlite3` or the app was committing in
/// rollback mode (the journal still there) saw the store before that commit, and the journal's
/// going is what shows the commit is done. The main file's signature also holds SQLite's file
/// change counter (header offset 24, which every rollback-mode commit increments), so two
/// commits within one tick of the file system's clock still differ.
struct FileSignature: Equatable {
    let size: Int
    let modified: Date
    let changeCounter: UInt32?

    static func of(_ files: StoreFiles) -> [FileSignature?] {
        [files.main, files.wal, files.journal].map { url in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
            return FileSignature(
                size: (attributes[.size] as? NSNumber)?.intValue ?? 0,
                modified: attributes[.modificationDate] as? Date ?? .distantPast,
                changeCounter: url == files.main ? changeCounter(of: url) : nil)
        }
    }

    /// The big-endian 32-bit counter at offset 24 of a database file's header; nil when the
    /// file is shorter or cannot be opened (read-only, no lock taken).
    private static func changeCounter(of url: URL) -> UInt32? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: 24)) != nil, let bytes = try? handle.read(upToCount: 4), bytes.count == 4 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
