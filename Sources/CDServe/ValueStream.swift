import CDModel
import CDSession
import CDStore
import Foundation
import GRDB
import GRDBSQLite
import Hummingbird

/// `/stores/{store}/entities/{Entity}/{pk}/{attribute}`: the stored bytes of one binary or
/// transformable value (a transformable's are its transformer's archive), as
/// `application/octet-stream` with its length, read in ``chunkSize`` pieces through SQLite's
/// incremental blob I/O: no piece reads more of the value's pages than it sends, so a value of
/// any size costs one chunk of memory. The object page links here for values it does not read
/// (``ObjectPage/largeValueLimit``).
///
/// An attribute that allows external storage keeps a marker byte first (0x01: the bytes follow;
/// 0x02: a file name in `_EXTERNAL_DATA` follows; docs/format/store-format.md §9): the stream
/// skips the 0x01 and refuses a value kept in a file, whose name it gives. A value the app
/// rewrites between pieces ends the stream short of its length, which clients see as truncated.
enum ValueStream {
    /// Bytes read and sent per worker job.
    static let chunkSize = 256 * 1024

    /// Where the value lies: its table and column, the object's row, the first byte to send
    /// and how many bytes follow.
    struct Location: Sendable {
        var table: String
        var column: String
        var rowID: Int64
        var start: Int32
        var length: Int32
    }

    /// `name` as a binary or transformable attribute of `entity` or one of its sub-entities,
    /// or nil when it is something else (a relationship's member list answers then).
    static func streamedAttribute(_ name: String, of entity: String, in session: StoreSession) throws -> AttributeDescription? {
        let model = try session.model()
        var family = [entity]
        var index = 0
        while index < family.count, family.count < 10_000 {
            family += model.subentities(of: family[index]).map(\.name).filter { !family.contains($0) }
            index += 1
        }
        for member in family {
            for case .attribute(let attribute) in model.allProperties(of: member) where attribute.name == name {
                return ObjectQuery.limitsValues(of: attribute.type) ? attribute : nil
            }
        }
        return nil
    }

    static func respond(_ request: PageRequest, pool: SessionPool, entity: String, primaryKey: Int64, attribute: AttributeDescription) throws -> Response {
        try request.parameters.check(known: [])
        guard request.format == .html else {
            throw ServeError.badRequest("a value's bytes have no .\(request.format.rawValue) twin; the object page's JSON gives its size")
        }
        let (location, first) = try pool.withSession(request.job) { pooled -> (Location, [UInt8]) in
            let object = try ObjectPage.read(pooled.session, entity: entity, primaryKey: primaryKey)
            let reader = try pooled.session.runner().reader
            guard let table = reader.mapping.table(forEntity: object.id.entity),
                let column = reader.mapping.column(forProperty: attribute.name, ofEntity: object.id.entity)
            else { throw ServeError.storeFailure("\(object.id.entity).\(attribute.name) has no column in the store's mapping") }
            return try pooled.session.snapshot.read { db in
                let location = try locate(db, table: table.name, column: column.name, rowID: primaryKey, attribute: attribute, object: object)
                return (location, try piece(db, location, offset: 0))
            }
        }
        let workers = request.catalog.workers
        let name = "\(entity)-\(primaryKey)-\(attribute.name).bin"
        var headers: HTTPFields = [.contentType: "application/octet-stream"]
        headers[.contentLength] = String(location.length)
        headers[.contentDisposition] = "attachment; filename=\"\(name.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_" })\""
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(bytes: first))
            var offset = Int32(first.count)
            while offset < location.length {
                let sent = offset
                let next = try await workers.run(.quick) { job in
                    try pool.withSession(job) { pooled in try pooled.session.snapshot.read { db in try piece(db, location, offset: sent) } }
                }
                guard !next.isEmpty else { break }
                try await writer.write(ByteBuffer(bytes: next))
                offset += Int32(next.count)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The value's place, checked: a blob (not NULL, text or a number) and not a reference to
    /// an external file.
    private static func locate(
        _ db: Database, table: String, column: String, rowID: Int64, attribute: AttributeDescription, object: StoredObject
    ) throws -> Location {
        let what = "\(object.id.entity).\(attribute.name) of p\(rowID)"
        let row = try Row.fetchOne(
            db,
            sql:
                "SELECT typeof(\(column.quotedSQLIdentifier)), length(\(column.quotedSQLIdentifier)), substr(\(column.quotedSQLIdentifier), 1, 1) FROM \(table.quotedSQLIdentifier) WHERE Z_PK = ?",
            arguments: [rowID])
        guard let row, let type: String = row[0], type == "blob", let total: Int64 = row[1] else {
            throw ServeError.badRequest("\(what) holds no bytes to download (it is NULL or not stored as a blob); the object page shows it")
        }
        guard total <= Int64(Int32.max) else { throw ServeError.storeFailure("\(what) is \(total) bytes, more than SQLite's blob I/O reads") }
        var start: Int32 = 0
        if attribute.allowsExternalBinaryDataStorage, let marker: Data = row[2], let byte = marker.first {
            if byte == 0x02 {
                if case .externalReference(let file, _)? = object.value(attribute.name) {
                    throw ServeError.badRequest("\(what) is stored outside the store, in the file \(file) of its _EXTERNAL_DATA folder")
                }
                throw ServeError.badRequest("\(what) is stored outside the store, in its _EXTERNAL_DATA folder")
            }
            if byte == 0x01 { start = 1 }
        }
        return Location(table: table, column: column, rowID: rowID, start: start, length: Int32(total) - start)
    }

    /// Up to ``chunkSize`` bytes of the value from `offset` (after the marker byte), through
    /// `sqlite3_blob_read`; empty when the value is shorter than it was (rewritten meanwhile).
    private static func piece(_ db: Database, _ location: Location, offset: Int32) throws -> [UInt8] {
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(db.sqliteConnection, "main", location.table, location.column, location.rowID, 0, &blob)
        defer { sqlite3_blob_close(blob) }
        guard opened == SQLITE_OK, let blob else {
            throw ServeError.storeFailure("the value could not be read: \(String(cString: sqlite3_errstr(opened)))")
        }
        let total = sqlite3_blob_bytes(blob)
        guard total == location.length + location.start else { return [] }
        let count = min(Int32(chunkSize), location.length - offset)
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(count))
        let status = bytes.withUnsafeMutableBytes { sqlite3_blob_read(blob, $0.baseAddress, count, location.start + offset) }
        guard status == SQLITE_OK else { throw ServeError.storeFailure("the value could not be read: \(String(cString: sqlite3_errstr(status)))") }
        return bytes
    }
}
