import Foundation

/// The formats objects print in (`--format` of `dump` and `query`, `.format` in the console),
/// with the renderer and the value-row format each one means, so every front end makes the
/// same choice.
package enum ObjectFormat: String, Sendable, CaseIterable {
    case description, line, table, expanded, json, ndjson, csv

    /// The text formats show a to-many relationship's size; the others leave it a fault.
    package var countsToMany: Bool { self != .description && self != .json && self != .ndjson }

    /// Whether the output is meant for another program (a trailing note would break it).
    package var isMachineReadable: Bool { self == .json || self == .ndjson || self == .csv }

    /// The renderer for this format; a `template` makes it a ``LineRenderer`` with that `to_s`.
    package func renderer(
        template: String? = nil, binary: BinaryMode = .summary, null: String = "",
        terminalWidth: Int = 120
    ) -> any ObjectRenderer {
        let plain = PlainValues(binary: binary, null: null)
        if let template { return LineRenderer(template: template, values: plain) }
        switch self {
        case .description: return DescriptionRenderer()
        case .line: return LineRenderer(values: plain)
        case .table: return TableRenderer(values: plain, terminalWidth: terminalWidth)
        case .expanded: return ExpandedRenderer(values: plain)
        case .json: return JSONRenderer(values: JSONValues(binary: binary))
        case .ndjson: return NDJSONRenderer(values: JSONValues(binary: binary))
        case .csv: return CSVRenderer(values: plain)
        }
    }

    /// Value rows (counts, distinct values, aggregates) in the nearest format.
    package var valueRowFormat: ValueRowRenderer.Format {
        switch self {
        case .json: return .json
        case .ndjson: return .ndjson
        case .csv: return .csv
        default: return .text
        }
    }
}

/// The terminal's width: `COLUMNS`, the tty's size, or 120 when output is not a terminal.
package enum Terminal {
    /// The width to lay output out to: `columnsVariable` (the `COLUMNS` value), else the
    /// terminal's own width, else 120; widths of 20 or less are ignored. The commands pass what
    /// their `CommandIO` holds, the console what the process has.
    package static func width(columnsVariable: String?, terminalColumns: Int?) -> Int {
        if let columns = columnsVariable.flatMap(Int.init), columns > 20 { return columns }
        if let terminalColumns, terminalColumns > 20 { return terminalColumns }
        return 120
    }

    /// The width of the terminal on `descriptor`, with the process's `COLUMNS` first.
    package static func width(of descriptor: Int32) -> Int {
        var size = winsize()
        let columns = ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 ? Int(size.ws_col) : nil
        return width(columnsVariable: ProcessInfo.processInfo.environment["COLUMNS"], terminalColumns: columns)
    }
}
