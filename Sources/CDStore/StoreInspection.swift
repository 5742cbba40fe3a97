import CDArchive
import CDModel
import Foundation
import GRDB

/// Everything `cdstore inspect` reports about a store. Its JSON encoding is a stable contract.
public struct StoreInspection: Sendable, Codable {
    public var path: String
    public var files: [FileEntry]
    public var supportFolder: SupportFolder?
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
        public var walFrames: Int?
        /// For the `-wal`: frames after the last commit, which SQLite ignores.
        public var walUncommittedFrames: Int?
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
        public var storeUUID: String?
        public var plistPresent: Bool
        public var storeType: String?
        public var frameworkVersion: Int?
        public var maximumFrameworkVersion: Int?
        public var versionIdentifiers: [String]
        /// Entity name → lowercase hex of the 32-byte hash.
        public var versionHashes: [String: String]
        public var versionHashesVersion: Int?
        public var hashesDigest: String?
        /// Whether the digest recomputed from `versionHashes` equals the stored one (nil if absent).
        public var hashesDigestMatches: Bool?
        public var checksum: String?
        public var checksumMatches: Bool?
        public var autoVacuumLevel: String?
        /// App-defined keys, as short text.
        public var otherKeys: [String: String]
    }

    public struct ModelCacheInfo: Sendable, Codable {
        public var present: Bool
        public var compressedSize: Int?
        public var inflatedSize: Int?
        public var entityCount: Int?
        public var versionIdentifiers: [String]?
        /// Hashes recomputed from the cached model equal the metadata's, entity for entity.
        public var hashesMatch: Bool?
        public var mismatches: [HashMismatch]
        /// Why the cache could not be read, when it could not.
        public var error: String?
    }

    /// An entity whose hash differs, or that exists on one side only (nil hash).
    public struct HashMismatch: Sendable, Codable, Equatable {
        public var entity: String
        public var metadataHash: String?
        public var cacheHash: String?
    }

    public struct EntityInfo: Sendable, Codable {
        public var name: String
        public var ent: Int
        public var superEntity: String?
        /// Nesting depth in the inheritance tree (0 for roots).
        public var depth: Int
        public var table: String
        public var tableExists: Bool
        /// Rows whose `Z_ENT` is this entity; nil with `--no-counts` or without a table.
        public var rows: Int?
        /// Rows of this entity and all its sub-entities.
        public var rowsIncludingSubentities: Int?
        /// `Z_MAX`, on hierarchy roots.
        public var max: Int?
        /// Largest `Z_PK` in the root table (roots only, with counts).
        public var maxPK: Int?
        public var isAbstract: Bool?
        /// `history`, `cloudKit` or `indexStatistics` for framework-owned entities.
        public var reserved: String?
    }

    public struct Extras: Sendable, Codable {
        public var history: History?
        public var cloudKitTables: [TableCount]
        public var externalData: ExternalData?
        /// Tables that are neither Core Data's nor the model's.
        public var otherTables: [String]
    }

    public struct History: Sendable, Codable {
        public var transactions: Int?
        public var changes: Int?
        public var strings: Int?
    }

    public struct TableCount: Sendable, Codable {
        public var name: String
        public var rows: Int?
    }

    /// Attributes that allow external storage and where their values are.
    public struct ExternalData: Sendable, Codable {
        public var attributes: [String]
        /// Values stored as a reference to a file in `_EXTERNAL_DATA`.
        public var references: Int?
        /// Values stored inline (marker 0x01).
        public var inline: Int?
        /// References whose file is missing.
        public var missingFiles: Int?
    }
}
