import CDArchive
import CDModel
import Foundation
import GRDB

/// The decoded `Z_METADATA` row (reference/store-format.md §5).
public struct StoreMetadata: Sendable {
    /// `Z_UUID`: the store UUID and the host of every object-ID URI.
    public var storeUUID: String?
    /// The whole `Z_PLIST` dictionary; `nil` when the column is NULL.
    public var plist: PropertyListValue?

    public var storeType: String? { plist?["NSStoreType"]?.stringValue }
    public var frameworkVersion: Int? { plist?["NSPersistenceFrameworkVersion"]?.intValue }
    public var maximumFrameworkVersion: Int? { plist?["NSPersistenceMaximumFrameworkVersion"]?.intValue }
    public var hashesVersion: Int? { plist?["NSStoreModelVersionHashesVersion"]?.intValue }
    public var versionIdentifiers: [String] {
        plist?["NSStoreModelVersionIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
    public var hashesDigest: String? { plist?["NSStoreModelVersionHashesDigest"]?.stringValue }
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
                throw PropertyListError("it is not a dictionary")
            }
            return StoreMetadata(storeUUID: uuid, plist: plist)
        } catch {
            throw StoreError("\(path): the metadata (Z_METADATA.Z_PLIST) is corrupt: \(error)")
        }
    }
}
