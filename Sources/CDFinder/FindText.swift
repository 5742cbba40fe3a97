import CDBase
import Foundation

/// The text form of a ``FindReport``: two lines per store (the path, then what it is and whose
/// it is) and a summary, so long simulator paths never squeeze a table.
package enum FindText {
    package static func render(_ report: FindReport) -> String {
        var lines: [String] = []
        for store in report.stores {
            lines.append(store.path)
            lines.append("  " + details(store).joined(separator: " · "))
        }
        let total = report.stores.reduce(0) { $0 + $1.size }
        var summary = "\(plural(report.stores.count, "store")) (\(byteSize(total))) in \(plural(report.scannedFolders, "folder"))"
        if report.unreadableFolders > 0 {
            summary += "; \(plural(report.unreadableFolders, "folder")) could not be read"
            if let first = report.firstUnreadableFolder {
                summary += report.unreadableFolders == 1 ? " (\(first))" : " (first: \(first))"
            }
        }
        if !lines.isEmpty { lines.append("") }
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    static func details(_ store: FoundStore) -> [String] {
        var parts: [String] = []
        if let device = store.location.device {
            parts.append(device + (store.location.runtime.map { " (\($0))" } ?? ""))
        } else if let runtime = store.location.runtime {
            parts.append(runtime)
        }
        if let bundleID = store.location.bundleID {
            parts.append(bundleID + (store.location.container.map { " (\($0.rawValue))" } ?? ""))
        }
        parts.append(byteSize(store.size))
        parts.append("modified " + ValueText.coreDataDate(store.modified.rounded(.down)))
        if let problem = store.problem {
            parts.append(problem)
            return parts
        }
        parts.append(store.frameworkVersion.map { "framework \($0)" } ?? "no metadata")
        let identifiers = store.versionIdentifiers.map { "\"\($0)\"" }.joined(separator: ", ")
        parts.append(store.versionIdentifiers.isEmpty ? "no version identifiers" : "version \(identifiers)")
        parts.append(plural(store.entityCount, "entity", "entities"))
        if store.hasHistory { parts.append("persistent history") }
        return parts
    }

    /// 1,234 bytes below 10 KB, then KB and MB with one decimal, as `ls -h` readers expect.
    static func byteSize(_ bytes: Int) -> String {
        if bytes < 10_240 { return plural(bytes, "byte") }
        if bytes < 10_485_760 { return String(format: "%.1f KB", Double(bytes) / 1024) }
        return String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }
}
