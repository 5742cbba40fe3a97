import CDBase
import Foundation

/// The differences between a mapping and a store's real schema.
public struct SchemaComparison: Sendable, Codable, Equatable {
    /// Every difference found, of all severities.
    public var differences: [SchemaDifference]

    package init(differences: [SchemaDifference]) {
        self.differences = differences
    }

    /// Differences the mapping cannot explain: the store is not laid out as predicted.
    public var failures: [SchemaDifference] {
        differences.filter { $0.severity == .failure }
    }

    /// No failures: every Core Data table, column and index is there as predicted, or differs
    /// only in ways migration history explains.
    public var matches: Bool { failures.isEmpty }

    /// Every Core Data object equals the prediction exactly (objects Core Data's model does not
    /// create, such as app tables, may still be reported).
    public var matchesExactly: Bool {
        differences.allSatisfy { $0.severity == .foreign }
    }
}

/// One difference between the mapping and the store.
public struct SchemaDifference: Sendable, Codable, Equatable {
    /// What differs.
    public enum Kind: String, Sendable, Codable {
        case missingTable, extraTable
        case missingColumn, extraColumn, columnType, columnOrder
        case missingIndex, extraIndex, indexDefinition
        /// Same structure, different statement text.
        case statementText
        case trigger
    }

    /// Whether the difference counts against the mapping.
    public enum Severity: String, Sendable, Codable {
        /// A Core Data object that is not as predicted.
        case failure
        /// A Core Data object that differs in a way migrations explain (columns appended by
        /// `ALTER TABLE`, renamed tables, indexes of earlier model versions).
        case explained
        /// An object the model does not produce: app tables and indexes, R-tree tables,
        /// framework tables not modelled, triggers. Reported, never failed.
        case foreign
    }

    /// What differs.
    public var kind: Kind
    /// Whether it counts against the mapping.
    public var severity: Severity
    /// The table the difference is in (or, for an index or trigger, the table it belongs to).
    public var table: String
    /// The column, index or trigger that differs; nil when the whole table does.
    @NullEncoded public var name: String?
    /// What the mapping predicts (a type, a statement, a column list); nil when nothing is predicted.
    @NullEncoded public var expected: String?
    /// What the store holds; nil when the store lacks the object.
    @NullEncoded public var actual: String?
    /// One line describing the difference for a person.
    public var detail: String

    package init(
        kind: Kind, severity: Severity, table: String, name: String? = nil, expected: String? = nil,
        actual: String? = nil, detail: String
    ) {
        self.kind = kind
        self.severity = severity
        self.table = table
        self.name = name
        self.expected = expected
        self.actual = actual
        self.detail = detail
    }
}

extension StoreMapping {
    /// Compares the mapping with `schema` table by table, column by column, index by index.
    public func compare(with schema: StoreSchema) -> SchemaComparison {
        var differences: [SchemaDifference] = []
        let migrated = schema.showsMigrationHistory
        for table in tables {
            guard let actual = schema.table(named: table.name) else {
                differences.append(
                    SchemaDifference(
                        kind: .missingTable, severity: .failure, table: table.name,
                        expected: table.createStatement, detail: "table missing from the store"))
                continue
            }
            if table.kind == .rtree {
                // SQLite may lack the R-tree module, so the columns are compared in the text.
                if actual.sql != table.createStatement {
                    differences.append(
                        SchemaDifference(
                            kind: .statementText, severity: .failure, table: table.name,
                            expected: table.createStatement, actual: actual.sql, detail: "R-tree table differs"))
                }
                for trigger in table.triggers where !schema.triggers.contains(where: { $0.sql == trigger }) {
                    differences.append(
                        SchemaDifference(
                            kind: .trigger, severity: .failure, table: table.name,
                            expected: trigger, detail: "R-tree trigger missing or different"))
                }
                continue
            }
            let columnDifferences = compareColumns(table, actual)
            differences += columnDifferences
            if columnDifferences.isEmpty, let sql = actual.sql, sql != table.createStatement {
                let explained = actual.wasRenamed || !actual.appendedColumns.isEmpty
                differences.append(
                    SchemaDifference(
                        kind: .statementText, severity: explained ? .explained : .failure,
                        table: table.name, expected: table.createStatement, actual: sql,
                        detail: explained ? "statement rewritten by ALTER TABLE" : "CREATE TABLE text differs"))
            }
            for index in table.indexes {
                differences += compareIndex(index, schema.index(named: index.name))
            }
        }
        differences += extraObjects(in: schema, migrated: migrated)
        return SchemaComparison(differences: differences)
    }

    private func compareColumns(_ table: MappedTable, _ actual: StoreSchema.Table) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        let actualByName = Dictionary(actual.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let expectedNames = Set(table.columns.map(\.name))
        for column in table.columns {
            guard let found = actualByName[column.name] else {
                result.append(
                    SchemaDifference(
                        kind: .missingColumn, severity: .failure, table: table.name, name: column.name,
                        expected: column.type, detail: "column missing from the store"))
                continue
            }
            if found.type != column.type {
                result.append(
                    SchemaDifference(
                        kind: .columnType, severity: .failure, table: table.name, name: column.name,
                        expected: column.type, actual: found.type, detail: "declared type differs"))
            }
        }
        for column in actual.columns where !expectedNames.contains(column.name) {
            result.append(
                SchemaDifference(
                    kind: .extraColumn, severity: .failure, table: table.name, name: column.name,
                    actual: column.type, detail: "column the model does not explain"))
        }
        let expectedOrder = table.columns.map(\.name)
        let actualOrder = actual.columns.map(\.name)
        if result.isEmpty, expectedOrder != actualOrder {
            let reasons = orderExplanation(table, actual)
            result.append(
                SchemaDifference(
                    kind: .columnOrder, severity: reasons == nil ? .failure : .explained,
                    table: table.name, expected: expectedOrder.joined(separator: ", "),
                    actual: actualOrder.joined(separator: ", "),
                    detail: reasons ?? "column order differs from Core Data's order (§7.3)"))
        }
        return result
    }

    /// Why a migrated store's column order may differ, or `nil` if nothing explains it. Leaving
    /// out the columns migrations move (appended ones, renamed properties, which keep the old
    /// name's place, and `Z_FOK_` columns, whose relative order is uncertain) must leave the
    /// rest in predicted order.
    func orderExplanation(_ table: MappedTable, _ actual: StoreSchema.Table) -> String? {
        let appended = Set(actual.appendedColumns)
        let movable = Set(
            table.columns.filter {
                $0.renamedFrom != nil || $0.role == .toOneOrder || $0.role == .joinOrder
            }.map(\.name))
        let fixed = { (name: String) in !appended.contains(name) && !movable.contains(name) }
        guard table.columns.map(\.name).filter(fixed) == actual.columns.map(\.name).filter(fixed) else { return nil }
        var reasons: [String] = []
        if !appended.isEmpty { reasons.append("\(appended.count) column(s) appended by ALTER TABLE ADD COLUMN") }
        let moved = table.columns.filter { movable.contains($0.name) }
        if moved.contains(where: { $0.renamedFrom != nil }) { reasons.append("renamed properties keep their old position") }
        if moved.contains(where: { $0.role == .toOneOrder || $0.role == .joinOrder }) {
            reasons.append("Z_FOK_ columns in the store's order")
        }
        return reasons.joined(separator: "; ")
    }

    private func compareIndex(_ index: MappedIndex, _ actual: StoreSchema.Index?) -> [SchemaDifference] {
        guard let actual, let sql = actual.sql else {
            return [
                SchemaDifference(
                    kind: .missingIndex, severity: .failure, table: index.table, name: index.name,
                    expected: index.createStatement, detail: "index missing from the store")
            ]
        }
        let expected = index.createStatement
        if sql == expected { return [] }
        if Self.normalized(sql) == Self.normalized(expected) {
            return [
                SchemaDifference(
                    kind: .statementText, severity: .explained, table: index.table, name: index.name,
                    expected: expected, actual: sql,
                    detail: "same index; spacing or quoting differs (older framework or a renamed table)")
            ]
        }
        return [
            SchemaDifference(
                kind: .indexDefinition, severity: .failure, table: index.table, name: index.name,
                expected: expected, actual: sql, detail: "index definition differs")
        ]
    }

    /// Whitespace collapsed and identifier quotes dropped.
    static func normalized(_ sql: String) -> String {
        sql.replacingOccurrences(of: "\"", with: "")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            .replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
    }

    /// Tables, indexes and triggers of the store that the mapping does not have.
    private func extraObjects(in schema: StoreSchema, migrated: Bool) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        let mappedTables = Set(tables.map(\.name))
        let mappedIndexes = Set(tables.flatMap(\.indexes).map(\.name))
        for table in schema.tables where !mappedTables.contains(table.name) && !table.name.hasPrefix("sqlite_") {
            let (severity, detail) = Self.classifyExtraTable(table.name)
            result.append(
                SchemaDifference(
                    kind: .extraTable, severity: severity, table: table.name,
                    actual: table.sql, detail: detail))
        }
        for index in schema.indexes where index.sql != nil && !mappedIndexes.contains(index.name) {
            let severity: SchemaDifference.Severity
            let detail: String
            if !mappedTables.contains(index.table) {
                (severity, detail) = (.foreign, "index of a table the model does not create")
            } else if index.name.hasPrefix("RADAR_") {
                (severity, detail) = (
                    .foreign,
                    "the app's own index (Photos names them after its bug numbers): no other ordered many-to-many table in the corpus has one, so Core Data does not create it"
                )
            } else if !Self.looksLikeCoreDataIndex(index.name) {
                (severity, detail) = (.foreign, "index not created by Core Data (app-defined)")
            } else if migrated {
                (severity, detail) = (.explained, "Core Data index not in this model: left by an earlier model version")
            } else {
                (severity, detail) = (.failure, "Core Data index the model does not explain")
            }
            result.append(
                SchemaDifference(
                    kind: .extraIndex, severity: severity, table: index.table, name: index.name,
                    actual: index.sql, detail: detail))
        }
        let mappedTriggers = Set(tables.flatMap(\.triggers))
        for trigger in schema.triggers where !(trigger.sql.map(mappedTriggers.contains) ?? false) {
            let detail: String
            if trigger.name.hasPrefix("Z_DA_") {
                detail = "derived-attribute trigger (§7.8), not generated by the mapping"
            } else if trigger.name.hasPrefix("Z_RT_") {
                detail = "trigger filling an R-tree table that the mapping does not have"
            } else {
                detail = "trigger not created by Core Data"
            }
            result.append(
                SchemaDifference(
                    kind: .trigger, severity: .foreign, table: trigger.table, name: trigger.name,
                    actual: trigger.sql, detail: detail))
        }
        return result
    }

    /// R-tree tables (`Z_RT_…` and their `_node`/`_parent`/`_rowid` shadows), framework tables
    /// the model does not describe (`ANSCK…` CloudKit, unmodelled history) and app tables are
    /// reported; a `Z…` table that looks like an entity or join table is a failure.
    static func classifyExtraTable(_ name: String) -> (SchemaDifference.Severity, String) {
        if name.hasPrefix("Z_RT_") { return (.foreign, "R-tree index table of a fetch index") }
        if name.hasPrefix("ANSCK") { return (.foreign, "CloudKit mirroring table (framework model, §12)") }
        if ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"].contains(name) {
            return (.foreign, "persistent-history table not in this mapping (§11)")
        }
        if looksLikeCoreDataTable(name) { return (.failure, "Core Data-style table the model does not explain") }
        return (.foreign, "table not created by Core Data")
    }

    /// `Z` + upper-case root name, or `Z_<n>` + relationship name.
    static func looksLikeCoreDataTable(_ name: String) -> Bool {
        guard name.hasPrefix("Z"), name.count > 1 else { return false }
        let rest = name.dropFirst()
        if rest.hasPrefix("_") { return rest.dropFirst().first?.isNumber ?? false }
        return rest.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" }
    }

    /// `Z_…` (fetch, uniqueness and join indexes) or `…_INDEX` (key indexes).
    static func looksLikeCoreDataIndex(_ name: String) -> Bool {
        name.hasPrefix("Z_") || (name.hasPrefix("Z") && name.hasSuffix("_INDEX"))
    }
}
