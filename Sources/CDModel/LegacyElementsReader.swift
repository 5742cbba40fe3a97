import CDArchive
import CDBase
import Foundation

/// Reads Xcode 3 ("legacy") model bundles: a `.xcdatamodel` directory holding a binary
/// `elements` file instead of the `contents` XML (docs/format/model-format.md §1).
///
/// `elements` is an `NSKeyedArchiver` archive (§3.3) of Xcode's private editing classes, not of
/// Core Data's: the root is an `XDPMModel`, its `_xd_rootPackage` (`XDModelPackage`) lists the
/// `XDPMEntity` objects, and each entity lists its `XDPMAttribute` and `XDPMRelationship` objects.
/// These are generic UML elements, so almost every Core Data setting is not an instance variable
/// but a UML "tagged value" (see `Tags` below). `layout` only holds the diagram and is not read.
///
/// The class and key names were learnt from the eight legacy archives of the corpus; the reference
/// does not document them. What this reader returns reproduces, entity by entity, the version
/// hashes (§5) stored in the three corpus stores written from such models.
public enum LegacyElementsReader {
    /// Whether the `.xcdatamodel` directory at `url` is in the Xcode 3 format: it has an
    /// `elements` file and no `contents` XML (a bundle re-saved by a later Xcode has `contents`,
    /// which then wins).
    package static func isLegacyBundle(_ url: URL) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: url.appendingPathComponent("elements").path)
            && !manager.fileExists(atPath: url.appendingPathComponent("contents").path)
    }

    /// Reads the `elements` file of the `.xcdatamodel` directory at `url`.
    public static func model(fromBundleAt url: URL) throws -> ManagedObjectModel {
        let file = url.appendingPathComponent("elements")
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw ModelError.notAModel(path: url.path, reason: "no elements file, so not an Xcode 3 model bundle")
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ModelError.unreadable(path: file.path, reason: "cannot be read: \(error.localizedDescription)")
        }
        do {
            return try model(fromElements: data)
        } catch let error as ModelError {
            throw error.inFile(file.path)
        }
    }

    /// Decodes the contents of an `elements` file into a model.
    ///
    /// Entities, their properties, fetch request templates and configurations are sorted by name,
    /// as ``ArchivedModelReader`` does: the archive keeps them in hash tables whose order means
    /// nothing.
    public static func model(fromElements data: Data) throws -> ManagedObjectModel {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data)
        } catch {
            throw ModelError.malformed(path: nil, reason: "elements archive is unreadable: \(error)")
        }
        let root = archive.root
        guard root.className == "XDPMModel" || root.classHierarchy.contains("XDPMModel") else {
            throw ModelError.malformed(path: nil, reason: "elements archive holds \(root.className ?? "no object"), not an Xcode 3 model (XDPMModel)")
        }
        guard let package = root.object("_xd_rootPackage") else {
            throw ModelError.malformed(path: nil, reason: "elements archive has no root package (_xd_rootPackage)")
        }
        let requests = fetchRequestsByFetchedProperty(in: archive)
        var model = ManagedObjectModel()
        var templates: [FetchRequestTemplate] = []
        for object in entityObjects(in: package) {
            let (entity, entityTemplates) = try entity(object, fetchedPropertyRequests: requests)
            model.entities.append(entity)
            templates += entityTemplates
        }
        model.entities.sort { $0.name < $1.name }
        model.fetchRequestTemplates = templates.sorted { $0.name < $1.name }
        model.versionIdentifiers = versionIdentifiers(root)
        model.configurations = root.dictionary("_configurationsByName").map { name, members in
            ModelConfiguration(name: name, entities: names(of: members).sorted())
        }.sorted { $0.name < $1.name }
        return model
    }

    // MARK: - Tagged values

    /// The Core Data settings of an entity or property.
    ///
    /// Xcode 3 stores them as UML "tagged values": the element's `XDBucketForStereotypesstorage`
    /// maps stereotype names (`XD_PStereotype` for entities, `XD_PPropStereotype` for all
    /// properties, `XD_PAtt_Stereotype` for attributes, `XD_PR_Stereotype` for relationships) to
    /// `XDUMLStereotypeImp` objects, whose `XDBucketForOwnedAttributesstorage` maps each tag
    /// (`XD_PPSK_isOptional`, `XD_PRK_maxCount`, …) to an `XDUMLPropertyImp` holding the value in
    /// `_default`. A tag that was never set is simply absent.
    private struct Tags {
        var slots: [String: ArchivedObject] = [:]

        init(of element: ArchivedObject) {
            for (_, stereotype) in element.dictionary("XDBucketForStereotypesstorage") {
                for (tag, slot) in stereotype.dictionary("XDBucketForOwnedAttributesstorage") {
                    slots[tag] = slot
                }
            }
        }

        /// The tag's value. `_default` is archived as an object, so even numbers and booleans
        /// are a `UID` to a plain scalar in `$objects` (and `$null` when unset).
        func value(_ tag: String) -> PropertyListValue? {
            guard let slot = slots[tag], let value = slot.value("_default") else { return nil }
            guard case .uid = value else { return value }
            guard let target = slot.object("_default") else { return nil }
            return target.raw
        }

        /// A non-empty string (inline or an `NSString` object).
        func string(_ tag: String) -> String? {
            guard let text = slots[tag]?.string("_default"), !text.isEmpty else { return nil }
            return text
        }

        func int(_ tag: String) -> Int? { value(tag)?.intValue }
        func bool(_ tag: String) -> Bool? { value(tag)?.boolValue }
        func object(_ tag: String) -> ArchivedObject? { slots[tag]?.object("_default") }

        /// A user-info dictionary; values that are not strings are described as text, like
        /// ``ArchivedModelReader`` does (Sync Services wrote nested dictionaries here).
        func userInfo(_ tag: String) -> [String: String] {
            var result: [String: String] = [:]
            for (key, value) in object(tag)?.dictionaryEntries ?? [] {
                result[key] = value.stringContent ?? ArchivedModelReader.describe(value.decoded())
            }
            return result
        }

        /// Lists of property names (`XDPMCompoundIndexes`, `XDPMUniquenessConstraints`). Every
        /// corpus archive has these empty or `$null`; members are read as strings or as named
        /// elements, which is an assumption (unverified).
        func nameLists(_ tag: String) -> [[String]] {
            (object(tag)?.elements ?? []).map { LegacyElementsReader.names(of: $0) }.filter { !$0.isEmpty }
        }
    }

    // MARK: - Entities

    /// The `XDPMEntity` objects of a package and of its sub-packages (none of the corpus archives
    /// has sub-packages, but the package class has a bucket for them).
    private static func entityObjects(in root: ArchivedObject) -> [ArchivedObject] {
        var result: [ArchivedObject] = []
        var seen = Set<Int>()
        var pending = [root]
        var visitedPackages = Set<Int>()
        while let package = pending.popLast() {
            guard visitedPackages.insert(package.index).inserted, visitedPackages.count <= 1024 else { continue }
            for (_, element) in package.dictionary("XDBucketForClassesstorage") where isA(element, "XDPMEntity") {
                if seen.insert(element.index).inserted { result.append(element) }
            }
            pending += package.dictionary("XDBucketForPackagesstorage").map(\.value)
        }
        return result
    }

    private static func isA(_ object: ArchivedObject, _ className: String) -> Bool {
        object.className == className || object.classHierarchy.contains(className)
    }

    private static func name(_ element: ArchivedObject, of kind: String) throws -> String {
        guard let name = element.string("_name"), !name.isEmpty else {
            throw ModelError.malformed(path: nil, reason: "elements archive has \(kind) without a name")
        }
        return name
    }

    /// Names of the members of an array or set: strings, or elements with a `_name`.
    private static func names(of collection: ArchivedObject) -> [String] {
        collection.elements.compactMap { $0.string("_name") ?? $0.stringContent }
    }

    private static func entity(_ object: ArchivedObject, fetchedPropertyRequests: [Int: ArchivedObject]) throws
        -> (EntityDescription, [FetchRequestTemplate])
    {
        let name = try self.name(object, of: "an entity")
        let tags = Tags(of: object)
        var entity = EntityDescription(name: name)
        entity.className = tags.string("XD_PSK_entityClassName") ?? "NSManagedObject"
        entity.isAbstract = tags.bool("XD_PSK_isAbstract") ?? object.bool("_isAbstract") ?? false
        // Inheritance is a UML generalization: `_general` is the parent, `_specific` the child.
        // The parent also lists the same object under `XDBucketForSpecializationsstorage`.
        entity.parentName = object.elements("XDBucketForGeneralizationsstorage")
            .compactMap { $0.object("_general")?.string("_name") }
            .first { $0 != name }
        entity.renamingIdentifier = renamingIdentifier(tags.string("XD_PSK_elementID"), name: name)
        entity.versionHashModifier = tags.string("XD_PSK_versionHashModifier")
        entity.userInfo = tags.userInfo("XD_PSK_userInfo")
        entity.compoundIndexes = tags.nameLists("XDPMCompoundIndexes")
        entity.uniquenessConstraints = tags.nameLists("XDPMUniquenessConstraints")
        var properties: [PropertyDescription] = []
        for (_, element) in object.dictionary("XDBucketForOwnedAttributesstorage") {
            if let property = try property(element, fetchedPropertyRequests: fetchedPropertyRequests) {
                properties.append(property)
            }
        }
        entity.properties = properties.sorted { $0.name < $1.name }
        // Xcode 3 edited fetch request templates per entity; Core Data keeps them per model.
        let templates = (tags.object("XD_PSK_fetchRequestsArray")?.elements ?? [])
            .filter { isA($0, "XDPMFetchRequest") && $0.object("_fetchedProperty") == nil }
            .map { fetchRequest($0, fallbackEntity: name) }
        return (entity, templates)
    }

    /// An empty renaming identifier, or one equal to the element's name, is the default.
    private static func renamingIdentifier(_ id: String?, name: String) -> String? {
        guard let id, !id.isEmpty, id != name else { return nil }
        return id
    }

    private static func versionIdentifiers(_ root: ArchivedObject) -> [String] {
        if let identifier = root.string("_modelVersionIdentifier") {
            return identifier.isEmpty ? [] : [identifier]
        }
        return (root.object("_modelVersionIdentifier")?.elements ?? []).compactMap(\.stringContent).sorted()
    }

    // MARK: - Properties

    private static func property(_ object: ArchivedObject, fetchedPropertyRequests: [Int: ArchivedObject]) throws
        -> PropertyDescription?
    {
        if isA(object, "XDPMAttribute") {
            return .attribute(try attribute(object))
        }
        if isA(object, "XDPMRelationship") {
            return .relationship(try relationship(object))
        }
        // No corpus archive has a fetched property. Its fetch request is recognised from the
        // other side: an `XDPMFetchRequest` whose `_fetchedProperty` points at this element.
        if let request = fetchedPropertyRequests[object.index] {
            let base = try common(object, Tags(of: object))
            let entityName = object.object("_owner")?.string("_name") ?? ""
            var template = fetchRequest(request, fallbackEntity: entityName)
            template.name = base.name
            return .fetched(FetchedPropertyDescription(common: base, fetchRequest: template))
        }
        return nil
    }

    /// Settings of `XD_PPropStereotype`, shared by every kind of property.
    ///
    /// Read-only is not read: the UML `_isReadOnly` flag is not a Core Data setting, and Xcode
    /// never wrote read-only properties (model-format.md §5.9). A missing `isOptional` tag
    /// (never seen) falls back to Core Data's default, optional.
    private static func common(_ object: ArchivedObject, _ tags: Tags) throws -> PropertyCommon {
        let name = try self.name(object, of: "a property")
        var common = PropertyCommon(name: name)
        common.isOptional = tags.bool("XD_PPSK_isOptional") ?? true
        common.isTransient = tags.bool("XD_PPSK_isTransient") ?? false
        common.isIndexed = tags.bool("XD_PPSK_isIndexed") ?? false
        common.isIndexedBySpotlight = tags.bool("XD_PPSK_isSpotlightIndexed") ?? false
        common.isStoredInTruthFile = tags.bool("XD_PPSK_isStoredInTruthFile") ?? false
        common.renamingIdentifier = renamingIdentifier(tags.string("XD_PPSK_elementID"), name: name)
        common.versionHashModifier = tags.string("XD_PPSK_versionHashModifier")
        common.userInfo = tags.userInfo("XD_PPSK_userInfo")
        return common
    }

    private static func attribute(_ object: ArchivedObject) throws -> AttributeDescription {
        let tags = Tags(of: object)
        var attribute = AttributeDescription(
            common: try common(object, tags),
            type: attributeType(tags.value("XD_PAttK_attributeType"), in: object.archive))
        attribute.defaultValue = tags.string("XD_PAttK_defaultValueAsString")
        attribute.minValue = tags.string("XD_PAttK_minValueString")
        attribute.maxValue = tags.string("XD_PAttK_maxValueString")
        attribute.regularExpression = tags.string("XD_PAttK_regularExpressionString")
        attribute.valueTransformerName = tags.string("XD_PAttK_valueTransformerName")
        attribute.allowsExternalBinaryDataStorage = tags.bool("XD_PAttK_allowsExternalBinaryDataStorage") ?? false
        return attribute
    }

    /// `XD_PAttK_attributeType` to an `NSAttributeType` code.
    ///
    /// Every corpus archive stores the `NSAttributeType` integer itself (0, 100 … 1000, 1800), so
    /// integers are kept as they are; the store hashes only reproduce with these codes (§2.3).
    /// An XML spelling (`Integer 16`, …) or a number written as text is accepted too, in case an
    /// archive stores the type that way. A missing tag is 0 (undefined), as for a transient
    /// attribute without a type.
    private static func attributeType(_ value: PropertyListValue?, in archive: KeyedArchive) -> AttributeType {
        guard let value else { return .undefined }
        if let code = value.intValue { return AttributeType(rawValue: code) }
        let text = value.stringValue ?? archive.object(for: value)?.stringContent
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return .undefined }
        if let code = Int(text) { return AttributeType(rawValue: code) }
        return AttributeType.xmlNames.first { $0.0 == text }?.1 ?? .undefined
    }

    /// Relationship tags (`XD_PR_Stereotype`).
    ///
    /// Counts are kept exactly as stored: Xcode 3 wrote `minCount = 1, maxCount = 1` on to-ones,
    /// optional or not, and these ones are hashed (§5.10 point 2). When a count is missing, a
    /// to-many (`XD_PRK_isToMany`) gets 0/0 and a to-one gets 0/1, as for the XML (§5.9).
    private static func relationship(_ object: ArchivedObject) throws -> RelationshipDescription {
        let tags = Tags(of: object)
        let destination = tags.object("XD_PRK_destination")?.string("_name") ?? ""
        var relationship = RelationshipDescription(common: try common(object, tags), destinationEntity: destination)
        if let inverse = tags.object("XD_PRK_inverseRelationship"), let inverseName = inverse.string("_name") {
            relationship.inverseName = inverseName
            relationship.inverseEntity = inverse.object("_owner")?.string("_name") ?? destination
        }
        let toMany = tags.bool("XD_PRK_isToMany") ?? false
        relationship.minCount = tags.int("XD_PRK_minCount") ?? 0
        relationship.maxCount = tags.int("XD_PRK_maxCount") ?? (toMany ? 0 : 1)
        relationship.deleteRule = tags.int("XD_PRK_deleteRule").flatMap(DeleteRule.init(rawValue:)) ?? .nullify
        relationship.isOrdered = tags.bool("XD_PRK_ordered") ?? false
        return relationship
    }

    // MARK: - Fetch requests

    /// `XDPMFetchRequest` objects that belong to a fetched property, by the property's index.
    private static func fetchRequestsByFetchedProperty(in archive: KeyedArchive) -> [Int: ArchivedObject] {
        var result: [Int: ArchivedObject] = [:]
        for index in archive.objects.indices where index > 0 {
            guard case .dictionary = archive.objects[index], let object = archive.object(for: .uid(index)),
                object.className == "XDPMFetchRequest", let owner = object.object("_fetchedProperty")
            else { continue }
            result[owner.index] = object
        }
        return result
    }

    /// An `XDPMFetchRequest`: `_name`, `_entity` and `_predicateString` are all it holds (no
    /// limit or sort descriptors in the Xcode 3 editor).
    private static func fetchRequest(_ object: ArchivedObject, fallbackEntity: String) -> FetchRequestTemplate {
        let predicate = object.string("_predicateString")
        return FetchRequestTemplate(
            name: object.string("_name") ?? "",
            entityName: object.object("_entity")?.string("_name") ?? fallbackEntity,
            predicate: predicate?.isEmpty == false ? predicate : nil)
    }
}
