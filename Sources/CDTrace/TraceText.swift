import CDBase
import Foundation

/// The text form of a ``TraceReport``.
package enum TraceText {
    package static func render(_ report: TraceReport) -> String {
        var lines: [String] = []
        let input = report.input
        lines.append(
            "Read \(plural(input.lines, "line")): \(plural(input.records, "Core Data record")), \(plural(input.statements, "statement")) of \(plural(report.shapeCount, "shape"))."
        )
        switch input.names {
        case "store": lines.append("Names from the store \(input.namesFrom ?? "")\(input.plansFromStore ? "; query plans from the store, read-only" : "").")
        case "model": lines.append("Names from the model \(input.namesFrom ?? ""); no store, so only query plans in the log are read.")
        default:
            if let logged = input.loggedStore {
                lines.append("No names: the log's store \(logged) cannot be read here; pass --store or --model for the model's names.")
            } else {
                lines.append("No names: pass --store or --model for the model's names and query plans.")
            }
        }
        lines.append("")
        lines.append(
            report.shapes.count < report.shapeCount
                ? "Statements by total time (top \(report.shapes.count) of \(grouped(report.shapeCount)) shapes)"
                : "Statements by total time")
        for (index, shape) in report.shapes.enumerated() {
            var head =
                "\(String(format: "%3d", index + 1)). \(seconds(shape.totalSeconds)) total, \(plural(shape.count, "time")), mean \(seconds(shape.meanSeconds)), max \(seconds(shape.maxSeconds))"
            if shape.rows > 0 { head += ", \(plural(shape.rows, "row")) (max \(grouped(shape.maxRows)))" }
            head += " — \(shape.kind)" + (shape.entity.map { " \($0)" } ?? "")
            lines.append(head)
            if let readable = shape.readable { lines.append("     \(readable)") }
            lines.append("     \(shape.sql)")
        }
        lines.append("")
        if report.findings.isEmpty {
            lines.append("Findings: none.")
        } else {
            lines.append("Findings (\(report.findings.count))")
            for finding in report.findings {
                lines.append("  \(label(finding.kind)): \(finding.summary)")
                lines.append("    fix: \(finding.fix)")
                if let readable = finding.readable { lines.append("    \(readable)") }
                if let sql = finding.sql { lines.append("    \(sql)") }
            }
        }
        lines.append("")
        let saves = report.saves
        if saves.transactions == 0 && saves.rolledBack == 0 {
            lines.append("Saves: none.")
        } else {
            let inserts = saves.entities.reduce(0) { $0 + $1.inserts }
            let updates = saves.entities.reduce(0) { $0 + $1.updates }
            let deletes = saves.entities.reduce(0) { $0 + $1.deletes }
            lines.append(
                "Saves: \(plural(saves.transactions, "transaction")), \(plural(inserts, "insert")), \(plural(updates, "update")), \(plural(deletes, "delete")), \(plural(saves.statements, "statement")), \(seconds(saves.seconds)); \(saves.rolledBack) rolled back, \(saves.retried) retried"
            )
            for entity in saves.entities {
                lines.append(
                    "  \(entity.entity): \(plural(entity.inserts, "insert")), \(plural(entity.updates, "update")), \(plural(entity.deletes, "delete"))")
            }
            if !saves.largest.isEmpty {
                lines.append("  Largest transactions:")
                for transaction in saves.largest {
                    lines.append(
                        "    #\(transaction.number): \(plural(transaction.inserts, "insert")), \(plural(transaction.updates, "update")), \(plural(transaction.deletes, "delete")), \(plural(transaction.selects, "select")), \(seconds(transaction.seconds))"
                    )
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line for `--follow`, printed when a finding is made.
    package static func event(_ event: TraceAnalyzer.Event, analyzer: TraceAnalyzer) -> String {
        switch event {
        case .storm(let storm, let runLength):
            let what = storm.relationship.map { "\(storm.entity ?? "?").\($0)" } ?? (storm.entity.map { "\($0) objects" } ?? "objects")
            return "fault storm: \(what), \(plural(runLength, "fault")) in a row: \(storm.key)"
        case .largeFetch(let shape, let rows):
            return "large fetch: \(plural(rows, "row")) without a limit: \(analyzer.shapes[shape].shape.text)"
        case .loggedScan(let shape, let detail):
            return "table scan: \(detail): \(analyzer.shapes[shape].shape.text)"
        case .retry(let tables):
            return "optimistic-locking retry: a save of \(tables.joined(separator: ", ")) rolled back and ran again"
        }
    }

    static func label(_ kind: String) -> String {
        switch kind {
        case "faultStorm": return "fault storm"
        case "tableScan": return "table scan"
        case "largeFetch": return "large fetch"
        case "batchesLoadedAtOnce": return "batches loaded at once"
        case "countThenFetch": return "count then fetch"
        case "keysOnlyFetch": return "keys-only fetch"
        case "optimisticLockingRetry": return "optimistic-locking retry"
        default: return kind
        }
    }
}
