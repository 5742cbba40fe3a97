/// Left- or right-aligned plain-text columns, padded to the widest cell: the one column layout
/// of every text report.
package struct TextTable {
    package enum Alignment: Sendable { case left, right }

    package var columns: [(title: String, alignment: Alignment)]
    package var rows: [[String]] = []

    /// Columns with titles, shown as a header line by ``render(indent:header:separator:)``.
    package init(_ columns: [(String, Alignment)]) {
        self.columns = columns.map { (title: $0.0, alignment: $0.1) }
    }

    /// Untitled columns, all left-aligned, for label/value lists rendered without a header.
    package init(columns count: Int) {
        self.init(Array(repeating: ("", .left), count: count))
    }

    package mutating func add(_ row: [String]) { rows.append(row) }

    /// The table, each line indented by `indent` spaces, columns `separator` apart. Trailing
    /// spaces are cut, so an empty last cell leaves no padding behind.
    package func render(indent: Int = 2, header: Bool = true, separator: String = "  ") -> String {
        let all = (header ? [columns.map(\.title)] : []) + rows
        let widths = columns.indices.map { index in all.map { $0[index].count }.max() ?? 0 }
        let pad = String(repeating: " ", count: indent)
        return all.map { row in
            let cells = columns.indices.map { index -> String in
                let cell = row[index]
                let fill = String(repeating: " ", count: widths[index] - cell.count)
                return columns[index].alignment == .left ? cell + fill : fill + cell
            }
            return Self.trailingSpacesRemoved(pad + cells.joined(separator: separator))
        }.joined(separator: "\n")
    }

    private static func trailingSpacesRemoved(_ line: String) -> String {
        var copy = line
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
