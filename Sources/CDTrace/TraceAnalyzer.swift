import Foundation

/// Reads a Core Data SQL debug log record by record and keeps, in memory bounded by the number
/// of distinct statement shapes (at most ``maximumShapes``), everything the report needs:
/// statistics per shape, fault runs, batches, transactions.
///
/// Statements and annotations are paired as Core Data writes them (reference/sqldebug.md §5, §8):
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

    @exclusivity(unchecked) package private(set) var shapes: [ShapeStatistics] = []
    /// What finishing a statement asks of each shape, beside ``shapes``.
    @exclusivity(unchecked) private var traits: [ShapeTraits] = []
    private var shapeByText: [String: Int] = [:]
    private var shapeBySQL: [String: Int] = [:]
    /// Shapes by the number a ``StatementInterner`` gave the statement's text; -1 for not yet.
    @exclusivity(unchecked) private var shapeByTextNumber: [Int32] = []
    /// The texts of those numbers (the interner's strings, shared), for
    /// ``ParsedRecord/repeatedStatement(number:)``.
    @exclusivity(unchecked) private var textsByNumber: [String] = []
    /// Numbers for the tables and WHERE clauses of shapes, so they compare as integers.
    private var clauseNumbers: [String: Int] = [:]
    /// The texts of those numbers.
    private var clauseTexts: [String] = []
    package private(set) var storms: [String: Storm] = [:]
    @exclusivity(unchecked) package private(set) var records = 0
    @exclusivity(unchecked) package private(set) var statements = 0
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

    @exclusivity(unchecked) private var open: [TracedStatement] = []
    @exclusivity(unchecked) private var last: TracedStatement?
    /// The shape of the statement finished last when it was a count request (a count result).
    @exclusivity(unchecked) private var lastFinishedCount: Int?
    /// The fault run going on: one entry per storm key, in the order the keys came.
    @exclusivity(unchecked) private var run: [(storm: Storm, count: Int, seconds: Double)] = []
    /// Where each key of ``run`` is, looked up only when the key differs from the last one's.
    @exclusivity(unchecked) private var runIndex: [String: Int] = [:]
    /// The entry of ``run`` the last fault statement counted in.
    @exclusivity(unchecked) private var lastRunEntry = 0
    /// The storm key of the last relationship fault, made again only when the relationship changes.
    @exclusivity(unchecked) private var lastRelationshipKey: (entity: String?, name: String, key: String)?
    @exclusivity(unchecked) private var transaction: Transaction?
    private var pendingRetryTables: Set<String>?
    /// The last keys-only fetch, its rows and its table's number (``clauseNumbers``).
    @exclusivity(unchecked) private var keysFetch: (shape: Int, rows: Int, table: Int)?
    @exclusivity(unchecked) private var batches = 0
    @exclusivity(unchecked) private var batchLimit = 0
    @exclusivity(unchecked) private var planShape: Int?
    private var transactionNumber = 0

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

    private func startStatement(_ sql: String, textNumber: Int?) {
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
    private func close(_ change: (inout TracedStatement) -> Void) {
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
    private func amend(_ change: (inout TracedStatement) -> Void) {
        if !changeLast(change), !open.isEmpty {
            change(&open[open.count - 1])
        }
    }

    /// Applies `change` to the last closed statement where it is stored, if there is one: a
    /// statement moved out and back would be copied twice (it is 200 bytes), for most
    /// annotations of a log. Returns whether there was one.
    @discardableResult
    private func changeLast(_ change: (inout TracedStatement) -> Void) -> Bool {
        guard last != nil else { return false }
        change(&last!)
        return true
    }

    // MARK: shapes

    /// What finishing a statement asks of its shape, worked out once per shape: reading these
    /// costs a load, where a copy of the ``StatementShape`` retains and releases its strings.
    private struct ShapeTraits {
        var kind: StatementShape.Kind
        var limit: Int?
        var returnsObjects: Bool
        var selectsKeysOnly: Bool
        var filtersOnOneKey: Bool
        var tableCount: Int
        /// The numbers of the main table's and the WHERE clause's texts (``clauseNumbers``), -1
        /// for none: equal numbers, equal texts.
        var mainTable: Int
        var whereClause: Int
        /// The WHERE clause checks the version (`Z_OPT = ?`: optimistic locking).
        var checksVersion: Bool
    }

    private func traits(of shape: StatementShape) -> ShapeTraits {
        ShapeTraits(
            kind: shape.kind, limit: shape.limit, returnsObjects: shape.returnsObjects, selectsKeysOnly: shape.selectsKeysOnly,
            filtersOnOneKey: shape.filtersOnOneKey, tableCount: shape.tables.count, mainTable: clauseNumber(shape.mainTable),
            whereClause: clauseNumber(shape.whereClause), checksVersion: shape.whereClause?.contains("Z_OPT = ?") == true)
    }

    private func clauseNumber(_ text: String?) -> Int {
        guard let text else { return -1 }
        if let number = clauseNumbers[text] { return number }
        clauseNumbers[text] = clauseTexts.count
        clauseTexts.append(text)
        return clauseTexts.count - 1
    }

    private func appendShape(_ shape: StatementShape, example: String) {
        traits.append(traits(of: shape))
        shapes.append(ShapeStatistics(shape: shape, example: example))
    }

    /// Keeps the text of an interner's number (numbers come in order, each once).
    private func rememberText(_ sql: String, number: Int) {
        if number == textsByNumber.count {
            textsByNumber.append(sql)
        } else if number < textsByNumber.count {
            textsByNumber[number] = sql
        } else {
            textsByNumber.append(contentsOf: repeatElement("", count: number - textsByNumber.count))
            textsByNumber.append(sql)
        }
    }

    /// The shape of a statement whose text a ``StatementInterner`` numbered: by number once known.
    private func shapeNumber(for sql: String, textNumber: Int?) -> Int {
        guard let textNumber else { return shapeNumber(for: sql) }
        if textNumber < shapeByTextNumber.count, shapeByTextNumber[textNumber] >= 0 { return Int(shapeByTextNumber[textNumber]) }
        let number = shapeNumber(for: sql)
        if textNumber >= shapeByTextNumber.count {
            shapeByTextNumber.append(contentsOf: repeatElement(-1, count: textNumber + 1 - shapeByTextNumber.count))
        }
        shapeByTextNumber[textNumber] = Int32(number)
        return number
    }

    private func shapeNumber(for sql: String) -> Int {
        if let known = shapeBySQL[sql] { return known }
        let shape = StatementShape(sql: sql)
        let number: Int
        if let existing = shapeByText[shape.text] {
            number = existing
        } else if shapes.count < Self.maximumShapes {
            number = shapes.count
            appendShape(shape, example: String(sql.prefix(100_000)))
            shapeByText[shape.text] = number
        } else {
            let other = "(other shapes)"
            if let existing = shapeByText[other] {
                number = existing
            } else {
                number = shapes.count
                appendShape(StatementShape(sql: other), example: "")
                shapeByText[other] = number
            }
        }
        if shapeBySQL.count < 4 * Self.maximumShapes { shapeBySQL[sql] = number }
        return number
    }

    // MARK: finishing a statement

    /// Counts a statement in its shape and the trackers. The statement is lent, not copied
    /// (it is 200 bytes), and its shape's number is passed beside it.
    private func finishStatement(_ statement: TracedStatement) {
        let number = shapeNumber(for: statement.sql, textNumber: statement.textNumber)
        let rows = statement.rows ?? 0
        let shape = traits[number]
        let large =
            shape.kind == .fetch && shape.limit == nil && statement.prefetchKey == nil && rows >= Self.largeFetchRows
            && !shape.selectsKeysOnly
        var afterSameCount = false
        if shape.kind == .fetch, shape.returnsObjects, let counted = lastFinishedCount.map({ traits[$0] }) {
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
        trackFaults(statement, number: number)
        trackBatches(statement, number: number)
        trackTransaction(statement, number: number)
        lastFinishedCount = statement.countResult != nil ? number : nil
    }

    // MARK: fault runs

    /// A fault statement's storm key and the entity it names, or nil for any other statement.
    private func faultKey(_ statement: TracedStatement, number: Int) -> (key: String, entity: String?)? {
        switch statement.fault {
        case .relationship(let entity, let name, _):
            return (relationshipKey(entity, name), entity)
        case .object(let entity):
            return (shapes[number].shape.text, entity)
        case nil:
            let shape = traits[number]
            if shape.kind == .singleObject || (shape.kind == .fetch && shape.limit == nil && shape.filtersOnOneKey) {
                return (shapes[number].shape.text, nil)
            }
            return nil
        }
    }

    /// `Entity.relationship`, the key of a relationship's storm.
    private func relationshipKey(_ entity: String?, _ name: String) -> String {
        if let known = lastRelationshipKey, known.entity == entity, known.name == name { return known.key }
        let key = "\(entity ?? "?").\(name)"
        lastRelationshipKey = (entity, name, key)
        return key
    }

    /// The storm a run of fault statements starts, from the first of them.
    private func storm(_ statement: TracedStatement, number: Int, key: String) -> Storm {
        switch statement.fault {
        case .relationship(let entity, let name, _):
            return Storm(
                key: key, shape: number, entity: entity, relationship: name, objectFaults: false, keyFetchCandidate: false)
        case .object(let entity):
            return Storm(key: key, shape: number, entity: entity, relationship: nil, objectFaults: true, keyFetchCandidate: false)
        case nil:
            let objectFaults = traits[number].kind == .singleObject
            return Storm(
                key: key, shape: number, entity: nil, relationship: nil, objectFaults: objectFaults,
                keyFetchCandidate: !objectFaults)
        }
    }

    private func trackFaults(_ statement: TracedStatement, number: Int) {
        guard let (key, entity) = faultKey(statement, number: number) else {
            let kind = traits[number].kind
            if kind != .bookkeeping && kind != .other { endFaultRun() }
            return
        }
        // A storm repeats one key, most often the very string of the last statement (the cached
        // relationship key, the shape's text), which compares without reading its bytes.
        let index: Int
        if lastRunEntry < run.count, run[lastRunEntry].storm.key == key {
            index = lastRunEntry
        } else if let known = runIndex[key] {
            index = known
        } else {
            runIndex[key] = run.count
            lastRunEntry = run.count
            run.append((storm(statement, number: number, key: key), 1, statement.seconds))
            return
        }
        lastRunEntry = index
        // Updated in place: no copy of the storm's strings.
        run[index].count += 1
        run[index].seconds += statement.seconds
        if run[index].storm.entity == nil { run[index].storm.entity = entity }
    }

    private func endFaultRun() {
        guard !run.isEmpty else { return }
        for entry in run where entry.count >= Self.stormThreshold {
            let key = entry.storm.key
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
        runIndex.removeAll(keepingCapacity: true)
        lastRunEntry = 0
    }

    // MARK: batches

    private func trackBatches(_ statement: TracedStatement, number: Int) {
        let shape = traits[number]
        if shape.kind == .intarray, statement.prefetchKey == nil, let keys = keysFetch, shape.mainTable == keys.table, let limit = shape.limit {
            batches += 1
            batchLimit = limit
            return
        }
        if shape.kind == .bookkeeping { return }
        endBatches()
        if shape.kind == .fetch, shape.selectsKeysOnly, shape.limit == nil, shape.tableCount == 1, statement.fault == nil, shape.mainTable >= 0 {
            keysFetch = (number, statement.rows ?? 0, shape.mainTable)
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

    private func trackTransaction(_ statement: TracedStatement, number: Int) {
        let shape = traits[number]
        switch shape.kind {
        case .begin:
            if let transaction { endTransaction(transaction, committed: true) }
            transactionNumber += 1
            transaction = Transaction(number: transactionNumber)
        case .commit, .rollback:
            if let transaction { endTransaction(transaction, committed: shape.kind == .commit) }
            transaction = nil
        default:
            // Taken out while it changes, so its dictionary of writes is not copied.
            guard var current = transaction.take() else { return }
            current.statements += 1
            current.seconds += statement.seconds
            let table = shape.mainTable >= 0 ? clauseTexts[shape.mainTable] : "?"
            switch shape.kind {
            case .insert: current.writes[table, default: Writes()].inserts += 1
            case .update: current.writes[table, default: Writes()].updates += 1
            case .delete: current.writes[table, default: Writes()].deletes += 1
            case .fetch, .count, .singleObject, .intarray: current.selects += 1
            default: break
            }
            if (shape.kind == .update || shape.kind == .delete), shape.checksVersion { current.guarded = true }
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
