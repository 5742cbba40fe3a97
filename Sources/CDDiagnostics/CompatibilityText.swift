import CDBase
import Foundation

/// The text form of a ``CompatibilityReport``: the verdict first, then each change with its fix.
package enum CompatibilityText {
    package static func render(_ report: CompatibilityReport) -> String {
        var summary = TextTable(columns: 2)
        summary.add(["Store:", report.store])
        summary.add(["Model:", report.model])
        summary.add(["Written by:", report.matchedVersion ?? "no version of the model (entity hashes match none)"])
        summary.add(["Current version:", report.currentVersion])
        summary.add(["Options assumed:", report.options.rawValue])
        var lines = [headline(report), "", summary.render(indent: 0, header: false), ""]
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
    /// One line that answers "will my app open this store?" with the options assumed: yes, and
    /// after which migration; or no, with the error and its cause in a few words.
    package static func headline(_ report: CompatibilityReport) -> String {
        let mapping = report.mappingModels.first(where: \.connectsStoreToCurrent).map { URL(fileURLWithPath: $0.path).lastPathComponent }
        guard let error = report.expectedError else {
            switch report.migration {
            case .none, .impossible:
                return "Opens: yes (the model matches the store)"
            case .lightweight:
                return "Opens: yes, after lightweight migration (needs NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption)"
            case .mappingModel:
                return "Opens: yes, after migration with the mapping model \(mapping ?? "found") (needs NSMigratePersistentStoresAutomaticallyOption)"
            }
        }
        let cause: String
        switch error {
        case 134100:
            let needed =
                switch report.migration {
                case .none, .lightweight: "lightweight migration"
                case .mappingModel: "migration with the mapping model \(mapping ?? "found")"
                case .impossible: "a migration that cannot be done either (see below)"
                }
            cause = "the store needs \(needed), and the app passes no migration options"
        case 134130: cause = "no version of the model wrote the store"
        case 134140:
            cause =
                "no mapping model from \(report.matchedVersion ?? "the store's version") to \(report.currentVersion), and the app does not pass NSInferMappingModelAutomaticallyOption"
        case 134190: cause = "lightweight migration cannot be inferred"
        case 134110: cause = "the migrated rows fail validation"
        default: cause = "see below"
        }
        return "Opens: no — error \(error): \(cause)"
    }
}
