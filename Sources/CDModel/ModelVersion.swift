import Foundation

/// One version of a model source: a `.xcdatamodel` inside a bundle, a `.mom` inside a `.momd`,
/// or the copy cached in a store (named `cache`).
public struct ModelVersion: Sendable, Codable, Equatable {
    /// The version's name: the `.xcdatamodel` or `.mom` file name without extension, a ruby-xcdm
    /// schema's version string, or `cache`.
    public var name: String
    /// Whether the source marks this version as current (a store's cache always is).
    public var current: Bool
    /// The model this version holds.
    public var model: ManagedObjectModel

    /// A version from its name, current flag and model.
    public init(name: String, current: Bool, model: ManagedObjectModel) {
        self.name = name
        self.current = current
        self.model = model
    }
}

/// Version hashes of each version of a model source; the JSON of `cdstore model --hashes`.
package struct ModelHashReport: Sendable, Codable, Equatable {
    package struct Version: Sendable, Codable, Equatable {
        package var name: String
        package var current: Bool
        /// Entity name → lowercase hex, computed from the model (never copied from metadata).
        package var entityHashes: [String: String]
        /// base64 SHA-256 over the hashes (`versionChecksum`).
        package var versionChecksum: String
        /// base64 SHA-512 over names and hashes (`NSStoreModelVersionHashesDigest`).
        package var versionHashesDigest: String
    }

    package var versions: [Version]

    package init(versions: [ModelVersion]) {
        self.versions = versions.map { version in
            let hashes = VersionHashes.entityHashes(of: version.model)
            return Version(
                name: version.name, current: version.current,
                entityHashes: hashes.mapValues(\.hexString),
                versionChecksum: VersionHashes.checksum(of: hashes),
                versionHashesDigest: VersionHashes.digest(of: hashes))
        }
    }
}
