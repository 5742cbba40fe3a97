import Foundation

/// What one line of a log gives the ``TraceAnalyzer``, read from its bytes alone: reading needs
/// no state of the analysis, so a long log is read on one thread while it is analysed on another
/// (``TraceReader``).
package enum ParsedRecord: Sendable, Equatable {
    /// A `sql:` record: the statement as logged, and its number from a ``StatementInterner``
    /// (nil when not numbered).
    case statement(String, number: Int?)
    /// A `sql:` record repeating a statement given before as `.statement(text, number:)` with
    /// this number (by the same interner, to the same analyzer): only the number crosses from
    /// the reading thread, so the text's reference count is not touched by both threads.
    case repeatedStatement(number: Int)
    /// A `details: SQLite bind[i] = …` record (only counted).
    case bind
    /// Any other `details:` record (query plans at level 4).
    case details(String)
    /// An `annotation:` record.
    case annotation(Annotation)
    /// A `debug:`, `error:` or `warning:` record.
    case other
    /// Not a record: a line that may continue a statement wrapped over several lines (the
    /// analyzer decides, as only it knows whether a statement is waiting).
    case continuation(String)

    /// The record whose category and message ``LogRecordParser`` found; a statement is numbered
    /// by `statements` when given.
    package init(_ category: LogRecord.Category, _ message: UnsafeBufferPointer<UInt8>, statements: StatementInterner? = nil) {
        switch category {
        case .sql:
            if let statements {
                switch statements.number(message) {
                case .known(let number): self = .repeatedStatement(number: number)
                case .new(let text, let number): self = .statement(text, number: number)
                case .unnumbered(let text): self = .statement(text, number: nil)
                }
            } else {
                self = .statement(String(decoding: message, as: UTF8.self), number: nil)
            }
        case .details:
            if LogRecordParser.matches("SQLite bind[", in: message, at: 0) {
                self = .bind
            } else {
                self = .details(String(decoding: message, as: UTF8.self))
            }
        case .annotation:
            self = .annotation(Annotation.parse(message))
        case .debug, .error, .warning:
            self = .other
        }
    }

    /// What a whole captured line gives: its record, a possible continuation, or nothing.
    /// Statements are numbered by `statements`; `mayHoldEscape` as for
    /// ``LogRecordParser/withRecord(in:mayHoldEscape:_:)``.
    package static func read(_ line: UnsafeBufferPointer<UInt8>, statements: StatementInterner, mayHoldEscape: Bool = true) -> ParsedRecord? {
        if mayHoldEscape || LogRecordParser.isJSONObject(line) {
            if let record = LogRecordParser.withRecord(in: line, mayHoldEscape: mayHoldEscape, { ParsedRecord($0, $1, statements: statements) }) {
                return record
            }
        } else if let (category, range) = LogRecordParser.plainRecord(in: line) {
            // Most lines of a long log: found without a closure (or its retains of `statements`).
            return ParsedRecord(category, UnsafeBufferPointer(rebasing: line[range]), statements: statements)
        }
        return mayContinueStatement(line) ? .continuation(String(decoding: line, as: UTF8.self)) : nil
    }

    /// A cheap, conservative test for ``TraceAnalyzer/continueStatement(_:)``, which takes only a
    /// line whose first word is an SQL clause word (FROM, WHERE, JOIN, LEFT, INNER, ORDER, GROUP,
    /// LIMIT, AND, OR, HAVING, ON): false only for lines it would refuse. Lines starting with a
    /// non-ASCII byte are kept, as Unicode spaces and letters are the analyzer's to judge.
    static func mayContinueStatement(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in line where byte != 0x20 && byte != 0x09 {
            if byte >= 0x80 { return true }
            switch byte | 0x20 {
            case UInt8(ascii: "f"), UInt8(ascii: "w"), UInt8(ascii: "j"), UInt8(ascii: "l"), UInt8(ascii: "i"), UInt8(ascii: "o"),
                UInt8(ascii: "g"), UInt8(ascii: "a"), UInt8(ascii: "h"):
                return true
            default:
                return false
            }
        }
        return false
    }
}
