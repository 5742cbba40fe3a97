import CDBase
import Foundation

/// The text of a ``ValidationReport``: validation errors grouped by entity and rule with counts
/// and the first offenders, then integrity problems, then what could not be checked.
package enum ValidationText {
    package static func render(_ report: ValidationReport) -> String {
        var lines = ["Store: \(report.store)", "Checked \(plural(report.objects, "object")) against the model's validation rules.", ""]
        let flat = report.errors.flatMap { $0.code == 1560 ? $0.errors : [$0] }
        lines.append("Validation errors")
        if flat.isEmpty { lines.append("  none") }
        let entities = Array(Set(flat.map(\.entity))).sorted()
        for entity in entities {
            lines.append("  \(entity)")
            let ofEntity = flat.filter { $0.entity == entity }
            let groups = Dictionary(grouping: ofEntity) { "\($0.code) \($0.key ?? "")" }
            for key in groups.keys.sorted() {
                let failures = groups[key] ?? []
                let first = failures[0]
                let name = ErrorCatalogue.entry(code: first.code)?.name ?? ""
                lines.append("    \(first.code) \(name)  \(first.key ?? "")  \(plural(failures.count, "object")): \(first.message)")
                for failure in failures.prefix(StoreValidator.exampleLimit) {
                    lines.append("      \(failure.object)" + (failure.value.map { "  value: \($0)" } ?? ""))
                }
                if failures.count > StoreValidator.exampleLimit { lines.append("      … and \(failures.count - StoreValidator.exampleLimit) more") }
            }
        }
        let multiple = report.errors.filter { $0.code == 1560 }.count
        if multiple > 0 {
            lines.append(
                "  \(plural(multiple, "object has", "objects have")) several errors: Core Data reports each such object as one 1560 NSValidationMultipleErrorsError."
            )
        }
        lines += ["", "Integrity"]
        if report.integrity.isEmpty { lines.append("  none") }
        for problem in report.integrity {
            lines.append("  \(problem.kind.rawValue): \(problem.message)")
            lines += problem.examples.map { "    \($0)" }
        }
        if !report.notChecked.isEmpty {
            lines += ["", "Not checked"] + report.notChecked.map { "  \($0)" }
        }
        let invalid = report.errors.count
        lines += [
            "",
            report.hasProblems
                ? "Result: \(plural(invalid, "invalid object")), \(plural(report.integrity.count, "integrity problem"))."
                : "Result: no problems found.",
            "See cdstore-troubleshooting(7) and `cdstore explain CODE` for what each code means.",
        ]
        return lines.joined(separator: "\n")
    }
}
