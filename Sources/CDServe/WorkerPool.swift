import Foundation

/// The threads of `cdstore serve` that run every request's SQLite and file work.
///
/// Why threads of its own: Swift's cooperative pool has one thread per core, and a page that
/// held one in SQLite for seconds (a MATCHES filter over millions of rows) stalled every other
/// request, every export and the event streams' heartbeats. A request now awaits its work
/// (``run(_:_:)``) while a worker thread does it, so the cooperative threads and the event loops
/// only ever wait on sockets.
///
/// - **Fair to quick pages.** Work comes in two lanes. *Heavy* work (a filtered entity page, an
///   export, validate, compat, explain's check, history, diff) holds at most `workers - 1` threads
///   at once (one when there is one worker), and waiting *quick* work (a plain page) is taken
///   first. Quick work that runs past ``slowAfter`` counts as heavy from then on, so a page that
///   turns out slow also leaves a thread for the next quick one.
/// - **Bounded.** At most ``queueLimit`` requests wait; one more is answered at once with
///   ``ServeError/busy(waiting:workers:)`` (503 with `Retry-After`). A request waits at most
///   `--query-timeout` (1 s at least) for a thread, then it is a 503 too; the same limit then bounds its queries.
/// - **Cancellable.** When the awaiting task is cancelled (the client went away), waiting work
///   is dropped, and running work's statement is stopped by its ``QueryDeadline``, which checks
///   ``WorkerJob/isCancelled`` every few thousand SQLite steps.
///
/// Threads start when work arrives and end after `linger` seconds without work, so a pool
/// nobody uses holds no thread.
package final class WorkerPool: @unchecked Sendable {
    /// Which share of the threads a piece of work may take.
    package enum Lane: Sendable {
        case quick, heavy
    }

    /// Threads at most.
    package let workers: Int
    /// Requests that may wait for a thread at most.
    package let queueLimit: Int
    /// The longest a request waits for a thread (`--query-timeout`).
    let queueTimeout: Double
    /// Running time after which quick work counts as heavy.
    static let slowAfter = 0.25
    /// The shortest wait for a thread the server allows, whatever `--query-timeout` says: a
    /// limit of a few milliseconds (which tests use to make every query time out) would
    /// otherwise turn a request that waited its turn behind one other into a 503.
    package static let shortestWait = 1.0
    /// Seconds an idle thread waits for work before it ends.
    let linger: Double

    private let condition = NSCondition()
    private var waiting: [WorkerJob] = []
    private var running: [WorkerJob] = []
    private var threads = 0
    private var idleThreads = 0
    private var watchdogRunning = false
    private var stoppedByCancellation = 0

    /// `workers` threads at most (the default: one per core); `queueLimit` waiting requests at
    /// most (default 16 per worker); an idle thread ends after `linger` seconds.
    package init(workers: Int? = nil, queueLimit: Int? = nil, queueTimeout: Double, linger: Double = 2) {
        let workers = max(1, workers ?? ProcessInfo.processInfo.activeProcessorCount)
        self.workers = workers
        self.linger = linger
        self.queueLimit = queueLimit ?? 16 * workers
        self.queueTimeout = queueTimeout
    }

    /// Heavy work running at once, at most.
    var heavyLimit: Int { max(1, workers - 1) }

    /// Runs `work` on a worker thread and returns its result; throws ``ServeError/busy(waiting:workers:)``
    /// when the queue is full or the wait ran past the limit, and `CancellationError` when the
    /// task was cancelled before the work began.
    package func run<Value: Sendable>(_ lane: Lane, _ work: @escaping @Sendable (WorkerJob) throws -> Value) async throws -> Value {
        let job = WorkerJob(lane: lane, waitUntil: Date(timeIntervalSinceNow: queueTimeout))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                job.bind(
                    execute: { job in
                        let result = Result { try work(job) }
                        continuation.resume(with: result)
                        if case .failure(let error) = result, error is CancellationError { return true }
                        return false
                    },
                    abandon: { error in continuation.resume(throwing: error) })
                submit(job)
            }
        } onCancel: {
            cancel(job)
        }
    }

    /// Work that began and then stopped because its request was cancelled (its statement
    /// interrupted), since the pool was made.
    package var cancelledWhileRunning: Int { condition.withLock { stoppedByCancellation } }

    /// The worker threads alive now.
    package var threadCount: Int { condition.withLock { threads } }

    /// The requests waiting and the work running now.
    package var load: (waiting: Int, running: Int) { condition.withLock { (waiting.count, running.count) } }

    private func submit(_ job: WorkerJob) {
        condition.lock()
        if job.isCancelled {
            condition.unlock()
            job.abandon(CancellationError())
            return
        }
        guard waiting.count < queueLimit else {
            let count = waiting.count
            condition.unlock()
            job.abandon(ServeError.busy(waiting: count, workers: workers))
            return
        }
        waiting.append(job)
        // Work that may have to wait: heavy work (the heavy threads may be taken), or any work
        // when every thread is busy.
        if job.lane == .heavy || (idleThreads == 0 && threads >= workers) { startWatchdog() }
        if idleThreads == 0 && threads < workers {
            threads += 1
            Thread.detachNewThread { [self] in
                // Named from inside: on Linux a name set before the start is not applied.
                Thread.current.name = Self.threadName
                serve()
            }
        } else {
            condition.broadcast()
        }
        condition.unlock()
    }

    private func cancel(_ job: WorkerJob) {
        condition.lock()
        job.markCancelled()
        let index = waiting.firstIndex { $0 === job }
        if let index { waiting.remove(at: index) }
        condition.unlock()
        if index != nil { job.abandon(CancellationError()) }
    }

    /// A worker thread's life: run what may run, wait while nothing may, end when idle too long.
    private func serve() {
        condition.lock()
        var idleSince = Date()
        while true {
            let now = Date()
            if let job = nextRunnable(now: now) {
                job.started = now
                running.append(job)
                condition.unlock()
                let stopped = job.execute()
                condition.lock()
                if stopped { stoppedByCancellation += 1 }
                running.removeAll { $0 === job }
                condition.broadcast()
                idleSince = Date()
                continue
            }
            idleThreads += 1
            if waiting.isEmpty {
                let lingerEnd = idleSince.addingTimeInterval(linger)
                guard now < lingerEnd else {
                    idleThreads -= 1
                    threads -= 1
                    condition.unlock()
                    return
                }
                _ = condition.wait(until: lingerEnd)
            } else {
                // Only heavy work waits, and the heavy threads are taken: a finished job, new
                // work or the watchdog's expiry wakes this thread (broadcast).
                condition.wait()
            }
            idleThreads -= 1
        }
    }

    /// The name a debugger shows for a worker thread (15 bytes at most: Linux refuses longer).
    static let threadName = "cdstore-worker"

    /// Ends the waits that ran past the limit, on a thread of its own that runs while work waits:
    /// when every worker is busy, none of them could. Called with the lock held.
    private func startWatchdog() {
        guard !watchdogRunning else { return }
        watchdogRunning = true
        Thread.detachNewThread { [self] in
            condition.lock()
            while let soonest = waiting.map(\.waitUntil).min() {
                let now = Date()
                if soonest > now {
                    _ = condition.wait(until: soonest)
                    continue
                }
                let expired = expireWaiting(now: now)
                condition.broadcast()
                condition.unlock()
                for job in expired { job.abandon(ServeError.waitedTooLong(seconds: queueTimeout)) }
                condition.lock()
            }
            watchdogRunning = false
            condition.unlock()
        }
    }

    /// Removes the waiting work whose wait ran past the limit. Called with the lock held.
    private func expireWaiting(now: Date) -> [WorkerJob] {
        let expired = waiting.filter { $0.waitUntil <= now }
        if !expired.isEmpty { waiting.removeAll { $0.waitUntil <= now } }
        return expired
    }

    /// The next work a free thread may take: the oldest quick work, else the oldest heavy work
    /// while fewer than ``heavyLimit`` threads hold heavy or slow work. Called with the lock held.
    private func nextRunnable(now: Date) -> WorkerJob? {
        if let index = waiting.firstIndex(where: { $0.lane == .quick }) { return waiting.remove(at: index) }
        let heavyRunning = running.filter { $0.lane == .heavy || now.timeIntervalSince($0.started ?? now) >= Self.slowAfter }.count
        guard heavyRunning < heavyLimit, let index = waiting.firstIndex(where: { $0.lane == .heavy }) else { return nil }
        return waiting.remove(at: index)
    }
}

/// One request's work in a ``WorkerPool``: its lane, how long it may wait, and whether its
/// client went away (which its ``QueryDeadline`` reads to stop a running statement).
package final class WorkerJob: @unchecked Sendable {
    let lane: WorkerPool.Lane
    let waitUntil: Date
    /// When a thread took it; guarded by the pool's lock.
    var started: Date?
    private let lock = NSLock()
    private var cancelled = false
    private var executeBody: ((WorkerJob) -> Bool)?
    private var abandonBody: ((any Error) -> Void)?

    init(lane: WorkerPool.Lane, waitUntil: Date) {
        self.lane = lane
        self.waitUntil = waitUntil
    }

    /// Whether the request's task was cancelled.
    package var isCancelled: Bool { lock.withLock { cancelled } }

    func markCancelled() { lock.withLock { cancelled = true } }

    func bind(execute: @escaping (WorkerJob) -> Bool, abandon: @escaping (any Error) -> Void) {
        lock.withLock {
            executeBody = execute
            abandonBody = abandon
        }
    }

    /// Runs the work and answers the request; the pool calls exactly one of this and
    /// ``abandon(_:)``. True when the work stopped because the request was cancelled.
    func execute() -> Bool {
        let body = lock.withLock { () -> ((WorkerJob) -> Bool)? in
            defer { executeBody = nil; abandonBody = nil }
            return executeBody
        }
        return body?(self) ?? false
    }

    /// Answers the request with `error` without running the work.
    func abandon(_ error: any Error) {
        let body = lock.withLock { () -> ((any Error) -> Void)? in
            defer { executeBody = nil; abandonBody = nil }
            return abandonBody
        }
        body?(error)
    }
}
