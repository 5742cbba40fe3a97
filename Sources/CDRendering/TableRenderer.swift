import CDStore
import Foundation

/// A box-drawn table per entity. Column widths come from the first batch of rows, so the table
/// streams; later longer values are cut with `…`. Columns share the terminal width.
///
/// Memory stays flat in rows: until the widths are known the renderer holds at most
/// `batchSize` rows (200 by default); after that every row is written straight to the output.
/// Rows read in place wait as their cells' bytes in one buffer, and are cut and padded byte by
/// byte; objects wait as strings. A section is rendered from one or the other.
package struct TableRenderer: ObjectRenderer {
    package var values: PlainValues
    package var terminalWidth: Int
    package var batchSize: Int
    private var properties: [String] = []
    private var pending: [[String]] = []
    private var widths: [Int]?
    /// The cells of the rows read in place that wait for the widths, back to back, as their
    /// values' text.
    private var page = OutputBuffer()
    /// For each cell of `page`: where it ends and how many characters it shows.
    private var pageCells: [(end: Int, width: Int)] = []
    private var layouts = LayoutCache<TableLayout>()

    package init(values: PlainValues = PlainValues(), terminalWidth: Int = 120, batchSize: Int = 200) {
        self.values = values
        self.terminalWidth = terminalWidth
        self.batchSize = batchSize
    }

    package mutating func beginSection(entity: String, properties: [String]) -> String {
        self.properties = ["_pk"] + properties.filter { !(values.binary == .omit && $0.isEmpty) }
        pending = []
        page.removeAll()
        pageCells.removeAll(keepingCapacity: true)
        widths = nil
        layouts.removeAll()
        return entity + "\n"
    }

    package mutating func render(_ object: StoredObject) -> String {
        let row =
            [String(object.id.pk)]
            + properties.dropFirst().map { name in
                Self.cellText(object.value(name).map(values.text) ?? "")
            }
        if widths != nil { return line(row) }
        pending.append(row)
        guard pending.count >= batchSize else { return "" }
        var out = OutputBuffer()
        flush(into: &out)
        return out.text
    }

    /// Writes the object in `row` exactly as ``render(_:)`` writes ``ObjectRow/object()``, with
    /// the common values read in place and the cells cut and padded in the output buffer.
    package mutating func render(_ row: borrowing ObjectRow, into buffer: inout OutputBuffer) throws {
        let layout = layouts.prepared(for: row.layout) ?? layouts.add(TableLayout(row.layout, properties: properties), for: row.layout)
        for column in properties.indices {
            if widths != nil { buffer.append("│ ") }
            let start = buffer.count
            if column == 0 {
                buffer.append(row.pk)
            } else if let index = layout.columns[column] {
                let value = row.borrowedValue(index)
                if case .other = value {
                    buffer.append(values.text(try row.value(index)))
                } else {
                    values.append(value, of: row, property: index, targets: layout.targets, to: &buffer)
                }
            }
            endCell(column, from: start, in: &buffer)
        }
        if widths != nil {
            buffer.append("│\n")
        } else if pageCells.count >= batchSize * properties.count {
            flush(into: &buffer)
        }
    }

    package mutating func endSection() -> String {
        var out = OutputBuffer()
        if widths == nil { flush(into: &out) }
        if let widths { out.append(border("└", "┴", "┘", widths)) }
        return out.text
    }

    /// Ends the cell of `column` whose value's text was written to `buffer` from `start`: cut and
    /// padded to the column's width, or moved to the page while the widths are not known.
    private mutating func endCell(_ column: Int, from start: Int, in buffer: inout OutputBuffer) {
        guard let widths else {
            buffer.withUnsafeBytes(from: start) { text in
                page.append(text)
                pageCells.append((page.count, Self.characterCount(text)))
            }
            buffer.removeSuffix(from: start)
            return
        }
        Self.fitCell(from: start, width: widths[column], in: &buffer)
        buffer.append(UInt8(ascii: " "))
    }

    /// Sets the widths from the header and the waiting rows, then writes the header and them.
    private mutating func flush(into buffer: inout OutputBuffer) {
        var natural = properties.indices.map { column in
            ([properties[column]] + pending.map { $0[column] }).map(\.count).max() ?? 1
        }
        for (index, cell) in pageCells.enumerated() {
            natural[index % properties.count] = max(natural[index % properties.count], cell.width)
        }
        let widths = Self.fit(natural, terminalWidth: terminalWidth)
        self.widths = widths
        buffer.append(border("┌", "┬", "┐", widths) + line(properties) + border("├", "┼", "┤", widths))
        for row in pending { buffer.append(line(row)) }
        pending = []
        var cellStart = 0
        page.withUnsafeBytes(from: 0) { text in
            for (index, cell) in pageCells.enumerated() {
                let column = index % properties.count
                buffer.append("│ ")
                let start = buffer.count
                buffer.append(UnsafeBufferPointer(rebasing: text[cellStart..<cell.end]))
                cellStart = cell.end
                Self.fitCell(from: start, width: widths[column], in: &buffer)
                buffer.append(UInt8(ascii: " "))
                if column == properties.count - 1 { buffer.append("│\n") }
            }
        }
        page.removeAll()
        pageCells.removeAll(keepingCapacity: true)
    }

    /// What a cell shows of a value's text: line breaks as `↵`.
    private static func cellText(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "↵")
    }

    /// How many characters the cell of a value's text shows before it is cut to its column:
    /// bytes when each character is one byte, else counted by `String` as ``render(_:)`` counts.
    private static func characterCount(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        let found = TextBytes(text)
        if found.isOneBytePerCharacter && !found.contains(.lineFeed) { return text.count }
        return cellText(String(decoding: text, as: UTF8.self)).count
    }

    /// Rewrites the value's text written from `start` as ``line(_:)`` shows its cell in a
    /// column of `width`: cut with `…` when longer, padded with spaces. Byte by byte when each
    /// character is one byte, through `String` otherwise.
    private static func fitCell(from start: Int, width: Int, in buffer: inout OutputBuffer) {
        let found = buffer.withUnsafeBytes(from: start) { TextBytes($0) }
        guard found.isOneBytePerCharacter && !found.contains(.lineFeed) else {
            let text = buffer.withUnsafeBytes(from: start) { String(decoding: $0, as: UTF8.self) }
            buffer.removeSuffix(from: start)
            buffer.append(shown(cellText(text), width: width))
            return
        }
        var length = buffer.count - start
        if length > width {
            buffer.removeSuffix(from: start + max(width - 1, 0))
            buffer.append("…")
            length = max(width - 1, 0) + 1
        }
        buffer.append(repeating: UInt8(ascii: " "), count: width - length)
    }

    /// `text` cut to `width` characters with `…` when longer, then padded with spaces.
    private static func shown(_ text: String, width: Int) -> String {
        let cut = text.count > width ? String(text.prefix(max(width - 1, 0))) + "…" : text
        return cut + String(repeating: " ", count: width - cut.count)
    }

    /// Shrinks the widest columns one character at a time, the leftmost of equally wide ones
    /// first, until the table fits the terminal or no column is wider than 3 characters. Whole
    /// rounds over the widest columns are taken at once, so that a cell of a million characters
    /// costs no more than a short one.
    static func fit(_ natural: [Int], terminalWidth: Int) -> [Int] {
        var widths = natural
        var excess = widths.reduce(0, +) - (terminalWidth - (3 * widths.count + 1))
        while excess > 0, let widest = widths.max(), widest > 3 {
            let tied = widths.indices.filter { widths[$0] == widest }
            let next = max(widths.filter { $0 < widest }.max() ?? 3, 3)
            let rounds = min(widest - next, excess / tied.count)
            guard rounds > 0 else {
                for index in tied.prefix(excess) { widths[index] -= 1 }
                break
            }
            for index in tied { widths[index] -= rounds }
            excess -= rounds * tied.count
        }
        return widths
    }

    private func line(_ cells: [String]) -> String {
        guard let widths = widths ?? Optional(properties.map(\.count)) else { return "" }
        let parts = zip(cells, widths).map { cell, width in " " + Self.shown(cell, width: width) + " " }
        return "│" + parts.joined(separator: "│") + "│\n"
    }

    private func border(_ left: String, _ middle: String, _ right: String, _ widths: [Int]) -> String {
        left + widths.map { String(repeating: "─", count: $0 + 2) }.joined(separator: middle) + right + "\n"
    }
}

/// What ``TableRenderer`` needs for every object of one layout in the current section, prepared
/// once.
final class TableLayout {
    /// For each column of the section (the first is `_pk`), the layout's property shown there,
    /// if it has it.
    let columns: [Int?]
    let targets: TargetPrefixes

    init(_ layout: ObjectLayout, properties: [String]) {
        columns = properties.enumerated().map { $0.offset == 0 ? nil : layout.names.firstIndex(of: $0.element) }
        targets = TargetPrefixes(layout)
    }
}
