import Foundation
import GRDB
import GRDBSQLite

/// The time limit of one request's queries (`--query-timeout`), enforced by an SQLite progress
/// handler on the session's connection: every few thousand virtual-machine steps SQLite calls
/// it, and past the deadline it answers non-zero, which makes the running statement fail with
/// `SQLITE_INTERRUPT`. A handler needs no second thread, unlike `sqlite3_interrupt`. The same
/// handler stops the statement of a request whose client went away (``WorkerJob/isCancelled``).
package final class QueryDeadline: @unchecked Sendable {
    private let lock = NSLock()
    private var deadline: Date?
    private var job: WorkerJob?
    private var passed = false
    private var cancelled = false

    package init() {}

    /// Starts a request's clock: its queries may run until `seconds` from now, and until `job`
    /// is cancelled.
    package func start(seconds: Double, job: WorkerJob?) {
        lock.withLock {
            deadline = Date(timeIntervalSinceNow: seconds)
            self.job = job
            passed = false
            cancelled = false
        }
    }

    /// Stops the clock between requests.
    package func stop() {
        lock.withLock {
            deadline = nil
            job = nil
        }
    }

    /// Whether a query of this request was stopped by the deadline.
    package var hasPassed: Bool { lock.withLock { passed } }

    /// Whether a query of this request was stopped because its client went away.
    package var wasCancelled: Bool { lock.withLock { cancelled } }

    /// Called by SQLite: true stops the statement.
    fileprivate func isOver() -> Bool {
        lock.withLock {
            if job?.isCancelled == true {
                cancelled = true
                return true
            }
            guard let deadline, Date() >= deadline else { return false }
            passed = true
            return true
        }
    }

    /// Installs the handler on `database`'s connection; the deadline must outlive the connection.
    package func install(on database: DatabaseQueue) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        database.inDatabase { db in
            sqlite3_progress_handler(
                db.sqliteConnection, 4096,
                { context in
                    guard let context else { return 0 }
                    return Unmanaged<QueryDeadline>.fromOpaque(context).takeUnretainedValue().isOver() ? 1 : 0
                }, context)
        }
    }

    /// `seconds` as the messages write it: `10`, `0.5`.
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
