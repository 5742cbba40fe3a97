import ArgumentParser
import CDMaintenance
import CDStore

struct ResetCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete a Core Data store and every file that belongs to it, after backing it up.",
        discussion: """
            Removes the main file, its -wal, -shm and -journal and its .<name>_SUPPORT folder, and \
            nothing else. The files are first copied into <store>.cdstore-backup-<UTC time> beside \
            the store, then moved together into a hidden folder and deleted, so a failure leaves the \
            store whole. Quit the app or simulator that uses the store first. With --recreate, an empty \
            store for the model is written first and moved into the old one's place.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @Flag(name: .customLong("dry-run"), help: "List what would be removed and change nothing.")
    var dryRun = false

    @Flag(name: .customLong("no-backup"), help: "Do not copy the store into a backup folder first.")
    var noBackup = false

    @Flag(name: .long, help: "Go ahead even when another process has the store open.")
    var force = false

    @Flag(name: .long, help: "Write an empty store for the model in its place, as Core Data would.")
    var recreate = false

    @Option(
        name: .long, help: ArgumentHelp("With --recreate, the model to create the store for (default: the model cached in the store).", valueName: "path"),
        completion: .file())
    var model: String?

    @Option(name: .long, help: ArgumentHelp("With --recreate, the model version to use (default: the current one).", valueName: "name"))
    var version: String?

    @Option(name: .long, help: ArgumentHelp("With --recreate, the NSPersistenceFrameworkVersion to write (default: the old store's).", valueName: "number"))
    var frameworkVersion: Int?

    @OptionGroup var format: ReportFormatOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        if !recreate, model != nil || version != nil || frameworkVersion != nil {
            throw ValidationError("--model, --version and --framework-version need --recreate")
        }
        if version != nil, model == nil {
            throw ValidationError("--version needs --model")
        }
    }

    func run() throws {
        let options = StoreReset.Options(dryRun: dryRun, backup: !noBackup, force: force)
        let report: ResetReport
        if recreate {
            let chosen = try model.map { try ModelSource.version(at: $0, named: version).model }
            report = try StoreReset.recreate(path: store, model: chosen, frameworkVersion: frameworkVersion, options: options)
        } else {
            report = try StoreReset.run(path: store, options: options)
        }
        try Output.report(report, json: format.json, text: MaintenanceText.render(report))
    }
}
