import CDArchive
import CDBase
import CDMapping
import CDModel
import Foundation
import GRDB

/// Everything `cdstore inspect` reports about a store. Its JSON encoding is a stable contract.
public struct StoreInspection: Sendable, Codable {
    /// Absolute path of the main file (after following symbolic links).
    public var path: String
    /// The main file and the sidecars that exist.
    public var files: [FileEntry]
    /// nil when the store has no support folder.
    @NullEncoded public var supportFolder: SupportFolder?
    /// SQLite settings of the database.
    public var sqlite: SQLiteInfo
    /// What `Z_METADATA` says.
    public var metadata: MetadataInfo
    /// What `Z_MODELCACHE` holds and whether it agrees with the metadata.
    public var modelCache: ModelCacheInfo
    /// Every entity of `Z_PRIMARYKEY`, each root followed by its sub-entities, depth first.
    public var entities: [EntityInfo]
    /// Framework tables besides the entity tables, and tables nobody models.
    public var extras: Extras
    /// One-line findings worth the user's attention (unknown `Z_ENT` values, unreadable cache…).
    public var warnings: [String]

    /// One file of the store.
    public struct FileEntry: Sendable, Codable {
        /// Which file of the store this is.
        public var role: StoreFileRole
        /// Absolute path of the file.
        public var path: String
        /// Size in bytes.
        public var size: Int
        /// For the `-wal`: committed frames not yet checkpointed into the main file.
        @NullEncoded public var walFrames: Int?
        /// For the `-wal`: frames after the last commit, which SQLite ignores.
        @NullEncoded public var walUncommittedFrames: Int?
    }

    /// The hidden `.<name>_SUPPORT` folder.
    public struct SupportFolder: Sendable, Codable {
        /// Absolute path of the folder.
        public var path: String
        /// Files in its `_EXTERNAL_DATA` folder (store-format.md §9).
        public var externalDataFiles: Int
        /// Their total size in bytes.
        public var externalDataBytes: Int
    }

    /// SQLite settings, read with `PRAGMA`s on the read-only snapshot.
    public struct SQLiteInfo: Sendable, Codable {
        /// Bytes per page.
        public var pageSize: Int
        /// `PRAGMA page_count`: pages as SQLite sees them, changes still in the WAL included.
        public var pageCount: Int
        /// `PRAGMA journal_mode`: `wal`, `delete`, …
        public var journalMode: String
        /// `none`, `full` or `incremental`.
        public var autoVacuum: String
        /// `PRAGMA encoding`: `UTF-8`, `UTF-16le` or `UTF-16be`.
        public var encoding: String
        /// The header says WAL mode (bytes 18–19 = 2).
        public var walHeader: Bool
    }

    /// The `Z_METADATA` row; each field is nil when its key is absent (see ``StoreMetadata``).
    public struct MetadataInfo: Sendable, Codable {
        /// `Z_UUID`.
        @NullEncoded public var storeUUID: String?
        /// Whether `Z_PLIST` is not NULL.
        public var plistPresent: Bool
        /// `NSStoreType`.
        @NullEncoded public var storeType: String?
        /// `NSPersistenceFrameworkVersion`.
        @NullEncoded public var frameworkVersion: Int?
        /// `NSPersistenceMaximumFrameworkVersion`.
        @NullEncoded public var maximumFrameworkVersion: Int?
        /// `NSStoreModelVersionIdentifiers`.
        public var versionIdentifiers: [String]
        /// Entity name → lowercase hex of the 32-byte hash.
        public var versionHashes: [String: String]
        /// `NSStoreModelVersionHashesVersion`.
        @NullEncoded public var versionHashesVersion: Int?
        /// `NSStoreModelVersionHashesDigest`, as stored (base64).
        @NullEncoded public var hashesDigest: String?
        /// Whether the digest recomputed from `versionHashes` equals the stored one (nil if absent).
        @NullEncoded public var hashesDigestMatches: Bool?
        /// `NSStoreModelVersionChecksumKey`, as stored (base64).
        @NullEncoded public var checksum: String?
        /// Whether the checksum recomputed from `versionHashes` equals the stored one (nil if absent).
        @NullEncoded public var checksumMatches: Bool?
        /// `_NSAutoVacuumLevel`.
        @NullEncoded public var autoVacuumLevel: String?
        /// App-defined keys, as short text.
        public var otherKeys: [String: String]
    }

    /// The `Z_MODELCACHE` row (store-format.md §6); sizes and counts are nil when it is absent
    /// or unreadable.
    public struct ModelCacheInfo: Sendable, Codable {
        /// Whether the table holds a cached model.
        public var present: Bool
        /// Bytes of the compressed blob as stored.
        @NullEncoded public var compressedSize: Int?
        /// Bytes after decompression.
        @NullEncoded public var inflatedSize: Int?
        /// Entities in the cached model.
        @NullEncoded public var entityCount: Int?
        /// The cached model's version identifiers.
        @NullEncoded public var versionIdentifiers: [String]?
        /// Hashes recomputed from the cached model equal the metadata's, entity for entity.
        @NullEncoded public var hashesMatch: Bool?
        /// Entities whose hashes disagree; empty when they all agree or were not compared.
        public var mismatches: [HashMismatch]
        /// Why the cache could not be read, when it could not.
        @NullEncoded public var error: String?
    }

    /// An entity whose hash differs, or that exists on one side only (nil hash).
    public struct HashMismatch: Sendable, Codable, Equatable {
        /// The entity's name.
        public var entity: String
        /// Lowercase hex of the hash in the metadata; nil when the metadata lacks the entity.
        @NullEncoded public var metadataHash: String?
        /// Lowercase hex of the hash recomputed from the cache; nil when the cache lacks the entity.
        @NullEncoded public var cacheHash: String?

        package init(entity: String, metadataHash: String?, cacheHash: String?) {
            self.entity = entity
            self.metadataHash = metadataHash
            self.cacheHash = cacheHash
        }
    }

    /// One row of `Z_PRIMARYKEY` with what the store holds for it.
    public struct EntityInfo: Sendable, Codable {
        /// `Z_NAME`.
        public var name: String
        /// `Z_ENT`, the entity number stored in every row.
        public var ent: Int
        /// The parent entity's name (`Z_SUPER`); nil for a root.
        @NullEncoded public var superEntity: String?
        /// Nesting depth in the inheritance tree (0 for roots).
        public var depth: Int
        /// The table its rows live in (its root's `Z<ROOT>`).
        public var table: String
        /// Whether that table is in the store.
        public var tableExists: Bool
        /// Rows whose `Z_ENT` is this entity; nil with `--no-counts` or without a table.
        @NullEncoded public var rows: Int?
        /// Rows of this entity and all its sub-entities.
        @NullEncoded public var rowsIncludingSubentities: Int?
        /// `Z_MAX`, on hierarchy roots.
        @NullEncoded public var max: Int?
        /// Largest `Z_PK` in the root table (roots only, with counts).
        @NullEncoded public var maxPK: Int?
        /// From the cached model; nil when there is none.
        @NullEncoded public var isAbstract: Bool?
        /// The reserved range of a framework-owned entity (`history`, `cloudKit`, `indexStatistics`).
        @NullEncoded public var reserved: ReservedRange?
    }

    /// What the store holds besides entity tables.
    public struct Extras: Sendable, Codable {
        /// Persistent-history tables (store-format.md §11); nil when the store has none.
        @NullEncoded public var history: History?
        /// CloudKit mirroring tables (`ANSCK…`, §12), by name.
        public var cloudKitTables: [TableCount]
        /// nil without a cached model, or when no attribute allows external storage.
        @NullEncoded public var externalData: ExternalData?
        /// Tables Core Data keeps for R-tree fetch indexes (`Z_RT_<Entity>_<index>…`).
        public var rtreeIndexTables: [String]
        /// Tables that are neither Core Data's nor the model's.
        public var otherTables: [String]
    }

    /// Row counts of the persistent-history tables; each nil without counts or without its table.
    public struct History: Sendable, Codable {
        /// Rows of `ATRANSACTION`.
        @NullEncoded public var transactions: Int?
        /// Rows of `ACHANGE`.
        @NullEncoded public var changes: Int?
        /// Rows of `ATRANSACTIONSTRING`.
        @NullEncoded public var strings: Int?
    }

    /// A table and its row count.
    public struct TableCount: Sendable, Codable {
        /// The table's name.
        public var name: String
        /// nil with `--no-counts`.
        @NullEncoded public var rows: Int?
    }

    /// Attributes that allow external storage and where their values are.
    public struct ExternalData: Sendable, Codable {
        /// `Entity.attribute` of each such attribute whose column exists.
        public var attributes: [String]
        /// Values stored as a reference to a file in `_EXTERNAL_DATA`.
        @NullEncoded public var references: Int?
        /// Values stored inline (marker 0x01).
        @NullEncoded public var inline: Int?
        /// References whose file is missing.
        @NullEncoded public var missingFiles: Int?
    }
}
