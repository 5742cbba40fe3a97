import Foundation

/// The text form of an ``Explanation``: the code and its meaning, what the dump says about this
/// case, what `--store`/`--model` found, then causes, commands, fixes and the troubleshooting
/// section.
package enum ExplanationText {
    package static func render(_ explanation: Explanation) -> String {
        var out: [String] = []
        out.append("\(explanation.code) \(explanation.name) (\(explanation.domain))")
        out.append(explanation.meaning)
        if let finding = explanation.finding {
            out.append("")
            out.append("This case")
            out.append(contentsOf: explanation.summary.map { "  " + $0 })
            out.append(contentsOf: details(of: finding, indent: "  "))
        }
        if !explanation.otherErrors.isEmpty {
            out.append("")
            out.append("Also in the paste")
            for other in explanation.otherErrors {
                out.append("  " + headline(of: other))
                out.append(contentsOf: details(of: other, indent: "    "))
            }
        }
        if let check = explanation.crossCheck {
            out.append("")
            out.append("Cross-check")
            if let store = check.store { out.append("  store: \(store)" + (check.storeUUID.map { " (UUID \($0))" } ?? "")) }
            if let model = check.model { out.append("  model: \(model)") }
            if let hashes = check.hashes, !hashes.versions.isEmpty {
                out.append("  model versions:")
                for version in hashes.versions {
                    var marks: [String] = []
                    if version.current { marks.append("current") }
                    if version.matchesStore == true { marks.append("matches the store") }
                    if version.matchesDump == true { marks.append("matches the dump") }
                    if version.matchesStore != true, version.matchesDump != true, !version.differingEntities.isEmpty {
                        marks.append("differs in \(version.differingEntities.joined(separator: ", "))")
                    }
                    out.append("    \(version.name)" + (marks.isEmpty ? "" : ": " + marks.joined(separator: ", ")))
                }
            }
            out.append(contentsOf: check.notes.map { "  " + $0 })
        }
        if !explanation.related.isEmpty {
            out.append("")
            out.append("Related codes")
            for related in explanation.related {
                out.append("  \(related.code) \(related.name) (\(related.via.rawValue)): \(related.meaning)")
                out.append("    See section \"\(related.section)\".")
            }
        }
        section("Common causes", explanation.causes.map { "- " + $0 }, into: &out)
        section("Diagnose with", explanation.diagnose, into: &out)
        section("Fix", explanation.fixes.map { "- " + $0 }, into: &out)
        out.append("")
        out.append("See \(explanation.reference).")
        return out.joined(separator: "\n")
    }

    private static func section(_ title: String, _ lines: [String], into out: inout [String]) {
        guard !lines.isEmpty else { return }
        out.append("")
        out.append(title)
        out.append(contentsOf: lines.map { "  " + $0 })
    }

    static func headline(of finding: ErrorFinding) -> String {
        let code = finding.code.map(String.init) ?? "?"
        let name = finding.code.map { Explanation.entry(code: $0, domain: finding.domain).name } ?? "unknown"
        return "\(code) \(name) (\(finding.domain ?? "unknown domain"))"
    }

    /// The fields a finding has, one per line, then its nested errors.
    static func details(of finding: ErrorFinding, indent: String) -> [String] {
        var fields: [(String, String?)] = [
            ("message", finding.message), ("entity", finding.entity), ("key", finding.key), ("value", finding.value),
            ("object", finding.object.map { $0.uri + ($0.temporary ? " (temporary ID: never saved)" : "") }),
            ("reason", finding.reason), ("store", finding.storePath), ("source", finding.sourceURL),
            ("destination", finding.destinationURL),
            ("sqlite", finding.sqliteCode.map { code in "\(code)" + (finding.sqliteMessage.map { " '\($0)'" } ?? "") }),
        ]
        if finding.cloudKit.isEmpty { fields.append(("failure reason", finding.failureReason)) }
        if let metadata = finding.metadata {
            fields.append(("framework version", metadata.frameworkVersion.map(String.init)))
            fields.append(("store UUID", metadata.storeUUID))
            fields.append(("store type", metadata.storeType))
            fields.append(("version identifiers", metadata.versionIdentifiers.map { "(" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + ")" }))
        }
        var lines = fields.compactMap { label, value in value.map { "\(indent)\(label): \($0)" } }
        if let metadata = finding.metadata, !metadata.versionHashes.isEmpty || !metadata.truncatedHashes.isEmpty {
            lines.append("\(indent)version hashes:")
            for name in (Array(metadata.versionHashes.keys) + metadata.truncatedHashes).sorted() {
                lines.append("\(indent)  \(name)  " + (metadata.versionHashes[name].map(grouped) ?? "(cut in the dump)"))
            }
        }
        if !finding.sourceModelEntities.isEmpty {
            lines.append("\(indent)source model entities: \(finding.sourceModelEntities.joined(separator: ", "))")
        }
        for rule in finding.cloudKit {
            lines.append("\(indent)CloudKit rule: \(rule.rule)")
            lines.append(contentsOf: rule.items.map { "\(indent)  \($0)" })
        }
        for conflict in finding.conflicts {
            let versions = conflict.oldVersion.flatMap { old in conflict.newVersion.map { " (Z_OPT \(old) → \($0))" } } ?? ""
            lines.append("\(indent)conflict: \(conflict.objectID)\(versions)")
        }
        for (index, detail) in finding.detailedErrors.enumerated() {
            lines.append("\(indent)detailed error \(index + 1): \(headline(of: detail))")
            lines.append(contentsOf: details(of: detail, indent: indent + "  "))
        }
        for underlying in finding.underlyingErrors {
            lines.append("\(indent)underlying error: \(headline(of: underlying))")
            lines.append(contentsOf: details(of: underlying, indent: indent + "  "))
        }
        return lines
    }

    /// A hash as Core Data logs it: `<5431c046 d30e7f32 …>`.
    static func grouped(_ hex: String) -> String {
        var groups: [String] = []
        var rest = Substring(hex)
        while !rest.isEmpty {
            groups.append(String(rest.prefix(8)))
            rest = rest.dropFirst(8)
        }
        return "<" + groups.joined(separator: " ") + ">"
    }
}
