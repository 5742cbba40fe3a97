import CDBase
import CDChanges
import CDDiff
import CDRendering

/// The text of `cdstore wal --changes`: a heading per commit, then its changes as `diff`
/// writes a data section.
package enum WALChangesText {
    package static func render(_ changes: WALChanges, limit: Int) -> String {
        var lines = [
            "\(changes.store): "
                + (changes.commits.isEmpty
                    ? "no commit in the log"
                    : "changes of commits \(changes.commits[0].number) to \(changes.commits[changes.commits.count - 1].number) of \(changes.commitCount)")
        ]
        for commit in changes.commits {
            var heading = "Commit \(commit.number) (\(plural(commit.frames, "frame")), \(plural(commit.pages, "page"))"
            if let reason = commit.wholeStoreReason { heading += "; the whole store compared: \(reason)" }
            heading += ")"
            lines.append("")
            if let unreadable = commit.unreadable {
                lines.append(heading + ": \(unreadable)")
            } else if let created = commit.created {
                let total = created.reduce(0) { $0 + $1.objects }
                lines.append(heading + ": made the store's tables; \(plural(total, "object")) after it")
                let listed = created.filter { $0.objects > 0 }
                if !listed.isEmpty {
                    var table = TextTable([("Entity", .left), ("Objects", .right)])
                    for entry in listed { table.add([entry.entity, grouped(entry.objects)]) }
                    lines.append(table.render(indent: 2, header: true))
                }
            } else if commit.data.isEmpty {
                lines.append(heading + ": no object changed" + (commit.tables.isEmpty ? "" : "; rows of " + commit.tables.joined(separator: ", ")))
            } else {
                lines.append(heading + ":")
                lines += DiffText.dataLines(commit.data, limit: limit)
            }
            if !commit.transactions.isEmpty {
                lines.append("  History: \(plural(commit.transactions.count, "transaction")) added")
                for transaction in commit.transactions {
                    lines.append("    " + HistoryText.summary(transaction))
                    lines += transaction.changes.prefix(limit).map { "      " + HistoryText.line($0) }
                    if transaction.changes.count > limit { lines.append("      … and \(grouped(transaction.changes.count - limit)) more (--limit \(limit))") }
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The JSON of `cdstore wal --changes --json` (schemas/wal-changes.schema.json): each commit
/// with its changes as `diff`'s JSON writes its `data` array.
package enum WALChangesJSON {
    package static func document(_ changes: WALChanges) throws -> String {
        var json = JSONWriter()
        json.beginObject()
        json.member("store", changes.store)
        json.member("commitCount", changes.commitCount)
        json.key("commits")
        json.beginArray()
        for commit in changes.commits {
            json.beginObject()
            json.member("number", commit.number)
            json.member("frames", commit.frames)
            json.member("pages", commit.pages)
            json.member("comparedBy", commit.wholeStoreReason == nil ? "pages" : "store")
            json.member("wholeStoreReason", commit.wholeStoreReason)
            json.member("unreadable", commit.unreadable)
            json.key("tables")
            json.strings(commit.tables)
            json.key("created")
            if let created = commit.created {
                json.beginObject()
                for entry in created { json.member(entry.entity, entry.objects) }
                json.endObject()
            } else {
                json.null()
            }
            json.key("data")
            DiffJSON.write(commit.data, to: &json)
            json.key("transactions")
            json.beginArray()
            for transaction in commit.transactions { try json.encoded(transaction) }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
        json.endLine()
        return json.text
    }
}
