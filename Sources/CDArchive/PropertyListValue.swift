import CDBase
import Foundation

/// A decoded property-list value.
///
/// Unlike Foundation's `PropertyListSerialization`, this keeps the `UID` values that
/// `NSKeyedArchiver` archives are built from, and it behaves the same on Linux and macOS.
public enum PropertyListValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    /// Seconds since 2001-01-01T00:00:00Z, as plists store dates.
    case date(Double)
    case data(Data)
    case array([PropertyListValue])
    /// Keys are kept in file order; property lists only ever use string keys in practice.
    case dictionary([(key: String, value: PropertyListValue)])
    /// A reference into an archive's `$objects` array.
    case uid(Int)

    /// Values of the same kind with equal contents; dictionaries must also list their keys in
    /// the same order, since the order in the file is kept.
    public static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a == b
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a == b
        case let (.boolean(a), .boolean(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.uid(a), .uid(b)): return a == b
        case let (.dictionary(a), .dictionary(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The value for `key` when this is a dictionary.
    public subscript(key: String) -> PropertyListValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// The text of a string value; nil for any other kind.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Integers, booleans and whole reals as an `Int`.
    public var intValue: Int? {
        switch self {
        case .integer(let i): return Int(truncatingIfNeeded: i)
        case .boolean(let b): return b ? 1 : 0
        case .real(let r) where r.rounded() == r && abs(r) < 9e18: return Int(r)
        default: return nil
        }
    }

    /// Booleans and integers as a `Bool` (archives store flags either way).
    public var boolValue: Bool? {
        switch self {
        case .boolean(let b): return b
        case .integer(let i): return i != 0
        default: return nil
        }
    }

    /// The bytes of a data value; nil for any other kind.
    public var dataValue: Data? {
        if case .data(let d) = self { return d }
        return nil
    }

    /// The elements of an array value; nil for any other kind.
    public var arrayValue: [PropertyListValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The entries of a dictionary value in file order; nil for any other kind.
    public var dictionaryEntries: [(key: String, value: PropertyListValue)]? {
        if case .dictionary(let d) = self { return d }
        return nil
    }
}

/// Why a property list, a keyed archive or compressed data could not be read or written. One
/// case per failure; ``message`` renders each in one line, for the user.
public enum PropertyListError: UserFacingError, Sendable, Equatable {
    // Binary property lists (`bplist00`).
    /// The data ends before its trailer or an object does.
    case truncated
    /// The trailer's sizes or offsets do not fit the data.
    case corruptTrailer
    /// An offset in the offset table points outside the objects.
    case corruptOffsetTable
    /// An object's length runs past the objects.
    case corruptLength
    /// A reference names no object.
    case missingObject
    /// An object contains itself.
    case referenceCycle
    /// Containers nest deeper than the reader follows.
    case nestsTooDeeply
    /// A marker (the object's first byte) the reader does not support.
    case unsupportedValue(marker: UInt8)
    /// A malformed integer, real, date or UID object.
    case corruptInteger, corruptReal, corruptDate, corruptUID
    /// A dictionary key that is not a string.
    case nonStringKey
    /// A marker of no known object type.
    case unknownObjectType(marker: UInt8)

    // Property lists read by Foundation, and what they hold.
    /// Neither a binary nor an XML property list.
    case unreadable
    /// A property list in another format (OpenStep).
    case notBinaryOrXML
    /// Foundation returned a value of a type a property list does not hold.
    case unsupportedFoundationValue(typeName: String)
    /// The property list is not the dictionary it must be.
    case notADictionary

    // Keyed archives.
    /// The property list is not an `NSKeyedArchiver` archive.
    case notKeyedArchive
    /// The archive has no `$top.root`.
    case noRootObject
    /// Writing: object `index` was reserved but never filled.
    case unfilledArchiveObject(index: Int)
    /// Writing: a dictionary has the same key twice.
    case repeatedKey

    // Compressed data (zlib).
    /// zlib could not start inflating.
    case inflateCannotStart
    /// The inflated data is larger than its limit.
    case compressedTooLarge
    /// The compressed data is corrupt or truncated.
    case compressedCorrupt
    /// zlib could not start deflating.
    case deflateCannotStart
    /// zlib's deflate ended with `status`.
    case deflateFailed(status: Int32)

    public var message: String {
        switch self {
        case .truncated: return "binary property list is truncated"
        case .corruptTrailer: return "binary property list has a corrupt trailer"
        case .corruptOffsetTable: return "binary property list has a corrupt offset table"
        case .corruptLength: return "binary property list has a corrupt length"
        case .missingObject: return "binary property list refers to a missing object"
        case .referenceCycle: return "binary property list has a reference cycle"
        case .nestsTooDeeply: return "binary property list nests too deeply"
        case .unsupportedValue(let marker): return "binary property list has an unsupported value (0x\(String(marker, radix: 16)))"
        case .corruptInteger: return "binary property list has a corrupt integer"
        case .corruptReal: return "binary property list has a corrupt real"
        case .corruptDate: return "binary property list has a corrupt date"
        case .corruptUID: return "binary property list has a corrupt UID"
        case .nonStringKey: return "binary property list has a non-string dictionary key"
        case .unknownObjectType(let marker): return "binary property list has an unknown object type (0x\(String(marker, radix: 16)))"
        case .unreadable: return "not a readable property list"
        case .notBinaryOrXML: return "not a binary or XML property list"
        case .unsupportedFoundationValue(let typeName): return "unsupported value in property list: \(typeName)"
        case .notADictionary: return "it is not a dictionary"
        case .notKeyedArchive: return "not an NSKeyedArchiver archive"
        case .noRootObject: return "keyed archive has no root object"
        case .unfilledArchiveObject(let index): return "keyed archive object \(index) was reserved but never filled"
        case .repeatedKey: return "dictionary has a repeated key"
        case .inflateCannotStart: return "zlib could not start inflating"
        case .compressedTooLarge: return "compressed data is too large"
        case .compressedCorrupt: return "compressed data is corrupt or truncated"
        case .deflateCannotStart: return "zlib could not start deflating"
        case .deflateFailed(let status): return "zlib could not deflate the data (\(status))"
        }
    }
}

/// Reads binary (`bplist00`) and XML property lists.
public enum PropertyList {
    /// Decodes `data`, which may be a binary or an XML property list.
    public static func decode(_ data: Data) throws -> PropertyListValue {
        if data.starts(with: Array("bplist00".utf8)) {
            var reader = BinaryPropertyListReader(data: data)
            return try reader.read()
        }
        return try decodeWithFoundation(data)
    }

    /// XML plists carry no UIDs, so Foundation's reader is enough for them. Its OpenStep
    /// results are refused: almost any short text parses as an OpenStep string, so a damaged
    /// binary plist (`bplist0`) would otherwise come back as one.
    private static func decodeWithFoundation(_ data: Data) throws -> PropertyListValue {
        let object: Any
        var format = PropertyListSerialization.PropertyListFormat.xml
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            throw PropertyListError.unreadable
        }
        guard format == .xml else { throw PropertyListError.notBinaryOrXML }
        return try convert(object)
    }

    private static func convert(_ object: Any) throws -> PropertyListValue {
        switch object {
        case let s as String: return .string(s)
        case let d as Data: return .data(d)
        case let d as Date: return .date(d.timeIntervalSinceReferenceDate)
        case let a as [Any]: return .array(try a.map(convert))
        case let d as [String: Any]:
            return .dictionary(try d.keys.sorted().map { ($0, try convert(d[$0]!)) })
        case let n as NSNumber:
            // Booleans surface as NSNumber with the `char` type code on both platforms.
            switch String(cString: n.objCType) {
            case "c", "B": return .boolean(n.boolValue)
            case "d", "f": return .real(n.doubleValue)
            default: return .integer(n.int64Value)
            }
        default:
            throw PropertyListError.unsupportedFoundationValue(typeName: "\(type(of: object))")
        }
    }
}
