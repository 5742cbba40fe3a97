import CDBase
import CDStore
import Foundation

/// What `cdstore trace` reports about a log, and its `--json` form (schemas/trace.schema.json).
package struct TraceReport: Codable, Sendable, Equatable {
    /// What was read.
    package var input: Input
    /// Statement shapes by total time, longest first (the first `--top` of them).
    package var shapes: [Shape]
    /// All shapes, before `--top`.
    package var shapeCount: Int
    /// Problems found, most costly first within each kind.
    package var findings: [Finding]
    /// Transactions that wrote objects.
    package var saves: Saves

    package struct Input: Codable, Sendable, Equatable {
        package var lines: Int
        package var records: Int
        package var statements: Int
        /// The store the log's `Connecting to` line names, if any.
        @NullEncoded package var loggedStore: String?
        /// Where the model's names come from: `store`, `model` or `none`.
        package var names: String
        /// The store or model file the names come from.
        @NullEncoded package var namesFrom: String?
        /// Whether EXPLAIN QUERY PLAN ran on a store.
        package var plansFromStore: Bool
    }

    package struct Shape: Codable, Sendable, Equatable {
        /// The statement with its bound values taken out (``StatementShape``).
        package var sql: String
        package var kind: String
        @NullEncoded package var entity: String?
        /// The statement in the model's names: `Person where Person.age > ? sort by Person.lastName`.
        @NullEncoded package var readable: String?
        package var count: Int
        package var totalSeconds: Double
        package var meanSeconds: Double
        package var maxSeconds: Double
        package var rows: Int
        package var maxRows: Int
    }

    package struct Finding: Codable, Sendable, Equatable {
        /// `faultStorm`, `tableScan`, `largeFetch`, `batchesLoadedAtOnce`, `countThenFetch`,
        /// `keysOnlyFetch` or `optimisticLockingRetry`.
        package var kind: String
        @NullEncoded package var entity: String?
        @NullEncoded package var relationship: String?
        @NullEncoded package var sql: String?
        @NullEncoded package var readable: String?
        /// How many times it happened (runs, statements or saves; see `summary`).
        package var count: Int
        /// Seconds the statements involved took.
        package var seconds: Double
        /// What was seen, in one line.
        package var summary: String
        /// What to change in the app.
        package var fix: String
    }

    package struct Saves: Codable, Sendable, Equatable {
        package var transactions: Int
        package var rolledBack: Int
        package var retried: Int
        package var statements: Int
        package var seconds: Double
        package var entities: [EntityWrites]
        package var largest: [TransactionSummary]
    }

    package struct EntityWrites: Codable, Sendable, Equatable {
        /// The entity (or the table, without names).
        package var entity: String
        package var inserts: Int
        package var updates: Int
        package var deletes: Int
    }

    package struct TransactionSummary: Codable, Sendable, Equatable {
        /// Its number among the log's transactions, from 1.
        package var number: Int
        package var inserts: Int
        package var updates: Int
        package var deletes: Int
        package var selects: Int
        package var seconds: Double
    }
}

extension TraceReport {
    /// Builds the report from an analyzer that has read the whole log. `names` maps tables and
    /// columns; `snapshot` (read-only) runs EXPLAIN QUERY PLAN for shapes whose plan the log
    /// does not hold.
    package static func build(
        from analyzer: TraceAnalyzer, lines: Int, names: TraceNames?, namesKind: String,
        namesFrom: String?, snapshot: StoreSnapshot?, top: Int
    ) -> TraceReport {
        let shapes = analyzer.shapes
        func entity(_ stats: TraceAnalyzer.ShapeStatistics) -> String? {
            if let entity = stats.entity { return entity }
            let shape = stats.shape
            guard let names else { return nil }
            let main = shape.tables.first { $0.alias == "t0" } ?? shape.tables.first
            return main.flatMap { names.entity(ofTable: $0.table) }
        }
        func readable(_ stats: TraceAnalyzer.ShapeStatistics) -> String? {
            let shape = stats.shape
            guard [.fetch, .count, .singleObject, .intarray].contains(shape.kind) else {
                if let names, [.insert, .update, .delete].contains(shape.kind), let table = shape.mainTable {
                    return "\(shape.kind.rawValue) \(names.entity(ofTable: table) ?? table)"
                }
                return nil
            }
            if names == nil, let predicate = stats.predicate, let entity = stats.entity { return "\(entity) where \(predicate)" }
            guard let names, let name = entity(stats) else { return nil }
            var text = shape.kind == .count ? "count of \(name)" : name
            if let condition = shape.whereClause { text += " where " + names.readable(condition, in: shape) }
            if let order = shape.orderClause { text += " sort by " + names.readable(order, in: shape) }
            if let limit = shape.limit { text += " limit \(limit)" }
            return text
        }

        let ranked = shapes.indices.sorted { a, b in
            (shapes[a].seconds, shapes[a].count, shapes[b].shape.text) > (shapes[b].seconds, shapes[b].count, shapes[a].shape.text)
        }
        let shown = ranked.prefix(max(top, 0)).map { index -> Shape in
            let stats = shapes[index]
            return Shape(
                sql: stats.shape.text, kind: stats.shape.kind.rawValue, entity: entity(stats), readable: readable(stats),
                count: stats.count, totalSeconds: stats.seconds, meanSeconds: stats.count > 0 ? stats.seconds / Double(stats.count) : 0,
                maxSeconds: stats.maxSeconds, rows: stats.rows, maxRows: stats.maxRows)
        }

        var findings: [Finding] = []
        // Fault storms.
        for storm in analyzer.storms.values.sorted(by: { ($0.seconds, $0.statements, $1.key) > ($1.seconds, $1.statements, $0.key) }) {
            let stats = shapes[storm.shape]
            var entityName = storm.entity ?? entity(stats)
            var relationship = storm.relationship
            if storm.keyFetchCandidate {
                guard let faulted = names?.faultedRelationship(keyFetch: stats.shape) else { continue }
                entityName = faulted.entity
                relationship = faulted.relationship
            }
            let runs = "\(plural(storm.statements, "statement")) in \(plural(storm.runs, "run")) (longest \(grouped(storm.longestRun)))"
            if let relationship {
                let owner = entityName ?? "?"
                findings.append(
                    Finding(
                        kind: "faultStorm", entity: owner, relationship: relationship, sql: stats.shape.text,
                        readable: readable(stats), count: storm.statements, seconds: storm.seconds,
                        summary: "\(owner).\(relationship) faulted one object at a time: \(runs), \(seconds(storm.seconds))",
                        fix: "prefetch it: relationshipKeyPathsForPrefetching = [\"\(relationship)\"] on the fetch of \(owner)"))
            } else {
                let owner = entityName ?? stats.shape.mainTable ?? "?"
                findings.append(
                    Finding(
                        kind: "faultStorm", entity: owner, relationship: nil, sql: stats.shape.text,
                        readable: readable(stats), count: storm.statements, seconds: storm.seconds,
                        summary: "\(owner) objects fulfilled one at a time (WHERE t0.Z_PK = ?): \(runs), \(seconds(storm.seconds))",
                        fix:
                            "the objects were fetched as faults and then used one by one: set returnsObjectsAsFaults = false on the fetch that returns them, or prefetch the relationship that leads to them"
                    ))
            }
        }
        // Table scans.
        for index in ranked where [.fetch, .count].contains(shapes[index].shape.kind) && shapes[index].whereClauseFilters {
            let stats = shapes[index]
            // Only a filter on t0's own columns can use an index; a scan for an @count subquery
            // (a filter on the key alone) has nothing to index.
            let columns = Self.filteredColumns(stats.shape)
            guard !columns.isEmpty else { continue }
            let plan = stats.loggedPlan ?? snapshot.flatMap { QueryPlan.explain(stats.example, on: $0) }
            guard let plan, let scan = QueryPlan.scan(in: plan, shape: stats.shape) else { continue }
            let owner = entity(stats) ?? stats.shape.mainTable ?? "?"
            let properties = columns.map { column in names?.property(ofColumn: column, alias: "t0", in: stats.shape)?.property ?? column }
            let unique = properties.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            let source = stats.loggedPlan != nil ? "the logged plan" : "the store's plan"
            findings.append(
                Finding(
                    kind: "tableScan", entity: owner, relationship: nil, sql: stats.shape.text, readable: readable(stats),
                    count: stats.count, seconds: stats.seconds,
                    summary:
                        "\(owner) filtered on \(unique.joined(separator: ", ")) reads every row of \(stats.shape.mainTable ?? "?") (\(source): \(scan)), \(plural(stats.count, "time")), \(seconds(stats.seconds))",
                    fix: "add a fetch index on \(owner) (\(unique.joined(separator: ", "))) in the model: Xcode's model editor, \(owner), Indexes"))
        }
        for index in ranked {
            let stats = shapes[index]
            let owner = entity(stats) ?? stats.shape.mainTable ?? "?"
            if stats.largeFetches > 0 {
                findings.append(
                    Finding(
                        kind: "largeFetch", entity: owner, relationship: nil, sql: stats.shape.text, readable: readable(stats),
                        count: stats.largeFetches, seconds: stats.seconds,
                        summary:
                            "\(owner) fetched without a limit, up to \(plural(stats.maxRows, "row")) at once (\(plural(stats.largeFetches, "time")) with \(grouped(TraceAnalyzer.largeFetchRows)) or more)",
                        fix: "set fetchBatchSize (20 to 100) so only the objects in use are loaded, or fetchLimit; propertiesToFetch reads fewer columns"))
            }
            if stats.allBatchesLoaded > 0 {
                findings.append(
                    Finding(
                        kind: "batchesLoadedAtOnce", entity: owner, relationship: nil, sql: stats.shape.text, readable: readable(stats),
                        count: stats.allBatchesLoaded, seconds: stats.seconds,
                        summary:
                            "fetchBatchSize had no effect on \(owner): every batch was loaded right after the keys (\(plural(stats.allBatchesLoaded, "time")), up to \(plural(stats.batchesInLargestRun, "batch", "batches")))",
                        fix:
                            "something walked the whole result at once: a Swift Array bridged from the results or a diffable snapshot; keep the NSArray or the fetched results controller's sections, or page with fetchLimit and fetchOffset"
                    ))
            }
            if stats.afterSameCount > 0 {
                findings.append(
                    Finding(
                        kind: "countThenFetch", entity: owner, relationship: nil, sql: stats.shape.text, readable: readable(stats),
                        count: stats.afterSameCount, seconds: stats.seconds,
                        summary: "a count request with the same filter ran just before this fetch of \(owner) (\(plural(stats.afterSameCount, "time")))",
                        fix: "the fetch's results already give the count: use results.count and drop the count request"))
            }
            if stats.keysOnlyWithoutBatches > 0 {
                findings.append(
                    Finding(
                        kind: "keysOnlyFetch", entity: owner, relationship: nil, sql: stats.shape.text, readable: readable(stats),
                        count: stats.keysOnlyWithoutBatches, seconds: stats.seconds,
                        summary: "\(owner) keys fetched and no object loaded after them (\(plural(stats.keysOnlyWithoutBatches, "time")))",
                        fix: "when only the number of results is used, a count request (context.count(for:)) does not read the rows"))
            }
        }
        if analyzer.retries > 0 || analyzer.rolledBack > 0 {
            findings.append(
                Finding(
                    kind: "optimisticLockingRetry", entity: nil, relationship: nil, sql: nil, readable: nil,
                    count: analyzer.retries, seconds: 0,
                    summary:
                        "\(plural(analyzer.rolledBack, "save")) rolled back, \(analyzer.retries) retried with the same objects (an UPDATE or DELETE checked Z_OPT, the optimistic-locking version)",
                    fix:
                        "another context or process changed the same objects first: merge its changes before saving (automaticallyMergesChangesFromParent, NSPersistentStoreRemoteChange) and choose a merge policy"
                ))
        }

        let writes = analyzer.writesByTable.map { table, writes in
            EntityWrites(entity: names?.entity(ofTable: table) ?? table, inserts: writes.inserts, updates: writes.updates, deletes: writes.deletes)
        }.sorted { ($0.inserts + $0.updates + $0.deletes, $1.entity) > ($1.inserts + $1.updates + $1.deletes, $0.entity) }
        let largest = analyzer.largestTransactions.map { transaction in
            TransactionSummary(
                number: transaction.number, inserts: transaction.writes.values.reduce(0) { $0 + $1.inserts },
                updates: transaction.writes.values.reduce(0) { $0 + $1.updates },
                deletes: transaction.writes.values.reduce(0) { $0 + $1.deletes },
                selects: transaction.selects, seconds: transaction.seconds)
        }
        let saves = Saves(
            transactions: analyzer.transactions, rolledBack: analyzer.rolledBack, retried: analyzer.retries,
            statements: analyzer.saveStatements, seconds: analyzer.saveSeconds, entities: writes, largest: largest)
        let input = Input(
            lines: lines, records: analyzer.records, statements: analyzer.statements, loggedStore: analyzer.connectedStore,
            names: namesKind, namesFrom: namesFrom, plansFromStore: snapshot != nil)
        return TraceReport(input: input, shapes: shown, shapeCount: shapes.count, findings: findings, saves: saves)
    }

    /// `t0` columns in a statement's WHERE clause, other than its key and entity columns.
    static func filteredColumns(_ shape: StatementShape) -> [String] {
        guard let condition = shape.whereClause else { return [] }
        var columns: [String] = []
        for match in condition.matches(of: /\bt0\.([A-Za-z_][A-Za-z0-9_]*)/) {
            let column = String(match.output.1)
            if column != "Z_PK", column != "Z_ENT", !columns.contains(column) { columns.append(column) }
        }
        return columns
    }
}

/// Seconds with four decimals, as Core Data logs them.
func seconds(_ value: Double) -> String {
    String(format: "%.4fs", value)
}
