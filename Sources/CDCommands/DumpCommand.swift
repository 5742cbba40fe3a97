import ArgumentParser
import CDFetch
import CDRendering
import CDSession
import CDStore
import Foundation

struct DumpCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the objects of a store, typed and rendered the way Core Data or your app shows them.",
        discussion: """
            Without ENTITY every entity is printed, each object once under its concrete entity. \
            An ENTITY includes its sub-entities, as a Core Data fetch does. To-many relationships \
            are faults (or counts in the text formats) unless named with --include.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @Argument(help: "Entities to print (default: all).", completion: ShellCompletion.entityName)
    var entities: [String] = []

    @OptionGroup var requestOptions: FetchRequestOptions

    @OptionGroup var modelOptions: ModelOptions

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var output: ObjectOutputOptions

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        if requestOptions.predicate != nil && entities.isEmpty {
            throw ValidationError("--where needs an ENTITY: the predicate names that entity's properties")
        }
        try requestOptions.requirePredicateForArguments()
    }

    func run() throws {
        let session = try StoreSession(storePath: store, modelPath: modelOptions.model, trace: sqlDebug.trace, asOf: asOf.commit)
        let reader = try session.reader()
        try reader.checkIncludes(Set(output.include), entities: entities.isEmpty ? nil : entities)
        let printer = output.makePrinter()
        guard requestOptions.predicate == nil && requestOptions.sort.isEmpty else {
            // Filtered or sorted, each entity is a fetch in Core Data's SQL, as `query` runs it.
            // Without ENTITY each entity is fetched without its sub-entities, and sections
            // without objects are left out, as in the unsorted read.
            let runner = try session.runner()
            let targets = entities.isEmpty ? reader.dumpableEntities.map { ($0, false) } : entities.map { ($0, true) }
            for (entity, includesSubentities) in targets {
                var pending: ObjectSection?
                try runner.rows(
                    try requestOptions.request(entity: entity, includesSubentities: includesSubentities),
                    includes: Set(output.include), countsToMany: output.countsToMany, describe: Self.describe,
                    section: { section in
                        if includesSubentities { try printer.section(section) } else { pending = section }
                    },
                    row: { row in
                        if let section = pending {
                            try printer.section(section)
                            pending = nil
                        }
                        try printer.row(row)
                    })
            }
            try printer.finish()
            return
        }
        var query = ObjectQuery(
            limit: requestOptions.limit, offset: requestOptions.offset, includes: Set(output.include), countsToMany: output.countsToMany)
        let targets: [String?] = entities.isEmpty ? [nil] : entities.map { $0 }
        for target in targets {
            query.entity = target
            try reader.readRows(query, section: printer.section, row: printer.row)
        }
        try printer.finish()
    }

    /// Objects in the level-3 SQL debug log, as Core Data's description prints them.
    static let describe = DescriptionRenderer.logDescription
}
