import CDArchive
import CDBase
import Foundation

/// Reads an archived `NSManagedObjectModel`: a `.mom` file, or a store's `Z_MODELCACHE` after
/// inflating (docs/format/store-format.md §6, model-format.md §3.2).
public enum ArchivedModelReader {
    /// Decodes the model archived in `data` (a binary-plist keyed archive).
    public static func model(fromArchive data: Data) throws -> ManagedObjectModel {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data)
        } catch {
            throw ModelError.malformed(path: nil, reason: "model archive is unreadable: \(error)")
        }
        return try model(from: archive.root)
    }

    /// Decodes an `NSManagedObjectModel` object.
    package static func model(from root: ArchivedObject) throws -> ManagedObjectModel {
        guard root.className == "NSManagedObjectModel" || root.classHierarchy.contains("NSManagedObjectModel") else {
            throw ModelError.malformed(path: nil, reason: "archive holds \(root.className ?? "no object"), not an NSManagedObjectModel")
        }
        let entityObjects = root.dictionary("NSEntities").map(\.value)
        let archivedEntities = entityObjects.filter { $0.className == "NSEntityDescription" }
        var model = ManagedObjectModel()
        model.entities = archivedEntities.map(entity)
        model.versionIdentifiers = versionIdentifiers(root)
        model.fetchRequestTemplates = root.dictionary("NSFetchRequestTemplates").map { name, request in
            fetchRequest(request, name: name)
        }.sorted { $0.name < $1.name }
        model.configurations = root.dictionary("NSConfigurations").map { name, members in
            ModelConfiguration(name: name, entities: members.elements.compactMap { $0.string("NSEntityName") }.sorted())
        }.sorted { $0.name < $1.name }
        return model
    }

    private static func versionIdentifiers(_ root: ArchivedObject) -> [String] {
        guard let object = root.object("NSVersionIdentifiers") else { return [] }
        return object.elements.compactMap(\.stringContent).sorted()
    }

    private static func entity(_ object: ArchivedObject) -> EntityDescription {
        let name = object.string("NSEntityName") ?? ""
        let parent = object.object("NSSuperentity")
        // Sub-entities archive inherited properties too (as copies or proxies); keep only
        // the ones the ancestors do not declare.
        var inheritedNames = Set<String>()
        var ancestor = parent
        var guardCount = 0
        while let current = ancestor, guardCount < 64 {
            inheritedNames.formUnion(current.dictionary("NSProperties").map(\.key))
            ancestor = current.object("NSSuperentity")
            guardCount += 1
        }
        let properties = object.dictionary("NSProperties")
            .filter { !inheritedNames.contains($0.key) }
            .compactMap { property(unwrapProxy($0.value)) }
        var entity = EntityDescription(name: name)
        entity.className = object.string("NSClassNameForEntity") ?? "NSManagedObject"
        entity.parentName = parent?.string("NSEntityName")
        entity.isAbstract = object.bool("NSIsAbstract") ?? false
        entity.renamingIdentifier = renamingIdentifier(object, name: name)
        entity.versionHashModifier = object.string("NSVersionHashModifier")
        entity.userInfo = userInfo(object)
        entity.uniquenessConstraints = object.elements("NSUniqueTuples").map { tuple in
            tuple.elements.compactMap { $0.stringContent ?? $0.string("NSPropertyName") }
        }
        entity.compoundIndexes = object.elements("NSCompoundIndexes").map { index in
            index.elements.compactMap { $0.stringContent ?? $0.string("NSPropertyName") }
        }
        entity.fetchIndexes = object.elements("NSFetchIndexDescriptions").map(fetchIndex)
        entity.properties = properties.sorted { $0.name < $1.name }
        return entity
    }

    private static func unwrapProxy(_ object: ArchivedObject) -> ArchivedObject {
        var current = object
        var hops = 0
        while current.className == "_NSPropertyDescriptionProxy", let next = current.object("NSUnderlyingProperty"), hops < 16 {
            current = next
            hops += 1
        }
        return current
    }

    /// A renaming identifier equal to the element's own name is the default, so it is dropped.
    private static func renamingIdentifier(_ object: ArchivedObject, name: String) -> String? {
        guard let id = object.string("NSRenamingIdentifier"), id != name, !id.isEmpty else { return nil }
        return id
    }

    private static func userInfo(_ object: ArchivedObject) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in object.dictionary("NSUserInfo") {
            result[key] = value.stringContent ?? describe(value.decoded())
        }
        return result
    }

    /// `_P` bit layout: 0x2 optional, 0x4 read-only, 0x8 transient (store-format.md §6).
    private static func common(_ object: ArchivedObject) -> PropertyCommon {
        let name = object.string("NSPropertyName") ?? ""
        let bits = object.int("_P") ?? 0
        var common = PropertyCommon(name: name)
        common.isOptional = object.bool("NSIsOptional") ?? (bits & 0x2 != 0)
        common.isTransient = object.bool("NSIsTransient") ?? (bits & 0x8 != 0)
        common.isReadOnly = object.bool("NSIsReadOnly") ?? (bits & 0x4 != 0)
        common.renamingIdentifier = renamingIdentifier(object, name: name)
        common.versionHashModifier = object.string("NSVersionHashModifier")
        common.userInfo = userInfo(object)
        common.isIndexed = object.bool("NSIsIndexed") ?? false
        common.isIndexedBySpotlight = object.bool("NSIndexedBySpotlight") ?? (bits & 0x100 != 0)
        common.isStoredInTruthFile = object.bool("NSIsStoredInTruth") ?? (bits & 0x200 != 0)
        return common
    }

    private static func property(_ object: ArchivedObject) -> PropertyDescription? {
        switch object.className {
        case "NSAttributeDescription", "NSDerivedAttributeDescription":
            return .attribute(attribute(object))
        case "NSRelationshipDescription":
            return .relationship(relationship(object))
        case "NSFetchedPropertyDescription":
            let request = object.object("NSFetchRequest")
            var template =
                request.map { fetchRequest($0, name: object.string("NSPropertyName") ?? "") }
                ?? FetchRequestTemplate(name: object.string("NSPropertyName") ?? "", entityName: "")
            if template.entityName.isEmpty { template.entityName = object.string("_NSFetchRequestEntityName") ?? "" }
            return .fetched(FetchedPropertyDescription(common: common(object), fetchRequest: template))
        case "NSExpressionDescription":
            // An expression description is a fetch-time property: treat it as transient.
            var base = common(object)
            base.isTransient = true
            let type = AttributeType(rawValue: object.int("NSExpressionType") ?? 0)
            return .attribute(
                AttributeDescription(
                    common: base, type: type,
                    derivationExpression: nil))
        default:
            return nil
        }
    }

    /// `NSFlagsKey`: 0x4 external binary storage, 0x10 preserve after deletion.
    private static func attribute(_ object: ArchivedObject) -> AttributeDescription {
        let flags = object.int("NSFlagsKey") ?? 0
        let type = AttributeType(rawValue: object.int("NSAttributeType") ?? 0)
        var attribute = AttributeDescription(common: common(object), type: type)
        attribute.allowsExternalBinaryDataStorage = flags & 0x4 != 0
        attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        attribute.valueTransformerName = object.string("NSValueTransformerName")
        attribute.valueClassName = object.string("NSAttributeValueClassName")
        attribute.defaultValue = defaultValue(object.archive.decode(object.value("NSDefaultValue")))
        let predicates = object.elements("NSValidationPredicates").map { ArchivedPredicateFormatter.predicate($0) ?? "?" }
        let warnings = object.elements("NSValidationWarnings").map { $0.stringContent ?? describe($0.decoded()) }
        attribute.validationRules = predicates.enumerated().map { index, predicate in
            ValidationRule(predicate: predicate, warning: index < warnings.count ? warnings[index] : "")
        }
        if object.className == "NSDerivedAttributeDescription" {
            attribute.derivationExpression = ArchivedPredicateFormatter.expression(object.object("NSDerivationExpression")) ?? ""
            attribute.filteringPredicate = ArchivedPredicateFormatter.predicate(object.object("NSFilteringPredicate"))
        }
        return attribute
    }

    private static func defaultValue(_ value: ArchivedValue) -> String? {
        switch value {
        case .null: return nil
        case .boolean(let b): return b ? "YES" : "NO"
        case .date(let t): return describe(.real(t))
        default: return describe(value)
        }
    }

    private static func relationship(_ object: ArchivedObject) -> RelationshipDescription {
        let destination =
            object.object("NSDestinationEntity")?.string("NSEntityName")
            ?? object.string("_NSDestinationEntityName") ?? ""
        let inverse = object.object("NSInverseRelationship")
        var relationship = RelationshipDescription(common: common(object), destinationEntity: destination)
        relationship.inverseName = inverse?.string("NSPropertyName") ?? object.string("_NSInverseRelationshipName")
        if relationship.inverseName != nil {
            relationship.inverseEntity = inverse?.object("NSEntity")?.string("NSEntityName") ?? destination
        }
        relationship.minCount = object.int("NSMinCount") ?? 0
        relationship.maxCount = object.int("NSMaxCount") ?? 0
        relationship.deleteRule = DeleteRule(rawValue: object.int("NSDeleteRule") ?? 1) ?? .nullify
        relationship.isOrdered = object.bool("NSIsOrdered") ?? ((object.int("_P") ?? 0) & 0x400 != 0)
        return relationship
    }

    private static func fetchRequest(_ object: ArchivedObject, name: String) -> FetchRequestTemplate {
        var template = FetchRequestTemplate(name: name, entityName: object.object("NSEntity")?.string("NSEntityName") ?? "")
        template.predicate = ArchivedPredicateFormatter.predicate(object.object("NSPredicate"))
        template.fetchLimit = object.int("NSFetchLimit") ?? 0
        template.sortDescriptors = object.elements("NSSortDescriptors").map { sort in
            SortDescriptor(
                key: sort.string("NSKey") ?? "", ascending: sort.bool("NSAscending") ?? true,
                selector: sort.string("NSSelector"))
        }
        return template
    }

    private static func fetchIndex(_ object: ArchivedObject) -> FetchIndex {
        let elements = object.elements("NSIndexElements").map { element -> FetchIndexElement in
            let property =
                element.string("NSPropertyName")
                ?? element.object("NSIndexedProperty")?.string("NSPropertyName") ?? ""
            let kind = element.int("NSFetchIndexElementType") == 1 ? "RTree" : "Binary"
            // An expression element indexes an `NSExpressionDescription` (e.g. `SELF`, which the
            // SQL store turns into Z_PK), not a property of the entity.
            let indexed = element.object("NSIndexedProperty")
            let expression =
                indexed?.className == "NSExpressionDescription"
                ? ArchivedPredicateFormatter.expression(indexed?.object("NSExpression")) : nil
            return FetchIndexElement(
                property: property, ascending: element.bool("NSAscending") ?? true,
                type: kind, expression: expression)
        }
        return FetchIndex(
            name: object.string("NSIndexName") ?? "", elements: elements,
            partialIndexPredicate: ArchivedPredicateFormatter.predicate(object.object("NSPartialIndexPredicate")))
    }

    /// Short text for a decoded Foundation value (defaults, userInfo values).
    static func describe(_ value: ArchivedValue) -> String {
        switch value {
        case .null: return "nil"
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .real(let r): return r.rounded() == r && abs(r) < 1e15 ? String(format: "%.1f", r) : String(r)
        case .boolean(let b): return b ? "YES" : "NO"
        case .date(let t): return String(t)
        case .data(let d): return "<\(d.count) bytes>"
        case .uuid(let u): return u.uuidString
        case .url(let u): return u
        case .array(let a), .set(let a): return "(" + a.map(describe).joined(separator: ", ") + ")"
        case .dictionary(let pairs): return "{" + pairs.map { describe($0.key) + " = " + describe($0.value) }.joined(separator: "; ") + "}"
        case .object(let className, _): return "<\(className)>"
        }
    }
}
