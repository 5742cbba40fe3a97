import ArgumentParser
import CDDiagnostics
import CDMaintenance
import CDStore

struct CreateCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a new, empty store for a model, exactly as Core Data would.",
        discussion: """
            Writes the model's tables and indexes, one Z_PRIMARYKEY row per entity, Z_METADATA with \
            the model's version identifiers, entity hashes, digest and checksum and a new store UUID, \
            and the compressed model cache. The store is written under a temporary name and moved \
            into place when complete; an existing file is never overwritten.

            With --import the store is filled from JSON first (what dump --format json or ndjson \
            prints, or an object of entity name → array of objects) with Core Data's keys, entity \
            numbers, relationship columns, join rows and Z_MAX, then validated as cdstore validate \
            does; it is installed only when the import succeeded and validation found nothing.
            """)

    @Argument(help: "The store file to create; it must not exist.", completion: .file())
    var store: String

    @Option(
        name: .long, help: ArgumentHelp("The model: .xcdatamodeld, .xcdatamodel, .momd, .mom, a ruby-xcdm schemas folder or a store.", valueName: "path"),
        completion: .file())
    var model: String

    @Option(name: .long, help: ArgumentHelp("The model version to use (default: the current one).", valueName: "name"))
    var version: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("The NSPersistenceFrameworkVersion to write (default: \(FrameworkFeatures.defaultVersion)).", valueName: "number"))
    var frameworkVersion: Int = FrameworkFeatures.defaultVersion

    @Option(
        name: .customLong("import"), help: ArgumentHelp("Fill the store with the objects of this JSON or NDJSON file.", valueName: "file"), completion: .file())
    var importFile: String?

    @Flag(name: .long, help: "With --import, import and validate but do not write the store.")
    var dryRun = false

    @OptionGroup var format: ReportFormatOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        if store.isEmpty { throw ValidationError("the store path is empty: give the file to create") }
        // The mapping rules compare the version with release thresholds, so any positive number is taken.
        if frameworkVersion < 1 {
            throw ValidationError("--framework-version must be 1 or more (default \(FrameworkFeatures.defaultVersion)), not \(frameworkVersion)")
        }
        if dryRun && importFile == nil { throw ValidationError("--dry-run needs --import") }
    }

    func run() throws {
        let chosen = try ModelSource.version(at: model, named: version)
        let blueprint = StoreBlueprint.fresh(model: chosen.model, frameworkVersion: frameworkVersion)
        guard let importFile else {
            let created = try StoreCreator.create(blueprint, at: store)
            try Output.report(created, json: format.json, text: MaintenanceText.created(created))
            return
        }
        let outcome = try StoreCreator.create(blueprint, at: store, importing: try ImportInput(contentsOf: importFile), dryRun: dryRun)
        if format.json {
            Output.print(try Output.json(outcome))
        } else if outcome.validation.hasProblems {
            Output.report(MaintenanceText.imported(outcome) + "\n\n" + ValidationText.render(outcome.validation))
        } else {
            Output.report(MaintenanceText.imported(outcome))
        }
        if outcome.validation.hasProblems { throw ExitCode(1) }
    }
}
