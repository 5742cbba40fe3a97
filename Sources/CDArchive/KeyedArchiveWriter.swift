import Foundation

/// Builds an `NSKeyedArchiver` archive without `NSKeyedArchiver` (docs/format/model-format.md
/// §3.3): a `bplist00` dictionary with `$archiver`, `$version` 100000, `$top` {root: UID} and
/// `$objects`, whose first entry is `"$null"`.
///
/// Objects are added to `$objects` and referred to by their UID (a `PropertyListValue.uid`).
/// Object graphs with cycles, such as an entity and its properties pointing at each other, are
/// built by ``reserve()``-ing a UID first, using it in other objects, and filling it later
/// with ``fill(_:className:classes:fields:)``. Class descriptions (`$classname`, `$classes`)
/// are written once per class name and shared. Strings are plain plist strings, as Apple
/// writes `NSString`s; a new UID is made for each call, since an archive names each object once
/// (Apple's archiver shares only identical instances).
package struct KeyedArchiveWriter: Sendable {
    /// `$null`: the UID archives use for nil.
    package static let null = PropertyListValue.uid(0)

    private var objects: [PropertyListValue?] = [.string("$null")]
    private var classUIDs: [String: PropertyListValue] = [:]

    package init() {}

    /// A UID for an object whose fields are given later with ``fill(_:className:classes:fields:)``.
    package mutating func reserve() -> PropertyListValue {
        objects.append(nil)
        return .uid(objects.count - 1)
    }

    /// Gives the reserved object `uid` its class and fields. `classes` lists the class and its
    /// superclasses, most specific first (`$classes`); the first use of a class name decides it.
    package mutating func fill(
        _ uid: PropertyListValue, className: String, classes: [String],
        fields: [(key: String, value: PropertyListValue)]
    ) {
        guard case .uid(let index) = uid, index > 0, index < objects.count else {
            preconditionFailure("fill(_:) needs a UID from reserve()")
        }
        let classUID = classReference(className, classes: classes)
        objects[index] = .dictionary([(key: "$class", value: classUID)] + fields)
    }

    /// A new object with `fields`; returns its UID.
    package mutating func object(
        className: String, classes: [String],
        fields: [(key: String, value: PropertyListValue)]
    ) -> PropertyListValue {
        let uid = reserve()
        fill(uid, className: className, classes: classes, fields: fields)
        return uid
    }

    /// A string object (a plain plist string in `$objects`); returns its UID.
    package mutating func string(_ value: String) -> PropertyListValue {
        objects.append(.string(value))
        return .uid(objects.count - 1)
    }

    /// `string(_:)` for a value, ``null`` for nil.
    package mutating func string(_ value: String?) -> PropertyListValue {
        value.map { string($0) } ?? Self.null
    }

    /// A plain value (number, data, …) stored as its own object, as `NSNumber` and `NSData`
    /// values are when another object refers to them (e.g. a default value).
    package mutating func value(_ value: PropertyListValue) -> PropertyListValue {
        objects.append(value)
        return .uid(objects.count - 1)
    }

    /// An array (`NS.objects`) of `members`; `className` is `NSArray`, `NSMutableArray`,
    /// `NSSet` or `NSMutableSet`, and `$classes` follows from it.
    package mutating func collection(_ members: [PropertyListValue], className: String = "NSArray") -> PropertyListValue {
        object(
            className: className, classes: Self.foundationClasses(className),
            fields: [("NS.objects", .array(members))])
    }

    /// A dictionary (`NS.keys` / `NS.objects`) with string keys, in the given order.
    package mutating func dictionary(
        _ entries: [(key: String, value: PropertyListValue)],
        className: String = "NSDictionary"
    ) -> PropertyListValue {
        let keys = entries.map { string($0.key) }
        return object(
            className: className, classes: Self.foundationClasses(className),
            fields: [("NS.keys", .array(keys)), ("NS.objects", .array(entries.map(\.value)))])
    }

    /// The archive with `root` as `$top.root`.
    ///
    /// Throws when an object was reserved but never filled.
    package func data(root: PropertyListValue) throws -> Data {
        let filled = try objects.enumerated().map { index, object in
            guard let object else { throw PropertyListError.unfilledArchiveObject(index: index) }
            return object
        }
        return try BinaryPropertyListWriter.data(
            for: .dictionary([
                ("$version", .integer(100_000)),
                ("$archiver", .string("NSKeyedArchiver")),
                ("$top", .dictionary([("root", root)])),
                ("$objects", .array(filled)),
            ]))
    }

    private mutating func classReference(_ className: String, classes: [String]) -> PropertyListValue {
        if let known = classUIDs[className] { return known }
        let uid = value(
            .dictionary([
                ("$classname", .string(className)),
                ("$classes", .array(classes.map { .string($0) })),
            ]))
        classUIDs[className] = uid
        return uid
    }

    /// `$classes` of the Foundation collections; mutable classes list their immutable parent.
    package static func foundationClasses(_ className: String) -> [String] {
        if className.hasPrefix("NSMutable") {
            return [className, "NS" + className.dropFirst("NSMutable".count), "NSObject"]
        }
        return [className, "NSObject"]
    }
}
