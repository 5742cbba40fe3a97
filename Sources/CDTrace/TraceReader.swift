import CDBase
import Foundation

/// Reads a whole log into a ``TraceAnalyzer``: lines from a ``LogLineReader``, records found
/// by ``LogRecordParser``, continuation lines of wrapped statements appended.
package enum TraceReader {
    /// Feeds every line of `reader` to `analyzer` and finishes it. Returns the number of lines.
    @discardableResult
    package static func read(_ reader: LogLineReader, into analyzer: TraceAnalyzer) -> Int {
        reader.forEachLine { line in
            let found = LogRecordParser.withRecord(in: line) { category, message in analyzer.consume(category, message) } != nil
            if !found, !line.isEmpty, analyzer.acceptsContinuation {
                _ = analyzer.continueStatement(String(decoding: line, as: UTF8.self))
            }
            return true
        }
        analyzer.finish()
        return reader.lineCount
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
