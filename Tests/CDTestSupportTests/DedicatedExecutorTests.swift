import CDTestSupport
import Foundation
import Testing

/// The executor ServeLiveTests run their in-process server on: tasks under its preference run
/// on its own threads, and go on running while every thread of the shared pool is held.
@Suite struct DedicatedExecutorTests {
    /// Holds one thread of the shared pool until released (or 30 s pass).
    final class Holder: @unchecked Sendable {
        let release = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var started = 0
        private var timedOut = 0
        var counts: (started: Int, timedOut: Int) { lock.withLock { (started, timedOut) } }

        func hold() {
            lock.withLock { started += 1 }
            if release.wait(timeout: .now() + 30) == .timedOut { lock.withLock { timedOut += 1 } }
        }
    }

    static func onItsThread() -> Bool { DedicatedExecutor.shared.isCurrent }

    @Test func childTasksRunOnItsThreadsWhileTheSharedPoolIsHeld() async throws {
        let holders = ProcessInfo.processInfo.activeProcessorCount
        let holder = Holder()
        let tasks = (0..<holders).map { _ in Task.detached { holder.hold() } }
        let names = await withTaskExecutorPreference(DedicatedExecutor.shared) {
            // Waits on this executor's thread, not the pool's, until every holder holds a thread.
            for _ in 0..<3000 where holder.counts.started < holders { usleep(10_000) }
            let names = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 { group.addTask { Self.onItsThread() } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            // Released from here: outside the preference this task itself needs the pool.
            for _ in 0..<holders { holder.release.signal() }
            return names
        }
        for task in tasks { await task.value }
        #expect(holder.counts.started == holders)
        #expect(holder.counts.timedOut == 0, "the tasks waited for the shared pool")
        #expect(names.count == 50 && names.allSatisfy { $0 }, "\(names.filter { !$0 }.count) of 50 ran elsewhere")
    }
}
