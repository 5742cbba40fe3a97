import ArgumentParser
import CDModel
import CDRendering
import CDStore
import Foundation

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the objects of a store, typed and rendered the way Core Data or your app shows them.",
        discussion: """
            Without ENTITY every entity is printed, each object once under its concrete entity. \
            An ENTITY includes its sub-entities, as a Core Data fetch does. To-many relationships \
            are faults (or counts in the text formats) unless named with --include.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case description, line, table, expanded, json, ndjson, csv
    }

    @Argument(help: "The store file (.sqlite, .storedata, .db, any extension).")
    var store: String

    @Argument(help: "Entities to print (default: all).")
    var entities: [String] = []

    @Option(name: .long, help: "Print at most this many objects per entity.")
    var limit: Int?

    @Option(name: .long, help: "Skip this many objects per entity first.")
    var offset: Int?

    @Option(name: .long, help: ArgumentHelp("Sort by an attribute or to-one relationship; repeatable.", valueName: "key[:desc]"))
    var sort: [String] = []

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

    @Option(name: .long, help: ArgumentHelp("The model to read the store with, for stores without a model cache.", valueName: "path"))
    var model: String?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more") }
        for key in sort where ObjectQuery.SortKey(parsing: key) == nil {
            throw ValidationError("--sort takes KEY or KEY:desc, not \"\(key)\"")
        }
        if template != nil && format != .expanded && format != .line {
            throw ValidationError("--template goes with --format line")
        }
    }

    func run() throws {
        let snapshot = try StoreSnapshot(path: store)
        let chosenModel = try model.map { try ModelSource.storeModel(at: $0, for: snapshot) }
        let reader = try ObjectReader(snapshot: snapshot, model: chosenModel)
        try reader.checkIncludes(Set(include), entities: entities.isEmpty ? nil : entities)
        var renderer = makeRenderer()
        let output = BufferedOutput()
        var query = ObjectQuery(sort: sort.compactMap(ObjectQuery.SortKey.init(parsing:)), limit: limit, offset: offset,
                                includes: Set(include), countsToMany: format != .description && format != .json && format != .ndjson)
        var open = false
        var pending = ByteBuffer(capacity: output.limit + 16 * 1024)
        let targets: [String?] = entities.isEmpty ? [nil] : entities.map { $0 }
        for target in targets {
            query.entity = target
            try reader.readRows(query, section: { section in
                output.write(&pending)
                if open { output.write(renderer.endSection()) }
                output.write(renderer.beginSection(entity: section.entity, properties: section.properties))
                open = true
            }, row: { row in
                try renderer.render(row, into: &pending)
                if pending.count >= output.limit { output.write(&pending) }
            })
            output.write(&pending)
        }
        if open { output.write(renderer.endSection()) }
        output.write(renderer.finish())
        output.flush()
    }

    private func makeRenderer() -> any ObjectRenderer {
        let plain = PlainValues(binary: binary, null: null)
        if let template { return LineRenderer(template: template, values: plain) }
        switch format {
        case .description: return DescriptionRenderer()
        case .line: return LineRenderer(values: plain)
        case .table: return TableRenderer(values: plain, terminalWidth: Terminal.width)
        case .expanded: return ExpandedRenderer(values: plain)
        case .json: return JSONRenderer(values: JSONValues(binary: binary))
        case .ndjson: return NDJSONRenderer(values: JSONValues(binary: binary))
        case .csv: return CSVRenderer(values: plain)
        }
    }
}

extension BinaryMode: ExpressibleByArgument {}

/// The terminal's width: `COLUMNS`, the tty's size, or 120 when output is not a terminal.
enum Terminal {
    static var width: Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 20 { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        return 120
    }
}
