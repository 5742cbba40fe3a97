import CDArchive
import CDBase
import Foundation

/// Why `find` could not read one file it looked at, in one line: the file cannot be opened, or
/// its SQLite structure is damaged where `find` reads it (header, `sqlite_master`, the two
/// bookkeeping tables). Messages about the file itself start with its path.
package enum FinderError: UserFacingError, Sendable, Equatable {
    /// `path` cannot be opened; `reason` is the system's.
    case cannotOpen(path: String, reason: String)
    /// The header's page size (`rawPageSize`, bytes 16–17) is not a valid one.
    case damagedHeader(path: String, rawPageSize: Int)
    /// The `-wal` and the database have different page sizes.
    case walPageSizeMismatch(path: String, walPageSize: Int, pageSize: Int)
    /// Page `number` lies past the end of the file.
    case missingPage(number: Int)
    /// Following a table's b-tree comes back to page `number`.
    case loopingBTree(page: Int)
    /// Page `number` claims more cells than fit in it.
    case tooManyCells(page: Int)
    /// A cell pointer points outside its page.
    case cellPointerOutOfRange
    /// Page `number` has page type `type`, not a table b-tree type.
    case notATablePage(page: Int, type: Int)
    /// A record runs past its page.
    case recordPastPage
    /// An overflow chain ends early or loops.
    case brokenOverflowChain
    /// A record's header is longer than the record.
    case damagedRecordHeader
    /// A record's values are longer than its bytes.
    case recordShorterThanHeader
    /// A record uses serial type 10 or 11.
    case reservedSerialType
    /// A record ends inside a value.
    case recordCutShort

    package var message: String {
        switch self {
        case .cannotOpen(let path, let reason): return "\(path): \(reason)"
        case .damagedHeader(let path, let rawPageSize): return "\(path): the SQLite header is damaged (page size \(rawPageSize))"
        case .walPageSizeMismatch(let path, let walPageSize, let pageSize):
            return "\(path): the -wal has \(walPageSize)-byte pages, the database \(pageSize)-byte pages"
        case .missingPage(let number): return "page \(number) is missing (the file is shorter)"
        case .loopingBTree(let page): return "a table's b-tree loops (page \(page))"
        case .tooManyCells(let page): return "page \(page) claims more cells than it can hold"
        case .cellPointerOutOfRange: return "a cell pointer is out of range"
        case .notATablePage(let page, let type): return "page \(page) is not a table b-tree page (type \(type))"
        case .recordPastPage: return "a record runs past its page"
        case .brokenOverflowChain: return "an overflow chain is broken"
        case .damagedRecordHeader: return "a record header is damaged"
        case .recordShorterThanHeader: return "a record is shorter than its header says"
        case .reservedSerialType: return "a record uses a reserved serial type"
        case .recordCutShort: return "a record is cut short"
        }
    }
}

/// One Core Data store that `find` found, with what its metadata and location tell.
package struct FoundStore: Sendable, Codable, Equatable {
    /// The main file, absolute.
    package var path: String
    /// The main file with its `-wal`, `-shm` and `-journal`.
    package var size: Int
    /// The newest modification time of the main file and its sidecars (seconds since 2001, as
    /// Core Data counts).
    package var modified: Double
    /// `NSPersistenceFrameworkVersion`; nil when `Z_PLIST` is NULL.
    package var frameworkVersion: Int?
    /// `NSStoreModelVersionIdentifiers`.
    package var versionIdentifiers: [String]
    /// Rows of `Z_PRIMARYKEY` for the app's model (the framework's history and CloudKit entities
    /// are not counted).
    package var entityCount: Int
    /// `Z_METADATA.Z_UUID`.
    package var storeUUID: String?
    /// Whether `ATRANSACTION` exists: the store keeps persistent history.
    package var hasHistory: Bool
    package var location: StoreLocation
    /// Why the metadata could not be read, for a file that looks like a store but is damaged or
    /// was being rewritten while `find` read it.
    package var problem: String?
}

/// Where a store lives: its simulator device and the app or group that owns its container.
package struct StoreLocation: Sendable, Codable, Equatable {
    /// The simulator device's name (`device.plist` `name`), e.g. "iPhone 15 Pro".
    package var device: String?
    /// The simulator runtime in words, e.g. "iOS 17.2".
    package var runtime: String?
    /// The device's UDID (its folder name under `Devices`).
    package var deviceUDID: String?
    /// The bundle ID of the app, extension or app group whose container holds the store.
    package var bundleID: String?
    package var container: ContainerKind?

    package init(
        device: String? = nil, runtime: String? = nil, deviceUDID: String? = nil, bundleID: String? = nil,
        container: ContainerKind? = nil
    ) {
        self.device = device
        self.runtime = runtime
        self.deviceUDID = deviceUDID
        self.bundleID = bundleID
        self.container = container
    }
}

/// The kind of container a store sits in.
package enum ContainerKind: String, Sendable, Codable {
    /// An app's data container (simulator `Containers/Data/Application`, a Mac app's
    /// `~/Library/Containers/<id>`, or an old simulator's `Applications/<UUID>`).
    case app
    /// An app group's shared container (`Containers/Shared/AppGroup`, `~/Library/Group Containers`).
    case appGroup = "app group"
    /// An app extension's container (`Containers/Data/PluginKitPlugin`).
    case appExtension = "extension"
}

/// Reads what `find` shows from one file: nil when it is not a Core Data store.
enum StoreProbe {
    /// Files that belong to a store but are never one themselves.
    static func isSidecar(_ name: String) -> Bool {
        name.hasSuffix("-wal") || name.hasSuffix("-shm") || name.hasSuffix("-journal")
    }

    static func probe(path: String, location: StoreLocation) -> FoundStore? {
        let reader: SQLiteFileReader
        do {
            guard let opened = try SQLiteFileReader(path: path) else { return nil }
            reader = opened
        } catch {
            return nil
        }
        var store = FoundStore(
            path: path, size: 0, modified: 0, frameworkVersion: nil, versionIdentifiers: [],
            entityCount: 0, storeUUID: nil, hasHistory: false, location: location, problem: nil)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix) else { continue }
            store.size += (attributes[.size] as? NSNumber)?.intValue ?? 0
            if let date = attributes[.modificationDate] as? Date {
                store.modified = max(store.modified, date.timeIntervalSinceReferenceDate)
            }
        }
        do {
            let tables = try reader.tables()
            // The signature of a Core Data store (store-format.md §1); any other SQLite file is
            // not one of ours.
            guard let metadata = tables["Z_METADATA"], let primaryKeys = tables["Z_PRIMARYKEY"] else { return nil }
            store.hasHistory = tables["ATRANSACTION"] != nil
            let metadataColumns = columnNames(metadata.sql)
            try reader.scanTable(rootPage: metadata.rootPage) { _, values in
                if let index = metadataColumns.firstIndex(of: "Z_UUID"), index < values.count {
                    store.storeUUID = values[index].text
                }
                if let index = metadataColumns.firstIndex(of: "Z_PLIST"), index < values.count, let blob = values[index].blob,
                    let plist = try? PropertyList.decode(blob)
                {
                    store.frameworkVersion = plist["NSPersistenceFrameworkVersion"]?.intValue
                    store.versionIdentifiers = plist["NSStoreModelVersionIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? []
                }
                return false
            }
            let entColumn = columnNames(primaryKeys.sql).firstIndex(of: "Z_ENT") ?? 0
            try reader.scanTable(rootPage: primaryKeys.rootPage) { _, values in
                // Entity numbers from 16001 up belong to the framework's own models (§4).
                if entColumn < values.count, let ent = values[entColumn].integer, ent < 16000 { store.entityCount += 1 }
                return true
            }
        } catch {
            store.problem = "cannot read its metadata: \(error)"
        }
        return store
    }

    /// Column names of a `CREATE TABLE name (a TYPE, b TYPE, …)` statement, as Core Data writes
    /// its bookkeeping tables (no constraints that contain commas).
    static func columnNames(_ sql: String) -> [String] {
        guard let open = sql.firstIndex(of: "("), let close = sql.lastIndex(of: ")"), open < close else { return [] }
        return sql[sql.index(after: open)..<close].split(separator: ",").compactMap { definition in
            definition.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).first.map {
                String($0).trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]"))
            }
        }
    }
}
