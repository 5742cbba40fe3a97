import Foundation

/// One version of a model source: a `.xcdatamodel` inside a bundle, a `.mom` inside a `.momd`,
/// or the copy cached in a store (named `cache`).
public struct ModelVersion: Sendable, Codable, Equatable {
    public var name: String
    /// Whether the source marks this version as current (a store's cache always is).
    public var current: Bool
    public var model: ManagedObjectModel

    public init(name: String, current: Bool, model: ManagedObjectModel) {
        self.name = name
        self.current = current
        self.model = model
    }
}

/// Version hashes of each version of a model source; the JSON of `cdstore model --hashes`.
public struct ModelHashReport: Sendable, Codable, Equatable {
    public struct Version: Sendable, Codable, Equatable {
        public var name: String
        public var current: Bool
        /// Entity name → lowercase hex, computed from the model (never copied from metadata).
        public var entityHashes: [String: String]
        /// base64 SHA-256 over the hashes (`versionChecksum`).
        public var versionChecksum: String
        /// base64 SHA-512 over names and hashes (`NSStoreModelVersionHashesDigest`).
        public var versionHashesDigest: String
    }

    public var versions: [Version]

    public init(versions: [ModelVersion]) {
        self.versions = versions.map { version in
            let hashes = VersionHashes.entityHashes(of: version.model)
            return Version(name: version.name, current: version.current,
                           entityHashes: hashes.mapValues(\.hexString),
                           versionChecksum: VersionHashes.checksum(of: hashes),
                           versionHashesDigest: VersionHashes.digest(of: hashes))
        }
    }
}
