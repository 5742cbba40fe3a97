import Foundation

/// Reads a Core Data SQL debug log record by record and keeps, in memory bounded by the number
/// of distinct statement shapes (at most ``maximumShapes``), everything the report needs:
/// statistics per shape, fault runs, batches, transactions.
///
/// Statements and annotations are paired as Core Data writes them (docs/format/sqldebug.md §5, §8):
/// an annotation belongs to the last statement; a fetch whose `sql connection fetch time` has
/// been logged but not its `total fetch execution time` is still running, so a statement logged
/// then is nested in it (a prefetch, §8 block 10), and the next total closes the inner one first.
///
/// The state read for every record is marked `@exclusivity(unchecked)`: an analyzer is used by
/// one thread at a time, its properties are changed only by its own methods, and the run-time
/// exclusivity checks on them were about a third of the analysing thread's time on a large log.
package final class TraceAnalyzer {
    /// Distinct shapes kept; later new shapes are counted together under one "(other shapes)" entry.
    package static let maximumShapes = 20_000
    /// This many fault fulfilments of one kind in a row make a fault storm.
    package static let stormThreshold = 10
    /// A fetch without a limit returning at least this many rows is a large fetch.
    package static let largeFetchRows = 1_000

    /// Statistics of one shape.
    package struct ShapeStatistics: Sendable {
        package var shape: StatementShape
        /// The first statement of the shape as logged, for EXPLAIN QUERY PLAN.
        package var example: String
        package var count = 0
        package var seconds = 0.0
        package var maxSeconds = 0.0
        package var rows = 0
        package var maxRows = 0
        package var entity: String?
        package var predicate: String?
        /// Plan rows logged at level 4 for this shape.
        package var loggedPlan: [String]?
        /// Times it followed a count request with the same table and filter.
        package var afterSameCount = 0
        /// Times a keys-only fetch of this shape was not followed by batches.
        package var keysOnlyWithoutBatches = 0
        /// Runs where every batch was loaded at once, and the largest such run.
        package var allBatchesLoaded = 0
        package var batchesInLargestRun = 0
        package var largeFetches = 0
    }

    /// A run of fault fulfilments of one kind that reached ``stormThreshold``.
    package struct Storm: Sendable {
        /// `Entity.relationship`, or the shape text of single-object fetches.
        package var key: String
        package var shape: Int
        package var entity: String?
        package var relationship: String?
        /// Single-object fetches (`WHERE t0.Z_PK = ?`) rather than relationship faults.
        package var objectFaults: Bool
        /// Statements fetching on a to-one key (`WHERE t0.ZITEM = ?`) whose meaning the
        /// mapping settles: a to-many fault of the inverse relationship or an ordinary fetch.
        package var keyFetchCandidate: Bool
        package var runs = 0
        package var statements = 0
        package var seconds = 0.0
        package var longestRun = 0
    }

    /// One transaction (`BEGIN EXCLUSIVE` … `COMMIT`/`ROLLBACK`).
    package struct Transaction: Sendable {
        package var number: Int
        /// Inserts, updates and deletes per table.
        package var writes: [String: Writes] = [:]
        package var selects = 0
        package var statements = 0
        package var seconds = 0.0
        /// An UPDATE or DELETE guarded by `Z_OPT = ?` (optimistic locking).
        package var guarded = false
        package var totalWrites: Int { writes.values.reduce(0) { $0 + $1.total } }
    }

    /// Inserts, updates and deletes.
    package struct Writes: Sendable, Equatable, Codable {
        package var inserts = 0
        package var updates = 0
        package var deletes = 0
        package var total: Int { inserts + updates + deletes }
    }

    /// Something found while reading, for `--follow`.
    package enum Event: Sendable {
        case storm(Storm, runLength: Int)
        case largeFetch(shape: Int, rows: Int)
        case loggedScan(shape: Int, detail: String)
        case retry(tables: [String])
    }

    @exclusivity(unchecked) package internal(set) var shapes: [ShapeStatistics] = []
    /// What finishing a statement asks of each shape, beside ``shapes``.
    @exclusivity(unchecked) var traits: [ShapeTraits] = []
    var shapeByText: [String: Int] = [:]
    var shapeBySQL: [String: Int] = [:]
    /// Shapes by the number a ``StatementInterner`` gave the statement's text; -1 for not yet.
    @exclusivity(unchecked) var shapeByTextNumber: [Int32] = []
    /// The texts of those numbers (the interner's strings, shared), for
    /// ``ParsedRecord/repeatedStatement(number:)``.
    @exclusivity(unchecked) var textsByNumber: [String] = []
    /// Numbers for the tables and WHERE clauses of shapes, so they compare as integers.
    var clauseNumbers: [String: Int] = [:]
    /// The texts of those numbers.
    var clauseTexts: [String] = []
    package internal(set) var storms: [String: Storm] = [:]
    @exclusivity(unchecked) package internal(set) var records = 0
    @exclusivity(unchecked) package internal(set) var statements = 0
    /// The store path of the log's last `Connecting to` line.
    package internal(set) var connectedStore: String?
    /// Committed transactions that wrote entity rows.
    package internal(set) var transactions = 0
    package internal(set) var rolledBack = 0
    package internal(set) var retries = 0
    package internal(set) var saveSeconds = 0.0
    package internal(set) var saveStatements = 0
    package internal(set) var writesByTable: [String: Writes] = [:]
    /// The largest committed transactions, by writes (at most ``largestKept``).
    package internal(set) var largestTransactions: [Transaction] = []
    package static let largestKept = 5
    /// Called for each finding as it is made.
    package var onEvent: ((Event) -> Void)?
    /// Called when the log names its store.
    package var onConnect: ((String) -> Void)?

    @exclusivity(unchecked) var open: [TracedStatement] = []
    @exclusivity(unchecked) var last: TracedStatement?
    /// The shape of the statement finished last when it was a count request (a count result).
    @exclusivity(unchecked) var lastFinishedCount: Int?
    /// The fault run going on: one entry per storm key, in the order the keys came.
    @exclusivity(unchecked) var run: [(storm: Storm, count: Int, seconds: Double)] = []
    /// Where each key of ``run`` is, looked up only when the key differs from the last one's.
    @exclusivity(unchecked) var runIndex: [String: Int] = [:]
    /// The entry of ``run`` the last fault statement counted in.
    @exclusivity(unchecked) var lastRunEntry = 0
    /// The storm key of the last relationship fault, made again only when the relationship changes.
    @exclusivity(unchecked) var lastRelationshipKey: (entity: String?, name: String, key: String)?
    @exclusivity(unchecked) var transaction: Transaction?
    var pendingRetryTables: Set<String>?
    /// The last keys-only fetch, its rows and its table's number (``clauseNumbers``).
    @exclusivity(unchecked) var keysFetch: (shape: Int, rows: Int, table: Int)?
    @exclusivity(unchecked) var batches = 0
    @exclusivity(unchecked) var batchLimit = 0
    @exclusivity(unchecked) var planShape: Int?
    var transactionNumber = 0

    package init() {}

    // MARK: reading

    /// Takes one record of the log.
    package func consume(_ record: LogRecord) {
        var message = record.message
        message.withUTF8 { consume(record.category, $0) }
    }

    /// Takes one record of the log, its message as bytes (``LogRecordParser/withRecord(in:mayHoldEscape:_:)``).
    package func consume(_ category: LogRecord.Category, _ message: UnsafeBufferPointer<UInt8>) {
        consume(ParsedRecord(category, message))
    }

    /// Takes one record read by ``ParsedRecord/init(_:_:)``, or a line that may continue a
    /// wrapped statement.
    package func consume(_ record: ParsedRecord) {
        switch record {
        case .statement(let sql, let number):
            records += 1
            planShape = nil
            if let number { rememberText(sql, number: number) }
            startStatement(sql, textNumber: number)
        case .repeatedStatement(let number):
            records += 1
            planShape = nil
            // The interner gives a number's text before repeating the number; a number never
            // given (no such reader exists) counts as a statement of no text.
            if number < textsByNumber.count {
                startStatement(textsByNumber[number], textNumber: number)
            } else {
                startStatement("", textNumber: nil)
            }
        case .bind:
            records += 1
            if !open.isEmpty { open[open.count - 1].binds += 1 }
        case .details(let message):
            records += 1
            details(message)
        case .annotation(let annotation):
            records += 1
            planShape = nil
            self.annotation(annotation)
        case .other:
            records += 1
        case .continuation(let line):
            if acceptsContinuation { _ = continueStatement(line) }
        }
    }

    /// Whether the last record was a statement still waiting for the rest of its text.
    package var acceptsContinuation: Bool {
        guard let top = open.indices.last else { return false }
        return last == nil && open[top].connectionTime == nil && open[top].totalTime == nil && open[top].binds == 0
    }

    /// Appends a continuation line of a statement wrapped over several lines (§8 block 28):
    /// only right after a `sql:` record, and only a line that starts with an SQL clause word.
    package func continueStatement(_ line: String) -> Bool {
        guard var statement = open.last, statement.connectionTime == nil, statement.totalTime == nil,
            statement.sql.count + line.count < LogLineReader.maximumLineLength
        else { return false }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let word = trimmed.prefix { $0.isLetter }.uppercased()
        guard ["FROM", "WHERE", "JOIN", "LEFT", "INNER", "ORDER", "GROUP", "LIMIT", "AND", "OR", "HAVING", "ON"].contains(word) else { return false }
        statement.sql += " " + trimmed
        statement.textNumber = nil
        open[open.count - 1] = statement
        return true
    }

    /// Ends the log: everything still open is finished.
    package func finish() {
        while let statement = open.popLast() { finishStatement(statement) }
        if let finished = last.take() { finishStatement(finished) }
        endFaultRun()
        endBatches()
        if let transaction { endTransaction(transaction, committed: true) }
        transaction = nil
    }

    func startStatement(_ sql: String, textNumber: Int?) {
        // A statement with no fetch time yet is complete (a PRAGMA, BEGIN, an INSERT); one whose
        // connection time is logged is a running fetch and the new one is nested in it.
        while let top = open.indices.last, open[top].connectionTime == nil {
            finishStatement(open.removeLast())
        }
        if let finished = last.take() { finishStatement(finished) }
        statements += 1
        // The shape is taken when the statement is finished: a wrapped statement may still grow.
        let statement = TracedStatement(sql: sql, textNumber: textNumber)
        if open.count >= 8 { finishStatement(open.removeFirst()) }
        open.append(statement)
    }

    func details(_ message: String) {
        if message.hasPrefix("SQLite: EXPLAIN QUERY PLAN ") {
            let sql = String(message.dropFirst("SQLite: EXPLAIN QUERY PLAN ".count))
            let number = shapeNumber(for: sql)
            planShape = number
            shapes[number].loggedPlan = []
            return
        }
        if let planShape, var plan = shapes[planShape].loggedPlan, plan.count < 64 {
            plan.append(message)
            shapes[planShape].loggedPlan = plan
            if let scan = QueryPlan.scan(in: [message], shape: shapes[planShape].shape), shapes[planShape].whereClauseFilters {
                onEvent?(.loggedScan(shape: planShape, detail: scan))
            }
        }
    }

    func annotation(_ annotation: Annotation) {
        switch annotation {
        case .connectionFetchTime(let time):
            if !open.isEmpty { open[open.count - 1].connectionTime = time }
        case .totalFetch(let time, let rows):
            close {
                $0.totalTime = time; $0.rows = rows
            }
        case .totalCount(let time, let count):
            close {
                $0.totalTime = time; $0.countResult = count; $0.rows = $0.rows ?? 0
            }
        case .executionTime(let time):
            close { $0.totalTime = time }
        case .fetchUsing(let entity, let rows):
            if last == nil, let top = open.indices.last, open[top].totalTime == nil {
                // Level 2 alone logs no total: this annotation ends the fetch (§8 block 1).
                close {
                    $0.entity = entity.isEmpty ? $0.entity : entity; $0.rows = rows; $0.totalTime = $0.connectionTime ?? 0
                }
            } else {
                amend {
                    $0.entity = entity.isEmpty ? $0.entity : entity; $0.rows = $0.rows ?? rows
                }
            }
        case .countRequest(let entity, let predicate, let count):
            amend {
                $0.entity = entity ?? $0.entity; $0.predicate = predicate; $0.countResult = $0.countResult ?? count
            }
        case .objectFault(let entity):
            amend { $0.fault = .object(entity: entity) }
        case .relationshipFault(let name, let entity, let toMany, _):
            amend { $0.fault = .relationship(entity: entity, name: name, toMany: toMany) }
        case .prefetching(let key, _):
            amend { $0.prefetchKey = key }
        case .connecting(let path):
            connectedStore = path
            onConnect?(path)
        case .other:
            break
        }
    }

    /// Closes the innermost open statement with `change`; the one closed before is finished.
    func close(_ change: (inout TracedStatement) -> Void) {
        guard !open.isEmpty else {
            // A second total for a statement already closed: the outer fetch of a prefetch
            // whose statement was finished (the log lost its `sql:` line).
            changeLast(change)
            return
        }
        if let finished = last.take() { finishStatement(finished) }
        last = open.removeLast()
        changeLast(change)
    }

    /// Applies an annotation to the statement it follows: the last one closed, else the open one.
    func amend(_ change: (inout TracedStatement) -> Void) {
        if !changeLast(change), !open.isEmpty {
            change(&open[open.count - 1])
        }
    }

    /// Applies `change` to the last closed statement where it is stored, if there is one: a
    /// statement moved out and back would be copied twice (it is 200 bytes), for most
    /// annotations of a log. Returns whether there was one.
    @discardableResult
    func changeLast(_ change: (inout TracedStatement) -> Void) -> Bool {
        guard last != nil else { return false }
        change(&last!)
        return true
    }
}
