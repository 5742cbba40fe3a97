import CDBase
import CDStore

/// Where an ``ObjectPrinter`` writes: the command line's buffered standard output, or the
/// console's writer.
package protocol ObjectPrinterOutput: AnyObject {
    /// How many pending bytes the printer gathers before handing them over.
    var chunkSize: Int { get }
    func write(_ text: String) throws
    /// Takes the bytes of `bytes`, leaving it empty for reuse.
    func write(_ bytes: inout OutputBuffer) throws
    func flush() throws
}

/// Streams objects into a renderer and an output, section by section: the one object printer
/// of the commands (`dump`, `query`) and the console.
package final class ObjectPrinter {
    /// What a text format prints when a fetch found nothing: an empty output would look like a
    /// command that did not run. JSON, NDJSON and CSV keep their empty forms for the programs
    /// reading them.
    package static let emptyResultNote = "(no objects)"

    private var renderer: any ObjectRenderer
    /// The `--template` placeholders, checked against each entity before its objects print.
    private let templateKeys: [String]
    private let output: any ObjectPrinterOutput
    /// Room for a full output chunk plus one large row, so rows are written in place.
    private var pending = OutputBuffer(capacity: 80 * 1024)
    private var open = false
    /// Whether ``emptyResultNote`` prints when nothing else was printed.
    private let notesEmptyResult: Bool
    private var printedAnything = false

    /// `template`, when given, is checked against every section's properties (a template the
    /// console set with `.template` was checked when it was set, so it passes none).
    package init(renderer: any ObjectRenderer, output: any ObjectPrinterOutput, template: String? = nil, notesEmptyResult: Bool) {
        self.renderer = renderer
        self.output = output
        self.notesEmptyResult = notesEmptyResult
        self.templateKeys = template.map(LineRenderer.placeholders(in:)) ?? []
    }

    package func section(_ section: ObjectSection) throws {
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

    package func object(_ object: StoredObject) throws {
        printedAnything = true
        renderer.render(object, into: &pending)
        if pending.count >= output.chunkSize { try output.write(&pending) }
    }

    /// A row read in place (``ObjectReader/readRows(_:section:row:)``): the renderers write
    /// its values without building a ``StoredObject``.
    package func row(_ row: borrowing ObjectRow) throws {
        printedAnything = true
        try renderer.render(row, into: &pending)
        if pending.count >= output.chunkSize { try output.write(&pending) }
    }

    package func finish() throws {
        try output.write(&pending)
        if open { try write(renderer.endSection()) }
        try write(renderer.finish())
        if notesEmptyResult && !printedAnything { try output.write(Self.emptyResultNote + "\n") }
        try output.flush()
    }

    private func write(_ text: String) throws {
        if !text.isEmpty { printedAnything = true }
        try output.write(text)
    }
}

/// A `--template` placeholder that names no property of the entity being printed.
package enum TemplateError: UserFacingError, Equatable {
    /// `{key}` is not a property of `entity`; `properties` are its properties, in order.
    case unknownKey(_ key: String, entity: String, properties: [String])

    package var message: String {
        switch self {
        case .unknownKey(let key, let entity, let properties):
            return "--template {\(key)}: \(entity) has no property \(key); its properties: \(properties.joined(separator: ", "))"
        }
    }
}
