import Dispatch

/// Runs two pieces of work at the same time and waits for both: `diff` uses it to let SQLite
/// sort store A's keyed scans while it sorts store B's.
///
/// Each piece must touch only what the other does not (here: one store's connection and the
/// statements prepared on it). A connection is then used by one thread at a time, as SQLite
/// and GRDB require, and waiting for both orders their effects before the caller goes on.
enum SideBySide {
    /// Runs `first` and `second` concurrently; rethrows `first`'s error, else `second`'s.
    static func run(_ first: () throws -> Void, _ second: () throws -> Void) throws {
        try withoutActuallyEscaping(first) { first in
            try withoutActuallyEscaping(second) { second in
                let work = Work(first, second)
                DispatchQueue.concurrentPerform(iterations: 2) { work.run($0) }
                if let error = work.firstError ?? work.secondError { throw error }
            }
        }
    }

    /// The two closures and their outcomes. Each iteration runs one closure and writes only its
    /// own error property, which is read after `concurrentPerform` has returned, so the class
    /// needs no lock; it is `@unchecked Sendable` because the compiler cannot see that.
    private final class Work: @unchecked Sendable {
        let first: () throws -> Void
        let second: () throws -> Void
        var firstError: (any Error)?
        var secondError: (any Error)?

        init(_ first: @escaping () throws -> Void, _ second: @escaping () throws -> Void) {
            self.first = first
            self.second = second
        }

        func run(_ index: Int) {
            if index == 0 {
                do { try first() } catch { firstError = error }
            } else {
                do { try second() } catch { secondError = error }
            }
        }
    }
}
