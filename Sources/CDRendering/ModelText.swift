import CDModel
import Foundation

/// Human-readable text for `cdstore model`.
public enum ModelText {
    /// Entity version hashes and the checksum of every version.
    public static func renderHashes(_ report: ModelHashReport) -> String {
        report.versions.map { version in
            var lines = ["Version \(version.name)\(version.current ? " (current)" : "")"]
            let names = version.entityHashes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            let width = names.map(\.count).max() ?? 0
            for name in names {
                let hash = Data(hex: version.entityHashes[name]!)?.coreDataDescription ?? "?"
                lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + hash)
            }
            lines.append("  checksum: \(version.versionChecksum)")
            lines.append("  digest:   \(version.versionHashesDigest)")
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// Entities with their attributes and relationships.
    public static func render(_ versions: [ModelVersion]) -> String {
        versions.map { version in
            var lines = ["Version \(version.name)\(version.current ? " (current)" : "")"]
            let model = version.model
            if !model.versionIdentifiers.isEmpty {
                lines.append("  version identifiers: " + model.versionIdentifiers.map { "\"\($0)\"" }.joined(separator: ", "))
            }
            for entity in model.entities {
                var header = "  \(entity.name)"
                if let parent = entity.parentName { header += " : \(parent)" }
                if entity.isAbstract { header += " (abstract)" }
                lines.append(header)
                for property in entity.properties {
                    lines.append("    " + describe(property))
                }
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    static func describe(_ property: PropertyDescription) -> String {
        var flags: [String] = []
        if property.common.isOptional { flags.append("optional") }
        if property.common.isTransient { flags.append("transient") }
        switch property {
        case .attribute(let a):
            if a.isDerived { flags.append("derived: \(a.derivationExpression!)") }
            if let value = a.defaultValue { flags.append("default \(value)") }
            if a.allowsExternalBinaryDataStorage { flags.append("external storage") }
            if a.preservesValueInHistoryOnDeletion { flags.append("preserved after deletion") }
            return "\(a.name): \(a.type)" + (flags.isEmpty ? "" : " [" + flags.joined(separator: ", ") + "]")
        case .relationship(let r):
            var text = "\(r.name) \(r.isToMany ? "->>" : "->") \(r.destinationEntity)"
            if let inverse = r.inverseName { text += " (inverse \(inverse))" }
            if r.isOrdered { flags.append("ordered") }
            flags.append("delete rule \(r.deleteRule)")
            return text + " [" + flags.joined(separator: ", ") + "]"
        case .fetched(let f):
            return "\(f.common.name): fetched \(f.fetchRequest.entityName)" + (f.fetchRequest.predicate.map { " where \($0)" } ?? "")
        }
    }
}
