import ArgumentParser
import CDBase
import CDRendering
import CDStore

/// The output options `dump` and `query` share.
struct ObjectOutputOptions: ParsableArguments {
    typealias Format = ObjectFormat

    @Option(name: .long, help: "Output format: description, line, table, expanded, json, ndjson or csv.")
    var format: Format = .expanded

    @Option(name: .long, help: ArgumentHelp("A line per object with {property} placeholders (implies --format line).", valueName: "text"))
    var template: String?

    @Option(name: .long, help: ArgumentHelp("Fetch the members of this to-many relationship; repeatable.", valueName: "relationship"))
    var include: [String] = []

    @Option(name: .long, help: "How binary values appear: omit, summary, hex or base64.")
    var binary: BinaryMode = .summary

    @Option(name: .long, help: ArgumentHelp("Text for nil values in line, table, expanded and csv output.", valueName: "text"))
    var null: String = ""

    func validate() throws {
        if template != nil && format != .expanded && format != .line {
            throw ValidationError("--template goes with --format line")
        }
    }

    /// The text formats show a to-many relationship's size; the others leave it a fault.
    var countsToMany: Bool { format.countsToMany }

    private func makeRenderer() -> any ObjectRenderer {
        format.renderer(template: template, binary: binary, null: null, terminalWidth: CommandIO.current.layoutWidth)
    }

    /// A printer for this output, checking the template's placeholders.
    func makePrinter() -> ObjectPrinter {
        ObjectPrinter(
            renderer: makeRenderer(), output: BufferedOutput(to: CommandIO.current.output), template: template,
            notesEmptyResult: !format.isMachineReadable)
    }

    /// Value rows (counts, distinct values, aggregates) in the nearest format.
    func valueRenderer(names: [String]) -> ValueRowRenderer {
        ValueRowRenderer(
            names: names, format: format.valueRowFormat, plain: PlainValues(binary: binary, null: null),
            json: JSONValues(binary: binary))
    }
}

extension BinaryMode: ExpressibleByArgument {}
extension ObjectFormat: ExpressibleByArgument {}
