import CDBase

/// Human-readable text for `cdstore model --lint`.
package enum LintText {
    /// One block per version: a summary line, then each finding with its error code.
    package static func render(_ report: LintReport) -> String {
        report.versions.map { version in
            var lines = [
                "Version \(version.name)\(version.current ? " (current)" : ""): "
                    + (version.findings.isEmpty ? "no findings" : plural(version.findings.count, "finding"))
            ]
            for finding in version.findings {
                lines.append("  " + (finding.code.map { "[\($0)] " } ?? "") + finding.message)
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}
