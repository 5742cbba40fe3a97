import CDStore

/// Rows of plain values — distinct values, an aggregate, a count — in the output formats of
/// `cdstore query`: text (tab-separated, a header line when there are several columns), json
/// (an array of objects), ndjson (an object per line) and csv (RFC 4180 with a header row).
package struct ValueRowRenderer {
    package enum Format: Sendable {
        case text, json, ndjson, csv
    }

    package let names: [String]
    package let format: Format
    private let plain: PlainValues
    private let json: JSONValues
    private var rows = 0

    package init(names: [String], format: Format, plain: PlainValues = PlainValues(), json: JSONValues = JSONValues()) {
        self.names = names
        self.format = format
        self.plain = plain
        self.json = json
    }

    /// Text before the first row.
    package func header() -> String {
        switch format {
        case .text: return names.count > 1 ? names.joined(separator: "\t") + "\n" : ""
        case .csv: return names.map(CSVRenderer.field).joined(separator: ",") + "\r\n"
        case .json, .ndjson: return ""
        }
    }

    package mutating func row(_ values: [ObjectValue]) -> String {
        defer { rows += 1 }
        switch format {
        case .text:
            return values.map { plain.text($0) }.joined(separator: "\t") + "\n"
        case .csv:
            return values.map { CSVRenderer.field(plain.text($0)) }.joined(separator: ",") + "\r\n"
        case .json, .ndjson:
            var object = JSONWriter()
            object.beginObject()
            for (name, value) in zip(names, values) {
                object.key(name)
                json.write(value, to: &object)
            }
            object.endObject()
            guard format == .json else { return object.text + "\n" }
            return (rows == 0 ? "[\n" : ",\n") + object.text
        }
    }

    /// Text after the last row.
    package func footer() -> String {
        guard format == .json else { return "" }
        return rows == 0 ? "[]\n" : "\n]\n"
    }
}
