import ArgumentParser
import CDStore

struct InspectCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's files, SQLite settings, metadata, model cache, entities and warnings.")

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @OptionGroup var format: ReportFormatOptions

    @Flag(name: .customLong("no-counts"), help: "Do not count rows (no table is read).")
    var noCounts = false

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func run() throws {
        let inspection = try StoreInspector.inspect(path: store, counts: !noCounts, trace: sqlDebug.trace, asOf: asOf.commit)
        try Output.report(inspection, json: format.json, text: InspectionText.render(inspection))
    }
}
