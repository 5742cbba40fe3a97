import CDArchive
import CDMapping
import CDModel
import CDStore
import Foundation

/// Everything a new, empty store is made from: the model, its tables, the framework version to
/// write, and what a store being replaced hands on.
package struct StoreBlueprint: Sendable {
    package var model: ManagedObjectModel
    /// The tables, columns and indexes to create, with the `Z_ENT` numbers to register.
    package var mapping: StoreMapping
    package var features: FrameworkFeatures
    /// Framework-owned `Z_PRIMARYKEY` rows (persistent history 16001–16003) to register too.
    package var reservedEntities: [RegisteredEntity]
    /// Metadata kept from a replaced store after the framework's own keys (the hashes of
    /// framework-owned models).
    package var additionalMetadata: [(key: String, value: PropertyListValue)]

    /// A store for `model` as Core Data creates it on first use: entity numbers computed as
    /// observed (store-format.md §4), no persistent history.
    package static func fresh(model: ManagedObjectModel, frameworkVersion: Int = FrameworkFeatures.defaultVersion) -> StoreBlueprint {
        let features = FrameworkFeatures(version: frameworkVersion)
        return StoreBlueprint(
            model: model, mapping: StoreMapping.predict(model: model, options: features.mappingOptions),
            features: features, reservedEntities: [], additionalMetadata: [])
    }

    /// A store for `model` that replaces the store open in `snapshot`: the old store's entity
    /// numbers, table and column names (where a rule is uncertain, §7.2 and §7.6), history tables
    /// and framework version are kept, so the app finds the layout it had.
    ///
    /// The numbers and names are kept only when `model` is the model the old store was written
    /// with (equal entity hashes); for another model the store is laid out as ``fresh(model:frameworkVersion:)``.
    package static func replacing(_ snapshot: StoreSnapshot, model: ManagedObjectModel, frameworkVersion: Int? = nil) throws -> StoreBlueprint {
        let path = snapshot.files.main.path
        let (metadata, registry, schema) = try snapshot.read { db in
            (try StoreMetadata.read(db, path: path), try EntityRegistry.read(db), try StoreSchema.read(db))
        }
        let features = FrameworkFeatures(version: frameworkVersion ?? metadata.frameworkVersion ?? FrameworkFeatures.defaultVersion)
        guard VersionHashes.entityHashes(of: model) == metadata.versionHashes else {
            return fresh(model: model, frameworkVersion: features.version)
        }
        var mapping = StoreMapping.resolve(model: model, registry: registry, schema: schema)
        // The old store's framework may differ from the one written (`--framework-version`):
        // the model cache follows the new one.
        mapping.tables.removeAll { $0.name == "Z_MODELCACHE" }
        if features.writesModelCache,
            let cache = StoreMapping.predict(model: model, options: features.mappingOptions).table(named: "Z_MODELCACHE"),
            let metadataTable = mapping.tables.firstIndex(where: { $0.name == "Z_METADATA" })
        {
            mapping.tables.insert(cache, at: metadataTable + 1)
        }
        let ancillary = metadata.otherEntries.filter { $0.key == "_NSStoreAncillaryModelVersionHashesMetadataKey" }
        let hasHistory = mapping.tables.contains { $0.kind == .history }
        return StoreBlueprint(
            model: model, mapping: mapping, features: features,
            reservedEntities: hasHistory ? registry.entities.filter { $0.reservedRange != nil } : [],
            additionalMetadata: hasHistory ? ancillary : [])
    }
}
