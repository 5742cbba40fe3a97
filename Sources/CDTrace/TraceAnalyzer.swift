import Foundation

/// Reads a Core Data SQL debug log record by record and keeps, in memory bounded by the number
/// of distinct statement shapes (at most ``maximumShapes``), everything the report needs:
/// statistics per shape, fault runs, batches, transactions.
///
/// Statements and annotations are paired as Core Data writes them (reference/sqldebug.md §5, §8):
/// an annotation belongs to the last statement; a fetch whose `sql connection fetch time` has
/// been logged but not its `total fetch execution time` is still running, so a statement logged
/// then is nested in it (a prefetch, §8 block 10), and the next total closes the inner one first.
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

    package private(set) var shapes: [ShapeStatistics] = []
    private var shapeByText: [String: Int] = [:]
    private var shapeBySQL: [String: Int] = [:]
    package private(set) var storms: [String: Storm] = [:]
    package private(set) var records = 0
    package private(set) var statements = 0
    /// The store path of the log's last `Connecting to` line.
    package private(set) var connectedStore: String?
    /// Committed transactions that wrote entity rows.
    package private(set) var transactions = 0
    package private(set) var rolledBack = 0
    package private(set) var retries = 0
    package private(set) var saveSeconds = 0.0
    package private(set) var saveStatements = 0
    package private(set) var writesByTable: [String: Writes] = [:]
    /// The largest committed transactions, by writes (at most ``largestKept``).
    package private(set) var largestTransactions: [Transaction] = []
    package static let largestKept = 5
    /// Called for each finding as it is made.
    package var onEvent: ((Event) -> Void)?
    /// Called when the log names its store.
    package var onConnect: ((String) -> Void)?

    private var open: [TracedStatement] = []
    private var last: TracedStatement?
    private var lastFinished: TracedStatement?
    private var run: [String: (storm: Storm, count: Int, seconds: Double)] = [:]
    private var transaction: Transaction?
    private var pendingRetryTables: Set<String>?
    private var keysFetch: (shape: Int, rows: Int, table: String)?
    private var batches = 0
    private var batchLimit = 0
    private var planShape: Int?
    private var transactionNumber = 0

    package init() {}

    // MARK: reading

    /// Takes one record of the log.
    package func consume(_ record: LogRecord) {
        var message = record.message
        message.withUTF8 { consume(record.category, $0) }
    }

    /// Takes one record of the log, its message as bytes (``LogRecordParser/withRecord(in:_:)``).
    package func consume(_ category: LogRecord.Category, _ message: UnsafeBufferPointer<UInt8>) {
        consume(ParsedRecord(category, message))
    }

    /// Takes one record read by ``ParsedRecord/init(_:_:)``, or a line that may continue a
    /// wrapped statement.
    package func consume(_ record: ParsedRecord) {
        switch record {
        case .statement(let sql):
            records += 1
            planShape = nil
            startStatement(sql)
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
        guard let statement = open.last else { return false }
        return last == nil && statement.connectionTime == nil && statement.totalTime == nil && statement.binds == 0
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
        open[open.count - 1] = statement
        return true
    }

    /// Ends the log: everything still open is finished.
    package func finish() {
        while let statement = open.popLast() { finishStatement(statement) }
        if let last { finishStatement(last) }
        last = nil
        endFaultRun()
        endBatches()
        if let transaction { endTransaction(transaction, committed: true) }
        transaction = nil
    }

    private func startStatement(_ sql: String) {
        // A statement with no fetch time yet is complete (a PRAGMA, BEGIN, an INSERT); one whose
        // connection time is logged is a running fetch and the new one is nested in it.
        while let top = open.last, top.connectionTime == nil {
            open.removeLast()
            finishStatement(top)
        }
        if let last { finishStatement(last) }
        last = nil
        statements += 1
        // The shape is taken when the statement is finished: a wrapped statement may still grow.
        let statement = TracedStatement(sql: sql, shape: -1)
        if open.count >= 8 { finishStatement(open.removeFirst()) }
        open.append(statement)
    }

    private func details(_ message: String) {
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

    private func annotation(_ annotation: Annotation) {
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
            if last == nil, let top = open.last, top.totalTime == nil {
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
    private func close(_ change: (inout TracedStatement) -> Void) {
        guard var statement = open.popLast() else {
            if var last {
                // A second total for a statement already closed: the outer fetch of a prefetch
                // whose statement was finished (the log lost its `sql:` line).
                change(&last)
                self.last = last
            }
            return
        }
        if let last { finishStatement(last) }
        change(&statement)
        last = statement
    }

    /// Applies an annotation to the statement it follows: the last one closed, else the open one.
    private func amend(_ change: (inout TracedStatement) -> Void) {
        if var last {
            change(&last)
            self.last = last
        } else if !open.isEmpty {
            change(&open[open.count - 1])
        }
    }

    // MARK: shapes

    private func shapeNumber(for sql: String) -> Int {
        if let known = shapeBySQL[sql] { return known }
        let shape = StatementShape(sql: sql)
        let number: Int
        if let existing = shapeByText[shape.text] {
            number = existing
        } else if shapes.count < Self.maximumShapes {
            number = shapes.count
            shapes.append(ShapeStatistics(shape: shape, example: String(sql.prefix(100_000))))
            shapeByText[shape.text] = number
        } else {
            let other = "(other shapes)"
            if let existing = shapeByText[other] {
                number = existing
            } else {
                number = shapes.count
                shapes.append(ShapeStatistics(shape: StatementShape(sql: other), example: ""))
                shapeByText[other] = number
            }
        }
        if shapeBySQL.count < 4 * Self.maximumShapes { shapeBySQL[sql] = number }
        return number
    }

    // MARK: finishing a statement

    private func finishStatement(_ unshaped: TracedStatement) {
        var statement = unshaped
        statement.shape = shapeNumber(for: statement.sql)
        let number = statement.shape
        let rows = statement.rows ?? 0
        let shape = shapes[number].shape
        let large =
            shape.kind == .fetch && shape.limit == nil && statement.prefetchKey == nil && rows >= Self.largeFetchRows
            && !shape.selectsKeysOnly
        var afterSameCount = false
        if shape.kind == .fetch, shape.returnsObjects, let previous = lastFinished, previous.countResult != nil {
            let counted = shapes[previous.shape].shape
            afterSameCount = counted.mainTable == shape.mainTable && counted.whereClause == shape.whereClause
        }
        // Updated in place: a copy of the statistics would retain and release all their fields.
        func update(_ stats: inout ShapeStatistics) {
            let seconds = statement.seconds
            stats.count += 1
            stats.seconds += seconds
            stats.maxSeconds = max(stats.maxSeconds, seconds)
            stats.rows += rows
            stats.maxRows = max(stats.maxRows, rows)
            if stats.entity == nil, let entity = statement.entity, !entity.isEmpty { stats.entity = entity }
            if stats.predicate == nil, let predicate = statement.predicate { stats.predicate = predicate }
            if stats.entity == nil, case .object(let entity) = statement.fault { stats.entity = entity }
            if large { stats.largeFetches += 1 }
            if afterSameCount { stats.afterSameCount += 1 }
        }
        update(&shapes[number])
        if large, shapes[number].largeFetches == 1 { onEvent?(.largeFetch(shape: number, rows: rows)) }
        trackFaults(statement)
        trackBatches(statement)
        trackTransaction(statement)
        lastFinished = statement
    }

    // MARK: fault runs

    /// A fault statement's key, or nil for any other statement.
    private func faultKey(_ statement: TracedStatement) -> Storm? {
        let stats = shapes[statement.shape]
        switch statement.fault {
        case .relationship(let entity, let name, _):
            return Storm(
                key: "\(entity ?? "?").\(name)", shape: statement.shape, entity: entity, relationship: name,
                objectFaults: false, keyFetchCandidate: false)
        case .object(let entity):
            return Storm(
                key: stats.shape.text, shape: statement.shape, entity: entity, relationship: nil,
                objectFaults: true, keyFetchCandidate: false)
        case nil:
            break
        }
        if stats.shape.kind == .singleObject {
            return Storm(
                key: stats.shape.text, shape: statement.shape, entity: nil, relationship: nil,
                objectFaults: true, keyFetchCandidate: false)
        }
        if stats.shape.kind == .fetch, stats.shape.limit == nil, stats.shape.filtersOnOneKey {
            return Storm(
                key: stats.shape.text, shape: statement.shape, entity: nil, relationship: nil,
                objectFaults: false, keyFetchCandidate: true)
        }
        return nil
    }

    private func trackFaults(_ statement: TracedStatement) {
        let kind = shapes[statement.shape].shape.kind
        guard let key = faultKey(statement) else {
            if kind != .bookkeeping && kind != .other { endFaultRun() }
            return
        }
        var entry = run[key.key] ?? (key, 0, 0)
        entry.count += 1
        entry.seconds += statement.seconds
        if entry.storm.entity == nil { entry.storm.entity = key.entity }
        run[key.key] = entry
    }

    private func endFaultRun() {
        for (key, entry) in run where entry.count >= Self.stormThreshold {
            var storm = storms[key] ?? entry.storm
            storm.runs += 1
            storm.statements += entry.count
            storm.seconds += entry.seconds
            storm.longestRun = max(storm.longestRun, entry.count)
            if storm.entity == nil { storm.entity = entry.storm.entity }
            storms[key] = storm
            onEvent?(.storm(storm, runLength: entry.count))
        }
        run.removeAll(keepingCapacity: true)
    }

    // MARK: batches

    private func trackBatches(_ statement: TracedStatement) {
        let shape = shapes[statement.shape].shape
        if shape.kind == .intarray, statement.prefetchKey == nil, let keys = keysFetch, shape.mainTable == keys.table, let limit = shape.limit {
            batches += 1
            batchLimit = limit
            return
        }
        if shape.kind == .bookkeeping { return }
        endBatches()
        if shape.kind == .fetch, shape.selectsKeysOnly, shape.limit == nil, shape.tables.count == 1, statement.fault == nil,
            let table = shape.mainTable
        {
            keysFetch = (statement.shape, statement.rows ?? 0, table)
        }
    }

    private func endBatches() {
        guard let keys = keysFetch else { return }
        if batches == 0 {
            if keys.rows > 0 { shapes[keys.shape].keysOnlyWithoutBatches += 1 }
        } else if batches >= 2, batches * batchLimit >= keys.rows {
            shapes[keys.shape].allBatchesLoaded += 1
            shapes[keys.shape].batchesInLargestRun = max(shapes[keys.shape].batchesInLargestRun, batches)
        }
        keysFetch = nil
        batches = 0
    }

    // MARK: transactions

    private func trackTransaction(_ statement: TracedStatement) {
        let shape = shapes[statement.shape].shape
        switch shape.kind {
        case .begin:
            if let transaction { endTransaction(transaction, committed: true) }
            transactionNumber += 1
            transaction = Transaction(number: transactionNumber)
        case .commit, .rollback:
            if let transaction { endTransaction(transaction, committed: shape.kind == .commit) }
            transaction = nil
        default:
            guard var current = transaction else { return }
            current.statements += 1
            current.seconds += statement.seconds
            let table = shape.mainTable ?? "?"
            switch shape.kind {
            case .insert: current.writes[table, default: Writes()].inserts += 1
            case .update: current.writes[table, default: Writes()].updates += 1
            case .delete: current.writes[table, default: Writes()].deletes += 1
            case .fetch, .count, .singleObject, .intarray: current.selects += 1
            default: break
            }
            if (shape.kind == .update || shape.kind == .delete), shape.whereClause?.contains("Z_OPT = ?") == true { current.guarded = true }
            transaction = current
        }
    }

    private func endTransaction(_ finished: Transaction, committed: Bool) {
        guard finished.totalWrites > 0 else { return }
        let tables = Set(finished.writes.keys)
        if !committed {
            rolledBack += 1
            if finished.guarded { pendingRetryTables = tables }
            return
        }
        if let pending = pendingRetryTables {
            if !pending.isDisjoint(with: tables) {
                retries += 1
                onEvent?(.retry(tables: pending.sorted()))
            }
            pendingRetryTables = nil
        }
        transactions += 1
        saveSeconds += finished.seconds
        saveStatements += finished.statements
        for (table, writes) in finished.writes {
            writesByTable[table, default: Writes()].inserts += writes.inserts
            writesByTable[table, default: Writes()].updates += writes.updates
            writesByTable[table, default: Writes()].deletes += writes.deletes
        }
        largestTransactions.append(finished)
        largestTransactions.sort { ($0.totalWrites, -$0.number) > ($1.totalWrites, -$1.number) }
        if largestTransactions.count > Self.largestKept { largestTransactions.removeLast() }
    }
}

extension TraceAnalyzer.ShapeStatistics {
    /// Whether the statement filters rows of `t0` on something other than its key.
    package var whereClauseFilters: Bool {
        guard let condition = shape.whereClause else { return false }
        return condition.contains("t0.") && condition != "t0.Z_PK = ?"
    }
}
