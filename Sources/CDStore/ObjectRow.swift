import CDMapping
import CDModel
import Foundation
import GRDB
import GRDBSQLite

/// The properties of one concrete entity as ``ObjectReader`` reads them: one layout per entity
/// and read, shared by all of its rows, so renderers can prepare per-layout output (JSON keys,
/// CSV column positions) once instead of once per row. Compare layouts with `===`.
public final class ObjectLayout {
    /// The concrete entity's name.
    public let entity: String
    /// `Z_ENT` of the entity.
    public let ent: Int
    /// The entity's class name (`NSManagedObject` when the model names none).
    public let className: String
    /// The store's `NSStoreUUID`, for the IDs of its rows.
    public let storeUUID: String
    /// Property names, sorted by name as Core Data's description sorts its keys; a row's values
    /// are addressed by position in this array.
    public let names: [String]
    let fields: [ObjectField]
    /// What ``ObjectRow/borrowedValue(_:)`` needs of each field, by property, kept apart from
    /// `fields` so the per-value path copies plain values out of the array, no references.
    let reads: [BorrowedRead]

    init(entity: String, ent: Int, className: String, storeUUID: String, fields: [(name: String, field: ObjectField)]) {
        self.entity = entity
        self.ent = ent
        self.className = className
        self.storeUUID = storeUUID
        self.names = fields.map(\.name)
        self.fields = fields.map(\.field)
        self.reads = fields.map { BorrowedRead($0.field) }
    }
}

/// How one property of one concrete entity is read from the selected columns. The payloads
/// are kept small because every field of every row passes through here.
enum ObjectField {
    case attribute(AttributeType, external: Bool, column: Int32)
    case toOne(destination: String, destinationEnt: Int, key: Int32, entityType: Int32?)
    case toMany(RelationshipBox)
}

/// How ``ObjectRow/borrowedValue(_:)`` reads one field.
struct BorrowedRead {
    /// The attribute types it decodes in place, and to-one relationships. Other attributes
    /// (`.decoded`) go through ``ValueDecoder`` unless they are NULL; to-many relationships
    /// through the to-many fetcher.
    enum Kind {
        case integer, boolean, decimal, double, date, string, uuid, toOne, decoded, toMany
    }

    let kind: Kind
    /// The attribute's column, or the to-one's key column.
    let column: Int32
    /// The to-one's `Z<n>_` entity column, -1 when the destination has no sub-entities.
    let entityColumn: Int32
    /// The to-one's declared destination `Z_ENT`.
    let destinationEnt: Int

    init(_ field: ObjectField) {
        switch field {
        case .attribute(let type, _, let column):
            let kind: Kind
            switch type {
            case .integer16, .integer32, .integer64: kind = .integer
            case .boolean: kind = .boolean
            case .decimal: kind = .decimal
            case .double, .float: kind = .double
            case .date: kind = .date
            case .string: kind = .string
            case .uuid: kind = .uuid
            default: kind = .decoded
            }
            self.init(kind: kind, column: column, entityColumn: -1, destinationEnt: 0)
        case .toOne(_, let destinationEnt, let key, let entityType):
            self.init(kind: .toOne, column: key, entityColumn: entityType ?? -1, destinationEnt: destinationEnt)
        case .toMany:
            self.init(kind: .toMany, column: -1, entityColumn: -1, destinationEnt: 0)
        }
    }

    private init(kind: Kind, column: Int32, entityColumn: Int32, destinationEnt: Int) {
        self.kind = kind
        self.column = column
        self.entityColumn = entityColumn
        self.destinationEnt = destinationEnt
    }
}

/// A relationship shared by reference, so rows do not copy its description.
final class RelationshipBox {
    let relationship: RelationshipDescription
    init(_ relationship: RelationshipDescription) { self.relationship = relationship }
}

/// A decoded value that still points into SQLite's memory for the current row: what
/// ``ObjectValue`` holds for the common types, without allocating a `String`, `Data` or
/// ``ObjectID`` per value. Only valid while the row is.
public enum BorrowedValue {
    case null
    case integer(Int64)
    case boolean(Bool)
    case decimal(Double)
    case double(Double)
    /// Seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    /// Valid UTF-8 without NUL bytes: exactly the bytes ``ObjectValue/string(_:)`` would hold.
    case string(UnsafeBufferPointer<UInt8>)
    /// The 16 bytes of a UUID.
    case uuid(UnsafeRawBufferPointer)
    /// A to-one relationship's destination: its `Z_ENT` (the entity name in its ID comes from
    /// ``ObjectRow/entityName(ofTarget:property:)``) and its `Z_PK`.
    case object(ent: Int, pk: Int64)
    /// Anything else (binaries, transformables, URIs, to-many relationships, values whose
    /// stored form does not fit the model): ask ``ObjectRow/value(_:)``.
    case other
}

/// The current row of a read, one object: its ID and its property values, decoded on demand.
///
/// It is noncopyable and only lent to the callback of ``ObjectReader/readRows(_:section:row:)``
/// because it reads straight from the SQLite statement, which moves to the next row as soon as
/// the callback returns. The reader moves one `ObjectRow` along the rows rather than making one
/// per row, which would retain and release its references a million times.
public struct ObjectRow: ~Copyable {
    /// The layout of the row's concrete entity; it changes between rows of different entities.
    public internal(set) var layout: ObjectLayout
    /// `Z_PK`
    public internal(set) var pk: Int64
    /// For ``borrowedValue(_:)``, which reads columns in place.
    let statement: SQLiteStatement
    /// GRDB's view of the same row, for ``value(_:)``: values that are not borrowed are
    /// converted exactly as they always were.
    let row: Row
    let context: ObjectReader.ReadContext

    /// The object's permanent ID.
    public var id: ObjectID {
        ObjectID(storeUUID: layout.storeUUID, entity: layout.entity, ent: layout.ent, pk: pk)
    }

    /// The value of property `index` (a position in ``ObjectLayout/names``), fully decoded:
    /// to-many members or counts are fetched here when the query asks for them.
    public func value(_ index: Int) throws -> ObjectValue {
        switch layout.fields[index] {
        case .attribute(let type, let external, let column):
            if let lengthColumn = context.lengthColumns[column], let limit = context.query.largeValueLimit,
                case .integer(let length) = Self.raw(row, Int(lengthColumn)), length > limit
            {
                return .largeValue(bytes: Int(length))
            }
            return ValueDecoder.decode(
                Self.raw(row, Int(column)), type: type, allowsExternalStorage: external,
                externalData: context.externalData)
        case .toOne(let destination, let destinationEnt, let key, let entityType):
            // A key or entity number of the wrong type is shown as found, never as an invented ID.
            let target = StoredInteger(row, Int(key))
            guard case .integer(let targetPK) = target else {
                return target == .null ? .null : .unexpected(ValueDecoder.describe(Self.raw(row, Int(key))))
            }
            let storedEnt = entityType.map { StoredInteger(row, Int($0)) }
            if let storedEnt, storedEnt.problem != nil {
                return .unexpected(
                    ValueDecoder.describe(Self.raw(row, Int(key))) + " (Z_ENT " + ValueDecoder.describe(Self.raw(row, Int(entityType ?? 0))) + ")")
            }
            let targetEnt = storedEnt?.value(in: EntityRegistry.entityNumbers) ?? destinationEnt
            return .object(context.reader.objectID(pk: targetPK, ent: targetEnt, declared: destination))
        case .toMany(let box):
            let name = layout.names[index]
            if context.query.includes.contains(name) {
                return .objects(members: try context.members.members(of: box.relationship, entity: layout.entity, pk: pk))
            }
            if context.query.countsToMany {
                return .objectCount(try context.members.count(of: box.relationship, entity: layout.entity, pk: pk))
            }
            return .objects(members: nil)
        }
    }

    /// The value of property `index` when it is of a common type and stored as the model says,
    /// read in place; ``BorrowedValue/other`` otherwise. Wherever it is not `.other` it is the
    /// same value ``value(_:)`` returns, so renderers can use it as a fast path and fall back
    /// to ``value(_:)`` without changing their output.
    public func borrowedValue(_ index: Int) -> BorrowedValue {
        let read = layout.reads[index]
        guard read.kind != .toMany else { return .other }
        let column = read.column
        let type = sqlite3_column_type(statement, column)
        if type == SQLITE_NULL {
            // A value left unread as too large reads NULL; value(_:) tells it apart.
            return read.kind == .decoded && !context.lengthColumns.isEmpty ? .other : .null
        }
        switch read.kind {
        case .integer:
            return type == SQLITE_INTEGER ? .integer(sqlite3_column_int64(statement, column)) : .other
        case .boolean:
            return type == SQLITE_INTEGER ? .boolean(sqlite3_column_int64(statement, column) != 0) : .other
        case .decimal:
            return number(type, column).map(BorrowedValue.decimal) ?? .other
        case .double:
            return number(type, column).map(BorrowedValue.double) ?? .other
        case .date:
            return number(type, column).map(BorrowedValue.date) ?? .other
        case .string:
            guard type == SQLITE_TEXT, let text = sqlite3_column_text(statement, column) else { return .other }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column)))
            // `String(cString:)` stops at a NUL and repairs bad UTF-8; leave those to it.
            return UTF8Check.isValidWithoutNUL(bytes) ? .string(bytes) : .other
        case .uuid:
            guard type == SQLITE_BLOB, sqlite3_column_bytes(statement, column) == 16,
                let blob = sqlite3_column_blob(statement, column)
            else { return .other }
            return .uuid(UnsafeRawBufferPointer(start: blob, count: 16))
        case .toOne:
            guard type == SQLITE_INTEGER else { return .other }
            var ent = read.destinationEnt
            if read.entityColumn >= 0 {
                switch sqlite3_column_type(statement, read.entityColumn) {
                case SQLITE_NULL: break
                case SQLITE_INTEGER: ent = Int(sqlite3_column_int64(statement, read.entityColumn))
                default: return .other
                }
            }
            return .object(ent: ent, pk: sqlite3_column_int64(statement, column))
        case .decoded, .toMany:
            return .other
        }
    }

    /// The entity name in a to-one's ``ObjectID``, for a ``BorrowedValue/object(ent:pk:)`` of
    /// property `index`.
    public func entityName(ofTarget ent: Int, property index: Int) -> String {
        guard case .toOne(let destination, _, _, _) = layout.fields[index] else { return layout.entity }
        return context.reader.entityName(ent: ent, declared: destination)
    }

    /// The whole object, every value decoded.
    public func object() throws -> StoredObject {
        var values: [(name: String, value: ObjectValue)] = []
        values.reserveCapacity(layout.fields.count)
        for index in layout.fields.indices {
            values.append((layout.names[index], try value(index)))
        }
        return StoredObject(id: id, className: layout.className, values: values)
    }

    private func number(_ type: Int32, _ column: Int32) -> Double? {
        switch type {
        case SQLITE_INTEGER: return Double(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return sqlite3_column_double(statement, column)
        default: return nil
        }
    }

    static func raw(_ row: Row, _ index: Int) -> ValueDecoder.Raw {
        switch (row[index] as DatabaseValue).storage {
        case .null: return .null
        case .int64(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .string(let s): return .text(s)
        case .blob(let d): return .blob(d)
        }
    }
}

/// UTF-8 validation by the Unicode standard's rules (no overlong forms, no surrogates, nothing
/// above U+10FFFF), which are the ones Swift's `String` uses to decide what to repair.
enum UTF8Check {
    static func isValidWithoutNUL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if isASCIIWithoutNUL(bytes) { return true }
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                if lead == 0 { return false }
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard index + length <= count else { return false }
            let second = bytes[index + 1]
            guard second >= low && second <= high else { return false }
            for offset in 2..<max(length, 2) where bytes[index + offset] & 0xC0 != 0x80 {
                return false
            }
            index += length
        }
        return true
    }

    /// Eight bytes at a time, the last eight overlapping the others: most text is ASCII.
    private static func isASCIIWithoutNUL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, bytes.count >= 8 else { return false }
        func isClean(at offset: Int) -> Bool {
            let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
            let zeroByte = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
            return (word & 0x8080_8080_8080_8080) | zeroByte == 0
        }
        var offset = 0
        while offset + 8 <= bytes.count {
            guard isClean(at: offset) else { return false }
            offset += 8
        }
        return isClean(at: bytes.count - 8)
    }
}
