import Foundation

/// A task executor with threads of its own, outside Swift's shared concurrency pool.
///
/// Why: `swift test` runs every suite in one process, and the shared pool has one thread per
/// core, two on CI. When other suites hold both with long synchronous checks, a server that a
/// test runs in its own process goes on answering, but one running inside the test process does
/// not, and its test client gives up (CI saw a HEAD request wait more than the live test client's
/// 20 seconds). Run under `withTaskExecutorPreference(DedicatedExecutor.shared)`, an in-process
/// server is as independent as a separate one: its connection tasks are structured children of
/// the test's task and inherit the preference (SE-0417); unstructured tasks do not.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor the in-process servers of the tests share, for the life of the test process.
    public static let shared = DedicatedExecutor(threads: 4, name: "cdstore-tests-server")

    private static let marker = "cdstore.DedicatedExecutor"

    /// Whether the calling code runs on one of this executor's threads.
    public var isCurrent: Bool { Thread.current.threadDictionary[Self.marker] as? ObjectIdentifier == ObjectIdentifier(self) }

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0

    /// Starts `threads` threads named `name`, which wait for jobs for as long as the process lives.
    public init(threads: Int, name: String) {
        for number in 0..<threads {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "\(name)-\(number)"
            thread.threadDictionary[Self.marker] = ObjectIdentifier(self)
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
