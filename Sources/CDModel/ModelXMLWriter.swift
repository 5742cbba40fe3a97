import CDBase
import Foundation

/// Writes a model as the `contents` XML of an `.xcdatamodel`, so a compiled `.mom`, a store's
/// cache or a ruby-xcdm schema becomes something Xcode opens (docs/format/model-format.md §2).
///
/// Every hashed setting is written explicitly (counts included), so reading the XML back gives
/// identical version hashes. Validation predicates archived in compiled models have no XML form
/// and are left out; they never affect hashes.
public enum ModelXMLWriter {
    /// The `contents` XML of `model`, as an `.xcdatamodel` bundle holds it.
    public static func xml(for model: ManagedObjectModel) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
        var modelAttributes: [(String, String?)] = [
            ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
            ("lastSavedToolsVersion", "1"), ("systemVersion", "1"), ("minimumToolsVersion", "Automatic"),
            ("sourceLanguage", "Swift"),
        ]
        if let identifier = model.versionIdentifiers.first {
            modelAttributes.append(("userDefinedModelVersionIdentifier", identifier))
        }
        if model.usedWithCloudKit { modelAttributes.append(("usedWithCloudKit", "YES")) }
        out += "<model" + attributes(modelAttributes) + ">\n"
        for entity in model.entities { out += self.entity(entity) }
        for template in model.fetchRequestTemplates { out += "    " + fetchRequest(template) + "\n" }
        for configuration in model.configurations {
            out += "    <configuration" + attributes([("name", configuration.name)]) + ">\n"
            for member in configuration.entities { out += "        <memberEntity" + attributes([("name", member)]) + "/>\n" }
            out += "    </configuration>\n"
        }
        return out + "</model>\n"
    }

    private static func entity(_ entity: EntityDescription) -> String {
        var out =
            "    <entity"
            + attributes([
                ("name", entity.name),
                ("representedClassName", entity.className == "NSManagedObject" ? nil : entity.className),
                ("parentEntity", entity.parentName), ("isAbstract", entity.isAbstract ? "YES" : nil),
                ("elementID", entity.renamingIdentifier), ("versionHashModifier", entity.versionHashModifier),
                ("syncable", "YES"),
            ]) + ">\n"
        for property in entity.properties {
            switch property {
            case .attribute(let a): out += attribute(a)
            case .relationship(let r): out += relationship(r)
            case .fetched(let f):
                out += "        <fetchedProperty" + attributes(commonAttributes(f.common)) + ">\n"
                var request = f.fetchRequest
                request.name = "fetchedPropertyFetchRequest"
                out += "            " + fetchRequest(request) + "\n"
                out += userInfo(f.common.userInfo, indent: 12)
                out += "        </fetchedProperty>\n"
            }
        }
        if !entity.uniquenessConstraints.isEmpty {
            out += "        <uniquenessConstraints>\n"
            for constraint in entity.uniquenessConstraints {
                out += "            <uniquenessConstraint>\n"
                for name in constraint { out += "                <constraint" + attributes([("value", name)]) + "/>\n" }
                out += "            </uniquenessConstraint>\n"
            }
            out += "        </uniquenessConstraints>\n"
        }
        if !entity.compoundIndexes.isEmpty {
            out += "        <compoundIndexes>\n"
            for index in entity.compoundIndexes {
                out += "            <compoundIndex>\n"
                for name in index { out += "                <index" + attributes([("value", name)]) + "/>\n" }
                out += "            </compoundIndex>\n"
            }
            out += "        </compoundIndexes>\n"
        }
        for index in entity.fetchIndexes {
            out += "        <fetchIndex" + attributes([("name", index.name)]) + ">\n"
            for element in index.elements {
                out +=
                    "            <fetchIndexElement"
                    + attributes([
                        ("property", element.property), ("type", element.type),
                        ("order", element.ascending ? "ascending" : "descending"),
                    ]) + "/>\n"
            }
            out += "        </fetchIndex>\n"
        }
        out += userInfo(entity.userInfo, indent: 8)
        return out + "    </entity>\n"
    }

    private static func commonAttributes(_ common: PropertyCommon) -> [(String, String?)] {
        [("name", common.name), ("optional", common.isOptional ? "YES" : nil), ("transient", common.isTransient ? "YES" : nil)]
    }

    private static func trailingAttributes(_ common: PropertyCommon) -> [(String, String?)] {
        [
            ("indexed", common.isIndexed ? "YES" : nil), ("spotlightIndexingEnabled", common.isIndexedBySpotlight ? "YES" : nil),
            ("storedInTruthFile", common.isStoredInTruthFile ? "YES" : nil), ("elementID", common.renamingIdentifier),
            ("versionHashModifier", common.versionHashModifier), ("syncable", "YES"),
        ]
    }

    private static func attribute(_ a: AttributeDescription) -> String {
        let isDate = a.type == .date
        // A date default is an interval unless the source wrote text (ruby-xcdm writes "NO").
        let dateInterval = isDate ? a.defaultValue.flatMap { Double($0) == nil ? nil : $0 } : nil
        var list = commonAttributes(a.common)
        list.append(("attributeType", a.type == .undefined ? nil : a.type.description))
        list.append(("defaultValueString", dateInterval == nil ? a.defaultValue : nil))
        list.append(("defaultDateTimeInterval", dateInterval))
        list.append((isDate ? "minDateTimeInterval" : "minValueString", a.minValue))
        list.append((isDate ? "maxDateTimeInterval" : "maxValueString", a.maxValue))
        list.append(("regularExpressionString", a.regularExpression))
        list.append(("allowsExternalBinaryDataStorage", a.allowsExternalBinaryDataStorage ? "YES" : nil))
        list.append(("preserveAfterDeletion", a.preservesValueInHistoryOnDeletion ? "YES" : nil))
        list.append(("valueTransformerName", a.valueTransformerName))
        list.append(("customClassName", a.type == .transformable ? a.valueClassName : nil))
        list.append(("derived", a.isDerived ? "YES" : nil))
        list.append(("derivationExpression", a.derivationExpression.map(DerivationExpression.xml)))
        list += trailingAttributes(a.common)
        return element("attribute", list, userInfo: a.common.userInfo)
    }

    private static func relationship(_ r: RelationshipDescription) -> String {
        var list = commonAttributes(r.common)
        list.append(("toMany", r.isToMany ? "YES" : nil))
        list.append(("ordered", r.isOrdered ? "YES" : nil))
        list.append(("minCount", String(r.minCount)))
        list.append(("maxCount", String(r.maxCount)))
        list.append(("deletionRule", r.deleteRule.description))
        list.append(("destinationEntity", r.destinationEntity))
        list.append(("inverseName", r.inverseName))
        list.append(("inverseEntity", r.inverseName == nil ? nil : (r.inverseEntity ?? r.destinationEntity)))
        list += trailingAttributes(r.common)
        return element("relationship", list, userInfo: r.common.userInfo)
    }

    private static func element(_ name: String, _ list: [(String, String?)], userInfo info: [String: String]) -> String {
        let open = "        <\(name)" + attributes(list)
        guard !info.isEmpty else { return open + "/>\n" }
        return open + ">\n" + userInfo(info, indent: 12) + "        </\(name)>\n"
    }

    private static func fetchRequest(_ template: FetchRequestTemplate) -> String {
        "<fetchRequest"
            + attributes([
                ("name", template.name), ("entity", template.entityName), ("predicateString", template.predicate),
                ("fetchLimit", template.fetchLimit > 0 ? String(template.fetchLimit) : nil),
            ]) + "/>"
    }

    private static func userInfo(_ info: [String: String], indent: Int) -> String {
        guard !info.isEmpty else { return "" }
        let pad = String(repeating: " ", count: indent)
        var out = pad + "<userInfo>\n"
        for key in info.keys.sorted() { out += pad + "    <entry" + attributes([("key", key), ("value", info[key])]) + "/>\n" }
        return out + pad + "</userInfo>\n"
    }

    private static func attributes(_ list: [(String, String?)]) -> String {
        list.compactMap { key, value in value.map { " \(key)=\"\(escape($0))\"" } }.joined()
    }

    /// Attribute values keep their newlines and tabs (``MarkupText/Context/xmlAttribute``).
    private static func escape(_ text: String) -> String { MarkupText.escape(text, for: .xmlAttribute) }
}
