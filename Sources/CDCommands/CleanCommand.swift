import ArgumentParser
import CDMaintenance
import CDPredicate
import Foundation

struct CleanCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Checkpoint a store's WAL, remove orphaned external data, and optionally prune history, repair Z_MAX and vacuum.",
        discussion: """
            Changes the store in place, after copying it into <store>.cdstore-backup-<UTC time> \
            beside it. Quit the app or simulator that uses the store first. --dry-run reports what \
            would change and changes nothing.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @Flag(name: .long, help: "Rebuild the file with VACUUM to return free pages to the file system.")
    var vacuum = false

    @Option(
        name: .customLong("history-before"),
        help: ArgumentHelp("Delete persistent-history transactions (and their changes) older than this ISO 8601 date or date-time.", valueName: "date"))
    var historyBefore: String?

    @Flag(name: .customLong("repair-primary-keys"), help: "Raise each root entity's Z_MAX to the largest Z_PK of its table where it is lower.")
    var repairPrimaryKeys = false

    @Flag(name: .customLong("dry-run"), help: "Report what would change and change nothing.")
    var dryRun = false

    @Flag(name: .customLong("no-backup"), help: "Do not copy the store into a backup folder first.")
    var noBackup = false

    @Flag(name: .long, help: "Go ahead even when another process has the store open.")
    var force = false

    @OptionGroup var format: ReportFormatOptions

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        if let historyBefore, CoreDataDate(iso8601: historyBefore) == nil {
            throw ValidationError("--history-before takes an ISO 8601 date (2024-05-31) or date-time (2024-05-31T12:00:00Z), not \"\(historyBefore)\"")
        }
    }

    func run() throws {
        let options = StoreCleaner.Options(
            vacuum: vacuum, historyBefore: historyBefore.flatMap { CoreDataDate(iso8601: $0)?.date },
            repairPrimaryKeys: repairPrimaryKeys, dryRun: dryRun, backup: !noBackup, force: force)
        let report = try StoreCleaner.run(path: store, options: options, trace: sqlDebug.trace)
        try Output.report(report, json: format.json, text: MaintenanceText.render(report))
    }
}
