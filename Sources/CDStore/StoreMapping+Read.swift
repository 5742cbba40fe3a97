import CDMapping
import Foundation
import GRDB

extension StoreMapping {
    /// The resolved mapping of the store open in `db`, from its model cache and `Z_PRIMARYKEY`;
    /// `nil` when the store has no model cache (framework before 640).
    public static func read(_ db: Database, path: String) throws -> StoreMapping? {
        guard let cache = try ModelCache.read(db, path: path) else { return nil }
        let registry = try EntityRegistry.read(db)
        let schema = try StoreSchema.read(db)
        return resolve(model: cache.model, registry: registry, schema: schema)
    }
}
