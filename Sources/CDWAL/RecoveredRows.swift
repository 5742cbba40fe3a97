import CDBase
import CDMapping
import CDModel
import CDSession
import CDStore
import Foundation
import GRDB

/// What `cdstore wal --recovered` reports: rows that are in no state of the store any more —
/// cells of table leaf pages that are free in the newest state (their newest image, from the
/// log or the main file) and of frames the log no longer counts (an earlier generation, a
/// transaction never committed) — decoded with the model where their shape fits an entity
/// table, each with where it was found. A row equal to a live row is left out.
///
/// A record fits a table when it has no more columns than the table, its first value is NULL
/// (`Z_PK` is the rowid), its second an entity number stored in that table, its rowid at most
/// the entity's `Z_MAX`, and every value of the storage class its column declares (store-format.md
/// §10b). Records cut short (overflow pages not followed) keep the values that fit and are
/// marked partial. Whether any are found depends on `secure_delete`: with it, SQLite zeroes
/// what it frees. Records are decoded with today's table layout, the only one the store keeps:
/// a row from before a migration that reordered a table's columns shows its values under
/// today's names.
package struct RecoveredRows: Sendable {
    /// Where a row was found.
    package enum Source: Sendable, Equatable, Hashable {
        /// A page free in the newest state.
        case freePage(Int)
        /// A frame of an earlier generation of the log (other salts), holding this page.
        case earlierGeneration(frame: Int, page: Int)
        /// A frame with the log's salts after its last commit, holding this page.
        case uncommitted(frame: Int, page: Int)

        /// `free page 12`, `frame 40 (page 7) of an earlier generation of the log`.
        package var text: String {
            switch self {
            case .freePage(let page): "free page \(page)"
            case .earlierGeneration(let frame, let page): "frame \(frame) (page \(page)) of an earlier generation of the log"
            case .uncommitted(let frame, let page): "frame \(frame) (page \(page)), never committed"
            }
        }
    }

    /// One recovered row.
    package struct Row: Sendable {
        package var entity: String
        package var pk: Int64
        /// The object ID it had, `x-coredata://UUID/Entity/pN`.
        package var uri: String
        package var source: Source
        /// Whether some of its values were on overflow pages and are missing.
        package var partial: Bool
        /// Its attributes decoded with the model, in name order (missing ones left out).
        package var values: [(name: String, value: ObjectValue)]
    }

    package var store: String
    /// Free pages examined, and frames outside every commit.
    package var freePages: Int
    package var frames: Int
    package var rows: [Row]

    /// The rows recovered from the store at `path`, read with `modelPath` for a store without a
    /// model cache.
    package static func make(storePath path: String, modelPath: String? = nil) throws -> RecoveredRows {
        let files = StoreFiles(path: path)
        guard FileManager.default.fileExists(atPath: files.main.path) else { throw StoreError.fileNotFound(path: files.main.path) }
        let session = try StoreSession(storePath: path, modelPath: modelPath)
        let reader = try session.reader()
        let log = try WriteAheadLog.read(files.wal) ?? .none(pageSize: session.snapshot.header.pageSize)
        let pages = try LogPages(files: files, log: log)
        let newest = log.commits.count
        let usable = pages.pageSize - Int((try pages.page(1, asOf: newest))[20])
        let tables = try TableShapes(reader: reader)

        var candidates: [(source: Source, page: BTreePage)] = []
        let free = try pages.freePages(asOf: newest).sorted()
        for number in free {
            if let page = BTreePage(try pages.page(number, asOf: newest), number: number), page.kind == .tableLeaf {
                candidates.append((.freePage(number), page))
            }
        }
        var frameCount = 0
        var index = pages.lastCommittedFrame + 1
        while let frame = try pages.frame(index) {
            frameCount += 1
            if let page = BTreePage(frame.image, number: frame.page), page.kind == .tableLeaf {
                let source: Source =
                    frame.currentSalts ? .uncommitted(frame: index, page: frame.page) : .earlierGeneration(frame: index, page: frame.page)
                candidates.append((source, page))
            }
            index += 1
        }

        var result = RecoveredRows(store: files.main.path, freePages: free.count, frames: frameCount, rows: [])
        var seen = Set<[RecordValue]>()
        try session.snapshot.read { db in
            for candidate in candidates {
                for cell in candidate.page.cells(usableSize: usable) ?? [] {
                    guard let record = RecordValues(cell.payload), let table = tables.table(fitting: record, rowid: cell.rowid),
                        case .integer(let ent) = record.values[1], let entity = reader.mapping.entities.first(where: { $0.number == Int(ent) })
                    else { continue }
                    let key: [RecordValue] = [.text(Array(table.name.utf8)), .integer(cell.rowid)] + record.values
                    guard seen.insert(key).inserted, try !table.isLive(record, rowid: cell.rowid, db) else { continue }
                    result.rows.append(
                        Row(
                            entity: entity.name, pk: cell.rowid,
                            uri: ObjectID(storeUUID: reader.storeUUID, entity: entity.name, ent: entity.number, pk: cell.rowid).uri,
                            source: candidate.source, partial: record.isPartial || !cell.complete,
                            values: table.attributes(of: entity.name, record: record, reader: reader)))
                }
            }
        }
        return result
    }
}

/// The entity tables of the newest state, their columns as SQLite declares them, for fitting
/// recovered records.
struct TableShapes {
    struct Table {
        var name: String
        /// Declared types, upper-cased, in column order.
        var types: [String]
        var names: [String]
        /// Entity numbers stored in the table, with their `Z_MAX`.
        var maxima: [Int: Int64]

        /// Whether `record` with `rowid` equals the live row of that `Z_PK`.
        func isLive(_ record: RecordValues, rowid: Int64, _ db: Database) throws -> Bool {
            guard let row = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM \(name.quotedSQLIdentifier) WHERE Z_PK = ?", arguments: [rowid]) else {
                return false
            }
            for (index, value) in record.values.enumerated() where index > 0 && index < row.count {
                if RecordValue(row[index] as DatabaseValue) != value { return false }
            }
            return true
        }

        /// The attributes of `entity` that `record` holds, decoded with the model, by name.
        func attributes(of entity: String, record: RecordValues, reader: ObjectReader) -> [(name: String, value: ObjectValue)] {
            var result: [(name: String, value: ObjectValue)] = []
            for property in reader.model.allProperties(of: entity).sorted(by: { $0.name < $1.name }) {
                guard case .attribute(let attribute) = property, !property.isTransient,
                    let column = reader.mapping.columns(forProperty: attribute.name, ofEntity: entity).first(where: { $0.role == .attribute }),
                    let index = names.firstIndex(of: column.name), index < record.values.count
                else { continue }
                let raw: ValueDecoder.Raw =
                    switch record.values[index] {
                    case .null: .null
                    case .integer(let value): .integer(value)
                    case .real(let value): .real(value)
                    case .text(let bytes): .text(String(decoding: bytes, as: UTF8.self))
                    case .blob(let bytes): .blob(Data(bytes))
                    }
                result.append((attribute.name, ValueDecoder.decode(raw, for: attribute, externalData: reader.snapshot.files.externalDataFolder)))
            }
            return result
        }
    }

    var tables: [Table] = []

    init(reader: ObjectReader) throws {
        let mapped = Dictionary(grouping: reader.mapping.entities, by: \.table)
        let maxima = Dictionary(reader.registry.entities.map { ($0.ent, Int64($0.max)) }, uniquingKeysWith: { first, _ in first })
        tables = try reader.snapshot.read { db in
            var tables: [Table] = []
            for (name, entities) in mapped.sorted(by: { $0.key < $1.key }) where try db.tableExists(name) {
                let columns = try GRDB.Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?) ORDER BY cid", arguments: [name])
                tables.append(
                    Table(
                        name: name, types: columns.map { ($0[1] as String? ?? "").uppercased() }, names: columns.map { $0[0] as String },
                        maxima: Dictionary(entities.map { ($0.number, maxima[$0.number] ?? 0) }, uniquingKeysWith: { first, _ in first })))
            }
            return tables
        }
    }

    /// The first table whose shape `record` fits (see ``RecoveredRows``).
    func table(fitting record: RecordValues, rowid: Int64) -> Table? {
        guard record.values.count >= 3, record.values[0] == .null, case .integer(let ent) = record.values[1], rowid >= 1 else { return nil }
        return tables.first { table in
            guard record.columnCount <= table.types.count, let maximum = table.maxima[Int(ent)], rowid <= maximum else { return false }
            for (index, value) in record.values.enumerated() where index > 0 {
                if !Self.fits(value, declared: table.types[index]) { return false }
            }
            return true
        }
    }

    /// Whether `value` has the storage class a column of type `declared` holds (Core Data's
    /// declared types: INTEGER, FLOAT, TIMESTAMP, VARCHAR, BLOB).
    static func fits(_ value: RecordValue, declared: String) -> Bool {
        switch value {
        case .null: true
        case .integer: declared.contains("INT") || declared == "FLOAT" || declared == "TIMESTAMP" || declared == "DECIMAL" || declared == "REAL"
        case .real: declared == "FLOAT" || declared == "TIMESTAMP" || declared == "DECIMAL" || declared == "REAL"
        case .text: declared.contains("CHAR") || declared.contains("TEXT") || declared.contains("CLOB")
        case .blob: declared == "BLOB"
        }
    }
}

extension RecordValue {
    /// A value as SQLite gave it to GRDB.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let double): self = .real(double)
        case .string(let string): self = .text(Array(string.utf8))
        case .blob(let data): self = .blob(Array(data))
        }
    }
}
