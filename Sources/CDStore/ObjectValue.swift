import CDArchive
import CDBase
import CDModel
import Foundation

/// One decoded property value of a stored object, typed by the model (store-format.md §7.5, §9).
public enum ObjectValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case boolean(Bool)
    /// Decimal attributes: stored as REAL in every store seen, so shown as a double.
    case decimal(Double)
    case double(Double)
    case string(String)
    /// Seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    case binary(Data)
    case uuid(UUID)
    case uri(String)
    /// A transformable value decoded from its keyed archive, or raw bytes when it is not one.
    case transformable(ArchivedValue, size: Int)
    case transformableData(Data)
    /// An externally stored value: the file name under `_EXTERNAL_DATA` and whether it exists.
    case externalReference(file: String, exists: Bool)
    /// A binary or transformable value longer than the read's ``ObjectQuery/largeValueLimit``,
    /// left unread so that one object never brings a huge value into memory: its stored length.
    case largeValue(bytes: Int)
    /// A to-one relationship: the destination object.
    case object(ObjectID)
    /// A to-many relationship; `members` is nil while it is a fault (not fetched).
    case objects(members: [ObjectID]?)
    /// A to-many relationship shown by its size only.
    case objectCount(Int)
    /// A value whose stored form does not fit the model's type (kept as SQLite gave it).
    case unexpected(String)
}

/// A permanent object ID: `x-coredata://<store UUID>/<Entity>/p<Z_PK>` (store-format.md §8).
public struct ObjectID: Sendable, Hashable, Comparable {
    /// `NSStoreUUID` of the store holding the object.
    public let storeUUID: String
    /// The name of the object's concrete entity.
    public let entity: String
    /// `Z_ENT` of the concrete entity.
    public let ent: Int
    /// `Z_PK`: the object's primary key, unique within its entity hierarchy.
    public let pk: Int64

    package init(storeUUID: String, entity: String, ent: Int, pk: Int64) {
        self.storeUUID = storeUUID
        self.entity = entity
        self.ent = ent
        self.pk = pk
    }

    /// The ID as Core Data writes it (`NSManagedObjectID.uriRepresentation`).
    public var uri: String { "x-coredata://\(storeUUID)/\(entity)/p\(pk)" }

    /// Orders by entity number, then primary key, so sorted IDs group by entity.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        (lhs.ent, lhs.pk) < (rhs.ent, rhs.pk)
    }
}

/// Turns raw SQLite column values into ``ObjectValue``s according to the attribute's type.
package enum ValueDecoder {
    /// A raw value as SQLite returns it.
    package enum Raw: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob(Data)
    }

    /// Decodes `raw` for `attribute`. `externalData` is the store's `_EXTERNAL_DATA` folder,
    /// used to check that referenced files exist.
    package static func decode(_ raw: Raw, for attribute: AttributeDescription, externalData: URL?) -> ObjectValue {
        decode(raw, type: attribute.type, allowsExternalStorage: attribute.allowsExternalBinaryDataStorage, externalData: externalData)
    }

    /// Decodes `raw` for an attribute of `type`; external storage markers are read only when the
    /// attribute allows external storage, because plain binaries may start with the same bytes.
    package static func decode(_ raw: Raw, type: AttributeType, allowsExternalStorage: Bool, externalData: URL?) -> ObjectValue {
        if case .null = raw { return .null }
        switch type {
        case .integer16, .integer32, .integer64:
            switch raw {
            case .integer(let i): return .integer(i)
            case .real(let r) where r.rounded() == r: return .integer(Int64(r))
            default: return .unexpected(describe(raw))
            }
        case .boolean:
            if case .integer(let i) = raw { return .boolean(i != 0) }
            return .unexpected(describe(raw))
        case .decimal:
            return number(raw).map(ObjectValue.decimal) ?? .unexpected(describe(raw))
        case .double, .float:
            return number(raw).map(ObjectValue.double) ?? .unexpected(describe(raw))
        case .string:
            if case .text(let s) = raw { return .string(s) }
            if case .blob(let d) = raw { return .string(String(decoding: d, as: UTF8.self)) }
            return .unexpected(describe(raw))
        case .date:
            return number(raw).map(ObjectValue.date) ?? .unexpected(describe(raw))
        case .uuid:
            if case .blob(let d) = raw, d.count == 16 {
                return .uuid(UUID(uuid: d.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
            }
            if case .text(let s) = raw, let uuid = UUID(uuidString: s) { return .uuid(uuid) }
            return .unexpected(describe(raw))
        case .uri:
            if case .text(let s) = raw { return .uri(s) }
            if case .blob(let d) = raw { return uriFromArchive(d) }
            return .unexpected(describe(raw))
        case .binary:
            guard case .blob(let d) = raw else { return .unexpected(describe(raw)) }
            return allowsExternalStorage ? external(d, folder: externalData) : .binary(d)
        case .transformable:
            guard case .blob(let d) = raw else { return .unexpected(describe(raw)) }
            let payload = allowsExternalStorage ? external(d, folder: externalData) : .binary(d)
            guard case .binary(let bytes) = payload else { return payload }
            return transformable(bytes)
        default:
            return .unexpected(describe(raw))
        }
    }

    private static func number(_ raw: Raw) -> Double? {
        switch raw {
        case .integer(let i): return Double(i)
        case .real(let r): return r
        default: return nil
        }
    }

    /// Marker 0x01: the bytes follow inline; 0x02: a file name follows, NUL-terminated (§9).
    static func external(_ data: Data, folder: URL?) -> ObjectValue {
        guard let marker = data.first else { return .binary(data) }
        switch marker {
        case 0x01:
            return .binary(data.dropFirst())
        case 0x02:
            let name = String(decoding: data.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
            let exists = folder.map { FileManager.default.fileExists(atPath: $0.appendingPathComponent(name).path) } ?? false
            return .externalReference(file: name, exists: exists)
        default:
            return .binary(data)
        }
    }

    /// Transformables written by the default or secure transformers are keyed archives (§7.5).
    static func transformable(_ data: Data) -> ObjectValue {
        guard KeyedArchive.looksLikeArchive(data), let archive = try? KeyedArchive(data: data) else {
            return .transformableData(data)
        }
        return .transformable(archive.root.decoded(), size: data.count)
    }

    private static func uriFromArchive(_ data: Data) -> ObjectValue {
        if case .transformable(.url(let url), _) = transformable(data) { return .uri(url) }
        return .binary(data)
    }

    static func describe(_ raw: Raw) -> String {
        switch raw {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let r): return String(r)
        case .text(let s): return s
        case .blob(let d): return ValueText.byteCount(d)
        }
    }
}

/// Turns ``ObjectValue``s into the raw SQLite values Core Data stores for an attribute's type:
/// the inverse of ``ValueDecoder`` (store-format.md §7.5, §9).
///
/// Integers are range-checked for Integer 16/32/64, booleans become 0/1, dates seconds since
/// 2001 as REAL (SQLite's NUMERIC affinity of a `TIMESTAMP` column stores whole values as
/// INTEGER, as in Core Data's own stores), UUIDs 16 bytes, and binaries of an attribute that
/// allows external storage carry the `0x01` inline marker, since Core Data writes small values
/// inline and a reader must find a marker (§9). Decoded keyed archives and references to
/// external files cannot be turned back into bytes here.
package enum ValueEncoder {
    /// Why a value cannot be stored in an attribute. One line.
    package enum Failure: UserFacingError, Sendable, Equatable {
        /// An integer outside the range of the attribute's `type`.
        case outOfRange(Int64, type: AttributeType, range: ClosedRange<Int64>)
        /// A number SQLite cannot store as REAL (infinite or NaN).
        case notFinite(Double)
        /// A reference to an externally stored file instead of its bytes.
        case externalReference(file: String)
        /// A transformable value already decoded from its archive.
        case decodedTransformable
        /// A value of kind `kind` (`string`, `date`, …) given to an attribute of `type`.
        case wrongKind(kind: String, type: AttributeType)

        package var message: String {
            switch self {
            case .outOfRange(let value, let type, let range):
                return "\(value) is out of range for \(type) (\(range.lowerBound)…\(range.upperBound))"
            case .notFinite(let value): return "\(value) cannot be stored"
            case .externalReference(let file): return "the externally stored file \(file) cannot be imported; give the bytes instead"
            case .decodedTransformable: return "a decoded transformable value cannot be encoded again; give its archived bytes"
            case .wrongKind(let kind, let type): return "a \(kind) value cannot be stored in an attribute of type \(type)"
            }
        }
    }

    package static func encode(_ value: ObjectValue, for attribute: AttributeDescription) throws -> ValueDecoder.Raw {
        try encode(value, type: attribute.type, allowsExternalStorage: attribute.allowsExternalBinaryDataStorage)
    }

    package static func encode(_ value: ObjectValue, type: AttributeType, allowsExternalStorage: Bool) throws -> ValueDecoder.Raw {
        if case .null = value { return .null }
        switch (type, value) {
        case (.integer16, .integer(let i)), (.integer32, .integer(let i)), (.integer64, .integer(let i)):
            let range = integerRange(type)
            guard range.contains(i) else {
                throw Failure.outOfRange(i, type: type, range: range)
            }
            return .integer(i)
        case (.boolean, .boolean(let b)):
            return .integer(b ? 1 : 0)
        case (.decimal, .decimal(let d)), (.decimal, .double(let d)), (.double, .double(let d)), (.float, .double(let d)),
            (.double, .decimal(let d)), (.float, .decimal(let d)), (.date, .date(let d)):
            guard d.isFinite else { throw Failure.notFinite(d) }
            return .real(d)
        case (.decimal, .integer(let i)), (.double, .integer(let i)), (.float, .integer(let i)):
            return .real(Double(i))
        case (.string, .string(let s)):
            return .text(s)
        case (.uuid, .uuid(let u)):
            return .blob(withUnsafeBytes(of: u.uuid) { Data($0) })
        case (.uri, .uri(let u)), (.uri, .string(let u)):
            return .text(u)
        case (.binary, .binary(let d)), (.transformable, .transformableData(let d)), (.transformable, .binary(let d)):
            return .blob(allowsExternalStorage ? Data([0x01]) + d : d)
        case (_, .externalReference(let file, _)):
            throw Failure.externalReference(file: file)
        case (.transformable, .transformable):
            throw Failure.decodedTransformable
        default:
            throw Failure.wrongKind(kind: kind(of: value), type: type)
        }
    }

    /// The values an integer attribute of `type` holds.
    package static func integerRange(_ type: AttributeType) -> ClosedRange<Int64> {
        switch type {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        default: return Int64.min...Int64.max
        }
    }

    private static func kind(of value: ObjectValue) -> String {
        switch value {
        case .null: return "nil"
        case .integer: return "integer"
        case .boolean: return "boolean"
        case .decimal: return "decimal"
        case .double: return "double"
        case .string: return "string"
        case .date: return "date"
        case .binary, .transformableData: return "binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "transformable"
        case .externalReference: return "external data"
        case .largeValue: return "unread large value"
        case .object, .objects, .objectCount: return "relationship"
        case .unexpected: return "unexpected"
        }
    }
}

/// One stored object: its ID, class and decoded property values.
public struct StoredObject: Sendable {
    /// The object's permanent ID, which names its concrete entity.
    public let id: ObjectID
    /// The entity's class name (`NSManagedObject` when the model names none).
    public let className: String
    /// Values by property name, sorted by name as Core Data's description sorts its keys.
    public var values: [(name: String, value: ObjectValue)]

    package init(id: ObjectID, className: String, values: [(name: String, value: ObjectValue)]) {
        self.id = id
        self.className = className
        self.values = values
    }

    /// The value of property `name`; nil when the entity has no such (stored) property.
    public func value(_ name: String) -> ObjectValue? {
        values.first { $0.name == name }?.value
    }
}
