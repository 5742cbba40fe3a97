import CDBase
import CDMapping
import CDModel
import GRDB

extension StoreSnapshot {
    /// Rows of `entity` and its sub-entities whose `attribute` is NULL, located with the
    /// mapping Core Data derives from `model` (the model that wrote the store) and the store's
    /// own `Z_ENT` numbers. Nil when the table or column is not in the store.
    ///
    /// Making an attribute non-optional without a default migrates, but every such row then
    /// fails validation (docs/format/model-format.md §6.3 step 3).
    public func countNulls(model: ManagedObjectModel, entity: String, attribute: String) throws -> Int? {
        try read { db -> Int? in
            let mapping = StoreMapping.predict(model: model, registry: try EntityRegistry.read(db))
            guard let table = mapping.table(forEntity: entity),
                let column = mapping.column(forProperty: attribute, ofEntity: entity)
            else { return nil }
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.name.quotedSQLIdentifier))")
                .map { $0["name"] as String? }
            guard columns.contains(column.name) else { return nil }
            let numbers = mapping.entityNumbers(includingSubentitiesOf: entity).map(String.init).joined(separator: ", ")
            return try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM \(table.name.quotedSQLIdentifier) \
                    WHERE Z_ENT IN (\(numbers)) AND \(column.name.quotedSQLIdentifier) IS NULL
                    """)
        }
    }
}
