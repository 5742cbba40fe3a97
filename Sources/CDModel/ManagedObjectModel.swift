import Foundation

/// A Core Data model: the one type every model source (store cache, `.mom`, `.xcdatamodel`
/// XML, ruby-xcdm schema) is loaded into.
public struct ManagedObjectModel: Sendable, Codable, Equatable {
    /// Entities in the order the source lists them.
    public var entities: [EntityDescription]
    /// `versionIdentifiers` (the store's `NSStoreModelVersionIdentifiers`).
    public var versionIdentifiers: [String]
    public var fetchRequestTemplates: [FetchRequestTemplate]
    public var configurations: [ModelConfiguration]
    /// `usedWithCloudKit="YES"` in the XML: the CloudKit model rules apply (errors.md §3).
    public var usedWithCloudKit: Bool

    public init(entities: [EntityDescription] = [], versionIdentifiers: [String] = [],
                fetchRequestTemplates: [FetchRequestTemplate] = [], configurations: [ModelConfiguration] = [],
                usedWithCloudKit: Bool = false) {
        self.entities = entities
        self.versionIdentifiers = versionIdentifiers
        self.fetchRequestTemplates = fetchRequestTemplates
        self.configurations = configurations
        self.usedWithCloudKit = usedWithCloudKit
    }

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
    public var name: String
    /// `NSManagedObject` when the model names no class.
    public var className: String
    public var parentName: String?
    public var isAbstract: Bool
    /// Renaming ID (Xcode's `elementID`); `nil` means the entity's own name.
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    public var userInfo: [String: String]
    /// Each constraint lists property names, in declared order.
    public var uniquenessConstraints: [[String]]
    public var fetchIndexes: [FetchIndex]
    /// Legacy compound indexes: lists of property names.
    public var compoundIndexes: [[String]]
    /// Declared (own) properties: in source order for XML, in name order for archives.
    public var properties: [PropertyDescription]

    public init(name: String, className: String = "NSManagedObject", parentName: String? = nil,
                isAbstract: Bool = false, renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
                userInfo: [String: String] = [:], uniquenessConstraints: [[String]] = [],
                fetchIndexes: [FetchIndex] = [], compoundIndexes: [[String]] = [],
                properties: [PropertyDescription] = []) {
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

    public var attributes: [AttributeDescription] {
        properties.compactMap { if case .attribute(let a) = $0 { return a } else { return nil } }
    }

    public var relationships: [RelationshipDescription] {
        properties.compactMap { if case .relationship(let r) = $0 { return r } else { return nil } }
    }

    public var fetchedProperties: [FetchedPropertyDescription] {
        properties.compactMap { if case .fetched(let f) = $0 { return f } else { return nil } }
    }
}

/// Settings every kind of property shares.
public struct PropertyCommon: Sendable, Codable, Equatable {
    public var name: String
    public var isOptional: Bool
    public var isTransient: Bool
    public var isReadOnly: Bool
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    public var userInfo: [String: String]
    public var isIndexed: Bool
    public var isIndexedBySpotlight: Bool
    public var isStoredInTruthFile: Bool

    public init(name: String, isOptional: Bool = true, isTransient: Bool = false, isReadOnly: Bool = false,
                renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
                userInfo: [String: String] = [:], isIndexed: Bool = false,
                isIndexedBySpotlight: Bool = false, isStoredInTruthFile: Bool = false) {
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

    public var common: PropertyCommon {
        switch self {
        case .attribute(let a): return a.common
        case .relationship(let r): return r.common
        case .fetched(let f): return f.common
        }
    }

    public var name: String { common.name }
    public var isTransient: Bool { common.isTransient }
}

/// `NSAttributeType`: the integer code Core Data compiles each XML type spelling to
/// (reference/model-format.md §2.3). Unknown codes are kept as they are.
public struct AttributeType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let undefined = AttributeType(rawValue: 0)
    public static let integer16 = AttributeType(rawValue: 100)
    public static let integer32 = AttributeType(rawValue: 200)
    public static let integer64 = AttributeType(rawValue: 300)
    public static let decimal = AttributeType(rawValue: 400)
    public static let double = AttributeType(rawValue: 500)
    public static let float = AttributeType(rawValue: 600)
    public static let string = AttributeType(rawValue: 700)
    public static let boolean = AttributeType(rawValue: 800)
    public static let date = AttributeType(rawValue: 900)
    public static let binary = AttributeType(rawValue: 1000)
    public static let uuid = AttributeType(rawValue: 1100)
    public static let uri = AttributeType(rawValue: 1200)
    public static let transformable = AttributeType(rawValue: 1800)
    public static let objectID = AttributeType(rawValue: 2000)
    public static let composite = AttributeType(rawValue: 2100)

    /// The XML spelling (`Integer 16`, `Date`, …) and code pairs.
    public static let xmlNames: [(String, AttributeType)] = [
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

    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }
}

/// An attribute, derived attributes included.
public struct AttributeDescription: Sendable, Codable, Equatable {
    public var common: PropertyCommon
    public var type: AttributeType
    /// The default as text (`0`, `NO`, `Untitled`, a date's seconds since 2001).
    public var defaultValue: String?
    /// Numeric bounds, string-length bounds, or dates as seconds since 2001.
    public var minValue: String?
    public var maxValue: String?
    public var regularExpression: String?
    /// Validation predicates (format strings) with their warning texts, in model order.
    public var validationRules: [ValidationRule]
    public var allowsExternalBinaryDataStorage: Bool
    public var preservesValueInHistoryOnDeletion: Bool
    public var valueTransformerName: String?
    public var valueClassName: String?
    /// The derivation of a derived attribute, as Core Data prints it (`count:(pages)`).
    public var derivationExpression: String?
    public var filteringPredicate: String?

    public init(common: PropertyCommon, type: AttributeType, defaultValue: String? = nil,
                minValue: String? = nil, maxValue: String? = nil, regularExpression: String? = nil,
                validationRules: [ValidationRule] = [], allowsExternalBinaryDataStorage: Bool = false,
                preservesValueInHistoryOnDeletion: Bool = false, valueTransformerName: String? = nil,
                valueClassName: String? = nil, derivationExpression: String? = nil, filteringPredicate: String? = nil) {
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

    public var name: String { common.name }
    public var isDerived: Bool { derivationExpression != nil }
}

/// A validation predicate and the warning Core Data reports when it fails.
public struct ValidationRule: Sendable, Codable, Equatable {
    public var predicate: String
    public var warning: String
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
    public var common: PropertyCommon
    public var destinationEntity: String
    public var inverseName: String?
    public var inverseEntity: String?
    /// Kept exactly as the source gives them: negative counts occur and are hashed as such.
    public var minCount: Int
    /// 1 = to-one, 0 = unbounded to-many.
    public var maxCount: Int
    public var deleteRule: DeleteRule
    public var isOrdered: Bool

    public init(common: PropertyCommon, destinationEntity: String, inverseName: String? = nil,
                inverseEntity: String? = nil, minCount: Int = 0, maxCount: Int = 1,
                deleteRule: DeleteRule = .nullify, isOrdered: Bool = false) {
        self.common = common
        self.destinationEntity = destinationEntity
        self.inverseName = inverseName
        self.inverseEntity = inverseEntity
        self.minCount = minCount
        self.maxCount = maxCount
        self.deleteRule = deleteRule
        self.isOrdered = isOrdered
    }

    public var name: String { common.name }
    public var isToMany: Bool { maxCount != 1 }
}

/// A fetched property (never hashed, never stored).
public struct FetchedPropertyDescription: Sendable, Codable, Equatable {
    public var common: PropertyCommon
    public var fetchRequest: FetchRequestTemplate

    public init(common: PropertyCommon, fetchRequest: FetchRequestTemplate) {
        self.common = common
        self.fetchRequest = fetchRequest
    }
}

/// A stored fetch request: a model template or a fetched property's request.
public struct FetchRequestTemplate: Sendable, Codable, Equatable {
    public var name: String
    public var entityName: String
    /// NSPredicate format text; `nil` fetches everything.
    public var predicate: String?
    public var fetchLimit: Int
    public var sortDescriptors: [SortDescriptor]

    public init(name: String, entityName: String, predicate: String? = nil, fetchLimit: Int = 0,
                sortDescriptors: [SortDescriptor] = []) {
        self.name = name
        self.entityName = entityName
        self.predicate = predicate
        self.fetchLimit = fetchLimit
        self.sortDescriptors = sortDescriptors
    }
}

/// A sort key of a stored fetch request.
public struct SortDescriptor: Sendable, Codable, Equatable {
    public var key: String
    public var ascending: Bool
    public var selector: String?
    public init(key: String, ascending: Bool, selector: String? = nil) {
        self.key = key
        self.ascending = ascending
        self.selector = selector
    }
}

/// A fetch index ("Indexes" in Xcode's editor).
public struct FetchIndex: Sendable, Codable, Equatable {
    public var name: String
    public var elements: [FetchIndexElement]
    public var partialIndexPredicate: String?
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
    public var ascending: Bool
    /// `Binary` or `RTree`.
    public var type: String
    /// The indexed expression (`SELF`, `entity`) when the element indexes an expression rather
    /// than a property; `nil` for a property element.
    public var expression: String?
    public init(property: String, ascending: Bool = true, type: String = "Binary", expression: String? = nil) {
        self.property = property
        self.ascending = ascending
        self.type = type
        self.expression = expression
    }
}

/// A named configuration and its member entities.
public struct ModelConfiguration: Sendable, Codable, Equatable {
    public var name: String
    public var entities: [String]
    public init(name: String, entities: [String]) {
        self.name = name
        self.entities = entities
    }
}
