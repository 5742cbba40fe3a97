import Foundation

/// Fault runs, batches and transactions: the findings built from finished statements.
extension TraceAnalyzer {
    /// A fault statement's storm key and the entity it names, or nil for any other statement.
    func faultKey(_ statement: TracedStatement, number: Int) -> (key: String, entity: String?)? {
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
    func relationshipKey(_ entity: String?, _ name: String) -> String {
        if let known = lastRelationshipKey, known.entity == entity, known.name == name { return known.key }
        let key = "\(entity ?? "?").\(name)"
        lastRelationshipKey = (entity, name, key)
        return key
    }

    /// The storm a run of fault statements starts, from the first of them.
    func storm(_ statement: TracedStatement, number: Int, key: String) -> Storm {
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

    func trackFaults(_ statement: TracedStatement, number: Int) {
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

    func endFaultRun() {
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

    func trackBatches(_ statement: TracedStatement, number: Int) {
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

    func endBatches() {
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

    func trackTransaction(_ statement: TracedStatement, number: Int) {
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

    func endTransaction(_ finished: Transaction, committed: Bool) {
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
