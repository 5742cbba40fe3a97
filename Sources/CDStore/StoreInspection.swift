import CDArchive
import CDModel
import Foundation
import GRDB

/// Everything `cdstore inspect` reports about a store. Its JSON encoding is a stable contract.
public struct StoreInspection: Sendable, Codable {
    public var path: String
    public var files: [FileEntry]
    @NullEncoded public var supportFolder: SupportFolder?
    public var sqlite: SQLiteInfo
    public var metadata: MetadataInfo
    public var modelCache: ModelCacheInfo
    public var entities: [EntityInfo]
    public var extras: Extras
    public var warnings: [String]

    /// One file of the store.
    public struct FileEntry: Sendable, Codable {
        /// `main`, `wal`, `shm` or `journal`.
        public var role: String
        public var path: String
        public var size: Int
        /// For the `-wal`: committed frames not yet checkpointed into the main file.
        @NullEncoded public var walFrames: Int?
        /// For the `-wal`: frames after the last commit, which SQLite ignores.
        @NullEncoded public var walUncommittedFrames: Int?
    }

    /// The hidden `.<name>_SUPPORT` folder.
    public struct SupportFolder: Sendable, Codable {
        public var path: String
        public var externalDataFiles: Int
        public var externalDataBytes: Int
    }

    public struct SQLiteInfo: Sendable, Codable {
        public var pageSize: Int
        public var pageCount: Int
        public var journalMode: String
        /// `none`, `full` or `incremental`.
        public var autoVacuum: String
        public var encoding: String
        /// The header says WAL mode (bytes 18–19 = 2).
        public var walHeader: Bool
    }

    public struct MetadataInfo: Sendable, Codable {
        @NullEncoded public var storeUUID: String?
        public var plistPresent: Bool
        @NullEncoded public var storeType: String?
        @NullEncoded public var frameworkVersion: Int?
        @NullEncoded public var maximumFrameworkVersion: Int?
        public var versionIdentifiers: [String]
        /// Entity name → lowercase hex of the 32-byte hash.
        public var versionHashes: [String: String]
        @NullEncoded public var versionHashesVersion: Int?
        @NullEncoded public var hashesDigest: String?
        /// Whether the digest recomputed from `versionHashes` equals the stored one (nil if absent).
        @NullEncoded public var hashesDigestMatches: Bool?
        @NullEncoded public var checksum: String?
        @NullEncoded public var checksumMatches: Bool?
        @NullEncoded public var autoVacuumLevel: String?
        /// App-defined keys, as short text.
        public var otherKeys: [String: String]
    }

    public struct ModelCacheInfo: Sendable, Codable {
        public var present: Bool
        @NullEncoded public var compressedSize: Int?
        @NullEncoded public var inflatedSize: Int?
        @NullEncoded public var entityCount: Int?
        @NullEncoded public var versionIdentifiers: [String]?
        /// Hashes recomputed from the cached model equal the metadata's, entity for entity.
        @NullEncoded public var hashesMatch: Bool?
        public var mismatches: [HashMismatch]
        /// Why the cache could not be read, when it could not.
        @NullEncoded public var error: String?
    }

    /// An entity whose hash differs, or that exists on one side only (nil hash).
    public struct HashMismatch: Sendable, Codable, Equatable {
        public var entity: String
        @NullEncoded public var metadataHash: String?
        @NullEncoded public var cacheHash: String?

        public init(entity: String, metadataHash: String?, cacheHash: String?) {
            self.entity = entity
            self.metadataHash = metadataHash
            self.cacheHash = cacheHash
        }
    }

    public struct EntityInfo: Sendable, Codable {
        public var name: String
        public var ent: Int
        @NullEncoded public var superEntity: String?
        /// Nesting depth in the inheritance tree (0 for roots).
        public var depth: Int
        public var table: String
        public var tableExists: Bool
        /// Rows whose `Z_ENT` is this entity; nil with `--no-counts` or without a table.
        @NullEncoded public var rows: Int?
        /// Rows of this entity and all its sub-entities.
        @NullEncoded public var rowsIncludingSubentities: Int?
        /// `Z_MAX`, on hierarchy roots.
        @NullEncoded public var max: Int?
        /// Largest `Z_PK` in the root table (roots only, with counts).
        @NullEncoded public var maxPK: Int?
        @NullEncoded public var isAbstract: Bool?
        /// `history`, `cloudKit` or `indexStatistics` for framework-owned entities.
        @NullEncoded public var reserved: String?
    }

    public struct Extras: Sendable, Codable {
        @NullEncoded public var history: History?
        public var cloudKitTables: [TableCount]
        @NullEncoded public var externalData: ExternalData?
        /// Tables Core Data keeps for R-tree fetch indexes (`Z_RT_<Entity>_<index>…`).
        public var rtreeIndexTables: [String]
        /// Tables that are neither Core Data's nor the model's.
        public var otherTables: [String]
    }

    public struct History: Sendable, Codable {
        @NullEncoded public var transactions: Int?
        @NullEncoded public var changes: Int?
        @NullEncoded public var strings: Int?
    }

    public struct TableCount: Sendable, Codable {
        public var name: String
        @NullEncoded public var rows: Int?
    }

    /// Attributes that allow external storage and where their values are.
    public struct ExternalData: Sendable, Codable {
        public var attributes: [String]
        /// Values stored as a reference to a file in `_EXTERNAL_DATA`.
        @NullEncoded public var references: Int?
        /// Values stored inline (marker 0x01).
        @NullEncoded public var inline: Int?
        /// References whose file is missing.
        @NullEncoded public var missingFiles: Int?
    }
}
