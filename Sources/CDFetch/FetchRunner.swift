import CDModel
import CDPredicate
import CDStore
import Foundation
import GRDB

/// Runs ``FetchRequest``s on a store: translates them with ``FetchSQL``, runs the statement on
/// the snapshot's read-only copy with Core Data's SQL functions registered, logs it to the
/// snapshot's ``SQLTrace`` and streams the results.
package final class FetchRunner {
    package let reader: ObjectReader
    package let translator: FetchSQL

    package init(reader: ObjectReader) {
        self.reader = reader
        translator = FetchSQL(model: reader.model, mapping: reader.mapping)
        reader.snapshot.database.inDatabase { db in CoreDataSQLFunctions.register(in: db) }
    }

    /// The statement that runs for `request`. For CDQ's `last`, the matching objects are counted
    /// first (as CDQ does) and the offset set so that the final `limit` objects come back.
    package func statement(for request: FetchRequest) throws -> FetchStatement {
        guard request.takesLast, request.result == .objects else { return try checked(translator.statement(for: request)) }
        let total = try count(
            FetchRequest(entity: request.entity, predicate: request.predicate, result: .count, includesSubentities: request.includesSubentities))
        var resolved = request
        resolved.takesLast = false
        resolved.limit = request.limit ?? 1
        resolved.offset = max(0, total - (request.limit ?? 1))
        return try checked(translator.statement(for: resolved))
    }

    /// `statement` once SQLite has compiled it. A predicate too large for SQLite (thousands of
    /// ORs nest deeper than its expression limit) is then reported as such, instead of as an
    /// SQLite error on the store. The compile runs outside a transaction so the SQL debug log
    /// shows only what Core Data would run; any other compile error is left to the run itself,
    /// which reports it with the store's path.
    private func checked(_ statement: FetchStatement) throws -> FetchStatement {
        try reader.snapshot.database.inDatabase { db in
            do {
                _ = try db.makeStatement(sql: statement.sql)
            } catch let error as DatabaseError where Self.sqliteLimitMessages.contains(where: { error.message?.hasPrefix($0) == true }) {
                throw FetchError.predicateTooComplex(sqliteMessage: error.message)
            } catch {
                return
            }
        }
        return statement
    }

    /// The starts of SQLite's messages for a statement beyond its compile-time limits.
    private static let sqliteLimitMessages = ["Expression tree is too large", "too many SQL variables", "parser stack overflow"]

    /// The number of objects `request` matches, with its offset and limit applied to the count
    /// as Core Data applies them to a count request.
    package func count(_ request: FetchRequest) throws -> Int {
        var counting = request
        counting.result = .count
        let statement = try checked(translator.statement(for: counting))
        let total = try reader.snapshot.read { db in
            let run = { try Int.fetchOne(db, sql: statement.sql, arguments: StatementArguments(statement.arguments)) ?? 0 }
            guard let trace = reader.snapshot.trace else { return try run() }
            return try trace.count(sql: statement.sql, arguments: statement.arguments, in: db, run: run)
        }
        let remaining = max(0, total - (request.offset ?? 0))
        return request.limit.map { min($0, remaining) } ?? remaining
    }

    /// Distinct values or an aggregate: calls `row` with the decoded values of each result row.
    package func values(_ request: FetchRequest, row: ([ObjectValue]) throws -> Void) throws {
        let statement = try self.statement(for: request)
        guard statement.kind == .values else { throw FetchError.notForValues }
        try reader.snapshot.read { db in
            let cursor = try Row.fetchCursor(db, sql: statement.sql, arguments: StatementArguments(statement.arguments))
            func step() throws -> SQLTrace.FetchOutcome {
                var outcome = SQLTrace.FetchOutcome(rows: 0, sqliteTime: 0)
                while let next = try cursor.next() {
                    var decoded: [ObjectValue] = []
                    for (index, column) in statement.valueColumns.enumerated() {
                        decoded.append(Self.decode(next[index] as DatabaseValue, type: column.type))
                    }
                    outcome.rows += 1
                    try row(decoded)
                }
                return outcome
            }
            if let trace = reader.snapshot.trace {
                try trace.fetch(sql: statement.sql, arguments: statement.arguments, entity: request.entity, in: db, rows: step)
            } else {
                _ = try step()
            }
        }
    }

    /// Objects of `request`, streamed through the snapshot's ``ObjectReader`` so values,
    /// relationships and `includes` behave exactly as in `dump`. `describe` renders an object
    /// for the level-3 trace.
    package func objects(
        _ request: FetchRequest, includes: Set<String> = [], countsToMany: Bool = false,
        describe: (@Sendable (StoredObject) -> String)? = nil,
        section: (ObjectSection) throws -> Void, object: (StoredObject) throws -> Void
    ) throws {
        try rows(request, includes: includes, countsToMany: countsToMany, describe: describe, section: section) { row in
            try object(row.object())
        }
    }

    /// ``objects(_:includes:countsToMany:describe:section:object:)`` without building a
    /// ``StoredObject`` per row: `row` gets the current row, as ``ObjectReader/readRows(_:section:row:)``
    /// lends it, for renderers that write values in place.
    package func rows(
        _ request: FetchRequest, includes: Set<String> = [], countsToMany: Bool = false,
        describe: (@Sendable (StoredObject) -> String)? = nil,
        section: (ObjectSection) throws -> Void, row: (borrowing ObjectRow) throws -> Void
    ) throws {
        let statement = try self.statement(for: request)
        guard statement.kind == .objects else { throw FetchError.notForObjects }
        let query = ObjectQuery(
            entity: request.entity, includesSubentities: request.includesSubentities, includes: includes, countsToMany: countsToMany,
            statement: ObjectStatement(
                sql: statement.sql, arguments: statement.arguments,
                columns: statement.columns, describe: describe, lengthColumns: statement.lengthColumns),
            largeValueLimit: request.largeValueLimit)
        try reader.readRows(query, section: section, row: row)
    }

    /// A result value typed by its attribute when known, else as SQLite gives it.
    static func decode(_ value: DatabaseValue, type: AttributeType?) -> ObjectValue {
        let raw: ValueDecoder.Raw
        switch value.storage {
        case .null: raw = .null
        case .int64(let i): raw = .integer(i)
        case .double(let d): raw = .real(d)
        case .string(let s): raw = .text(s)
        case .blob(let d): raw = .blob(d)
        }
        if let type { return ValueDecoder.decode(raw, type: type, allowsExternalStorage: false, externalData: nil) }
        switch raw {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .double(d)
        case .text(let s): return .string(s)
        case .blob(let d): return .binary(d)
        }
    }
}

extension FetchRunner {
    /// Runs one read-only SQL statement (pasted from an app's log, say) with Core Data's
    /// functions registered: `columns` gets the result's column names, then `row` each row.
    /// A statement that would write is refused before it runs. It needs no model, so it works on
    /// a store whose model cache cannot be read.
    package static func raw(
        _ sql: String, arguments: [String] = [], on snapshot: StoreSnapshot, columns: ([String]) throws -> Void,
        row: ([ObjectValue]) throws -> Void
    ) throws {
        snapshot.database.inDatabase { db in CoreDataSQLFunctions.register(in: db) }
        try snapshot.read { db in
            let statement: Statement
            do {
                // Compiled one at a time so that a second statement is refused with a message of
                // ours (GRDB's own advises running all of them, which --raw never does).
                let statements = try db.allStatements(sql: sql)
                guard let first = try statements.next() else { throw FetchError.rawSQLEmpty }
                guard try statements.next() == nil else {
                    throw FetchError.rawSQLSeveralStatements
                }
                statement = first
            } catch let error as DatabaseError {
                throw FetchError.rawSQLInvalid(sqliteMessage: error.message)
            }
            guard statement.isReadonly else { throw FetchError.rawSQLWrites }
            let bound = arguments.map { SQLBuilder.databaseValue(PredicateParser.value(ofArgument: $0), type: nil) }
            do {
                try statement.setArguments(StatementArguments(bound))
            } catch {
                throw FetchError.rawSQLArgumentCount(given: arguments.count)
            }
            try columns(statement.columnNames)
            let cursor = try Row.fetchCursor(statement)
            func step() throws -> SQLTrace.FetchOutcome {
                var outcome = SQLTrace.FetchOutcome(rows: 0, sqliteTime: 0)
                while let next = try cursor.next() {
                    try row((0..<next.count).map { Self.decode(next[$0] as DatabaseValue, type: nil) })
                    outcome.rows += 1
                }
                return outcome
            }
            if let trace = snapshot.trace {
                try trace.fetch(sql: sql, arguments: bound, entity: "", in: db, rows: step)
            } else {
                _ = try step()
            }
        }
    }
}
