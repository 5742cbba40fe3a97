import CDBase
import Foundation

/// The text of `cdstore wal`: the log's header, a table of its commits, then what SQLite's
/// recovery leaves out.
package enum WALText {
    package static func render(_ report: WALReport) -> String {
        var lines = [
            "\(report.path): \(plural(Int(report.fileBytes), "byte")), page size \(grouped(report.pageSize)), checkpoint sequence "
                + "\(report.checkpointSequence), salts \(report.salts.map(hex).joined(separator: " ")), \(report.checksumByteOrder) checksums",
            "\(plural(report.commits.count, "commit")) in \(plural(report.commits.reduce(0) { $0 + $1.frames }, "frame"))"
                + (report.mainFileEmpty ? "; the main file alone holds no table: every table is in the log" : ""),
        ]
        if !report.commits.isEmpty {
            var table = TextTable([
                ("COMMIT", .right), ("FRAMES", .right), ("PAGES", .right), ("DB PAGES", .right), ("FREE", .right), ("TABLES", .left), ("ENTITIES", .left),
            ])
            for commit in report.commits {
                table.add([
                    String(commit.number), grouped(commit.frames), grouped(commit.pages.count), grouped(commit.databasePages),
                    commit.freePages.map(grouped) ?? "?", commit.tables?.joined(separator: ", ") ?? "? (no dbstat)",
                    commit.entities?.joined(separator: ", ") ?? (commit.tables == nil ? "?" : "? (no model cache)"),
                ])
            }
            lines += ["", table.render(indent: 0)]
        }
        var after: [String] = []
        if report.uncommittedFrames > 0 {
            after.append("\(plural(report.uncommittedFrames, "frame")) after the last commit, never committed (SQLite ignores them)")
        }
        if let frame = report.badChecksumFrame {
            after.append(
                "frame \(grouped(frame)) fails its checksum: SQLite reads the log up to the frame before it; "
                    + "\(plural(report.framesAfterBadChecksum, "more frame")) of this generation after it")
        }
        if report.earlierGenerationFrames > 0 {
            after.append("\(plural(report.earlierGenerationFrames, "frame")) of an earlier generation of the log (other salts), ignored")
        }
        if report.tornBytes > 0 { after.append("a last frame cut short: \(plural(report.tornBytes, "byte")) of it") }
        lines += [""] + (after.isEmpty ? ["Nothing after the last commit."] : after)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func hex(_ value: UInt32) -> String { "0x" + String(format: "%08x", value) }
}
