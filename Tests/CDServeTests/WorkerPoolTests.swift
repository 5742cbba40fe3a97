import CDServe
import CDTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// ``WorkerPool``: work runs on threads of the server's own, heavy work leaves a thread for quick
/// work, the queue is bounded, waits and statements end when their request is cancelled.
///
/// Every wait here is for an event (a job that starts resumes the test; a gate the test opens
/// lets jobs finish), never for a clock, except the one test of the wait limit itself.
@Suite struct WorkerPoolTests {
    /// A gate jobs wait at on their worker threads until the test opens it.
    final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var open = false
        private var inside = 0
        private(set) var mostInside = 0

        func pass() {
            condition.lock()
            inside += 1
            mostInside = max(mostInside, inside)
            while !open { condition.wait() }
            inside -= 1
            condition.unlock()
        }

        func openUp() {
            condition.lock()
            open = true
            condition.broadcast()
            condition.unlock()
        }

        var most: Int { condition.withLock { mostInside } }
    }

    /// Starts `lane` work that waits at `gate`, and returns once it runs, with its task.
    static func startBlocked(_ pool: WorkerPool, _ lane: WorkerPool.Lane, at gate: Gate, value: Int) async -> Task<Int, any Error> {
        var task: Task<Int, any Error>?
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            task = Task {
                try await pool.run(lane) { _ in
                    started.resume()
                    gate.pass()
                    return value
                }
            }
        }
        return task!
    }

    /// Threads start with work, take the next waiting work themselves, and end once idle for
    /// `linger`. No clock decides the outcome: the second job waits while the first holds the
    /// only thread, so the thread that frees itself takes it.
    @Test func threadsAreReusedAndEndWhenIdle() async throws {
        let pool = WorkerPool(workers: 1, queueTimeout: 60, linger: 0.2)
        #expect(pool.threadCount == 0)
        let gate = Gate()
        defer { gate.openUp() }
        let first = Task {
            try await pool.run(.quick) { _ in
                gate.pass(); return pthread_self()
            }
        }
        while pool.load.running == 0 { await Task.yield() }
        let second = Task { try await pool.run(.quick) { _ in pthread_self() } }
        while pool.load.waiting == 0 { await Task.yield() }
        #expect(pool.threadCount == 1)
        gate.openUp()
        #expect(pthread_equal(try await first.value, try await second.value) != 0)
        var pauses = 0
        while pool.threadCount > 0 && pauses < 3000 {
            await ServeLiveTests.pause(milliseconds: 20)
            pauses += 1
        }
        #expect(pool.threadCount == 0)
        #expect(try await pool.run(.quick) { _ in 7 } == 7)
    }

    @Test func heavyWorkLeavesAThreadForQuickWork() async throws {
        let pool = WorkerPool(workers: 2, queueTimeout: 60)
        let gate = Gate()
        defer { gate.openUp() }
        let first = await Self.startBlocked(pool, .heavy, at: gate, value: 1)
        // Three more heavy requests wait: with two workers, heavy work holds one thread at most.
        let waiting = (2...4).map { value in
            Task {
                try await pool.run(.heavy) { _ in
                    gate.pass(); return value
                }
            }
        }
        while pool.load.waiting < 3 { await Task.yield() }
        // A quick page is answered while all four heavy requests are still unanswered.
        let quick = try await pool.run(.quick) { _ in 42 }
        #expect(quick == 42)
        #expect(pool.load.running == 1 && pool.load.waiting == 3)
        gate.openUp()
        var values = [try await first.value]
        for task in waiting { values.append(try await task.value) }
        #expect(values == [1, 2, 3, 4])
        #expect(gate.most == 1)
    }

    @Test func quickWorkThatRunsLongCountsAsHeavy() async throws {
        let pool = WorkerPool(workers: 3, queueTimeout: 60)
        let gate = Gate()
        defer { gate.openUp() }
        let slowQuick = await Self.startBlocked(pool, .quick, at: gate, value: 1)
        let heavy = await Self.startBlocked(pool, .heavy, at: gate, value: 2)
        // Once the quick work has run past slowAfter, two threads hold slow work: with three
        // workers, a third heavy request waits although a thread is free.
        await ServeLiveTests.pause(milliseconds: 300)
        let third = Task { try await pool.run(.heavy) { _ in 3 } }
        while pool.load.waiting < 1 { await Task.yield() }
        #expect(try await pool.run(.quick) { _ in 4 } == 4)
        #expect(pool.load.waiting == 1)
        gate.openUp()
        #expect(try await [slowQuick.value, heavy.value, third.value] == [1, 2, 3])
    }

    @Test func aFullQueueAnswersBusyAtOnce() async throws {
        let pool = WorkerPool(workers: 1, queueLimit: 2, queueTimeout: 60)
        let gate = Gate()
        defer { gate.openUp() }
        let running = await Self.startBlocked(pool, .quick, at: gate, value: 1)
        let waiting = (2...3).map { value in Task { try await pool.run(.quick) { _ in value } } }
        while pool.load.waiting < 2 { await Task.yield() }
        await #expect(throws: ServeError.busy(waiting: 2, workers: 1)) { try await pool.run(.quick) { _ in 4 } }
        gate.openUp()
        #expect(try await [running.value, waiting[0].value, waiting[1].value] == [1, 2, 3])
    }

    @Test func aRequestWaitsAtMostTheTimeLimit() async throws {
        let pool = WorkerPool(workers: 1, queueTimeout: 0.3)
        let gate = Gate()
        defer { gate.openUp() }
        let running = await Self.startBlocked(pool, .heavy, at: gate, value: 1)
        let start = Date()
        await #expect(throws: ServeError.waitedTooLong(seconds: 0.3)) { try await pool.run(.heavy) { _ in 2 } }
        #expect(Date().timeIntervalSince(start) >= 0.3)
        gate.openUp()
        #expect(try await running.value == 1)
    }

    @Test func aCancelledWaitingRequestNeverRuns() async throws {
        let pool = WorkerPool(workers: 1, queueTimeout: 60)
        let gate = Gate()
        defer { gate.openUp() }
        let running = await Self.startBlocked(pool, .quick, at: gate, value: 1)
        let ran = Gate()
        let waiting = Task {
            try await pool.run(.quick) { _ in
                ran.openUp(); return 2
            }
        }
        while pool.load.waiting < 1 { await Task.yield() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(pool.load.waiting == 0)
        gate.openUp()
        #expect(try await running.value == 1)
        #expect(try await pool.run(.quick) { _ in 3 } == 3)
        #expect(ran.most == 0)
    }

    /// A statement that would run for ever stops when its request is cancelled: the progress
    /// handler sees the cancellation within a few thousand SQLite steps. Measured on the worker
    /// thread, from the moment the test cancels to the statement's end: well under 100 ms on an
    /// idle machine; the bound here is a second, because in a full parallel run the worker may
    /// wait that long for a core.
    @Test func aCancelledRunningStatementStops() async throws {
        let pool = WorkerPool(workers: 1, queueTimeout: 60)
        let database = try DatabaseQueue()
        let deadline = QueryDeadline()
        deadline.install(on: database)
        let ended = Stamp()
        var task: Task<Int, any Error>?
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            task = Task {
                try await pool.run(.heavy) { job in
                    deadline.start(seconds: 60, job: job)
                    defer { deadline.stop() }
                    started.resume()
                    do {
                        return try database.read { db in
                            try Int.fetchOne(db, sql: "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n") ?? 0
                        }
                    } catch {
                        ended.set()
                        throw error
                    }
                }
            }
        }
        let cancelled = Date()
        task?.cancel()
        await #expect(throws: (any Error).self) { try await task?.value }
        let stopped = try #require(ended.value)
        #expect(deadline.wasCancelled && !deadline.hasPassed)
        #expect(stopped.timeIntervalSince(cancelled) < 1, "stopped \(stopped.timeIntervalSince(cancelled)) s after the cancellation")
    }

    /// When a time is stamped, from any thread.
    final class Stamp: @unchecked Sendable {
        private let lock = NSLock()
        private var date: Date?
        func set() { lock.withLock { date = Date() } }
        var value: Date? { lock.withLock { date } }
    }
}

/// Every page but the static files and the event stream is answered by a worker: with no room
/// to wait, each is a 503 with `Retry-After` and the busy message, in HTML and as JSON.
@Suite(.temporaryDirectories) struct ServeWorkerRoutingTests {
    @Test func everyPageGoesThroughTheWorkers() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample, ServeHarness.sample])
        let pages = [
            "/", "/stores/1", "/stores/1/entities/Car", "/stores/1/entities/Car.csv", "/stores/1/entities/Car/1", "/stores/1/model",
            "/stores/1/validate", "/stores/1/compat", "/stores/1/history", "/explain", "/diff/1/2",
        ]
        let workers = ProcessInfo.processInfo.activeProcessorCount
        let message = "the server is busy: 0 requests wait for its \(workers) worker\(workers == 1 ? "" : "s") (--workers); try again shortly"
        try await ServeHarness.withServer(copies, queueLimit: 0) { client in
            for page in pages {
                let answer = try await ServeHarness.get(client, page)
                #expect(answer.status == 503 && answer.header("Retry-After") == "1", "\(page)")
                #expect(answer.body.contains(message), "\(page)")
                let json = try await ServeHarness.get(client, page, accept: "application/json")
                #expect(try json.json["error"]?["message"]?.string == message, "\(page)")
            }
            for page in ["/-/cdstore.css", "/-/cdstore.js"] {
                #expect(try await ServeHarness.get(client, page).status == 200, "\(page)")
            }
        }
    }
}
