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
                var table = TextTable([("Entity", .left), ("Deleted", .right), ("Inserted", .right), ("Updated", .right)])
                for entity in data {
                    table.add([
                        entity.entity + (entity.renamedFrom.map { " (was \($0))" } ?? ""),
                        grouped(entity.deleted), grouped(entity.inserted), grouped(entity.updated),
                    ])
                }
                lines.append(table.render(indent: 2, header: true))
                for entity in data {
                    lines.append("")
                    lines += details(entity, limit: limit)
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
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
        var fields = [
            "\"storeA\":" + JSONValues.string(report.storeA),
            "\"storeB\":" + JSONValues.string(report.storeB),
            "\"same\":" + String(report.isEmpty),
            "\"model\":" + (try report.model.map(model) ?? "null"),
            "\"schema\":" + (try report.schema.map { "[" + (try $0.map(encoded).joined(separator: ",")) + "]" } ?? "null"),
            "\"metadata\":" + (try report.metadata.map { "[" + (try $0.map(encoded).joined(separator: ",")) + "]" } ?? "null"),
        ]
        let values = JSONValues()
        fields.append(
            "\"data\":"
                + (report.data.map { entities in
                    "["
                        + entities.map { entity in
                            "{"
                                + (entityFields(entity) + ["\"changes\":[" + entity.changes.map { object($0, values: values) }.joined(separator: ",") + "]"])
                                .joined(separator: ",") + "}"
                        }.joined(separator: ",") + "]"
                } ?? "null"))
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    package static func lines(_ report: StoreDiffReport) throws -> String {
        var lines: [String] = []
        if let model = report.model { lines.append("{\"section\":\"model\"," + (try self.model(model)).dropFirst()) }
        for change in report.schema ?? [] { lines.append("{\"section\":\"schema\"," + (try encoded(change)).dropFirst()) }
        for change in report.metadata ?? [] { lines.append("{\"section\":\"metadata\"," + (try encoded(change)).dropFirst()) }
        let values = JSONValues()
        for entity in report.data ?? [] {
            lines.append("{\"section\":\"entity\"," + entityFields(entity).joined(separator: ",") + "}")
            for change in entity.changes {
                lines.append("{\"section\":\"object\",\"entity\":" + JSONValues.string(entity.entity) + "," + object(change, values: values).dropFirst())
            }
        }
        lines.append("{\"section\":\"summary\",\"same\":\(report.isEmpty)}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func model(_ model: ModelComparison) throws -> String {
        "{\"sameVersion\":\(model.sameVersion),\"identifiersA\":" + strings(model.identifiersA)
            + ",\"identifiersB\":" + strings(model.identifiersB)
            + ",\"changes\":[" + (try model.changes.map(encoded).joined(separator: ",")) + "]}"
    }

    private static func entityFields(_ entity: EntityChanges) -> [String] {
        [
            "\"entity\":" + JSONValues.string(entity.entity),
            "\"renamedFrom\":" + (entity.renamedFrom.map(JSONValues.string) ?? "null"),
            "\"key\":" + (entity.key.map(strings) ?? "null"),
            "\"deleted\":\(entity.deleted)", "\"inserted\":\(entity.inserted)", "\"updated\":\(entity.updated)",
            "\"truncated\":\(entity.isTruncated)",
        ]
    }

    private static func object(_ change: ObjectChange, values: JSONValues) -> String {
        var fields = [
            "\"type\":" + JSONValues.string(change.type.rawValue),
            "\"old\":" + (change.old.map { JSONValues.string($0.uri) } ?? "null"),
            "\"new\":" + (change.new.map { JSONValues.string($0.uri) } ?? "null"),
        ]
        if let key = change.keyValues { fields.append("\"keyValues\":" + strings(key)) }
        if let object = change.object { fields.append("\"object\":" + values.object(object)) }
        if change.type == .update {
            let entries = change.properties.map { property in
                var parts = ["\"old\":" + (property.old.flatMap(values.json) ?? "null"), "\"new\":" + (property.new.flatMap(values.json) ?? "null")]
                if case .objects? = property.new {
                    parts.append("\"added\":" + strings(property.added.map(\.uri)))
                    parts.append("\"removed\":" + strings(property.removed.map(\.uri)))
                    parts.append("\"reordered\":\(property.reordered)")
                }
                return JSONValues.string(property.name) + ":{" + parts.joined(separator: ",") + "}"
            }
            fields.append("\"changes\":{" + entries.joined(separator: ",") + "}")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    private static func strings(_ list: [String]) -> String {
        "[" + list.map(JSONValues.string).joined(separator: ",") + "]"
    }

    private static func encoded<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
