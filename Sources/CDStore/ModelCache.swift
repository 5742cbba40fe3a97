import CDArchive
import CDModel
import Foundation
import GRDB

/// The model a store was last written with, from `Z_MODELCACHE` (store-format.md §6).
public struct ModelCache: Sendable {
    /// Bytes of the raw-deflated `Z_CONTENT` blob as stored.
    public let compressedSize: Int
    /// Bytes of the keyed archive once inflated.
    public let inflatedSize: Int
    /// The decoded model.
    public let model: ManagedObjectModel

    /// Reads and decodes the cache. Returns `nil` when the store has no `Z_MODELCACHE` table or
    /// no row (stores written before framework 754).
    public static func read(_ db: Database, path: String) throws -> ModelCache? {
        guard try db.tableExists("Z_MODELCACHE"),
            let blob = try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
        else { return nil }
        let inflated: Data
        do {
            inflated = try RawInflate.inflate(blob)
        } catch {
            throw StoreError.corruptModelCache(path: path, reason: "\(error)")
        }
        do {
            let model = try ArchivedModelReader.model(fromArchive: inflated)
            return ModelCache(compressedSize: blob.count, inflatedSize: inflated.count, model: model)
        } catch {
            throw StoreError.corruptModelCache(path: path, reason: "\(error)")
        }
    }
}
