import CDBase

/// The text form of a ``CompatibilityReport``: the verdict first, then each change with its fix.
package enum CompatibilityText {
    package static func render(_ report: CompatibilityReport) -> String {
        var summary = TextTable(columns: 2)
        summary.add(["Store:", report.store])
        summary.add(["Model:", report.model])
        summary.add(["Written by:", report.matchedVersion ?? "no version of the model (entity hashes match none)"])
        summary.add(["Current version:", report.currentVersion])
        summary.add(["Compatible:", report.compatible ? "yes" : "no"])
        summary.add(["Options assumed:", report.options.rawValue])
        summary.add(["Expected error:", report.expectedError.map(String.init) ?? "none"])
        var lines = [summary.render(indent: 0, header: false), ""]
        lines.append(report.reason)
        if !report.changes.isEmpty {
            lines.append("")
            lines.append("Changes from \(report.oldModel ?? "the old model") to \(report.currentVersion):")
            for change in report.changes {
                let target = [change.entity, change.property].compactMap { $0 }.joined(separator: ".")
                let marker = change.inferable ? "" : " [not inferable]"
                lines.append("  \(change.kind.rawValue) \(target): \(change.detail)\(marker)")
                lines.append("    fix: \(change.fix)")
            }
        }
        if !report.mappingModels.isEmpty {
            lines.append("")
            lines.append("Mapping models:")
            for mapping in report.mappingModels {
                let connects = mapping.connectsStoreToCurrent ? " (maps the store to the current version)" : ""
                lines.append("  \(mapping.path): \(mapping.sourceVersion ?? "unknown version") → \(mapping.destinationVersion ?? "unknown version")\(connects)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
