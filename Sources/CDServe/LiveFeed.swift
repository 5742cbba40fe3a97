import CDChanges
import CDRendering
import CDStore
import Foundation

/// How often a ``LiveFeed`` looks at its store and how often an idle stream says it is alive.
package struct LiveSettings: Sendable {
    /// Time between two polls of the store's files (``StoreWatcher/poll()``).
    package var pollInterval: Double
    /// Time between two comment lines on an idle stream, so that a proxy does not close it and a
    /// client that left is noticed even where the connection's close is not.
    package var heartbeatInterval: Double

    package init(pollInterval: Double = 1, heartbeatInterval: Double = 15) {
        self.pollInterval = pollInterval
        self.heartbeatInterval = heartbeatInterval
    }
}

/// The changes to one entity's objects between two polls: one `change` event of
/// `/stores/{store}/events` (schemas/serve-event.schema.json).
///
/// An object is listed once per event: one inserted and then updated between two polls is an
/// insert, one updated and then deleted is a delete. The counts are exact; each list of primary
/// keys holds at most ``maximumKeys`` of them, the smallest, and `truncated` says when a list
/// was cut.
struct LiveChange: Equatable, Sendable {
    static let maximumKeys = 1000

    /// The objects' own entity (a sub-entity's objects are named by the sub-entity), by the
    /// model's name as every page names it (``WatchedChange``'s IDs come named so): a page marks
    /// the keys of the events whose entity is one of its names, and `Z_PRIMARYKEY` keeps the old
    /// name of an entity a migration renamed.
    let entity: String
    let inserted: Int
    let updated: Int
    let deleted: Int
    let insertedKeys: [Int64]
    let updatedKeys: [Int64]
    let deletedKeys: [Int64]

    /// Whether a list of keys holds fewer keys than its count.
    var truncated: Bool { inserted > insertedKeys.count || updated > updatedKeys.count || deleted > deletedKeys.count }

    /// One change per entity that changed in `commits` (one poll's), by entity name.
    static func changes(_ commits: [WatchedCommit]) -> [LiveChange] {
        var inserted: [String: Set<Int64>] = [:], updated: [String: Set<Int64>] = [:], deleted: [String: Set<Int64>] = [:]
        for commit in commits {
            for change in commit.changes {
                switch change.type {
                case .insert: inserted[change.id.entity, default: []].insert(change.id.pk)
                case .update: updated[change.id.entity, default: []].insert(change.id.pk)
                case .delete: deleted[change.id.entity, default: []].insert(change.id.pk)
                }
            }
        }
        let entities = Set(inserted.keys).union(updated.keys).union(deleted.keys).sorted()
        return entities.map { entity in
            let added = inserted[entity] ?? [], removed = deleted[entity] ?? []
            let saved = (updated[entity] ?? []).subtracting(added).subtracting(removed)
            func first(_ keys: Set<Int64>) -> [Int64] { Array(keys.sorted().prefix(maximumKeys)) }
            return LiveChange(
                entity: entity, inserted: added.count, updated: saved.count, deleted: removed.count,
                insertedKeys: first(added), updatedKeys: first(saved), deletedKeys: first(removed))
        }
    }

    /// The event's data: one line of JSON, keys in this order.
    var json: String {
        var json = JSONWriter(htmlSafe: true)
        json.beginObject()
        json.member("entity", entity)
        json.member("inserted", inserted)
        json.member("updated", updated)
        json.member("deleted", deleted)
        for (name, keys) in [("inserted_pks", insertedKeys), ("updated_pks", updatedKeys), ("deleted_pks", deletedKeys)] {
            json.key(name)
            json.beginArray()
            for key in keys { json.int(key) }
            json.endArray()
        }
        json.member("truncated", truncated)
        json.endObject()
        return json.text
    }
}

/// What a ``LiveFeed`` tells each of its clients.
enum LiveMessage: Sendable {
    /// The watcher has its first snapshot: changes from now on are reported.
    case watching
    case change(LiveChange)
    /// Time for a heartbeat comment.
    case heartbeat
    /// The store cannot be watched any more (gone, unreadable): the last message.
    case failure(ServeError)
}

/// The changes to one served store, for every client of its event stream.
///
/// One ``StoreWatcher`` per store, whatever the number of clients: it starts with the first
/// client and stops when the last one leaves, so a store nobody watches costs nothing. The
/// watcher runs on a thread of its own, because each poll that sees new files copies the store
/// (blocking file and SQLite work that has no place on the server's event loops); its private
/// copies are removed when it stops. Between polls it sleeps ``LiveSettings/pollInterval``.
/// With `serve --model`, the watcher reads the store with that model, as the pages do: a store
/// without a model cache is watched too, and entities are named as its pages name them.
package final class LiveFeed: @unchecked Sendable {
    /// Messages a client may have waiting before it counts as fallen behind.
    static let maximumWaiting = 10_000

    let store: ServedStore
    let settings: LiveSettings
    /// Guards everything below; the watcher's thread also waits on it between polls.
    private let condition = NSCondition()
    private var clients: [Int: AsyncStream<LiveMessage>.Continuation] = [:]
    private var nextClient = 0
    /// Bumped whenever the watcher is started or stopped: a thread whose generation is not the
    /// current one has been told to stop.
    private var generation = 0
    private var isActive = false
    private var isReady = false
    private var started = 0
    private var runningThreads = 0

    init(store: ServedStore, settings: LiveSettings) {
        self.store = store
        self.settings = settings
    }

    /// How many watchers this feed has started so far.
    package var watchersStarted: Int { condition.withLock { started } }

    /// Whether a watcher's thread is still running (it ends soon after the last client leaves).
    package var isWatching: Bool { condition.withLock { runningThreads > 0 } }

    /// The clients connected now.
    package var clientCount: Int { condition.withLock { clients.count } }

    /// Adds a client: its messages, and the number to give back to ``unsubscribe(_:)``.
    func subscribe() -> (client: Int, messages: AsyncStream<LiveMessage>) {
        let (messages, continuation) = AsyncStream.makeStream(of: LiveMessage.self, bufferingPolicy: .bufferingOldest(Self.maximumWaiting))
        condition.lock()
        defer { condition.unlock() }
        let client = nextClient
        nextClient += 1
        clients[client] = continuation
        if !isActive {
            isActive = true
            isReady = false
            generation += 1
            started += 1
            runningThreads += 1
            let mine = generation
            let thread = Thread { [self] in watch(generation: mine) }
            thread.name = "cdstore-serve-watch"
            thread.start()
        } else if isReady {
            continuation.yield(.watching)
        }
        return (client, messages)
    }

    /// Removes a client; the last one to leave stops the watcher.
    func unsubscribe(_ client: Int) {
        condition.lock()
        defer { condition.unlock() }
        clients.removeValue(forKey: client)?.finish()
        if clients.isEmpty && isActive { stop() }
    }

    /// Marks the watcher stopped and wakes its thread. Called with the lock held.
    private func stop() {
        isActive = false
        isReady = false
        generation += 1
        condition.broadcast()
    }

    private func watch(generation mine: Int) {
        defer { condition.withLock { runningThreads -= 1 } }
        let watcher: StoreWatcher
        do {
            watcher = try StoreWatcher(path: store.path, modelPath: store.modelPath)
        } catch {
            end(generation: mine, with: .failure(ServeError(error)))
            return
        }
        guard send(generation: mine, .watching, update: { isReady = true }) else { return }
        var lastHeartbeat = Date()
        while sleep(generation: mine) {
            let changes: [LiveChange]
            do {
                changes = LiveChange.changes(try watcher.poll())
            } catch {
                end(generation: mine, with: .failure(ServeError(error)))
                return
            }
            for change in changes { guard send(generation: mine, .change(change)) else { return } }
            if Date().timeIntervalSince(lastHeartbeat) >= settings.heartbeatInterval {
                lastHeartbeat = Date()
                guard send(generation: mine, .heartbeat) else { return }
            }
        }
    }

    /// Waits one poll interval; false when the watcher was stopped meanwhile.
    private func sleep(generation mine: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let until = Date().addingTimeInterval(settings.pollInterval)
        while generation == mine && Date() < until { _ = condition.wait(until: until) }
        return generation == mine
    }

    /// Gives `message` to every client, after `update` (both with the lock held); false when
    /// the watcher was stopped. A client with ``maximumWaiting`` messages unread is dropped: its
    /// messages end there, without a failure.
    private func send(generation mine: Int, _ message: LiveMessage, update: () -> Void = {}) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard generation == mine else { return false }
        update()
        for (client, continuation) in clients {
            if case .dropped = continuation.yield(message) {
                clients.removeValue(forKey: client)
                continuation.finish()
            }
        }
        if clients.isEmpty { stop() }
        return isActive
    }

    /// Gives every client its last message and stops the watcher.
    private func end(generation mine: Int, with message: LiveMessage) {
        condition.lock()
        defer { condition.unlock() }
        guard generation == mine else { return }
        for continuation in clients.values {
            continuation.yield(message)
            continuation.finish()
        }
        clients.removeAll()
        stop()
    }
}
