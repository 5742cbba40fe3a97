/// Left- or right-aligned plain-text columns, padded to the widest cell.
package struct TextTable {
    package enum Alignment { case left, right }

    var columns: [(title: String, alignment: Alignment)]
    var rows: [[String]] = []

    package init(_ columns: [(String, Alignment)]) {
        self.columns = columns.map { (title: $0.0, alignment: $0.1) }
    }

    package mutating func add(_ row: [String]) { rows.append(row) }

    /// The table with a header line, each line indented by `indent` spaces.
    package func render(indent: Int = 2) -> String {
        let all = [columns.map(\.title)] + rows
        let widths = columns.indices.map { index in all.map { $0[index].count }.max() ?? 0 }
        let pad = String(repeating: " ", count: indent)
        return all.map { row in
            let cells = columns.indices.map { index -> String in
                let cell = row[index]
                let fill = String(repeating: " ", count: widths[index] - cell.count)
                return columns[index].alignment == .left ? cell + fill : fill + cell
            }
            return pad + cells.joined(separator: "  ").trailingSpacesRemoved
        }.joined(separator: "\n")
    }
}

extension String {
    var trailingSpacesRemoved: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}

/// Thousands separators, as people read byte and row counts: 1,763,392.
package func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(character)
    }
    return (value < 0 ? "-" : "") + result
}

func plural(_ count: Int, _ singular: String, _ pluralForm: String? = nil) -> String {
    "\(grouped(count)) \(count == 1 ? singular : (pluralForm ?? singular + "s"))"
}
