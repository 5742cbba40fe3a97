import CDBase
import CDChanges
import CDDiagnostics
import CDRendering
import CDStore
import Foundation

/// The text, JSON and NDJSON forms of a ``StoreDiffReport``.
///
/// Text: each part compared, counts before details: the model changes in `compat`'s words,
/// the schema and metadata differences, a table of the objects deleted, inserted and updated
/// per entity, then each entity's first changes with values as `dump` writes them. Two equal
/// stores give the one line `no differences`.
package enum DiffText {
    package static func render(_ report: StoreDiffReport, limit: Int) -> String {
        guard !report.isEmpty else { return "no differences\n" }
        var lines = ["--- \(report.storeA)", "+++ \(report.storeB)"]
        if let model = report.model {
            lines.append("")
            if model.sameVersion && model.changes.isEmpty {
                lines.append("Model: same model version" + identifiers(model.identifiersB))
            } else {
                lines.append(
                    "Model: \(plural(model.changes.count, "change")) from A's model" + identifiers(model.identifiersA)
                        + " to B's" + identifiers(model.identifiersB) + ":")
                for change in model.changes {
                    let target = [change.entity, change.property].compactMap { $0 }.joined(separator: ".")
                    lines.append("  \(change.kind.rawValue) \(target): \(change.detail)" + (change.inferable ? "" : " [not inferable]"))
                }
                if model.changes.isEmpty { lines.append("  (the entity version hashes differ, but no property does)") }
            }
        }
        if let schema = report.schema {
            lines.append("")
            lines.append(schema.isEmpty ? "Schema: no differences" : "Schema: \(plural(schema.count, "difference")):")
            for change in schema {
                let object = change.name.map { change.table + "." + $0 } ?? change.table
                var line = "  \(change.kind.rawValue) \(object)" + (change.modelName.map { " (\($0))" } ?? "")
                if change.kind == .columnTypeChanged { line += ": \(change.old ?? "") → \(change.new ?? "")" }
                if let note = change.note { line += " — \(note)" }
                lines.append(line)
            }
        }
        if let metadata = report.metadata {
            lines.append("")
            lines.append(metadata.isEmpty ? "Metadata: no differences" : "Metadata: \(plural(metadata.count, "difference")):")
            for change in metadata {
                lines.append("  \(change.key): \(change.old ?? "(none)") → \(change.new ?? "(none)")")
            }
        }
        if let data = report.data {
            lines.append("")
            if data.isEmpty {
                lines.append("Data: no differences")
            } else {
                lines.append("Data: \(plural(data.count, "entity", "entities")) " + (data.count == 1 ? "differs:" : "differ:"))
                lines += dataLines(data, limit: limit)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The objects that differ: a table of counts per entity, then each entity's changes
    /// (`limit` of them, as ``EntityChanges`` lists them). `wal --changes` writes a commit's
    /// changes with it.
    package static func dataLines(_ data: [EntityChanges], limit: Int) -> [String] {
        var table = TextTable([("Entity", .left), ("Deleted", .right), ("Inserted", .right), ("Updated", .right)])
        for entity in data {
            table.add([
                entity.entity + (entity.renamedFrom.map { " (was \($0))" } ?? ""),
                grouped(entity.deleted), grouped(entity.inserted), grouped(entity.updated),
            ])
        }
        var lines = [table.render(indent: 2, header: true)]
        for entity in data {
            lines.append("")
            lines += details(entity, limit: limit)
        }
        return lines
    }

    /// ` (identifiers)`, or nothing for a model without version identifiers.
    private static func identifiers(_ list: [String]) -> String {
        list.allSatisfy(\.isEmpty) ? "" : " (" + list.joined(separator: ", ") + ")"
    }

    private static func details(_ entity: EntityChanges, limit: Int) -> [String] {
        var counts: [String] = []
        if entity.deleted > 0 { counts.append("\(grouped(entity.deleted)) deleted") }
        if entity.inserted > 0 { counts.append("\(grouped(entity.inserted)) inserted") }
        if entity.updated > 0 { counts.append("\(grouped(entity.updated)) updated") }
        let key = entity.key.map { " (matched by \($0.joined(separator: ", ")))" } ?? ""
        var lines = ["\(entity.entity)\(key): " + counts.joined(separator: ", ")]
        var describer = DescriptionRenderer()
        for change in entity.changes {
            let keyText =
                change.keyValues.map { values in
                    " [" + zip(entity.key ?? [], values).map { "\($0) = \($1)" }.joined(separator: ", ") + "]"
                } ?? ""
            switch change.type {
            case .delete, .insert:
                let verb = change.type == .insert ? "inserted" : "deleted"
                let id = change.type == .insert ? change.new : change.old
                lines.append("  \(verb) \(id?.uri ?? "?")\(keyText)")
                if let object = change.object {
                    lines.append(
                        "    "
                            + describer.render(object).trimmingCharacters(in: .newlines)
                            .replacingOccurrences(of: "\n", with: "\n    "))
                }
            case .update:
                let ids =
                    change.old?.uri == change.new?.uri || change.old?.pk == change.new?.pk && change.old?.entity == change.new?.entity
                    ? (change.new?.uri ?? "?") : "\(change.old?.uri ?? "?") → \(change.new?.uri ?? "?")"
                lines.append("  updated \(ids)\(keyText)")
                for property in change.properties {
                    lines.append("    \(property.name): " + propertyText(property))
                }
            }
        }
        if entity.isTruncated {
            lines.append("  … and \(grouped(entity.total - entity.changes.count)) more (--limit \(limit))")
        }
        return lines
    }

    private static func propertyText(_ property: PropertyDifference) -> String {
        if case .objects? = property.new, case .objects? = property.old {
            var parts: [String] = []
            if !property.added.isEmpty { parts.append("added " + shortList(property.added.map(\.uri))) }
            if !property.removed.isEmpty { parts.append("removed " + shortList(property.removed.map(\.uri))) }
            if property.reordered { parts.append("order " + memberList(property.old) + " → " + memberList(property.new)) }
            return parts.joined(separator: "; ")
        }
        return DescriptionRenderer.changeText(property.old) + " → " + DescriptionRenderer.changeText(property.new)
    }

    private static func memberList(_ value: ObjectValue?) -> String {
        guard case .objects(let members?)? = value else { return "()" }
        return "(" + shortList(members.map { "\($0.entity)/p\($0.pk)" }) + ")"
    }

    /// Members listed in a line: the first ten, then how many more, as a description lists a
    /// to-many relationship. JSON lists them all.
    private static func shortList(_ items: [String]) -> String {
        let shown = items.prefix(10).joined(separator: ", ")
        return items.count > 10 ? shown + " … and \(items.count - 10) more" : shown
    }
}

/// The JSON forms: one document (`--format json`, schemas/diff.schema.json) or one JSON object
/// per line (`--format ndjson`, schemas/diff-line.schema.json).
package enum DiffJSON {
    package static func document(_ report: StoreDiffReport) throws -> String {
        var json = JSONWriter()
        try write(report, to: &json)
        json.endLine()
        return json.text
    }

    /// The document of ``document(_:)``, without its final newline.
    package static func write(_ report: StoreDiffReport, to json: inout JSONWriter) throws {
        json.beginObject()
        json.member("storeA", report.storeA)
        json.member("storeB", report.storeB)
        json.member("same", report.isEmpty)
        json.key("model")
        if let model = report.model {
            json.beginObject()
            try writeMembers(model, to: &json)
            json.endObject()
        } else {
            json.null()
        }
        json.key("schema")
        if let schema = report.schema {
            json.beginArray()
            for change in schema { write(change, to: &json) }
            json.endArray()
        } else {
            json.null()
        }
        json.key("metadata")
        if let metadata = report.metadata {
            json.beginArray()
            for change in metadata { write(change, to: &json) }
            json.endArray()
        } else {
            json.null()
        }
        json.key("data")
        if let data = report.data {
            write(data, to: &json)
        } else {
            json.null()
        }
        json.endObject()
    }

    /// The objects that differ as the document's `data` array, entity by entity; `wal --changes`
    /// writes a commit's changes with it.
    package static func write(_ data: [EntityChanges], to json: inout JSONWriter) {
        let values = JSONValues()
        json.beginArray()
        for entity in data {
            json.beginObject()
            writeMembers(entity, to: &json)
            json.key("changes")
            json.beginArray()
            for change in entity.changes {
                json.beginObject()
                writeMembers(change, values: values, to: &json)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
        json.endArray()
    }

    package static func lines(_ report: StoreDiffReport) throws -> String {
        var json = JSONWriter()
        func line(_ section: String, _ members: (inout JSONWriter) throws -> Void) rethrows {
            json.beginObject()
            json.member("section", section)
            try members(&json)
            json.endObject()
            json.endLine()
        }
        if let model = report.model { try line("model") { try writeMembers(model, to: &$0) } }
        for change in report.schema ?? [] { line("schema") { writeMembers(change, to: &$0) } }
        for change in report.metadata ?? [] { line("metadata") { writeMembers(change, to: &$0) } }
        let values = JSONValues()
        for entity in report.data ?? [] {
            line("entity") { writeMembers(entity, to: &$0) }
            for change in entity.changes {
                line("object") {
                    $0.member("entity", entity.entity)
                    writeMembers(change, values: values, to: &$0)
                }
            }
        }
        line("summary") { $0.member("same", report.isEmpty) }
        return json.text
    }

    private static func writeMembers(_ model: ModelComparison, to json: inout JSONWriter) throws {
        json.member("sameVersion", model.sameVersion)
        json.key("identifiersA")
        json.strings(model.identifiersA)
        json.key("identifiersB")
        json.strings(model.identifiersB)
        json.key("changes")
        json.beginArray()
        for change in model.changes { try json.encoded(change) }
        json.endArray()
    }

    private static func write(_ change: SchemaChange, to json: inout JSONWriter) {
        json.beginObject()
        writeMembers(change, to: &json)
        json.endObject()
    }

    /// The keys in sorted order and a missing value left out, as every report's Codable
    /// encoding (``ReportJSON``) writes them.
    private static func writeMembers(_ change: SchemaChange, to json: inout JSONWriter) {
        json.member("kind", change.kind.rawValue)
        if let modelName = change.modelName { json.member("modelName", modelName) }
        if let name = change.name { json.member("name", name) }
        if let new = change.new { json.member("new", new) }
        if let note = change.note { json.member("note", note) }
        if let old = change.old { json.member("old", old) }
        json.member("table", change.table)
    }

    private static func write(_ change: MetadataChange, to json: inout JSONWriter) {
        json.beginObject()
        writeMembers(change, to: &json)
        json.endObject()
    }

    /// The keys in sorted order, a missing value left out, as for a schema change.
    private static func writeMembers(_ change: MetadataChange, to json: inout JSONWriter) {
        json.member("key", change.key)
        if let new = change.new { json.member("new", new) }
        if let old = change.old { json.member("old", old) }
    }

    private static func writeMembers(_ entity: EntityChanges, to json: inout JSONWriter) {
        json.member("entity", entity.entity)
        json.member("renamedFrom", entity.renamedFrom)
        json.key("key")
        if let key = entity.key { json.strings(key) } else { json.null() }
        json.member("deleted", entity.deleted)
        json.member("inserted", entity.inserted)
        json.member("updated", entity.updated)
        json.member("truncated", entity.isTruncated)
    }

    private static func writeMembers(_ change: ObjectChange, values: JSONValues, to json: inout JSONWriter) {
        json.member("type", change.type.rawValue)
        json.member("old", change.old?.uri)
        json.member("new", change.new?.uri)
        if let key = change.keyValues {
            json.key("keyValues")
            json.strings(key)
        }
        if let object = change.object {
            json.key("object")
            values.write(object, to: &json)
        }
        if change.type == .update {
            json.key("changes")
            json.beginObject()
            for property in change.properties {
                values.beginChange(property.name, old: property.old, new: property.new, to: &json)
                if case .objects? = property.new {
                    json.key("added")
                    json.strings(property.added.map(\.uri))
                    json.key("removed")
                    json.strings(property.removed.map(\.uri))
                    json.member("reordered", property.reordered)
                }
                json.endObject()
            }
            json.endObject()
        }
    }
}
