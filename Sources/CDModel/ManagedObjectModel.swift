import Foundation

/// A Core Data model: the one type every model source (store cache, `.mom`, `.xcdatamodel`
/// XML, ruby-xcdm schema) is loaded into.
public struct ManagedObjectModel: Sendable, Codable, Equatable {
    /// Entities in the order the source lists them.
    public var entities: [EntityDescription]
    /// `versionIdentifiers` (the store's `NSStoreModelVersionIdentifiers`).
    public var versionIdentifiers: [String]
    /// Model-level fetch request templates: in source order for XML, in name order for archives.
    public var fetchRequestTemplates: [FetchRequestTemplate]
    /// Named configurations (Xcode's "Configurations"); the implicit default one is not listed.
    public var configurations: [ModelConfiguration]
    /// `usedWithCloudKit="YES"` in the XML: the CloudKit model rules apply (errors.md §3).
    public var usedWithCloudKit: Bool

    /// A model from its parts, e.g. to archive one built in code or to compute its version hashes.
    public init(
        entities: [EntityDescription] = [], versionIdentifiers: [String] = [],
        fetchRequestTemplates: [FetchRequestTemplate] = [], configurations: [ModelConfiguration] = [],
        usedWithCloudKit: Bool = false
    ) {
        self.entities = entities
        self.versionIdentifiers = versionIdentifiers
        self.fetchRequestTemplates = fetchRequestTemplates
        self.configurations = configurations
        self.usedWithCloudKit = usedWithCloudKit
    }

    /// The entity called `name` (case-sensitive), or `nil` when the model has none.
    public func entity(named name: String) -> EntityDescription? {
        entities.first { $0.name == name }
    }

    /// The direct sub-entities of `name`, in model order.
    public func subentities(of name: String) -> [EntityDescription] {
        entities.filter { $0.parentName == name }
    }

    /// `name` followed by its ancestors, nearest first. Stops at a cycle or a missing parent.
    public func lineage(of name: String) -> [EntityDescription] {
        var chain: [EntityDescription] = []
        var next = entity(named: name)
        while let entity = next, !chain.contains(where: { $0.name == entity.name }) {
            chain.append(entity)
            next = entity.parentName.flatMap { self.entity(named: $0) }
        }
        return chain
    }

    /// The root entity of `name`'s hierarchy, which owns the table.
    public func rootEntity(of name: String) -> EntityDescription? { lineage(of: name).last }

    /// Own and inherited properties of `name`; the entity's own definition wins on a name clash.
    public func allProperties(of name: String) -> [PropertyDescription] {
        var byName: [String: PropertyDescription] = [:]
        var order: [String] = []
        for entity in lineage(of: name) {
            for property in entity.properties where byName[property.name] == nil {
                byName[property.name] = property
                order.append(property.name)
            }
        }
        return order.compactMap { byName[$0] }
    }
}

/// An entity and the properties it declares itself (inherited ones live on its ancestors).
public struct EntityDescription: Sendable, Codable, Equatable {
    /// The entity name (`NSEntityName`), unique in the model and case-sensitive.
    public var name: String
    /// `NSManagedObject` when the model names no class.
    public var className: String
    /// The super-entity's name; `nil` for a root entity, which owns its table.
    public var parentName: String?
    /// Whether the entity is abstract: it has no instances of its own, only of sub-entities.
    public var isAbstract: Bool
    /// Renaming ID (Xcode's `elementID`); `nil` means the entity's own name.
    public var renamingIdentifier: String?
    /// Free text that changes the entity's version hash without changing its structure.
    public var versionHashModifier: String?
    /// The model's user-info entries for the entity, as text.
    public var userInfo: [String: String]
    /// Each constraint lists property names, in declared order.
    public var uniquenessConstraints: [[String]]
    /// Fetch indexes declared on the entity (`NSFetchIndexDescriptions`).
    public var fetchIndexes: [FetchIndex]
    /// Legacy compound indexes: lists of property names.
    public var compoundIndexes: [[String]]
    /// Declared (own) properties: in source order for XML, in name order for archives.
    public var properties: [PropertyDescription]

    /// An entity from its parts; everything but the name defaults to what Xcode omits.
    public init(
        name: String, className: String = "NSManagedObject", parentName: String? = nil,
        isAbstract: Bool = false, renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        userInfo: [String: String] = [:], uniquenessConstraints: [[String]] = [],
        fetchIndexes: [FetchIndex] = [], compoundIndexes: [[String]] = [],
        properties: [PropertyDescription] = []
    ) {
        self.name = name
        self.className = className
        self.parentName = parentName
        self.isAbstract = isAbstract
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.compoundIndexes = compoundIndexes
        self.properties = properties
    }

    /// The entity's own attributes, in the order of ``properties``.
    public var attributes: [AttributeDescription] {
        properties.compactMap { if case .attribute(let a) = $0 { return a } else { return nil } }
    }

    /// The entity's own relationships, in the order of ``properties``.
    public var relationships: [RelationshipDescription] {
        properties.compactMap { if case .relationship(let r) = $0 { return r } else { return nil } }
    }

    /// The entity's own fetched properties, in the order of ``properties``.
    public var fetchedProperties: [FetchedPropertyDescription] {
        properties.compactMap { if case .fetched(let f) = $0 { return f } else { return nil } }
    }
}

/// Settings every kind of property shares.
public struct PropertyCommon: Sendable, Codable, Equatable {
    /// The property name, unique within its entity's lineage.
    public var name: String
    /// Whether the value may be nil when saving (XML `optional="YES"`); part of the version hash.
    public var isOptional: Bool
    /// Whether the value is kept in memory only, never stored; part of the version hash.
    public var isTransient: Bool
    /// Whether the property is read-only; part of the version hash (model-format.md §5.3).
    public var isReadOnly: Bool
    /// Renaming ID (Xcode's `elementID`) for migration; `nil` means the property's own name.
    public var renamingIdentifier: String?
    /// Free text that changes the property's version hash without changing its structure.
    public var versionHashModifier: String?
    /// The model's user-info entries for the property, as text.
    public var userInfo: [String: String]
    /// Whether the store indexes the column (legacy single-property index; not hashed).
    public var isIndexed: Bool
    /// Whether the value is indexed by Spotlight (XML `spotlightIndexingEnabled`; not hashed).
    public var isIndexedBySpotlight: Bool
    /// Xcode's "Store in External Record File" (XML `storedInTruthFile`, `NSIsStoredInTruth`; not hashed).
    public var isStoredInTruthFile: Bool

    /// Settings from their parts; defaults match an optional, stored property without extras.
    public init(
        name: String, isOptional: Bool = true, isTransient: Bool = false, isReadOnly: Bool = false,
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        userInfo: [String: String] = [:], isIndexed: Bool = false,
        isIndexedBySpotlight: Bool = false, isStoredInTruthFile: Bool = false
    ) {
        self.name = name
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isReadOnly = isReadOnly
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.isIndexed = isIndexed
        self.isIndexedBySpotlight = isIndexedBySpotlight
        self.isStoredInTruthFile = isStoredInTruthFile
    }
}

/// An attribute, relationship or fetched property.
public enum PropertyDescription: Sendable, Codable, Equatable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)
    case fetched(FetchedPropertyDescription)

    /// The settings shared by every kind of property.
    public var common: PropertyCommon {
        switch self {
        case .attribute(let a): return a.common
        case .relationship(let r): return r.common
        case .fetched(let f): return f.common
        }
    }

    /// The property name.
    public var name: String { common.name }
    /// Whether the property is transient (in memory only, never stored).
    public var isTransient: Bool { common.isTransient }

    /// The `kind` key of the JSON form.
    public enum Kind: String, Sendable, Codable {
        case attribute, relationship, fetched
    }

    /// Which kind of property this is.
    public var kind: Kind {
        switch self {
        case .attribute: return .attribute
        case .relationship: return .relationship
        case .fetched: return .fetched
        }
    }

    private enum CodingKeys: String, CodingKey {
        case kind
    }

    /// Reads the `kind` key, then the description's own keys from the same object.
    public init(from decoder: Decoder) throws {
        switch try decoder.container(keyedBy: CodingKeys.self).decode(Kind.self, forKey: .kind) {
        case .attribute: self = .attribute(try AttributeDescription(from: decoder))
        case .relationship: self = .relationship(try RelationshipDescription(from: decoder))
        case .fetched: self = .fetched(try FetchedPropertyDescription(from: decoder))
        }
    }

    /// One flat object: `kind` beside the description's own keys. (Swift's synthesized coding
    /// would nest them as `{"attribute": {"_0": {…}}}`, which is no contract for scripts.)
    public func encode(to encoder: Encoder) throws {
        switch self {
        case .attribute(let attribute): try attribute.encode(to: encoder)
        case .relationship(let relationship): try relationship.encode(to: encoder)
        case .fetched(let fetched): try fetched.encode(to: encoder)
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
    }
}

/// `NSAttributeType`: the integer code Core Data compiles each XML type spelling to
/// (docs/format/model-format.md §2.3). Unknown codes are kept as they are.
public struct AttributeType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The `NSAttributeType` code.
    public let rawValue: Int
    /// Wraps any code, known to cdstore or not.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// No type: what a transient attribute without `attributeType` in the XML gets.
    public static let undefined = AttributeType(rawValue: 0)
    /// `Integer 16`: a 16-bit signed integer.
    public static let integer16 = AttributeType(rawValue: 100)
    /// `Integer 32`: a 32-bit signed integer.
    public static let integer32 = AttributeType(rawValue: 200)
    /// `Integer 64`: a 64-bit signed integer.
    public static let integer64 = AttributeType(rawValue: 300)
    /// `Decimal`: an `NSDecimalNumber`; every SQL store seen keeps it as a real number.
    public static let decimal = AttributeType(rawValue: 400)
    /// `Double`: a 64-bit floating-point number.
    public static let double = AttributeType(rawValue: 500)
    /// `Float`: a 32-bit floating-point number.
    public static let float = AttributeType(rawValue: 600)
    /// `String`: text.
    public static let string = AttributeType(rawValue: 700)
    /// `Boolean`: stored as an integer, 0 or 1.
    public static let boolean = AttributeType(rawValue: 800)
    /// `Date`: stored as seconds since 2001-01-01 UTC.
    public static let date = AttributeType(rawValue: 900)
    /// `Binary`: bytes, possibly kept in a file beside the store.
    public static let binary = AttributeType(rawValue: 1000)
    /// `UUID`: a UUID.
    public static let uuid = AttributeType(rawValue: 1100)
    /// `URI`: a URL.
    public static let uri = AttributeType(rawValue: 1200)
    /// `Transformable`: a value archived to bytes by a value transformer.
    public static let transformable = AttributeType(rawValue: 1800)
    /// `Object ID`: a managed object ID; no XML spelling has been seen for it.
    public static let objectID = AttributeType(rawValue: 2000)
    /// `Composite` (Xcode 15): a group of attributes declared at model level.
    public static let composite = AttributeType(rawValue: 2100)

    /// The XML spelling (`Integer 16`, `Date`, …) and code pairs.
    package static let xmlNames: [(String, AttributeType)] = [
        ("Integer 16", .integer16), ("Integer 32", .integer32), ("Integer 64", .integer64),
        ("Decimal", .decimal), ("Double", .double), ("Float", .float), ("String", .string),
        ("Boolean", .boolean), ("Date", .date), ("Binary", .binary), ("UUID", .uuid), ("URI", .uri),
        ("Transformable", .transformable), ("Object ID", .objectID), ("Composite", .composite),
    ]

    /// The XML spelling, `Undefined` for 0, or `code N` for codes cdstore does not know.
    public var description: String {
        if self == .undefined { return "Undefined" }
        return Self.xmlNames.first { $0.1 == self }?.0 ?? "code \(rawValue)"
    }

    /// Whether the type is one of the three integer widths (16, 32 or 64 bits).
    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }
}

/// An attribute, derived attributes included.
public struct AttributeDescription: Sendable, Codable, Equatable {
    /// Name, flags and other settings shared with the other kinds of property.
    public var common: PropertyCommon
    /// The `NSAttributeType`; `undefined` (0) for a transient attribute with no type.
    public var type: AttributeType
    /// The default as text (`0`, `NO`, `Untitled`, a date's seconds since 2001).
    public var defaultValue: String?
    /// Numeric bounds, string-length bounds, or dates as seconds since 2001.
    public var minValue: String?
    /// Upper bound, in the same units as ``minValue``; `nil` when unbounded.
    public var maxValue: String?
    /// The regular expression a string value must match; `nil` when there is none.
    public var regularExpression: String?
    /// Validation predicates (format strings) with their warning texts, in model order.
    public var validationRules: [ValidationRule]
    /// Whether large binary values may be kept in files beside the store; part of the hash.
    public var allowsExternalBinaryDataStorage: Bool
    /// Whether persistent history keeps the value in deletion tombstones; part of the hash.
    public var preservesValueInHistoryOnDeletion: Bool
    /// The value transformer of a Transformable attribute (e.g. `NSSecureUnarchiveFromData`).
    public var valueTransformerName: String?
    /// The value class of a Transformable attribute (XML `customClassName`, e.g. `[String]`).
    public var valueClassName: String?
    /// The derivation of a derived attribute, as Core Data prints it (`count:(pages)`).
    public var derivationExpression: String?
    /// The filtering predicate of a derived attribute, as format text; `nil` when there is none.
    public var filteringPredicate: String?

    /// An attribute from its parts; everything after the type defaults to absent or off.
    public init(
        common: PropertyCommon, type: AttributeType, defaultValue: String? = nil,
        minValue: String? = nil, maxValue: String? = nil, regularExpression: String? = nil,
        validationRules: [ValidationRule] = [], allowsExternalBinaryDataStorage: Bool = false,
        preservesValueInHistoryOnDeletion: Bool = false, valueTransformerName: String? = nil,
        valueClassName: String? = nil, derivationExpression: String? = nil, filteringPredicate: String? = nil
    ) {
        self.common = common
        self.type = type
        self.defaultValue = defaultValue
        self.minValue = minValue
        self.maxValue = maxValue
        self.regularExpression = regularExpression
        self.validationRules = validationRules
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.valueTransformerName = valueTransformerName
        self.valueClassName = valueClassName
        self.derivationExpression = derivationExpression
        self.filteringPredicate = filteringPredicate
    }

    /// The attribute name.
    public var name: String { common.name }
    /// Whether Core Data computes the value from ``derivationExpression``.
    public var isDerived: Bool { derivationExpression != nil }
}

/// A validation predicate and the warning Core Data reports when it fails.
public struct ValidationRule: Sendable, Codable, Equatable {
    /// The predicate as NSPredicate format text, evaluated against the value.
    public var predicate: String
    /// The text reported when the predicate fails; for rules `momc` derives from bounds, Core Data's
    /// error code.
    public var warning: String
    /// A rule from its predicate text and warning.
    public init(predicate: String, warning: String) {
        self.predicate = predicate
        self.warning = warning
    }
}

/// `NSDeleteRule` codes.
public enum DeleteRule: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case noAction = 0, nullify = 1, cascade = 2, deny = 3

    /// The XML spelling.
    public var description: String {
        switch self {
        case .noAction: return "No Action"
        case .nullify: return "Nullify"
        case .cascade: return "Cascade"
        case .deny: return "Deny"
        }
    }
}

/// A relationship between two entities.
public struct RelationshipDescription: Sendable, Codable, Equatable {
    /// Name, flags and other settings shared with the other kinds of property.
    public var common: PropertyCommon
    /// The name of the entity the relationship points to.
    public var destinationEntity: String
    /// The inverse relationship's name; `nil` when there is no inverse.
    public var inverseName: String?
    /// The entity declaring the inverse relationship; `nil` when there is no inverse.
    public var inverseEntity: String?
    /// Kept exactly as the source gives them: negative counts occur and are hashed as such.
    public var minCount: Int
    /// 1 = to-one, 0 = unbounded to-many.
    public var maxCount: Int
    /// What deleting the source object does to the destination objects (not hashed).
    public var deleteRule: DeleteRule
    /// Whether a to-many relationship keeps its objects in order; part of the hash.
    public var isOrdered: Bool

    /// A relationship from its parts; the defaults describe a to-one without inverse that nullifies.
    public init(
        common: PropertyCommon, destinationEntity: String, inverseName: String? = nil,
        inverseEntity: String? = nil, minCount: Int = 0, maxCount: Int = 1,
        deleteRule: DeleteRule = .nullify, isOrdered: Bool = false
    ) {
        self.common = common
        self.destinationEntity = destinationEntity
        self.inverseName = inverseName
        self.inverseEntity = inverseEntity
        self.minCount = minCount
        self.maxCount = maxCount
        self.deleteRule = deleteRule
        self.isOrdered = isOrdered
    }

    /// The relationship name.
    public var name: String { common.name }
    /// Whether the relationship holds several objects (any ``maxCount`` but 1).
    public var isToMany: Bool { maxCount != 1 }
}

/// A fetched property (never hashed, never stored).
public struct FetchedPropertyDescription: Sendable, Codable, Equatable {
    /// Name, flags and other settings shared with the other kinds of property.
    public var common: PropertyCommon
    /// The request that computes the property's value.
    public var fetchRequest: FetchRequestTemplate

    /// A fetched property from its settings and request.
    public init(common: PropertyCommon, fetchRequest: FetchRequestTemplate) {
        self.common = common
        self.fetchRequest = fetchRequest
    }
}

/// A stored fetch request: a model template or a fetched property's request.
public struct FetchRequestTemplate: Sendable, Codable, Equatable {
    /// The template's name; for a fetched property, the name of its request.
    public var name: String
    /// The name of the entity the request fetches.
    public var entityName: String
    /// NSPredicate format text; `nil` fetches everything.
    public var predicate: String?
    /// The most objects the request returns; 0 means no limit.
    public var fetchLimit: Int
    /// The sort keys, most significant first.
    public var sortDescriptors: [SortDescriptor]

    /// A request from its parts; the defaults fetch every object unsorted.
    public init(
        name: String, entityName: String, predicate: String? = nil, fetchLimit: Int = 0,
        sortDescriptors: [SortDescriptor] = []
    ) {
        self.name = name
        self.entityName = entityName
        self.predicate = predicate
        self.fetchLimit = fetchLimit
        self.sortDescriptors = sortDescriptors
    }
}

/// An `NSSortDescriptor`: a key path, a direction and the comparison selector. The one sort
/// descriptor type of the package: a model's fetch request templates and fetched properties store
/// their sort keys in it, and every fetch cdstore runs (query, dump, the console, CDQ chains) is
/// sorted by it, because both are the same Foundation object. The selector is kept as the model
/// gives it, so a template with a selector no SQLite fetch accepts still loads and writes back
/// unchanged; ``comparison`` is the typed view the fetch layer sorts with (sqldebug.md §5).
public struct SortDescriptor: Sendable, Codable, Equatable {
    /// The key path sorted on (`NSSortDescriptor.key`): an attribute, or a to-one key path.
    public var key: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// The comparison selector (e.g. `localizedStandardCompare:`); `nil` means `compare:`.
    public var selector: String?
    /// A sort key from its key path, direction and selector.
    public init(key: String, ascending: Bool = true, selector: String? = nil) {
        self.key = key
        self.ascending = ascending
        self.selector = selector
    }

    /// A sort key compared with `comparison` (`compare:` is stored as no selector).
    public init(key: String, ascending: Bool = true, comparison: SortComparison) {
        self.init(key: key, ascending: ascending, selector: comparison == .compare ? nil : comparison.rawValue)
    }

    /// The selector as one Core Data's SQLite store sorts with; `nil` for any other selector,
    /// which a fetch refuses. Setting it stores `compare:` (and `nil`) as no selector.
    public var comparison: SortComparison? {
        get { SortComparison(rawValue: selector ?? SortComparison.compare.rawValue) }
        set { selector = newValue == .compare ? nil : newValue?.rawValue }
    }
}

/// The selectors Core Data accepts in a sort descriptor of an SQLite fetch (sqldebug.md §5, "Sort
/// descriptors"); any other selector is rejected by the store.
public enum SortComparison: String, Sendable, Equatable, CaseIterable {
    case compare = "compare:"
    case caseInsensitiveCompare = "caseInsensitiveCompare:"
    case localizedCompare = "localizedCompare:"
    case localizedCaseInsensitiveCompare = "localizedCaseInsensitiveCompare:"
    case localizedStandardCompare = "localizedStandardCompare:"
    /// A numeric, case-insensitive `compare:options:` (`NSCaseInsensitiveSearch | NSNumericSearch`).
    case numericCaseInsensitiveCompare = "compare:options:"
}

/// A fetch index ("Indexes" in Xcode's editor).
public struct FetchIndex: Sendable, Codable, Equatable {
    /// The index name as the model gives it; one entity may list a name twice.
    public var name: String
    /// The indexed properties or expressions, most significant first.
    public var elements: [FetchIndexElement]
    /// Predicate format text limiting the index to matching rows; `nil` indexes every row.
    public var partialIndexPredicate: String?
    /// An index from its name, elements and optional partial-index predicate.
    public init(name: String, elements: [FetchIndexElement], partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialIndexPredicate = partialIndexPredicate
    }

    /// Whether the index is an R-tree (its elements have type `RTree`), which the SQL store
    /// keeps in a `Z_RT_` virtual table instead of an index.
    public var isRTree: Bool {
        elements.contains { $0.type == "RTree" }
    }
}

/// One element of a fetch index: a property (or expression) and its order.
public struct FetchIndexElement: Sendable, Codable, Equatable {
    /// The indexed property's name; for an expression element, the placeholder name Core Data
    /// gives it (`expression1`, `expression2`, …).
    public var property: String
    /// Whether the element is indexed in ascending order.
    public var ascending: Bool
    /// `Binary` or `RTree`.
    public var type: String
    /// The indexed expression (`SELF`, `entity`) when the element indexes an expression rather
    /// than a property; `nil` for a property element.
    public var expression: String?
    /// An element from its property (or placeholder), order, type and optional expression.
    public init(property: String, ascending: Bool = true, type: String = "Binary", expression: String? = nil) {
        self.property = property
        self.ascending = ascending
        self.type = type
        self.expression = expression
    }
}

/// A named configuration and its member entities.
public struct ModelConfiguration: Sendable, Codable, Equatable {
    /// The configuration name.
    public var name: String
    /// Names of the member entities: in source order for XML, sorted for archives.
    public var entities: [String]
    /// A configuration from its name and member entity names.
    public init(name: String, entities: [String]) {
        self.name = name
        self.entities = entities
    }
}
