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
        ObjectPrinter(renderer: makeRenderer(), template: template, notesEmptyResult: !format.isMachineReadable)
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

/// Streams objects into a renderer and the command's output, section by section.
final class ObjectPrinter {
    private var renderer: any ObjectRenderer
    /// The `--template` placeholders, checked against each entity before its objects print.
    private let templateKeys: [String]
    private let output = BufferedOutput(to: CommandIO.current.output)
    /// Room for a full output chunk plus one large row, so rows are written in place.
    private var pending = ByteBuffer(capacity: 80 * 1024)
    private var open = false
    /// Whether the output says "no objects" when nothing else was printed: a text format that
    /// printed nothing would look like a command that did not run; JSON, NDJSON and CSV keep
    /// their empty forms for the programs reading them.
    private let notesEmptyResult: Bool
    private var printedAnything = false

    init(renderer: any ObjectRenderer, template: String? = nil, notesEmptyResult: Bool = false) {
        self.renderer = renderer
        self.notesEmptyResult = notesEmptyResult
        self.templateKeys = template.map(LineRenderer.placeholders(in:)) ?? []
    }

    func section(_ section: ObjectSection) throws {
        let known = Set(section.properties).union(LineRenderer.objectKeys)
        // A UserFacingError, as the reader passes those through unchanged from inside a read.
        if let unknown = templateKeys.first(where: { !known.contains($0) }) {
            throw TemplateError.unknownKey(unknown, entity: section.entity, properties: section.properties)
        }
        try output.write(&pending)
        if open { try write(renderer.endSection()) }
        try write(renderer.beginSection(entity: section.entity, properties: section.properties))
        open = true
    }

    func object(_ object: StoredObject) throws {
        printedAnything = true
        renderer.render(object, into: &pending)
        if pending.count >= output.limit { try output.write(&pending) }
    }

    /// A row read in place (``ObjectReader/readRows(_:section:row:)``): the renderers write
    /// its values without building a ``StoredObject``.
    func row(_ row: borrowing ObjectRow) throws {
        printedAnything = true
        try renderer.render(row, into: &pending)
        if pending.count >= output.limit { try output.write(&pending) }
    }

    func finish() throws {
        try output.write(&pending)
        if open { try write(renderer.endSection()) }
        try write(renderer.finish())
        if notesEmptyResult && !printedAnything { try output.write("no objects\n") }
        try output.flush()
    }

    private func write(_ text: String) throws {
        if !text.isEmpty { printedAnything = true }
        try output.write(text)
    }
}

/// A `--template` placeholder that names no property of the entity being printed.
enum TemplateError: UserFacingError, Equatable {
    /// `{key}` is not a property of `entity`; `properties` are its properties, in order.
    case unknownKey(_ key: String, entity: String, properties: [String])

    var message: String {
        switch self {
        case .unknownKey(let key, let entity, let properties):
            return "--template {\(key)}: \(entity) has no property \(key); its properties: \(properties.joined(separator: ", "))"
        }
    }
}
