import CDBase
import CDArchive
import CDMapping
import CDModel
import CDStore
import Foundation
import GRDB

/// What ``StoreCreator`` wrote.
package struct CreatedStore: Sendable, Codable, Equatable {
    package var path: String
    /// `Z_UUID`, the host of the new store's object IDs.
    package var storeUUID: String
    package var frameworkVersion: Int
    package var versionIdentifiers: [String]
    /// `Z_PRIMARYKEY` rows registered.
    package var entities: Int
    package var tables: Int
    package var indexes: Int
    /// Bytes of the model cache after compression; `nil` when the framework writes none.
    @NullEncoded package var modelCacheBytes: Int?
    package var bytes: Int
}

/// A new store written beside its destination and not yet in place.
///
/// Creating in a temporary file and renaming it into place means a failure or an interruption
/// never leaves a half-written store under the user's name, and a reset can remove the old store
/// only once the new one is complete.
package struct PreparedStore: Sendable {
    /// The finished store under its temporary name.
    package let temporaryURL: URL
    package let destination: URL
    package let summary: CreatedStore

    /// Moves the new store into place. Fails, changing nothing, when the destination exists.
    package func install() throws {
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw MaintenanceError.destinationTaken(path: destination.path)
        }
        do {
            try FileManager.default.moveItem(at: temporaryURL, to: destination)
        } catch {
            throw MaintenanceError.cannotInstall(destination: destination.path, reason: error.localizedDescription)
        }
    }

    /// Deletes the temporary store and any SQLite sidecar a writer left beside it (after a
    /// failure elsewhere, or a dry run).
    package func discard() {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: temporaryURL.path + suffix)
        }
    }
}

/// Writes empty stores exactly as Core Data does (docs/format/store-format.md §3–§7):
/// incremental auto-vacuum and WAL, the model's tables and indexes in Core Data's order, one
/// `Z_PRIMARYKEY` row per entity with `Z_MAX` 0, `Z_METADATA` with a new UUID and the metadata
/// computed from the model, and the raw-DEFLATE model cache.
package enum StoreCreator {
    /// Creates the store of `blueprint` at `path`, which must not exist yet.
    @discardableResult
    package static func create(_ blueprint: StoreBlueprint, at path: String, uuid: UUID = UUID()) throws -> CreatedStore {
        let prepared = try prepare(blueprint, for: path, uuid: uuid)
        do {
            try prepared.install()
        } catch {
            prepared.discard()
            throw error
        }
        return prepared.summary
    }

    /// Writes the store of `blueprint` under a hidden temporary name in `path`'s directory.
    /// `replacing` allows `path` to exist (a reset moves it aside before installing).
    package static func prepare(
        _ blueprint: StoreBlueprint, for path: String, uuid: UUID = UUID(),
        replacing: Bool = false
    ) throws -> PreparedStore {
        let destination = URL(fileURLWithPath: path).standardizedFileURL
        let directory = destination.deletingLastPathComponent()
        guard replacing || !FileManager.default.fileExists(atPath: destination.path) else {
            throw MaintenanceError.destinationExists(path: destination.path)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MaintenanceError.noSuchFolder(path: directory.path)
        }
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).cdstore-new-\(uuid.uuidString)")
        do {
            let summary = try write(blueprint, to: temporary, uuid: uuid)
            var installed = summary
            installed.path = destination.path
            return PreparedStore(temporaryURL: temporary, destination: destination, summary: installed)
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: temporary.path + suffix)
            }
            if let userFacing = error as? UserFacingError { throw userFacing }
            throw MaintenanceError.cannotWriteNewStore(folder: directory.path, reason: describe(error))
        }
    }

    private static func write(_ blueprint: StoreBlueprint, to url: URL, uuid: UUID) throws -> CreatedStore {
        let metadata = NewStoreMetadata.plist(
            for: blueprint.model, features: blueprint.features,
            additionalEntries: blueprint.additionalMetadata)
        let plist = try BinaryPropertyListWriter.data(for: metadata)
        let cache =
            blueprint.features.writesModelCache
            ? try RawDeflate.deflate(try ArchivedModelWriter.archive(blueprint.model)) : nil
        let rows = primaryKeyRows(blueprint)
        let statements = blueprint.mapping.createStatements(indexesAfterEachTable: blueprint.features.createsIndexesAfterEachTable)
        let database = try DatabaseQueue(path: url.path)
        try database.writeWithoutTransaction { db in
            // auto_vacuum only takes effect before the first table exists (§5, `_NSAutoVacuumLevel`).
            try db.execute(sql: "PRAGMA auto_vacuum = 2")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.inTransaction {
                for statement in statements {
                    try db.execute(sql: statement)
                }
                for row in rows {
                    try db.execute(
                        sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                        arguments: [row.ent, row.name, row.superEnt])
                }
                try db.execute(
                    sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                    arguments: [uuid.uuidString, plist])
                if let cache {
                    try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [cache])
                }
                return .commit
            }
        }
        try database.close()
        return CreatedStore(
            path: url.path, storeUUID: uuid.uuidString, frameworkVersion: blueprint.features.version,
            versionIdentifiers: blueprint.model.versionIdentifiers, entities: rows.count,
            tables: blueprint.mapping.tables.count,
            indexes: blueprint.mapping.tables.reduce(0) { $0 + $1.indexes.count },
            modelCacheBytes: cache?.count, bytes: StoreFiles.size(of: url) ?? 0)
    }

    /// One row per model entity (abstract ones included, `Z_SUPER` the direct parent) and per
    /// reserved framework entity, in `Z_ENT` order (§4).
    static func primaryKeyRows(_ blueprint: StoreBlueprint) -> [RegisteredEntity] {
        let numbers = Dictionary(blueprint.mapping.entities.map { ($0.name, $0.number) }, uniquingKeysWith: { first, _ in first })
        let modelRows = blueprint.mapping.entities.map { entity in
            RegisteredEntity(
                ent: entity.number, name: entity.name,
                superEnt: entity.parent.flatMap { numbers[$0] } ?? 0, max: 0)
        }
        return (modelRows + blueprint.reservedEntities).sorted { $0.ent < $1.ent }
    }

    private static func describe(_ error: Error) -> String {
        if let dbError = error as? DatabaseError { return dbError.message ?? "\(dbError.resultCode)" }
        return "\(error)"
    }
}
