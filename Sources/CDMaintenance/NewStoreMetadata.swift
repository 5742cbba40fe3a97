import CDArchive
import CDModel
import Foundation

/// The `Z_PLIST` dictionary Core Data writes for a new store (docs/format/store-format.md §5).
///
/// Every value is computed from the model: the entity version hashes, and the digest and the
/// checksum derived from them (§5.1), never copied from another store.
package enum NewStoreMetadata {
    /// The metadata for `model` as framework `features.version` writes it.
    ///
    /// `additionalEntries` are kept after the framework's keys (a recreated store keeps the
    /// hashes of framework-owned models, `_NSStoreAncillaryModelVersionHashesMetadataKey`).
    package static func plist(
        for model: ManagedObjectModel, features: FrameworkFeatures,
        additionalEntries: [(key: String, value: PropertyListValue)] = []
    ) -> PropertyListValue {
        let hashes = VersionHashes.entityHashes(of: model)
        var entries: [(key: String, value: PropertyListValue)] = [
            ("NSPersistenceFrameworkVersion", .integer(Int64(features.version))),
            ("NSStoreModelVersionHashes", .dictionary(VersionHashes.sortedNames(hashes).map { ($0, .data(hashes[$0]!)) })),
            ("NSStoreModelVersionHashesVersion", .integer(3)),
            ("NSStoreModelVersionIdentifiers", .array(model.versionIdentifiers.map(PropertyListValue.string))),
            ("NSStoreType", .string("SQLite")),
            ("_NSAutoVacuumLevel", .string("2")),
        ]
        if features.writesHashesDigest {
            entries.append(("NSStoreModelVersionHashesDigest", .string(VersionHashes.digest(of: hashes))))
        }
        if features.writesChecksum {
            entries.append(("NSStoreModelVersionChecksumKey", .string(VersionHashes.checksum(of: hashes))))
        }
        let ownKeys = Set(entries.map(\.key))
        entries += additionalEntries.filter { !ownKeys.contains($0.key) }
        return .dictionary(entries)
    }
}
