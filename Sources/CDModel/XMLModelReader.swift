import CDBase
import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the `contents` XML of an `.xcdatamodel` (docs/format/model-format.md §2) into the one
/// model type. Element order is not relied on.
public enum XMLModelReader {
    /// Decodes the `contents` XML in `data`; throws ``Failure`` on XML that is not well-formed
    /// or is not a model.
    public static func model(fromXML data: Data) throws -> ManagedObjectModel {
        try model(from: XMLTree.parse(data))
    }

    /// The model of an element tree already in memory, such as the one ruby-xcdm would write
    /// for a schema (``RubyXcdmSchemaReader``).
    static func model(from root: XMLTree) throws -> ManagedObjectModel {
        guard root.name == "model" else {
            throw ModelError.malformed(path: nil, reason: "not a Core Data model: the XML root is <\(root.name)>, not <model>")
        }
        var model = ManagedObjectModel()
        if let identifier = root.attributes["userDefinedModelVersionIdentifier"] {
            model.versionIdentifiers = [identifier]
        }
        model.usedWithCloudKit = root.flag("usedWithCloudKit")
        model.entities = root.children("entity").map(entity)
        model.fetchRequestTemplates = root.children("fetchRequest").map(fetchRequest)
        model.configurations = root.children("configuration").map { configuration in
            ModelConfiguration(
                name: configuration.attributes["name"] ?? "",
                entities: configuration.children("memberEntity").compactMap { $0.attributes["name"] })
        }
        return model
    }

    private static func entity(_ node: XMLTree) -> EntityDescription {
        let name = node.attributes["name"] ?? ""
        var entity = EntityDescription(name: name)
        entity.className = node.attributes["representedClassName"] ?? "NSManagedObject"
        entity.parentName = node.attributes["parentEntity"]
        entity.isAbstract = node.flag("isAbstract")
        entity.renamingIdentifier = renamingIdentifier(node)
        entity.versionHashModifier = node.attributes["versionHashModifier"]
        entity.userInfo = userInfo(node)
        entity.uniquenessConstraints = node.children("uniquenessConstraints").flatMap { $0.children("uniquenessConstraint") }
            .map { $0.children("constraint").compactMap { $0.attributes["value"] } }
        entity.compoundIndexes = node.children("compoundIndexes").flatMap { $0.children("compoundIndex") }
            .map { $0.children("index").compactMap { $0.attributes["value"] } }
        entity.fetchIndexes = node.children("fetchIndex").map { index in
            FetchIndex(
                name: index.attributes["name"] ?? "",
                elements: index.children("fetchIndexElement").map { element in
                    FetchIndexElement(
                        property: element.attributes["property"] ?? element.attributes["expression"] ?? "",
                        ascending: element.attributes["order"] != "descending",
                        type: element.attributes["type"]?.lowercased() == "rtree" ? "RTree" : "Binary")
                })
        }
        var properties: [PropertyDescription] = []
        for child in node.children {
            switch child.name {
            case "attribute": properties.append(.attribute(attribute(child)))
            case "relationship": properties.append(.relationship(relationship(child)))
            case "fetchedProperty":
                let request =
                    child.children("fetchRequest").first.map(fetchRequest)
                    ?? FetchRequestTemplate(name: child.attributes["name"] ?? "", entityName: "")
                properties.append(.fetched(FetchedPropertyDescription(common: common(child), fetchRequest: request)))
            default: break
            }
        }
        entity.properties = properties
        return entity
    }

    /// Xcode's "Renaming ID" is serialised as `elementID`; it defaults to the element's name.
    private static func renamingIdentifier(_ node: XMLTree) -> String? {
        guard let id = node.attributes["elementID"], !id.isEmpty, id != node.attributes["name"] else { return nil }
        return id
    }

    private static func userInfo(_ node: XMLTree) -> [String: String] {
        var result: [String: String] = [:]
        for entry in node.children("userInfo").flatMap({ $0.children("entry") }) {
            if let key = entry.attributes["key"] { result[key] = entry.attributes["value"] ?? "" }
        }
        return result
    }

    /// `optional` absent means non-optional; read-only is never written by Xcode (§5.9).
    private static func common(_ node: XMLTree) -> PropertyCommon {
        var common = PropertyCommon(name: node.attributes["name"] ?? "")
        common.isOptional = node.flag("optional")
        common.isTransient = node.flag("transient")
        common.renamingIdentifier = renamingIdentifier(node)
        common.versionHashModifier = node.attributes["versionHashModifier"]
        common.userInfo = userInfo(node)
        common.isIndexed = node.flag("indexed")
        common.isIndexedBySpotlight = node.flag("spotlightIndexingEnabled")
        common.isStoredInTruthFile = node.flag("storedInTruthFile")
        return common
    }

    private static func attribute(_ node: XMLTree) -> AttributeDescription {
        let typeName = node.attributes["attributeType"]
        let type =
            typeName.map { name in
                AttributeType.xmlNames.first { $0.0 == name }?.1 ?? .undefined
            } ?? .undefined
        var attribute = AttributeDescription(common: common(node), type: type)
        if type == .date, let interval = node.attributes["defaultDateTimeInterval"] {
            attribute.defaultValue = interval
        } else {
            attribute.defaultValue = node.attributes["defaultValueString"]
        }
        attribute.minValue = node.attributes[type == .date ? "minDateTimeInterval" : "minValueString"]
        attribute.maxValue = node.attributes[type == .date ? "maxDateTimeInterval" : "maxValueString"]
        attribute.regularExpression = node.attributes["regularExpressionString"]
        attribute.allowsExternalBinaryDataStorage = node.flag("allowsExternalBinaryDataStorage")
        attribute.preservesValueInHistoryOnDeletion = node.flag("preserveAfterDeletion")
        attribute.valueTransformerName = node.attributes["valueTransformerName"]
        attribute.valueClassName = node.attributes["customClassName"]
        if node.flag("derived"), let expression = node.attributes["derivationExpression"] {
            attribute.derivationExpression = DerivationExpression.compiled(expression)
            attribute.common.isReadOnly = true
        }
        return attribute
    }

    /// Counts are kept exactly as written; missing ones default as `momc` compiles them (§2.4).
    private static func relationship(_ node: XMLTree) -> RelationshipDescription {
        let toMany = node.flag("toMany")
        var relationship = RelationshipDescription(
            common: common(node),
            destinationEntity: node.attributes["destinationEntity"] ?? "")
        relationship.inverseName = node.attributes["inverseName"]
        relationship.inverseEntity = node.attributes["inverseEntity"]
        relationship.maxCount = node.attributes["maxCount"].flatMap { Int($0) } ?? (toMany ? 0 : 1)
        relationship.minCount = node.attributes["minCount"].flatMap { Int($0) } ?? 0
        relationship.isOrdered = node.flag("ordered")
        relationship.deleteRule = DeleteRule.allCases.first { $0.description == node.attributes["deletionRule"] } ?? .nullify
        return relationship
    }

    private static func fetchRequest(_ node: XMLTree) -> FetchRequestTemplate {
        var template = FetchRequestTemplate(name: node.attributes["name"] ?? "", entityName: node.attributes["entity"] ?? "")
        template.predicate = node.attributes["predicateString"]
        template.fetchLimit = node.attributes["fetchLimit"].flatMap { Int($0) } ?? 0
        return template
    }
}

/// Translates between the derivation text Xcode writes and the text Core Data hashes.
///
/// Core Data rewrites an aggregate key path such as `pages.@count` into the function form
/// `count:(pages)` before hashing it (model-format.md §5.5).
package enum DerivationExpression {
    static let aggregates = ["count", "sum", "avg", "min", "max"]

    /// The text Core Data hashes for the derivation Xcode writes as `xml`.
    package static func compiled(_ xml: String) -> String {
        let text = xml.trimmingCharacters(in: .whitespaces)
        for function in aggregates {
            let suffix = ".@\(function)"
            if text.hasSuffix(suffix) {
                return "\(function):(\(text.dropLast(suffix.count)))"
            }
        }
        return text
    }

    /// The inverse of ``compiled(_:)``, for writing XML again.
    package static func xml(_ compiled: String) -> String {
        for function in aggregates where compiled.hasPrefix("\(function):(") && compiled.hasSuffix(")") {
            return compiled.dropFirst(function.count + 2).dropLast() + ".@\(function)"
        }
        return compiled
    }
}

/// A minimal element tree built with `XMLParser` (FoundationXML on Linux).
struct XMLTree {
    var name: String
    var attributes: [String: String]
    var children: [XMLTree]

    func children(_ name: String) -> [XMLTree] { children.filter { $0.name == name } }

    /// `YES` (any case) is true; anything else, or absence, is false.
    func flag(_ attribute: String) -> Bool { attributes[attribute]?.uppercased() == "YES" }

    static func parse(_ data: Data) throws -> XMLTree {
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let line = parser.lineNumber
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "no root element"
            throw ModelError.malformed(path: nil, reason: "model XML is not well-formed (line \(line)): \(reason)")
        }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [XMLTree] = []
        var root: XMLTree?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            stack.append(XMLTree(name: elementName, attributes: attributes, children: []))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let finished = stack.popLast() else { return }
            if stack.isEmpty { root = finished } else { stack[stack.count - 1].children.append(finished) }
        }
    }
}
