import CMemory
import Foundation

/// One store the server shows, as the command line named it. Requests name it by ``number``
/// or ``name`` only: a path never comes from a request.
package struct ServedStore: Sendable, Equatable {
    /// 1-based position in the list on `/`.
    package let number: Int
    /// The file name without its extension (`Photos` for `Photos.sqlite`).
    package let name: String
    /// The path as the command line gave it, relative or not, or as `--find` found it: the
    /// pages show it so (the store page's JSON has the absolute path in `inspection.path`).
    package let path: String
    /// The model given with `--model`, if any.
    package let modelPath: String?
    /// For stores found with `--find`: the device and app it belongs to, shown as the group.
    package let group: String?

    package init(number: Int, path: String, modelPath: String?, group: String? = nil) {
        self.number = number
        self.path = path
        self.modelPath = modelPath
        self.group = group
        let file = URL(fileURLWithPath: path).lastPathComponent
        let stem = (file as NSString).deletingPathExtension
        name = stem.isEmpty ? file : stem
    }
}

/// The served stores and their session pools, looked up by the `{store}` segment of a URL.
package final class StoreCatalog: Sendable {
    package let stores: [ServedStore]
    let pools: [SessionPool]
    /// The change feeds of the event streams, one per store, by store number - 1.
    package let feeds: [LiveFeed]
    /// The threads every request's SQLite work runs on, shared by all stores.
    package let workers: WorkerPool
    /// A random name of this server run, in every page's ``EntityTag``: a page kept from an
    /// earlier run (other stores, other numbers, on the same port) is never taken as current.
    let instance = String(UInt64.random(in: 0...UInt64.max), radix: 36)

    /// Seconds a session may stay unused in its pool before it is closed.
    let sessionIdleTime: Double
    private let lastSweep = SweepTime()
    /// The stores that keep sessions open between requests, at most ``defaultOpenStores``.
    private let openStores: OpenStores

    /// Stores that keep sessions open between requests, at most, unless told otherwise: a few
    /// stores looked at in turn keep theirs, `serve --find` over hundreds stays within bounds.
    package static let defaultOpenStores = 16

    /// `queryTimeout` bounds each request's queries and its wait for a worker; `idleSessions` is
    /// each pool's size (0: a session per request, for the measurement in ``SessionPool``);
    /// `live` paces the event streams' watchers; `workers` is the number of worker threads
    /// (default: one per core) and `queueLimit` the requests that may wait for one; a session
    /// unused for `sessionIdleTime` seconds is closed, and at most `openStores` stores keep
    /// sessions (``OpenStores``).
    package init(
        stores: [ServedStore], queryTimeout: Double, idleSessions: Int = SessionPool.defaultIdleSessions, live: LiveSettings = LiveSettings(),
        workers: Int? = nil, queueLimit: Int? = nil, sessionIdleTime: Double = 60, openStores: Int = StoreCatalog.defaultOpenStores
    ) {
        self.stores = stores
        self.sessionIdleTime = sessionIdleTime
        self.workers = WorkerPool(workers: workers, queueLimit: queueLimit, queueTimeout: max(queryTimeout, WorkerPool.shortestWait))
        let open = OpenStores(limit: openStores)
        self.openStores = open
        pools = stores.map { SessionPool(store: $0, queryTimeout: queryTimeout, maximumIdle: idleSessions, openStores: open) }
        feeds = stores.map { LiveFeed(store: $0, settings: live) }
    }

    /// Closes the sessions of every store that were unused for ``sessionIdleTime``. Called by
    /// each request's worker (closing is file work), at most once per second: with hundreds of
    /// stores, a look at each pool per request would cost more than the request.
    ///
    /// Memory freed by closed sessions is then given back to the system: glibc's allocator keeps
    /// freed blocks in the arena of the thread that freed them (one per worker thread), so
    /// without a trim the server's resident size after a sweep stays at its peak.
    package func closeIdleSessions(now: Date = Date()) {
        guard lastSweep.claim(now: now, every: min(1, sessionIdleTime)) else { return }
        let before = now.addingTimeInterval(-sessionIdleTime)
        let closed = pools.reduce(0) { $0 + $1.closeIdle(before: before) }
        if openStores.takeClosedSessions() || closed > 0 { _ = cdstore_release_free_memory() }
    }

    /// The sessions kept open between requests, over all stores.
    package var idleSessionCount: Int { pools.reduce(0) { $0 + $1.idleCount } }

    /// The stores that keep sessions open, by number, the most recently used last.
    package var storesWithSessions: [Int] { openStores.storeNumbers }

    /// The change feed of the store a URL names, as ``pool(named:)`` finds it.
    func feed(named segment: String) throws(ServeError) -> LiveFeed {
        feeds[try pool(named: segment).store.number - 1]
    }

    /// The pool of the store a URL names: its number, or its name when no other store has it.
    func pool(named segment: String) throws(ServeError) -> SessionPool {
        if let number = Int(segment), segment.allSatisfy(\.isASCII), let store = stores.first(where: { $0.number == number }) {
            return pools[store.number - 1]
        }
        let named = stores.filter { $0.name == segment }
        guard named.count == 1, let store = named.first else {
            if named.count > 1 { throw .badRequest("\(named.count) stores are named \"\(segment)\"; name the one you mean by its number") }
            throw .unknownStore(segment)
        }
        return pools[store.number - 1]
    }

    /// The URL segment that names `store`: its name when that is unique, else its number.
    func segment(for store: ServedStore) -> String {
        stores.filter({ $0.name == store.name }).count == 1 && Int(store.name) == nil ? store.name : String(store.number)
    }
}

/// When the catalog last closed idle sessions, claimed by one request at a time.
private final class SweepTime: @unchecked Sendable {
    private let lock = NSLock()
    private var last = Date()

    /// True (and the time is now) when `every` seconds have passed since the last claim.
    func claim(now: Date, every: Double) -> Bool {
        lock.withLock {
            guard now.timeIntervalSince(last) >= every else { return false }
            last = now
            return true
        }
    }
}
