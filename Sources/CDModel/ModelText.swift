import CDBase
import Foundation

/// Human-readable text for `cdstore model`.
package enum ModelText {
    /// Entity version hashes and the checksum of every version.
    package static func renderHashes(_ report: ModelHashReport) -> String {
        report.versions.map { version in
            var lines = ["Version \(version.name)\(version.current ? " (current)" : "")"]
            let names = version.entityHashes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            var hashes = TextTable(columns: 2)
            for name in names {
                hashes.add([name, version.entityHashes[name].flatMap(Data.init(hexDigits:))?.coreDataDescription ?? "?"])
            }
            if !names.isEmpty { lines.append(hashes.render(header: false)) }
            lines.append("  checksum: \(version.versionChecksum)")
            lines.append("  digest:   \(version.versionHashesDigest)")
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// Entities with their properties, constraints and indexes, then fetch requests and
    /// configurations, for each version.
    package static func render(_ versions: [ModelVersion]) -> String {
        versions.map(render).joined(separator: "\n\n")
    }

    static func render(_ version: ModelVersion) -> String {
        var lines = ["Version \(version.name)\(version.current ? " (current)" : "")"]
        let model = version.model
        if !model.versionIdentifiers.isEmpty {
            lines.append("  version identifiers: " + model.versionIdentifiers.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        if model.usedWithCloudKit { lines.append("  used with CloudKit") }
        for entity in model.entities { lines.append(render(entity: entity)) }
        for template in model.fetchRequestTemplates {
            lines.append("  fetch request \(template.name): \(template.entityName)" + (template.predicate.map { " where \($0)" } ?? ""))
        }
        for configuration in model.configurations {
            lines.append(
                "  configuration \(configuration.name): " + (configuration.entities.isEmpty ? "(empty)" : configuration.entities.joined(separator: ", ")))
        }
        return lines.joined(separator: "\n")
    }

    /// One entity as `model` lists it: its header, properties, constraints and indexes.
    package static func render(entity: EntityDescription) -> String {
        var lines: [String] = []
        var header = "  \(entity.name)"
        if let parent = entity.parentName { header += " : \(parent)" }
        var notes: [String] = []
        if entity.isAbstract { notes.append("abstract") }
        if entity.className != "NSManagedObject" && entity.className != entity.name { notes.append("class \(entity.className)") }
        if let id = entity.renamingIdentifier { notes.append("renaming ID \(id)") }
        if let modifier = entity.versionHashModifier { notes.append("hash modifier \(modifier)") }
        if !notes.isEmpty { header += " (" + notes.joined(separator: ", ") + ")" }
        lines.append(header)
        for property in entity.properties { lines.append("    " + describe(property)) }
        for constraint in entity.uniquenessConstraints {
            lines.append("    unique (" + constraint.joined(separator: ", ") + ")")
        }
        for index in entity.fetchIndexes {
            let elements = index.elements.map { $0.property + ($0.ascending ? "" : " desc") + ($0.type == "Binary" ? "" : " \($0.type)") }
            lines.append("    index \(index.name) (" + elements.joined(separator: ", ") + ")")
        }
        for index in entity.compoundIndexes {
            lines.append("    compound index (" + index.joined(separator: ", ") + ")")
        }
        return lines.joined(separator: "\n")
    }

    static func describe(_ property: PropertyDescription) -> String {
        var flags: [String] = []
        let common = property.common
        if common.isOptional { flags.append("optional") }
        if common.isTransient { flags.append("transient") }
        if common.isIndexed { flags.append("indexed") }
        if let id = common.renamingIdentifier { flags.append("renaming ID \(id)") }
        if let modifier = common.versionHashModifier { flags.append("hash modifier \(modifier)") }
        switch property {
        case .attribute(let a):
            if let derivation = a.derivationExpression { flags.append("derived: \(derivation)") }
            if let value = a.defaultValue { flags.append("default \(value)") }
            if let min = a.minValue { flags.append("min \(min)") }
            if let max = a.maxValue { flags.append("max \(max)") }
            if let pattern = a.regularExpression { flags.append("regex \(pattern)") }
            if a.allowsExternalBinaryDataStorage { flags.append("external storage") }
            if a.preservesValueInHistoryOnDeletion { flags.append("preserved after deletion") }
            if let transformer = a.valueTransformerName { flags.append("transformer \(transformer)") }
            for rule in a.validationRules { flags.append("validates \(rule.predicate)") }
            return "\(a.name): \(a.type)" + (flags.isEmpty ? "" : " [" + flags.joined(separator: ", ") + "]")
        case .relationship(let r):
            var text = "\(r.name) \(r.isToMany ? "->>" : "->") \(r.destinationEntity)"
            if let inverse = r.inverseName { text += " (inverse \(inverse))" }
            if r.isOrdered { flags.append("ordered") }
            if r.minCount != 0 { flags.append("min \(r.minCount)") }
            if r.isToMany && r.maxCount != 0 { flags.append("max \(r.maxCount)") }
            flags.append("delete rule \(r.deleteRule)")
            return text + " [" + flags.joined(separator: ", ") + "]"
        case .fetched(let f):
            return "\(common.name): fetched \(f.fetchRequest.entityName)" + (f.fetchRequest.predicate.map { " where \($0)" } ?? "")
        }
    }
}
