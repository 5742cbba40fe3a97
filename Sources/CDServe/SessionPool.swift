import CDFetch
import CDSession
import CDStore
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The sessions of one served store, reused across requests.
///
/// A ``StoreSession`` is one snapshot on one SQLite connection and is not `Sendable`, so a
/// request borrows one (``withSession(remedy:_:)``) for its whole duration and gives it back; requests
/// in parallel get sessions of their own. A session is reused only while the store's files are as
/// they were when it was opened (``StoreStamp``: size and modification time of the main file and
/// the `-wal`): after the app writes, the next request opens a fresh snapshot, so a page never
/// shows data older than the request, and sessions of the old version are dropped.
///
/// Why a pool: opening a session in place costs the VFS open, the WAL index rebuilt from the
/// `-wal`, and the model read from `Z_MODELCACHE` on first use; a reused session has them all.
/// Measured with `SessionPoolSlowTests` (the Photos store's Asset page as JSON, 200 requests in
/// process, debug build, loaded 2-core machine, commit d4ffb4d): 12 requests/s from a pool
/// against 2 with a session per request (7.1×); also in CONTRIBUTING's performance section.
///
/// The store's inspection (metadata, hashes, entity counts) is computed once per stamp and
/// kept: the store page never counts a table twice for the same version of the store.
final class SessionPool: @unchecked Sendable {
    /// Idle sessions kept per store: enough for the two cores and a browser's parallel requests.
    package static let defaultIdleSessions = 4

    let store: ServedStore
    let queryTimeout: Double
    private let maximumIdle: Int
    /// The stores that keep sessions open, shared by the catalog's pools.
    private let openStores: OpenStores
    private let lock = NSLock()
    private var idle: [PooledSession] = []
    private var inspection: (stamp: StoreStamp?, value: StoreInspection)?
    /// Filtered counts of entity pages for one version of the store, by entity and filter.
    private var filteredCounts: (stamp: StoreStamp?, values: [String: FilteredCount])?
    /// The version of the store the last session was opened on.
    private var newestStamp: StoreStamp?

    init(store: ServedStore, queryTimeout: Double, maximumIdle: Int, openStores: OpenStores) {
        self.store = store
        self.queryTimeout = queryTimeout
        self.maximumIdle = maximumIdle
        self.openStores = openStores
    }

    /// Runs `body` with a session on the store as it is now, under the query time limit, whose
    /// message gives `remedy`, for the request whose work `job` is (its statements stop when
    /// the client goes away). A store the app changed in the middle of the read is read once
    /// more on a fresh snapshot.
    func withSession<T>(_ job: WorkerJob?, remedy: TimeoutRemedy = .narrowFilter, _ body: (PooledSession) throws -> T) throws -> T {
        do {
            return try attempt(job, remedy, body)
        } catch StoreError.changedWhileReading {
            return try attempt(job, remedy, body)
        }
    }

    private func attempt<T>(_ job: WorkerJob?, _ remedy: TimeoutRemedy, _ body: (PooledSession) throws -> T) throws -> T {
        let pooled = try checkOut()
        pooled.deadline.start(seconds: queryTimeout, job: job)
        defer { pooled.deadline.stop() }
        do {
            let result = try body(pooled)
            checkIn(pooled)
            return result
        } catch {
            if pooled.deadline.wasCancelled {
                checkIn(pooled)
                throw CancellationError()
            }
            if pooled.deadline.hasPassed { throw ServeError.queryTimeout(seconds: queryTimeout, remedy: remedy) }
            if case StoreError.changedWhileReading = error { throw error }
            checkIn(pooled)
            throw error
        }
    }

    /// The store's inspection for its current version, computed once per version.
    func inspection(of pooled: PooledSession) throws -> StoreInspection {
        if let cached = lock.withLock({ inspection }), cached.stamp == pooled.stamp { return cached.value }
        let value = try StoreInspector.inspect(pooled.session.snapshot, counts: true)
        lock.withLock { inspection = (pooled.stamp, value) }
        return value
    }

    /// The number of objects `request` matches on `pooled`'s version of the store, counted once
    /// per version and filter: the pages after the first reuse it. The count runs last in a
    /// request, in the time its other queries left: when it runs past the limit, the answer is
    /// ``FilteredCount/stopped``, and that stays the answer for this version (a count that did
    /// not finish once would cost every later page the whole limit again).
    func filteredCount(of request: FetchRequest, key: String, on pooled: PooledSession) throws -> FilteredCount {
        let known = lock.withLock { filteredCounts?.stamp == pooled.stamp ? filteredCounts?.values[key] : nil }
        if let known { return known }
        let counted: FilteredCount
        do {
            counted = .counted(try pooled.session.runner().count(request))
        } catch {
            guard pooled.deadline.hasPassed else { throw error }
            counted = .stopped
        }
        lock.withLock {
            if filteredCounts?.stamp != pooled.stamp { filteredCounts = (pooled.stamp, [:]) }
            if (filteredCounts?.values.count ?? 0) >= Self.maximumFilteredCounts { filteredCounts?.values.removeAll() }
            filteredCounts?.values[key] = counted
        }
        return counted
    }

    /// Filtered counts kept per version of the store, at most (a few kilobytes).
    static let maximumFilteredCounts = 256

    private func checkOut() throws -> PooledSession {
        let now = StoreStamp(store.path)
        let reused: PooledSession? = lock.withLock {
            idle.removeAll { $0.stamp != now }
            return idle.popLast()
        }
        if let reused, !reused.session.snapshot.isOutdated {
            reused.showsNewVersion = false
            return reused
        }
        let session = try StoreSession(storePath: store.path, modelPath: store.modelPath)
        let pooled = PooledSession(session: session, stamp: now)
        pooled.deadline.install(on: session.snapshot.database)
        pooled.showsNewVersion = lock.withLock {
            defer { newestStamp = now }
            return newestStamp != nil && newestStamp != now
        }
        return pooled
    }

    /// Closes the idle sessions last given back before `date`, and with them their connections,
    /// WAL indexes and models; once none is left, the store's kept inspection and counts go too:
    /// a store nobody has looked at for a while holds nothing (`serve --find` may serve
    /// hundreds). The removed sessions are handed out of the lock and released there: closing a
    /// connection is file work other requests need not wait for. Returns how many were closed.
    @discardableResult
    func closeIdle(before date: Date) -> Int {
        let closed = lock.withLock { () -> [PooledSession] in
            let old = idle.filter { $0.lastUsed < date }
            idle.removeAll { $0.lastUsed < date }
            if idle.isEmpty && !old.isEmpty {
                inspection = nil
                filteredCounts = nil
                openStores.forget(self)
            }
            return old
        }
        return closed.count
    }

    /// The sessions kept open between requests now.
    var idleCount: Int { lock.withLock { idle.count } }

    /// Puts `pooled` back as it is: whether its version is still the store's is checked when it is
    /// next checked out (``checkOut()``), so checking here too would only stat the files twice
    /// more per request.
    private func checkIn(_ pooled: PooledSession) {
        pooled.lastUsed = Date()
        let kept = lock.withLock { () -> Bool in
            guard idle.count < maximumIdle else { return false }
            idle.append(pooled)
            return true
        }
        if kept, let evicted = openStores.use(self) { evicted.closeIdle(before: .distantFuture) }
    }
}

/// The stores whose pools keep sessions open, the most recently used last, at most ``limit``.
///
/// Every kept session holds a connection, its page cache, WAL index and model: about 0.7 MiB a
/// store under scripts/bench-serve-find.sh, so `serve --find` over 200 stores held 178 MiB
/// after a visit to each, within the idle time. When a pool keeps a session and more than
/// `limit` stores would then keep some, the store used longest ago closes its sessions (it opens
/// one again when next visited, as after the idle sweep). Pools are held weakly: a catalog
/// and its pools go together.
final class OpenStores: @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    private var recent: [WeakPool] = []
    /// Whether a pool was told to close its sessions since ``takeClosedSessions()`` last asked.
    private var closedSessions = false

    private struct WeakPool {
        weak var pool: SessionPool?
    }

    init(limit: Int) { self.limit = max(1, limit) }

    /// Notes that `pool` keeps a session now; returns the pool that must close its sessions to
    /// keep within the limit, if any.
    func use(_ pool: SessionPool) -> SessionPool? {
        lock.withLock {
            if recent.last?.pool === pool { return nil }
            recent.removeAll { $0.pool == nil || $0.pool === pool }
            recent.append(WeakPool(pool: pool))
            guard recent.count > limit else { return nil }
            closedSessions = true
            return recent.removeFirst().pool
        }
    }

    /// Notes that `pool` keeps no session any more.
    func forget(_ pool: SessionPool) {
        lock.withLock { recent.removeAll { $0.pool == nil || $0.pool === pool } }
    }

    /// The stores that keep sessions, by number, the most recently used last.
    var storeNumbers: [Int] { lock.withLock { recent.compactMap { $0.pool?.store.number } } }

    /// Whether sessions were closed to keep within the limit since the last call.
    func takeClosedSessions() -> Bool {
        lock.withLock {
            defer { closedSessions = false }
            return closedSessions
        }
    }
}

/// An entity page's count of the objects its filter matches.
enum FilteredCount: Equatable, Sendable {
    case counted(Int)
    /// The count ran past `--query-timeout` and was stopped; the page's rows were read.
    case stopped

    /// The count, when there is one.
    var number: Int? {
        if case .counted(let number) = self { return number }
        return nil
    }
}

/// A session with its time limit, borrowed from a ``SessionPool``.
final class PooledSession {
    let session: StoreSession
    /// The store's files when the session was opened.
    let stamp: StoreStamp?
    let deadline = QueryDeadline()
    /// Whether this session is the first on a version of the store the app wrote after an
    /// earlier request: the page says that it shows the new version.
    var showsNewVersion = false
    /// When the session was last given back to its pool.
    var lastUsed = Date()

    /// Statements translated on this session, most recent last: a page's entity check and the
    /// Core Data SQL it shows are the same for every page of one filter and sort, and translating
    /// and compiling them again was a visible cost of the JSON entity page under
    /// scripts/bench-serve.sh. A session's model and mapping never change, so neither do they.
    private var statements: [(request: FetchRequest, statement: FetchStatement)] = []

    /// Statements kept per session, at most.
    static let maximumStatements = 32

    init(session: StoreSession, stamp: StoreStamp?) {
        self.session = session
        self.stamp = stamp
    }

    /// ``FetchRunner/statement(for:)`` on this session, translated the first time a request asks
    /// for it and kept for the next (a failed translation is not kept, so it fails again with the
    /// same error).
    func statement(for request: FetchRequest) throws -> FetchStatement {
        if let known = statements.last(where: { $0.request == request }) { return known.statement }
        let statement = try session.runner().statement(for: request)
        if statements.count >= Self.maximumStatements { statements.removeFirst() }
        statements.append((request, statement))
        return statement
    }
}

/// Size and modification time of a store's main file and `-wal`: any write by an app changes
/// one of them (a commit appends to the `-wal`, a checkpoint writes the main file).
struct StoreStamp: Equatable, Sendable {
    var main: FileStamp
    var wal: FileStamp?

    struct FileStamp: Equatable, Sendable {
        var size: Int64
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
    }

    /// The stamp of the store at `path` now; nil when its main file cannot be read.
    init?(_ path: String) {
        guard let main = Self.stamp(path) else { return nil }
        self.main = main
        wal = Self.stamp(path + "-wal")
    }

    /// From `stat` itself: it runs twice per request, and on Linux `FileManager`'s attributes
    /// also look up the owner's and group's names.
    private static func stamp(_ path: String) -> FileStamp? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
            let modified = status.st_mtimespec
        #else
            let modified = status.st_mtim
        #endif
        return FileStamp(size: Int64(status.st_size), modifiedSeconds: Int64(modified.tv_sec), modifiedNanoseconds: Int64(modified.tv_nsec))
    }
}
