import CDArchive
import CDModel
import Foundation
import GRDB

/// The decoded `Z_METADATA` row (docs/format/store-format.md §5).
public struct StoreMetadata: Sendable {
    /// `Z_UUID`: the store UUID and the host of every object-ID URI.
    public var storeUUID: String?
    /// The whole `Z_PLIST` dictionary; `nil` when the column is NULL.
    public var plist: PropertyListValue?

    /// `NSStoreType`: `SQLite` in every store seen.
    public var storeType: String? { plist?["NSStoreType"]?.stringValue }
    /// `NSPersistenceFrameworkVersion`: the Core Data build that last wrote the metadata (§5).
    public var frameworkVersion: Int? { plist?["NSPersistenceFrameworkVersion"]?.intValue }
    /// `NSPersistenceMaximumFrameworkVersion`; only the newest stores have it, so nil is normal.
    public var maximumFrameworkVersion: Int? { plist?["NSPersistenceMaximumFrameworkVersion"]?.intValue }
    /// `NSStoreModelVersionHashesVersion`: the version-hash scheme, 3 in every store seen.
    public var hashesVersion: Int? { plist?["NSStoreModelVersionHashesVersion"]?.intValue }
    /// `NSStoreModelVersionIdentifiers`: the model's version identifiers; empty when none were set.
    public var versionIdentifiers: [String] {
        plist?["NSStoreModelVersionIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
    /// `NSStoreModelVersionHashesDigest`: base64 SHA-512 over the entity names and hashes (§5);
    /// absent before framework 973.
    public var hashesDigest: String? { plist?["NSStoreModelVersionHashesDigest"]?.stringValue }
    /// `NSStoreModelVersionChecksumKey`: the model's `versionChecksum`, base64 SHA-256 over the
    /// entity hashes (§5); absent from older stores.
    public var checksum: String? { plist?["NSStoreModelVersionChecksumKey"]?.stringValue }
    /// A string, not a number, in real stores.
    public var autoVacuumLevel: String? {
        guard let value = plist?["_NSAutoVacuumLevel"] else { return nil }
        return value.stringValue ?? value.intValue.map(String.init)
    }

    /// `NSStoreModelVersionHashes`: entity name → 32-byte hash.
    public var versionHashes: [String: Data] {
        var result: [String: Data] = [:]
        for (key, value) in plist?["NSStoreModelVersionHashes"]?.dictionaryEntries ?? [] {
            if let data = value.dataValue { result[key] = data }
        }
        return result
    }

    /// Keys Core Data writes itself; everything else was set by the app (or another framework).
    public static let frameworkKeys: Set<String> = [
        "NSStoreType", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion",
        "NSStoreModelVersionIdentifiers", "NSPersistenceFrameworkVersion",
        "NSPersistenceMaximumFrameworkVersion", "_NSAutoVacuumLevel",
        "NSStoreModelVersionHashesDigest", "NSStoreModelVersionChecksumKey", "NSStoreUUID",
    ]

    /// App-defined and ancillary keys, in file order.
    public var otherEntries: [(key: String, value: PropertyListValue)] {
        (plist?.dictionaryEntries ?? []).filter { !Self.frameworkKeys.contains($0.key) }
    }

    /// Reads the single `Z_METADATA` row.
    public static func read(_ db: Database, path: String) throws -> StoreMetadata {
        guard let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1") else {
            return StoreMetadata(storeUUID: nil, plist: nil)
        }
        let uuid: String? = row[0]
        let blob: Data? = row[1]
        guard let blob else { return StoreMetadata(storeUUID: uuid, plist: nil) }
        do {
            let plist = try PropertyList.decode(blob)
            guard plist.dictionaryEntries != nil else {
                throw PropertyListError.notADictionary
            }
            return StoreMetadata(storeUUID: uuid, plist: plist)
        } catch {
            throw StoreError.corruptMetadata(path: path, reason: "\(error)")
        }
    }
}
