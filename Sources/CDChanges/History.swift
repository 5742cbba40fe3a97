import CDBase
import CDMapping
import CDModel
import CDStore
import Foundation
import GRDB

/// What a change did to its object (`ACHANGE.ZCHANGETYPE`: 0, 1, 2).
package enum ChangeType: String, Sendable, Codable, CaseIterable {
    case insert, update, delete
}

/// One row of `ACHANGE`: one object inserted, updated or deleted by a transaction.
package struct HistoryChange: Sendable, Codable, Equatable {
    /// `ACHANGE.Z_PK`.
    package var id: Int64
    package var type: ChangeType
    /// The concrete entity's name, or `entity <Z_ENT>` when the store no longer registers it.
    package var entity: String
    package var objectID: String
    /// Updates: the changed properties decoded from `ZCOLUMNS` (see ``ChangedColumns`` for how
    /// sure that is); nil when the mask does not fit the store's model.
    package var updatedProperties: [String]?
    /// Updates: to-many relationships of which some changed, when the mask does not say which.
    package var updatedToMany: ToManyBits?
    /// Updates: the set positions of `ZCOLUMNS`, most significant bit of each byte first.
    package var updatedColumnBits: [Int]?
    /// Updates whose mask does not fit: how many properties the entity has in the model read.
    package var modelPropertyCount: Int?
    /// Deletes: the values kept in `ZTOMBSTONE<n>`, by attribute name (non-NULL ones).
    package var tombstone: [String: String]?
}

/// One row of `ATRANSACTION` with its changes.
package struct HistoryTransaction: Sendable, Codable, Equatable {
    /// `ATRANSACTION.Z_PK`, the transaction number `--since` takes.
    package var id: Int64
    /// Seconds since 2001 (`ZTIMESTAMP`).
    package var timestamp: Double?
    /// `timestamp` in ISO 8601 (UTC).
    package var date: String?
    package var author: String?
    package var bundleID: String?
    package var processID: String?
    package var contextName: String?
    package var changes: [HistoryChange]

    /// How many changes of `type` the transaction holds.
    package func count(_ type: ChangeType) -> Int { changes.filter { $0.type == type }.count }
}

/// Which transactions and changes to read.
package struct HistoryFilter: Sendable {
    /// Only transactions after this one (by number).
    package var afterTransaction: Int64?
    /// Only transactions at or after this time (seconds since 2001).
    package var since: Double?
    /// Only transactions whose author is exactly this.
    package var author: String?
    /// Only changes of this entity or its sub-entities; transactions left without changes are
    /// dropped.
    package var entity: String?
    /// With ``entity``: only the transactions that changed the object with this `Z_PK`, and
    /// only their changes of it.
    package var objectPrimaryKey: Int64?
    /// Only transactions before this one (by number).
    package var beforeTransaction: Int64?
    /// Only the newest this many of the transactions selected (still returned oldest first):
    /// a page of a timeline read newest first, without OFFSET.
    package var newest: Int?
    /// Only the oldest this many of the transactions selected (ignored with ``newest``): with
    /// ``afterTransaction``, the page of a timeline just newer than a transaction.
    package var oldest: Int?

    package init(
        afterTransaction: Int64? = nil, since: Double? = nil, author: String? = nil, entity: String? = nil, objectPrimaryKey: Int64? = nil,
        beforeTransaction: Int64? = nil, newest: Int? = nil, oldest: Int? = nil
    ) {
        self.afterTransaction = afterTransaction
        self.since = since
        self.author = author
        self.entity = entity
        self.objectPrimaryKey = objectPrimaryKey
        self.beforeTransaction = beforeTransaction
        self.newest = newest
        self.oldest = oldest
    }
}

/// Reads persistent history (store-format.md §11): `ATRANSACTION`, its strings interned in
/// `ATRANSACTIONSTRING` (current layout) or inline (framework 851 and older), and `ACHANGE`.
package struct HistoryReader {
    package let snapshot: StoreSnapshot
    let registry: EntityRegistry
    let storeUUID: String
    let model: ManagedObjectModel?
    private var decoders: [String: ChangedColumns] = [:]

    /// Fails with a clear message when the store keeps no history. Without a model cache the
    /// changes are still listed, only without property names.
    package init(snapshot: StoreSnapshot, model: ManagedObjectModel? = nil) throws {
        self.snapshot = snapshot
        let path = snapshot.files.main.path
        let (registry, metadata, cache, hasHistory) = try snapshot.read { db in
            (
                try EntityRegistry.read(db), try StoreMetadata.read(db, path: path),
                model == nil ? try? ModelCache.read(db, path: path) : nil,
                try Self.hasHistory(db)
            )
        }
        guard hasHistory else {
            throw StoreError.noPersistentHistory(path: path)
        }
        self.registry = registry
        self.storeUUID = metadata.storeUUID ?? ""
        self.model = model ?? cache?.model
        if let chosen = self.model {
            for entity in chosen.entities { decoders[entity.name] = ChangedColumns(model: chosen, entity: entity.name) }
        }
    }

    /// Whether the store has `ATRANSACTION`, without failing when it has not.
    package static func hasHistory(_ db: Database) throws -> Bool {
        try db.tableExists("ATRANSACTION") && db.tableExists("ACHANGE")
    }

    /// The transactions `filter` selects, oldest first, each with its changes in order.
    package func transactions(_ filter: HistoryFilter = HistoryFilter()) throws -> [HistoryTransaction] {
        if let entity = filter.entity, registry.entity(named: entity) == nil {
            throw StoreError.unknownEntity(entity, registry: registry)
        }
        let wantedEnts: Set<Int>? = filter.entity.flatMap { registry.entity(named: $0) }.map { Set(registry.subtree(of: $0).map(\.ent)) }
        return try snapshot.read { db in
            var transactions = try readTransactions(db, filter, ents: wantedEnts)
            guard !transactions.isEmpty else { return [] }
            let positions = Dictionary(uniqueKeysWithValues: transactions.enumerated().map { ($0.element.id, $0.offset) })
            let changeColumns = try Set(db.columns(in: "ACHANGE").map(\.name))
            let tombstones = (0..<changeColumns.count).map { "ZTOMBSTONE\($0)" }.filter { changeColumns.contains($0) }
            let select = (["Z_PK", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS"] + tombstones).joined(separator: ", ")
            let first = transactions.first?.id ?? 0
            let last = transactions.last?.id ?? 0
            let cursor = try Row.fetchCursor(
                db, sql: "SELECT \(select) FROM ACHANGE WHERE ZTRANSACTIONID >= ? AND ZTRANSACTIONID <= ? ORDER BY ZTRANSACTIONID, Z_PK",
                arguments: [first, last])
            while let row = try cursor.next() {
                let transactionID: Int64 = row["ZTRANSACTIONID"] ?? 0
                guard let position = positions[transactionID] else { continue }
                let ent: Int = row["ZENTITY"] ?? 0
                if let wantedEnts, !wantedEnts.contains(ent) { continue }
                let changedPK: Int64 = row["ZENTITYPK"] ?? 0
                if let pk = filter.objectPrimaryKey, changedPK != pk { continue }
                transactions[position].changes.append(change(row, ent: ent, tombstones: tombstones))
            }
            if filter.entity != nil { transactions.removeAll { $0.changes.isEmpty } }
            return transactions
        }
    }

    private func readTransactions(_ db: Database, _ filter: HistoryFilter, ents: Set<Int>?) throws -> [HistoryTransaction] {
        let columns = try Set(db.columns(in: "ATRANSACTION").map(\.name))
        let interned = try db.tableExists("ATRANSACTIONSTRING")
        // Current stores intern the strings (`Z…TS` → ATRANSACTIONSTRING) and leave the inline
        // columns NULL; framework 851 has only the inline columns.
        func field(_ name: String) -> String {
            let inline = columns.contains(name) ? "t.\(name)" : "NULL"
            guard interned, columns.contains(name + "TS") else { return inline }
            return "COALESCE(\(inline), (SELECT s.ZNAME FROM ATRANSACTIONSTRING s WHERE s.Z_PK = t.\(name)TS))"
        }
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible] = []
        if let after = filter.afterTransaction {
            conditions.append("t.Z_PK > ?")
            arguments.append(after)
        }
        if let before = filter.beforeTransaction {
            conditions.append("t.Z_PK < ?")
            arguments.append(before)
        }
        if let ents {
            // Entity numbers come from Z_PRIMARYKEY, never from the request. Selecting the
            // transactions in SQL (not only dropping those left without changes afterwards)
            // keeps a `newest`/`oldest` page full.
            let list = ents.sorted().map(String.init).joined(separator: ", ")
            if let pk = filter.objectPrimaryKey {
                conditions.append("t.Z_PK IN (SELECT c.ZTRANSACTIONID FROM ACHANGE c WHERE c.ZENTITY IN (\(list)) AND c.ZENTITYPK = ?)")
                arguments.append(pk)
            } else {
                conditions.append("t.Z_PK IN (SELECT c.ZTRANSACTIONID FROM ACHANGE c WHERE c.ZENTITY IN (\(list)))")
            }
        }
        if let since = filter.since {
            conditions.append("t.ZTIMESTAMP >= ?")
            arguments.append(since)
        }
        if let author = filter.author {
            conditions.append("\(field("ZAUTHOR")) = ?")
            arguments.append(author)
        }
        let sql = """
            SELECT t.Z_PK, t.ZTIMESTAMP, \(field("ZAUTHOR")), \(field("ZBUNDLEID")), \(field("ZPROCESSID")), \(field("ZCONTEXTNAME"))
            FROM ATRANSACTION t\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")) \
            ORDER BY t.Z_PK\(filter.newest != nil ? " DESC LIMIT ?" : filter.oldest != nil ? " LIMIT ?" : "")
            """
        if let limit = filter.newest ?? filter.oldest { arguments.append(limit) }
        let rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
        return (filter.newest == nil ? rows : rows.reversed()).map { row in
            let timestamp: Double? = row[1]
            return HistoryTransaction(
                id: row[0] ?? 0, timestamp: timestamp, date: timestamp.map(ValueText.isoDate),
                author: row[2], bundleID: row[3], processID: row[4], contextName: row[5], changes: [])
        }
    }

    private func change(_ row: Row, ent: Int, tombstones: [String]) -> HistoryChange {
        let name = registry.entity(ent: ent)?.name ?? "entity \(ent)"
        let pk: Int64 = row["ZENTITYPK"] ?? 0
        let rawType: Int = row["ZCHANGETYPE"] ?? -1
        let type: ChangeType = rawType == 0 ? .insert : rawType == 2 ? .delete : .update
        var change = HistoryChange(
            id: row["Z_PK"] ?? 0, type: type, entity: name,
            objectID: ObjectID(storeUUID: storeUUID, entity: name, ent: ent, pk: pk).uri)
        let decoder = decoders[name]
        if type == .update, let mask: Data = row["ZCOLUMNS"] {
            change.updatedColumnBits = ChangedColumns.bits(mask)
            if let decoded = decoder?.decode(mask) {
                change.updatedProperties = decoded.names
                change.updatedToMany = decoded.toMany
            } else {
                change.modelPropertyCount = decoder?.count
            }
        }
        if type == .delete {
            var values: [String: String] = [:]
            for (index, column) in tombstones.enumerated() {
                let value: DatabaseValue = row[column]
                guard let text = Self.tombstoneText(value) else { continue }
                let attribute = decoder.flatMap { index < $0.tombstoneAttributes.count ? $0.tombstoneAttributes[index] : nil }
                values[attribute ?? column] = text
            }
            if !values.isEmpty { change.tombstone = values }
        }
        return change
    }

    /// A tombstone as text: BLOBs that are UTF-8 (bundle IDs are stored so) as text, other
    /// BLOBs in hex.
    static func tombstoneText(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: return nil
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return text
        case .blob(let data):
            if let text = String(data: data, encoding: .utf8), !text.contains("\u{0}") { return text }
            return data.map { String(format: "%02x", $0) }.joined()
        }
    }
}
