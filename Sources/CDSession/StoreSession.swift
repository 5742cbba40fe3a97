import CDChanges
import CDDiagnostics
import CDFetch
import CDMapping
import CDModel
import CDStore
import Foundation

/// One store opened for reading, as every front end (the commands, the console) opens it: a
/// read-only snapshot (in place through the read-only VFS, or a private copy where it must be),
/// the model given with `--model` or else the store's own, and the SQL debug log. Opening reads
/// no model: `sql --raw` and `validate` answer on a store whose model cache is unreadable, so the
/// model is read on first use and kept.
///
/// Concurrency: a session is one snapshot on one SQLite connection (GRDB's `DatabaseQueue`
/// serialises its reads), used by one front end at a time; it is not `Sendable`. A front end
/// that serves requests in parallel borrows one per request from a pool (`serve`'s
/// `SessionPool`), reused while the store's files are unchanged: measured on the corpus Photos
/// store (SessionPoolSlowTests, debug build, loaded 2-core machine, commit d4ffb4d), an entity
/// page answered 12 requests/s from a pool against 2 with a session opened per request (7.1×),
/// because each new session re-reads the model cache and rebuilds the WAL index.
package final class StoreSession {
    /// The store as the user named it.
    package let storePath: String
    /// The model given with `--model`, if any.
    package let modelPath: String?
    package let snapshot: StoreSnapshot
    /// The SQL debug log of this session, if any.
    package let trace: SQLTrace?
    private var openedRunner: FetchRunner?
    /// A reader of another state of this store with the same schema, metadata and model cache,
    /// whose model and mapping are used instead of reading them again; set before the first
    /// read of objects.
    package var sameLayout: ObjectReader?

    /// Opens `storePath` read-only. `trace` logs the SQL; `asOf` reads the store as it stood
    /// after that commit of its `-wal` (``StoreSnapshot/init(path:trace:keepingThisVersion:asOf:)``).
    /// `log` (the `-wal` already read) spares `wal --changes` reading it again for every commit.
    package init(storePath: String, modelPath: String?, trace: SQLTrace? = nil, asOf: Int? = nil, log: WriteAheadLog? = nil) throws {
        self.storePath = storePath
        self.modelPath = modelPath
        self.trace = trace
        snapshot = try StoreSnapshot(files: StoreFiles(path: storePath), trace: trace, asOf: asOf, log: log)
    }

    /// The fetch runner over the store's objects, reading the model on first use.
    package func runner() throws -> FetchRunner {
        if let openedRunner { return openedRunner }
        let reader: ObjectReader
        if let sameLayout {
            reader = ObjectReader(snapshot: snapshot, sameLayoutAs: sameLayout)
        } else {
            reader = try ObjectReader(snapshot: snapshot, model: try modelPath.map { try ModelSource.storeModel(at: $0, for: snapshot) })
        }
        let runner = FetchRunner(reader: reader)
        openedRunner = runner
        return runner
    }

    /// The reader of the store's objects (through ``runner()``).
    package func reader() throws -> ObjectReader { try runner().reader }

    /// The model the store is read with.
    package func model() throws -> ManagedObjectModel { try reader().model }

    /// A new session on the same store, model and log: a fresh snapshot of what the app wrote
    /// since (the same commit again for a session read as of one).
    package func reloaded() throws -> StoreSession {
        try StoreSession(storePath: storePath, modelPath: modelPath, trace: trace, asOf: snapshot.asOfCommit)
    }

    // MARK: Operations

    /// The rows of a count, distinct-values or aggregate request: `names` gets the column names
    /// first (`count`, the key paths, `sum(price)`), then `row` each row. Objects go through
    /// ``FetchRunner/objects(_:includes:countsToMany:describe:section:object:)``.
    package func values(_ request: FetchRequest, names: ([String]) throws -> Void, row: ([ObjectValue]) throws -> Void) throws {
        let runner = try runner()
        switch request.result {
        case .objects:
            throw FetchSQLError.objectsHaveNoValueRows
        case .count:
            try names(["count"])
            try row([.integer(Int64(try runner.count(request)))])
        case .distinct, .aggregate:
            try names(try runner.statement(for: request).valueColumns.map(\.name))
            try runner.values(request, row: row)
        }
    }

    /// The store checked against its model (the one given with `--model`, else its own).
    package func validation() throws -> ValidationReport {
        try StoreValidator.validate(snapshot, model: modelPath == nil ? nil : try model())
    }

    /// The store's persistent history that `filter` selects, oldest first, named by the model
    /// given with `--model`, else the store's own model cache (without one, changes are listed
    /// without property names).
    package func history(_ filter: HistoryFilter) throws -> [HistoryTransaction] {
        try HistoryReader(snapshot: snapshot, model: modelPath == nil ? nil : try model()).transactions(filter)
    }

    /// The names of the store's own entities as `Z_PRIMARYKEY` lists them (Core Data's history
    /// and CloudKit entities left out). Needs no model: it answers on a store whose model cache
    /// is unreadable.
    package func entityNames() throws -> [String] {
        let registry = try snapshot.read { try EntityRegistry.read($0) }
        return registry.entities.filter { $0.reservedRange == nil && !$0.name.isEmpty }.map(\.name)
    }

    /// The model in the store's own model cache and the table layout read with it, or nil when
    /// the store has no model cache. Unlike ``model()`` this ignores `--model`: it says what the
    /// store itself records (the names `trace` gives a log's tables and columns).
    package func cachedModelAndMapping() throws -> (model: ManagedObjectModel, mapping: StoreMapping)? {
        try snapshot.read { db in
            let path = snapshot.files.main.path
            guard let cache = try ModelCache.read(db, path: path), let mapping = try StoreMapping.read(db, path: path) else { return nil }
            return (cache.model, mapping)
        }
    }

    /// Whether the current version of the model at `path` opens this store, and if not why.
    package func compatibility(withModelAt path: String) throws -> CompatibilityReport {
        let versions = try ModelSource.versions(at: path, trace: trace)
        let current = try ModelSource.chooseVersion(versions, named: nil, path: path)
        return try Compatibility.analyse(snapshot: snapshot, versions: versions, current: current, modelPath: path)
    }
}
