import ArgumentParser
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

    func makeRenderer() -> any ObjectRenderer {
        format.renderer(template: template, binary: binary, null: null, terminalWidth: CommandIO.current.layoutWidth)
    }

    /// Value rows (counts, distinct values, aggregates) in the nearest format.
    func valueRenderer(names: [String]) -> ValueRowRenderer {
        ValueRowRenderer(names: names, format: format.valueRowFormat, plain: PlainValues(binary: binary, null: null),
                         json: JSONValues(binary: binary))
    }
}

extension BinaryMode: ExpressibleByArgument {}
extension ObjectFormat: ExpressibleByArgument {}

/// Streams objects into a renderer and the command's output, section by section.
final class ObjectPrinter {
    private var renderer: any ObjectRenderer
    private let output = BufferedOutput(to: CommandIO.current.output)
    /// Room for a full output chunk plus one large row, so rows are written in place.
    private var pending = ByteBuffer(capacity: 80 * 1024)
    private var open = false

    init(renderer: any ObjectRenderer) {
        self.renderer = renderer
    }

    func section(_ section: ObjectSection) throws {
        try output.write(&pending)
        if open { try output.write(renderer.endSection()) }
        try output.write(renderer.beginSection(entity: section.entity, properties: section.properties))
        open = true
    }

    func object(_ object: StoredObject) throws {
        renderer.render(object, into: &pending)
        if pending.count >= output.limit { try output.write(&pending) }
    }

    /// A row read in place (``ObjectReader/readRows(_:section:row:)``): the JSON and CSV
    /// renderers write its values without building a ``StoredObject``.
    func row(_ row: borrowing ObjectRow) throws {
        try renderer.render(row, into: &pending)
        if pending.count >= output.limit { try output.write(&pending) }
    }

    func finish() throws {
        try output.write(&pending)
        if open { try output.write(renderer.endSection()) }
        try output.write(renderer.finish())
        try output.flush()
    }
}
