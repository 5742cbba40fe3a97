import ArgumentParser
import CDFetch
import CDPredicate
import CDModel
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

    @Option(name: .long, parsing: .unconditional, help: "Print at most this many objects per entity.")
    var limit: Int?

    @Option(name: .long, parsing: .unconditional, help: "Skip this many objects per entity first.")
    var offset: Int?

    @Option(name: .long, help: ArgumentHelp("Sort by an attribute or to-one relationship; repeatable.", valueName: "key[:desc]"))
    var sort: [String] = []

    @Option(name: .long, help: ArgumentHelp("The model to read the store with, for stores without a model cache.", valueName: "path"), completion: .file())
    var model: String?

    @Option(name: .customLong("where"), help: ArgumentHelp("Only objects matching this NSPredicate (needs ENTITY).", valueName: "predicate"))
    var predicate: String?

    @Option(name: .long, help: ArgumentHelp("A value for the next %@ or %K in --where; repeatable.", valueName: "value"))
    var arg: [String] = []

    @OptionGroup var output: ObjectOutputOptions

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        try requireNotNegative(limit, option: "--limit")
        try requireNotNegative(offset, option: "--offset")
        for key in sort where ObjectQuery.SortKey(parsing: key) == nil {
            throw ValidationError("--sort takes KEY or KEY:desc, not \"\(key)\"")
        }
        if predicate != nil && entities.isEmpty {
            throw ValidationError("--where needs an ENTITY: the predicate names that entity's properties")
        }
        if !arg.isEmpty && predicate == nil { throw ValidationError("--arg goes with --where") }
    }

    func run() throws {
        let session = try StoreSession(storePath: store, modelPath: model, trace: sqlDebug.trace)
        let reader = try session.reader()
        try reader.checkIncludes(Set(output.include), entities: entities.isEmpty ? nil : entities)
        let printer = output.makePrinter()
        let sortKeys = sort.compactMap(ObjectQuery.SortKey.init(parsing:))
        if let predicate {
            let parsed = try PredicateParser.parse(predicate, arguments: arg, checksPatterns: true)
            let runner = try session.runner()
            for entity in entities {
                let request = FetchRequest(
                    entity: entity, predicate: parsed,
                    sortDescriptors: sortKeys.map { SortDescriptor(keyPath: $0.property, ascending: $0.ascending) },
                    limit: limit, offset: offset)
                try runner.objects(
                    request, includes: Set(output.include), countsToMany: output.countsToMany,
                    describe: Self.describe, section: printer.section, object: printer.object)
            }
        } else {
            var query = ObjectQuery(
                sort: sortKeys, limit: limit, offset: offset, includes: Set(output.include),
                countsToMany: output.countsToMany)
            let targets: [String?] = entities.isEmpty ? [nil] : entities.map { $0 }
            for target in targets {
                query.entity = target
                try reader.readRows(query, section: printer.section, row: printer.row)
            }
        }
        try printer.finish()
    }

    /// Objects in the level-3 SQL debug log, as Core Data's description prints them.
    static let describe = DescriptionRenderer.logDescription
}
