import CDModel
import Foundation

/// Loads every model version a path offers: a model file or bundle (``ModelFiles``), or a
/// store, whose cached model is its one version (named `cache`).
public enum ModelSource {
    public static func versions(at path: String) throws -> [ModelVersion] {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StoreError("\(url.path): no such file")
        }
        if ModelFiles.canRead(url) {
            do {
                return try ModelFiles.versions(at: url)
            } catch let failure as ModelFiles.Failure {
                throw StoreError(failure.description)
            }
        }
        if isDirectory.boolValue {
            throw StoreError("\(url.path) is a directory but not a model (.xcdatamodeld, .xcdatamodel, .momd, a folder of ruby-xcdm .rb schemas)")
        }
        return try cachedVersion(at: url.path)
    }

    /// The model cached in a store (Z_MODELCACHE), as version `cache`.
    public static func cachedVersion(at path: String) throws -> [ModelVersion] {
        let snapshot = try StoreSnapshot(path: path)
        let cache = try snapshot.read { db in try ModelCache.read(db, path: snapshot.files.main.path) }
        guard let cache else {
            throw StoreError("\(snapshot.files.main.path) has no model cache (Z_MODELCACHE): it was written before framework 754; pass the app's model file instead")
        }
        return [ModelVersion(name: "cache", current: true, model: cache.model)]
    }
}
