import Foundation

/// Blocking work an async test awaits, run on a thread of its own.
///
/// Swift Testing runs tests on the shared concurrency pool, one thread per core. A test that
/// blocks a pool thread (a child process's output read to its end, `waitUntilExit`, a sleep)
/// while what it waits for needs the pool too (an in-process server answering a browser or
/// curl) can hold every pool thread at once: then nothing runs and the suite hangs at 0% CPU,
/// as a fresh-clone run did with two WebDriver calls waiting on Chromium, which waited on the
/// in-process server. Work run here leaves the pool free.
public enum BlockingWork {
    /// Runs `body` on a new thread and returns its result (or throws its error) to the caller.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// Waits `milliseconds` on a thread of its own. Not `Task.sleep`: in a full parallel run a
    /// `Task.sleep` was seen never to resume (Linux, Swift 6.3.1; the cause was not found), which
    /// turned every bounded wait into an endless one. A thread's `usleep` always ends.
    public static func pause(milliseconds: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                usleep(UInt32(milliseconds) * 1000)
                continuation.resume()
            }
        }
    }
}
