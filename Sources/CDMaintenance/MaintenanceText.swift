import CDBase
import Foundation

/// The text reports of the commands that write stores: `create`, `reset` and `clean`.
package enum MaintenanceText {
    /// `cdstore create`: what the new store holds.
    package static func created(_ store: CreatedStore) -> String {
        let identifiers = store.versionIdentifiers.isEmpty ? "none" : store.versionIdentifiers.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            Created \(store.path) (\(grouped(store.bytes)) bytes)
              Store UUID:          \(store.storeUUID)
              Framework version:   \(store.frameworkVersion)
              Version identifiers: \(identifiers)
              Entities:            \(store.entities)
              Tables:              \(store.tables), indexes: \(store.indexes)
              Model cache:         \(store.modelCacheBytes.map { "\(grouped($0)) bytes compressed" } ?? "none (framework before 754)")
            """
    }

    /// `cdstore create --import`: the store, then the objects imported per entity.
    package static func imported(_ outcome: ImportOutcome) -> String {
        let verdict: String
        if outcome.installed {
            verdict = created(outcome.store)
        } else if outcome.dryRun && !outcome.validation.hasProblems {
            verdict = "Dry run: \(outcome.store.path) would be created (\(grouped(outcome.store.bytes)) bytes); nothing was written."
        } else {
            verdict = "Not created: \(outcome.store.path) failed validation; nothing was written."
        }
        var lines = [verdict, "  Imported:            \(plural(outcome.objects, "object"))"]
        var perEntity = TextTable(columns: 2)
        for entry in outcome.imported { perEntity.add([entry.entity, String(entry.objects)]) }
        if !outcome.imported.isEmpty { lines.append(perEntity.render(indent: 4, header: false)) }
        return lines.joined(separator: "\n")
    }

    package static func render(_ report: ResetReport) -> String {
        var lines = ["Store: \(report.store)", ""]
        lines.append(report.dryRun ? "Would remove (dry run: nothing was changed)" : "Removed")
        var table = TextTable([("ROLE", .left), ("FILE", .left), ("BYTES", .right)])
        for part in report.parts {
            table.add([part.role.rawValue, URL(fileURLWithPath: part.path).lastPathComponent + (part.directory ? "/" : ""), grouped(part.bytes)])
        }
        table.add(["total", plural(report.parts.count, "item"), grouped(report.totalBytes)])
        lines.append(table.render())
        lines.append("")
        lines.append("Backup: \(report.backup ?? (report.dryRun ? "none (dry run)" : "none (--no-backup)"))")
        if let recreated = report.recreated {
            lines.append("")
            lines.append(report.dryRun ? "Would create (dry run)" : "Recreated")
            lines.append(created(recreated).split(separator: "\n").dropFirst().joined(separator: "\n"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    package static func render(_ report: CleanReport) -> String {
        let would = report.dryRun
        var lines = ["Store: \(report.store)", ""]
        lines.append(would ? "Would change (dry run: nothing was changed)" : "Changes")
        lines.append(step("WAL checkpoint", checkpoint(report.checkpoint, dryRun: would)))
        lines.append(step("orphaned external data", externalData(report.externalData, dryRun: would)))
        if let history = report.history {
            lines.append(
                step(
                    "history",
                    "before \(history.before): "
                        + (history.present
                            ? "\(would ? "would delete" : "deleted") \(plural(history.transactions, "transaction")) and \(plural(history.changes, "change"))"
                            : "none (the store has no history tables)")))
        }
        if let repairs = report.primaryKeys {
            lines.append(
                step(
                    "primary keys",
                    repairs.isEmpty
                        ? "every Z_MAX is at or above its largest Z_PK"
                        : "\(would ? "would raise" : "raised") \(plural(repairs.count, "Z_MAX", "Z_MAX values"))"))
            for repair in repairs {
                lines.append("    \(repair.entity) (\(repair.table)): \(grouped(repair.oldMax)) → \(grouped(repair.newMax))")
            }
        }
        if report.vacuum { lines.append(step("vacuum", would ? "would rebuild the file" : "rebuilt the file")) }
        lines.append("")
        lines.append("Space")
        lines.append("  before:    \(grouped(report.bytesBefore)) bytes")
        if let after = report.bytesAfter, let reclaimed = report.bytesReclaimed {
            lines.append("  after:     \(grouped(after)) bytes")
            lines.append("  reclaimed: \(grouped(reclaimed)) bytes")
        }
        lines.append("")
        lines.append("Backup: \(report.backup ?? (report.dryRun ? "none (dry run)" : "none (--no-backup)"))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// "  label:   text", the texts lined up.
    private static func step(_ label: String, _ text: String) -> String {
        "  " + (label + ":").padding(toLength: 24, withPad: " ", startingAt: 0) + text
    }

    private static func checkpoint(_ checkpoint: CleanReport.Checkpoint, dryRun: Bool) -> String {
        guard checkpoint.walMode else { return "not in WAL mode, nothing to do" }
        guard let before = checkpoint.walBytesBefore else { return "no -wal file, nothing to do" }
        let frames = plural(checkpoint.framesToCheckpoint ?? 0, "frame")
        if dryRun { return "would copy \(frames) into the main file and empty the -wal (\(grouped(before)) bytes)" }
        return "copied \(frames) into the main file; -wal \(grouped(before)) → \(grouped(checkpoint.walBytesAfter ?? 0)) bytes"
    }

    private static func externalData(_ data: CleanReport.ExternalData, dryRun: Bool) -> String {
        if let skipped = data.skipped { return "skipped: \(skipped)" }
        guard !data.orphans.isEmpty else { return "none" }
        let names = data.orphans.prefix(5).joined(separator: ", ") + (data.orphans.count > 5 ? ", …" : "")
        return dryRun
            ? "would remove \(plural(data.orphans.count, "file")) (\(names))"
            : "removed \(plural(data.removed, "file")) (\(names))"
    }
}
