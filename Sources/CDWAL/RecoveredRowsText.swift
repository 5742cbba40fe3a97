import CDBase
import CDRendering

/// The text and JSON of `cdstore wal --recovered` (schemas/wal-recovered.schema.json).
package enum RecoveredRowsText {
    package static func render(_ recovered: RecoveredRows) -> String {
        var lines = [
            "\(recovered.store): \(plural(recovered.rows.count, "row")) recovered from \(plural(recovered.freePages, "free page")) "
                + "and \(plural(recovered.frames, "frame")) outside every commit: deleted or overwritten rows, not live objects, "
                + "decoded with today's table layout"
        ]
        for row in recovered.rows {
            lines.append("")
            lines.append("\(row.entity) p\(row.pk) (\(row.source.text))" + (row.partial ? ", partial: values on overflow pages not read" : ""))
            lines.append("  " + row.uri)
            for (name, value) in row.values { lines.append("  \(name) = \(DescriptionRenderer.changeText(value))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    package static func document(_ recovered: RecoveredRows) -> String {
        var json = JSONWriter()
        let values = JSONValues()
        json.beginObject()
        json.member("store", recovered.store)
        json.member("freePages", recovered.freePages)
        json.member("frames", recovered.frames)
        json.key("rows")
        json.beginArray()
        for row in recovered.rows {
            json.beginObject()
            json.member("entity", row.entity)
            json.member("pk", Int(row.pk))
            json.member("uri", row.uri)
            json.key("source")
            json.beginObject()
            switch row.source {
            case .freePage(let page):
                json.member("kind", "freePage")
                json.member("page", page)
                json.member("frame", nil as Int?)
            case .earlierGeneration(let frame, let page):
                json.member("kind", "earlierGeneration")
                json.member("page", page)
                json.member("frame", frame)
            case .uncommitted(let frame, let page):
                json.member("kind", "uncommitted")
                json.member("page", page)
                json.member("frame", frame)
            }
            json.endObject()
            json.member("partial", row.partial)
            json.key("values")
            json.beginObject()
            for (name, value) in row.values {
                json.key(name)
                values.write(value, to: &json)
            }
            json.endObject()
            json.endObject()
        }
        json.endArray()
        json.endObject()
        json.endLine()
        return json.text
    }
}
