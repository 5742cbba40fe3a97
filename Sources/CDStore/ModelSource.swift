import CDMapping
import CDModel
import Foundation

/// Loads every model version a path offers: a model file or bundle (`ModelFiles`), or a
/// store, whose cached model is its one version (named `cache`).
public enum ModelSource {
    /// `trace` logs the SQL run when `path` is a store.
    public static func versions(at path: String, trace: SQLTrace? = nil) throws -> [ModelVersion] {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StoreError.fileNotFound(path: url.path)
        }
        if ModelFiles.canRead(url) {
            return try ModelFiles.versions(at: url)
        }
        if isDirectory.boolValue {
            throw StoreError.directoryNotAModel(path: url.path)
        }
        return try cachedVersion(at: url.path, trace: trace)
    }

    /// The model cached in a store (Z_MODELCACHE), as version `cache`.
    public static func cachedVersion(at path: String, trace: SQLTrace? = nil) throws -> [ModelVersion] {
        let snapshot = try StoreSnapshot(path: path, trace: trace)
        let cache = try snapshot.read { db in try ModelCache.read(db, path: snapshot.files.main.path) }
        guard let cache else {
            throw StoreError.noModelCache(path: snapshot.files.main.path, remedy: .modelFile)
        }
        return [ModelVersion(name: "cache", current: true, model: cache.model)]
    }

    /// The tables, columns and indexes Core Data creates for one version of the model at `path`.
    ///
    /// For a store, its cached model is mapped and uncertain rules are resolved against the
    /// store's own `sqlite_master`; for model files the mapping is predicted, with entity numbers
    /// in the order observed in real stores and the rules of `frameworkVersion` (model cache,
    /// uniqueness and legacy index styles; no persistent history). `versionName` picks a
    /// version; the current one is used by default. `frameworkVersionGiven` refuses a store,
    /// whose own schema settles what the version would.
    public static func mapping(
        at path: String, versionName: String? = nil, frameworkVersion: Int,
        frameworkVersionGiven: Bool = false, trace: SQLTrace? = nil
    ) throws -> StoreMapping {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue, !ModelFiles.canRead(url) {
            if frameworkVersionGiven {
                throw StoreError.frameworkVersionForStore(path: url.path)
            }
            if let versionName, versionName != "cache" {
                throw StoreError.storeVersionNotCache(path: url.path, requested: versionName)
            }
            let snapshot = try StoreSnapshot(path: url.path, trace: trace)
            guard let mapping = try snapshot.read({ db in try StoreMapping.read(db, path: url.path) }) else {
                throw StoreError.noModelCache(path: url.path, remedy: .modelFile)
            }
            return mapping
        }
        let version = try version(at: path, named: versionName)
        return StoreMapping.predict(model: version.model, options: MappingOptions(frameworkVersion: frameworkVersion, history: .none))
    }

    /// The version named `name` of the model at `path`, or else its only or current one.
    public static func version(at path: String, named name: String?, trace: SQLTrace? = nil) throws -> ModelVersion {
        try chooseVersion(try versions(at: path, trace: trace), named: name, path: path)
    }

    /// The version named `name`, or else the only or current one.
    package static func chooseVersion(_ versions: [ModelVersion], named name: String?, path: String) throws -> ModelVersion {
        if let name {
            guard let chosen = versions.first(where: { $0.name == name }) else {
                throw StoreError.unknownModelVersion(path: path, name: name, versions: versions.map(\.name))
            }
            return chosen
        }
        guard let version = versions.count == 1 ? versions.first : versions.first(where: \.current) else {
            throw StoreError.noCurrentModelVersion(path: path)
        }
        return version
    }

    /// The version of the model at `path` that wrote the store: the one whose entity hashes equal
    /// the store's metadata, else the current one (so an old store can still be read, with the
    /// differences showing as missing columns).
    public static func storeModel(at path: String, for snapshot: StoreSnapshot) throws -> ManagedObjectModel {
        try storeModel(among: try versions(at: path), at: path, for: snapshot)
    }

    /// ``storeModel(at:for:)`` among the versions already read from `path`, for a reader of
    /// many snapshots (a watcher) that reads the model file once.
    package static func storeModel(among candidates: [ModelVersion], at path: String, for snapshot: StoreSnapshot) throws -> ManagedObjectModel {
        let stored = try snapshot.read { db in try StoreMetadata.read(db, path: snapshot.files.main.path).versionHashes }
        if let match = candidates.first(where: { VersionHashes.entityHashes(of: $0.model) == stored }) {
            return match.model
        }
        return try chooseVersion(candidates, named: nil, path: path).model
    }
}
