import Foundation

/// An `NSKeyedArchiver` archive, walked without `NSKeyedUnarchiver`.
///
/// Core Data's classes do not exist on Linux, so model caches, `.mom` files and transformable
/// values are read by resolving `UID`s into `$objects` and dispatching on each object's
/// `$classname` (docs/format/model-format.md §3.3).
public final class KeyedArchive: Sendable {
    /// The archive's `$objects` array; index 0 is the `"$null"` placeholder.
    public let objects: [PropertyListValue]
    private let topIndex: Int

    /// Parses `data` as a keyed archive.
    public init(data: Data) throws {
        let plist = try PropertyList.decode(data)
        guard plist["$archiver"]?.stringValue == "NSKeyedArchiver",
            let objects = plist["$objects"]?.arrayValue
        else { throw PropertyListError.notKeyedArchive }
        guard let top = plist["$top"],
            case .uid(let index)? = top["root"] ?? top.dictionaryEntries?.first?.value,
            index > 0, index < objects.count
        else { throw PropertyListError.noRootObject }
        self.objects = objects
        self.topIndex = index
    }

    /// Whether `data` starts like a keyed archive (a binary plist naming NSKeyedArchiver).
    public static func looksLikeArchive(_ data: Data) -> Bool {
        data.starts(with: Array("bplist00".utf8)) && data.range(of: Data("NSKeyedArchiver".utf8)) != nil
    }

    /// The root object (`$top.root`).
    public var root: ArchivedObject { ArchivedObject(archive: self, index: topIndex) }

    /// Follows `value` when it is a UID; `nil` for `$null` and dangling references.
    public func object(for value: PropertyListValue?) -> ArchivedObject? {
        guard case .uid(let index)? = value, index > 0, index < objects.count else { return nil }
        if case .string("$null") = objects[index] { return nil }
        return ArchivedObject(archive: self, index: index)
    }

    /// Decodes a value into Foundation-like terms (strings, numbers, collections, dates, …).
    public func decode(_ value: PropertyListValue?) -> ArchivedValue {
        var walk = ArchiveWalk()
        return decode(value, &walk)
    }

    func decode(_ value: PropertyListValue?, _ walk: inout ArchiveWalk) -> ArchivedValue {
        guard let value else { return .null }
        guard walk.depth < 64, walk.budget > 0 else { return .unexpanded }
        walk.depth += 1
        walk.budget -= 1
        defer { walk.depth -= 1 }
        switch value {
        case .uid:
            guard let object = object(for: value) else { return .null }
            return object.decoded(&walk)
        case .string(let s): return s == "$null" ? .null : .string(s)
        case .integer(let i): return .integer(i)
        case .real(let r): return .real(r)
        case .boolean(let b): return .boolean(b)
        case .date(let d): return .date(d)
        case .data(let d): return .data(d)
        case .array(let a): return .array(a.map { decode($0, &walk) })
        case .dictionary(let d):
            return .dictionary(d.map { (.string($0.key), decode($0.value, &walk)) })
        }
    }
}

/// The limits of one decoding walk. An archive is a graph: an object that contains itself
/// would recurse forever, and objects shared at every level (`2^n` paths through `n` of
/// them) would expand beyond any memory.
struct ArchiveWalk {
    /// Objects being decoded; meeting one again is a cycle.
    var path: Set<Int> = []
    /// Nesting of values, which bounds the recursion.
    var depth = 0
    /// How many more values the result may hold.
    var budget = 1 << 20
}

/// One object of a ``KeyedArchive``: a dictionary with a `$class`, or an inline value.
public struct ArchivedObject: Sendable {
    /// The archive the object lives in, which resolves the UIDs among its values.
    public let archive: KeyedArchive
    /// Position in `$objects`; identical objects share it.
    public let index: Int

    /// The object's entry in `$objects` as stored: for a class instance, its keyed fields with
    /// UIDs left unresolved.
    public var raw: PropertyListValue { archive.objects[index] }

    /// `$classname` of the object's class, or `nil` for plain values.
    public var className: String? { classInfo?["$classname"]?.stringValue }

    /// The class and its superclasses, most specific first.
    public var classHierarchy: [String] {
        classInfo?["$classes"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    private var classInfo: PropertyListValue? {
        archive.object(for: raw["$class"])?.raw
    }

    /// The raw value stored under `key`.
    public func value(_ key: String) -> PropertyListValue? { raw[key] }

    /// The object referenced by `key`, or `nil` when absent or `$null`.
    public func object(_ key: String) -> ArchivedObject? { archive.object(for: raw[key]) }

    /// A string stored inline or as an `NSString` object.
    public func string(_ key: String) -> String? {
        guard let v = raw[key] else { return nil }
        if case .string(let s) = v { return s == "$null" ? nil : s }
        return archive.object(for: v)?.stringContent
    }

    /// The number stored inline under `key` as an `Int` (see ``PropertyListValue/intValue``).
    public func int(_ key: String) -> Int? { raw[key]?.intValue }
    /// The flag stored inline under `key`, whether archived as a boolean or as an integer.
    public func bool(_ key: String) -> Bool? { raw[key]?.boolValue }

    /// The object itself as a string: an inline string or an `NSString`'s `NS.string`.
    public var stringContent: String? {
        switch raw {
        case .string(let s): return s == "$null" ? nil : s
        case .dictionary:
            if let s = raw["NS.string"] {
                if case .data(let d) = s { return String(decoding: d, as: UTF8.self) }
                return s.stringValue
            }
            return nil
        default: return nil
        }
    }

    /// Members of an array or set (`NS.objects`) under `key`.
    public func elements(_ key: String) -> [ArchivedObject] {
        object(key)?.elements ?? []
    }

    /// Members of this array or set object (`NS.objects`).
    public var elements: [ArchivedObject] {
        (raw["NS.objects"]?.arrayValue ?? []).compactMap { archive.object(for: $0) }
    }

    /// Entries of this dictionary object: `NS.keys`/`NS.objects`, or the
    /// `NSKnownKeysDictionary1` layout Core Data uses in model caches.
    public var dictionaryEntries: [(key: String, value: ArchivedObject)] {
        if let mapping = object("searchMapping") {
            let keys = (mapping.object("keys")?.elements ?? []).compactMap(\.stringContent)
            let values = object("values")?.elements ?? []
            return zip(keys, values).map { ($0, $1) }
        }
        let keys = raw["NS.keys"]?.arrayValue ?? []
        let values = raw["NS.objects"]?.arrayValue ?? []
        return zip(keys, values).compactMap { k, v in
            guard let key = archive.object(for: k)?.stringContent, let value = archive.object(for: v) else { return nil }
            return (key, value)
        }
    }

    /// Entries of the dictionary object under `key`.
    public func dictionary(_ key: String) -> [(key: String, value: ArchivedObject)] {
        object(key)?.dictionaryEntries ?? []
    }

    /// This object in Foundation-like terms.
    public func decoded() -> ArchivedValue {
        var walk = ArchiveWalk()
        return decoded(&walk)
    }

    func decoded(_ walk: inout ArchiveWalk) -> ArchivedValue {
        guard case .dictionary = raw else { return archive.decode(raw, &walk) }
        guard let name = className else { return .object(className: "?", size: 0) }
        guard walk.path.insert(index).inserted else { return .unexpanded }
        defer { walk.path.remove(index) }
        switch name {
        case "NSString", "NSMutableString":
            return .string(stringContent ?? "")
        case "NSAttributedString", "NSMutableAttributedString", "NSConcreteAttributedString":
            return .string(object("NSString")?.stringContent ?? "")
        case "NSArray", "NSMutableArray", "NSOrderedSet", "NSMutableOrderedSet":
            return .array((raw["NS.objects"]?.arrayValue ?? []).map { archive.decode($0, &walk) })
        case "NSSet", "NSMutableSet", "NSCountedSet":
            return .set((raw["NS.objects"]?.arrayValue ?? []).map { archive.decode($0, &walk) })
        case "NSDictionary", "NSMutableDictionary":
            let keys = raw["NS.keys"]?.arrayValue ?? []
            let values = raw["NS.objects"]?.arrayValue ?? []
            return .dictionary(zip(keys, values).map { (archive.decode($0, &walk), archive.decode($1, &walk)) })
        case "NSDate":
            if case .real(let t)? = raw["NS.time"] { return .date(t) }
            if let t = raw["NS.time"]?.intValue { return .date(Double(t)) }
            return .null
        case "NSData", "NSMutableData":
            return .data(raw["NS.data"]?.dataValue ?? Data())
        case "NSUUID":
            if let bytes = raw["NS.uuidbytes"]?.dataValue, bytes.count == 16 {
                return .uuid(UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
            }
            return .null
        case "NSURL":
            let relative = string("NS.relative") ?? ""
            if case .url(let b) = archive.decode(raw["NS.base"], &walk) {
                return .url(URL(string: relative, relativeTo: URL(string: b))?.absoluteString ?? relative)
            }
            return .url(relative)
        case "NSNull":
            return .null
        case "NSDecimalNumber", "NSNumber":
            if let v = raw["NS.intval"]?.intValue { return .integer(Int64(v)) }
            if case .real(let r)? = raw["NS.dblval"] { return .real(r) }
            return .object(className: name, size: 0)
        default:
            let size = raw.dictionaryEntries?.count ?? 0
            return .object(className: name, size: size)
        }
    }
}

/// A value from an archive in Foundation terms; classes cdstore does not know keep their name.
public indirect enum ArchivedValue: Sendable, Equatable {
    case null
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    /// Seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    case data(Data)
    case uuid(UUID)
    case url(String)
    case array([ArchivedValue])
    case set([ArchivedValue])
    case dictionary([ArchivedValuePair])
    /// An instance of a class cdstore does not decode; `size` counts its archived keys.
    case object(className: String, size: Int)

    /// An `.object` named "…" that stands for a value left out: it repeats an object that
    /// encloses it, lies too deep, or would make the result too large.
    public static let unexpanded = ArchivedValue.object(className: "…", size: 0)

    /// A dictionary value from key/value tuples, in the given order.
    package static func dictionary(_ pairs: [(ArchivedValue, ArchivedValue)]) -> ArchivedValue {
        .dictionary(pairs.map { ArchivedValuePair(key: $0.0, value: $0.1) })
    }
}

/// One key/value entry of a decoded dictionary.
public struct ArchivedValuePair: Sendable, Equatable {
    /// The entry's key, usually a string, decoded like any other value.
    public let key: ArchivedValue
    /// The value stored under `key`.
    public let value: ArchivedValue
}
