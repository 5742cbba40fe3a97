import ArgumentParser
import CDDiagnostics
import CDStore

struct CompatCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "compat",
        abstract: "Tell which model version wrote a store, whether the current version opens it, and if not the error and the fix.",
        discussion: """
            Matches the store's entity version hashes against every version of the model, diffs the \
            store's version (or, when none matches, the model cached in the store) against the \
            current one, and predicts the error Core Data gives: 134100, 134110, 134130, 134140 or \
            134190. Mapping models (.xcmappingmodel, .cdm) next to the model are read to see which \
            versions they connect. The first line answers "will my app open this store?" for the \
            options given. Exits 0 when the store opens with those options (as it is or after a \
            migration), 1 when it does not; --options none exits 0 only when no migration is needed.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @Option(
        name: .long,
        help: ArgumentHelp("The app's model: .xcdatamodeld, .xcdatamodel, .momd, .mom, ruby-xcdm schemas, or a store (its cached model).", valueName: "path"),
        completion: .file())
    var model: String

    @Option(name: .customLong("version"), help: ArgumentHelp("The version the app opens the store with (default: the current one).", valueName: "name"))
    var versionName: String?

    @Option(
        name: .long,
        help: "Store options the app passes: infer (automatic migration and inferred mapping, the default), migrate (automatic migration only) or none.")
    var options: MigrationOptions = .infer

    @OptionGroup var format: ReportFormatOptions

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func run() throws {
        let report = try Compatibility.analyse(
            storePath: store, modelPath: model, versionName: versionName,
            options: options, trace: sqlDebug.trace)
        try Output.report(report, json: format.json, text: CompatibilityText.render(report))
        if !report.opens { throw ExitCode(1) }
    }
}

extension MigrationOptions: ExpressibleByArgument {}
