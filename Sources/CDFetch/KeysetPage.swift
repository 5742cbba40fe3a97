import CDBase
import CDModel
import CDStore
import GRDB

/// Keyset pagination of an object fetch, for front ends that page through a result (`serve`):
/// the objects are ordered by the request's sort descriptors and then by `Z_PK`, so every
/// position is unique, and a page starts strictly after the last object of the page before
/// instead of skipping `OFFSET` rows, so page 10,000 costs what page 1 costs. Core Data itself
/// never writes this SQL: its fetches page with `OFFSET` (fetchOffset) or batches of IDs.
package struct KeysetPage: Sendable, Equatable {
    /// Where the page starts; nil for the first page.
    package var after: KeysetPosition?

    package init(after: KeysetPosition? = nil) {
        self.after = after
    }
}

/// The position of one object in a keyset-ordered result: the values its sort key paths have in
/// the store, exactly as SQLite holds them (so they compare as the `ORDER BY` compares them,
/// collation included), and its `Z_PK`.
package struct KeysetPosition: Sendable, Equatable {
    package var sortValues: [DatabaseValue]
    package var primaryKey: Int64

    package init(sortValues: [DatabaseValue], primaryKey: Int64) {
        self.sortValues = sortValues
        self.primaryKey = primaryKey
    }
}

extension SQLBuilder {
    /// The tie-breaker that makes a keyset order total: `Z_PK` after the sort descriptors.
    static func keysetOrder(after order: String, scope: Scope) -> String {
        order.isEmpty ? " ORDER BY \(scope.alias).Z_PK" : order + ", \(scope.alias).Z_PK"
    }

    /// The rows strictly after `position` in the order of `descriptors` then `Z_PK`, as SQLite
    /// orders them: NULL before every value ascending, after every value descending, and each
    /// comparison under the descriptor's collation. For sort keys s1…sn with values v1…vn and
    /// key p: `s1 after v1 OR (s1 = v1 AND s2 after v2) OR … OR (s1 = v1 AND … AND Z_PK > p)`.
    func keysetCondition(after position: KeysetPosition, descriptors: [SortDescriptor], scope: Scope) throws(FetchSQLError) -> String {
        guard position.sortValues.count == descriptors.count else {
            throw .keysetPositionMismatch(values: position.sortValues.count, sortKeys: descriptors.count)
        }
        var columns: [(plain: String, collated: String, ascending: Bool)] = []
        for descriptor in descriptors {
            guard let comparison = descriptor.comparison else {
                throw .unsupportedSortSelector(key: descriptor.key, selector: descriptor.selector ?? "")
            }
            let (column, _) = try valueColumn(descriptor.key, scope: scope, purpose: "sorting", outer: true)
            columns.append((column, column + (comparison.collation.map { " COLLATE " + $0 } ?? ""), descriptor.ascending))
        }
        // Each `?` is bound where it is written, so the arguments follow the text; an
        // alternative that cannot hold (after NULL, descending: nothing sorts later) binds nothing.
        func equal(_ index: Int) -> String {
            let value = position.sortValues[index]
            return value.isNull ? "\(columns[index].plain) IS NULL" : "\(columns[index].collated) = " + bind(value)
        }
        func after(_ index: Int) -> String {
            let value = position.sortValues[index]
            let column = columns[index]
            switch (value.isNull, column.ascending) {
            case (true, _): return "\(column.plain) IS NOT NULL"
            case (false, true): return "\(column.collated) > " + bind(value)
            case (false, false): return "(\(column.collated) < " + bind(value) + " OR \(column.plain) IS NULL)"
            }
        }
        var alternatives: [String] = []
        for index in 0...columns.count {
            if index < columns.count && position.sortValues[index].isNull && !columns[index].ascending { continue }
            var terms: [String] = []
            for earlier in 0..<index { terms.append(equal(earlier)) }
            terms.append(index == columns.count ? "\(scope.alias).Z_PK > " + bind(position.primaryKey.databaseValue) : after(index))
            alternatives.append("(" + terms.joined(separator: " AND ") + ")")
        }
        return "(" + alternatives.joined(separator: " OR ") + ")"
    }
}

extension FetchRunner {
    /// The keyset position of the object `primaryKey` in `request`'s order: its sort key paths'
    /// stored values, read with the same joins the fetch uses.
    package func keysetPosition(of primaryKey: Int64, in request: FetchRequest) throws -> KeysetPosition {
        guard let table = reader.mapping.table(forEntity: request.entity) else {
            throw StoreError.unknownEntity(request.entity, mapping: reader.mapping, model: reader.model)
        }
        let builder = SQLBuilder(model: reader.model, mapping: reader.mapping)
        let root = SQLBuilder.Scope(alias: "t0", entity: request.entity)
        var selected: [String] = []
        for descriptor in request.sortDescriptors {
            selected.append(try builder.valueColumn(descriptor.key, scope: root, purpose: "sorting", outer: true).0)
        }
        let key = builder.bind(primaryKey.databaseValue)
        let sql =
            "SELECT " + (selected.isEmpty ? "t0.Z_PK" : selected.joined(separator: ", ")) + " FROM \(table.name.renderedSQLIdentifier) t0"
            + builder.joinClause + " WHERE t0.Z_PK = " + key
        let arguments = builder.arguments
        let values = try reader.snapshot.read { db -> [DatabaseValue]? in
            guard let row = try Row.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) else { return nil }
            return selected.indices.map { row[$0] as DatabaseValue }
        }
        guard let values else { throw FetchSQLError.noObject(entity: request.entity, primaryKey: primaryKey) }
        return KeysetPosition(sortValues: values, primaryKey: primaryKey)
    }
}
