import CDModel
import Foundation

/// Loads every model version a path offers. For now a path is a store, whose cached model is
/// the one version (named `cache`).
public enum ModelSource {
    public static func versions(at path: String) throws -> [ModelVersion] {
        let snapshot = try StoreSnapshot(path: path)
        let cache = try snapshot.read { db in try ModelCache.read(db, path: snapshot.files.main.path) }
        guard let cache else {
            throw StoreError("\(snapshot.files.main.path) has no model cache (Z_MODELCACHE): it was written before framework 754; pass the app's model file instead")
        }
        return [ModelVersion(name: "cache", current: true, model: cache.model)]
    }
}
