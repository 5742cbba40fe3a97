import ArgumentParser
import CDDiagnostics
import CDSession
import CDStore

struct ValidateCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check every object against the model's validation rules, and the store's integrity.",
        discussion: """
            Reports what Core Data would refuse on save — 1570 missing mandatory values, 1580/1590 \
            relationship counts, 1610-1680 bounds and patterns, the model's validation predicates, \
            several errors of one object as 1560 — with the entity, key and object, and integrity \
            problems: dangling keys and join rows, unknown or abstract Z_ENT values, Z_MAX below the \
            largest Z_PK, missing or orphaned external data, digest, checksum and model-cache \
            mismatches, SQLite's integrity check. Exits with status 1 when anything is wrong.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @OptionGroup var modelOptions: ModelOptions

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var format: ReportFormatOptions

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func run() throws {
        let report = try StoreSession(storePath: store, modelPath: modelOptions.model, trace: sqlDebug.trace, asOf: asOf.commit).validation()
        try Output.report(report, json: format.json, text: ValidationText.render(report))
        if report.hasProblems { throw ExitCode(1) }
    }
}
