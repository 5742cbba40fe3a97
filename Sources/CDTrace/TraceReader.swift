import CDBase
import Foundation

/// Reads a whole log into a ``TraceAnalyzer``: lines from a ``LogLineReader``, each read into a
/// ``ParsedRecord`` (records found by ``LogRecordParser``, lines that may continue a wrapped
/// statement), then analysed in order.
///
/// A log read to its end is read on a thread of its own while the calling thread analyses it:
/// reading (finding lines and records, parsing annotations, making the statements' strings) is
/// about half the work, so a gigabyte log takes about half the time on two cores. The two hand
/// over records in batches through a small bounded queue, so memory stays flat. A followed log
/// (`--follow`) is read and analysed on one thread: its findings are printed as they come.
package enum TraceReader {
    /// Records handed over at a time.
    static let batchSize = 4096
    /// Batches read ahead of the analysis at most.
    static let batchesAhead = 4

    /// Feeds every line of `reader` to `analyzer` and finishes it. Returns the number of lines.
    @discardableResult
    package static func read(_ reader: LogLineReader, into analyzer: TraceAnalyzer) -> Int {
        let statements = StatementInterner()
        if reader.follows {
            reader.forEachLine { line in
                if let record = ParsedRecord.read(line, statements: statements) { analyzer.consume(record) }
                return true
            }
        } else {
            let queue = RecordBatches(capacity: batchesAhead)
            let owned = ReaderHandle(reader: reader, statements: statements)
            let thread = Thread {
                // Taken out of the captured handle once, not retained again for every line.
                let reader = owned.reader
                let statements = owned.statements
                var batch: [ParsedRecord] = []
                batch.reserveCapacity(batchSize)
                reader.forEachLine { line in
                    if let record = ParsedRecord.read(line, statements: statements, mayHoldEscape: reader.lineMayHoldEscape) {
                        batch.append(record)
                        if batch.count == batchSize {
                            queue.put(batch)
                            batch.removeAll(keepingCapacity: true)
                        }
                    }
                    return true
                }
                queue.put(batch)
                queue.finish()
            }
            thread.start()
            while let batch = queue.take() {
                for record in batch { analyzer.consume(record) }
            }
        }
        analyzer.finish()
        return reader.lineCount
    }
}

/// The reader and interner handed to the reading thread, which alone uses them until it
/// finishes the queue.
private struct ReaderHandle: @unchecked Sendable {
    let reader: LogLineReader
    let statements: StatementInterner
}

/// A bounded queue of record batches between the reading thread and the analysing one.
private final class RecordBatches: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [[ParsedRecord]] = []
    private var finished = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Adds a batch, waiting while the queue is full.
    func put(_ batch: [ParsedRecord]) {
        condition.lock()
        while batches.count >= capacity { condition.wait() }
        batches.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    /// No more batches will come.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch, waiting for it; nil once the reader has finished and every batch is taken.
    func take() -> [ParsedRecord]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !finished { condition.wait() }
        guard !batches.isEmpty else { return nil }
        let batch = batches.removeFirst()
        condition.broadcast()
        return batch
    }
}

/// Why `trace` cannot report.
package enum TraceError: UserFacingError, Equatable {
    /// The input held no Core Data SQL debug line.
    case noCoreDataLines(lines: Int, source: String)
    /// The log file cannot be opened.
    case unreadableLog(path: String, reason: String)
    /// `--store` names a store without a model cache, and no `--model` gives the names.
    case noModelCache(path: String)

    package var message: String {
        switch self {
        case .noCoreDataLines(let lines, let source):
            return "\(source) has no Core Data SQL debug lines (\(plural(lines, "line")) read): nothing to report"
        case .unreadableLog(let path, let reason):
            return "cannot read the log \(path): \(reason)"
        case .noModelCache(let path):
            return "\(path) has no model cache (Z_MODELCACHE, written before framework 754): pass the app's model with --model as well"
        }
    }

    package var hint: String? {
        switch self {
        case .noCoreDataLines:
            return
                "run the app with the launch arguments -com.apple.CoreData.SQLDebug 1 (up to 4) and -com.apple.CoreData.Logging.stderr 1, then capture the console or `log stream --level debug --predicate 'subsystem == \"com.apple.coredata\"'`"
        default:
            return nil
        }
    }
}
