import ArgumentParser
import CDMaintenance
import CDRendering

struct ResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete a Core Data store and every file that belongs to it, after backing it up.",
        discussion: """
            Removes the main file, its -wal, -shm and -journal and its .<name>_SUPPORT folder, and \
            nothing else. The files are first copied into <store>.cdstore-backup-<UTC time> beside \
            the store, then moved together into a hidden folder and deleted, so a failure leaves the \
            store whole. Quit the app or simulator that uses the store first.
            """)

    @Argument(help: "The store file (.sqlite, .storedata, .db, any extension).")
    var store: String

    @Flag(name: .customLong("dry-run"), help: "List what would be removed and change nothing.")
    var dryRun = false

    @Flag(name: .customLong("no-backup"), help: "Do not copy the store into a backup folder first.")
    var noBackup = false

    @Flag(name: .long, help: "Go ahead even when another process has the store open.")
    var force = false

    @Flag(name: .long, help: "Print the report as JSON (a stable contract for scripts).")
    var json = false

    func run() throws {
        let report = try StoreReset.run(path: store, options: StoreReset.Options(dryRun: dryRun, backup: !noBackup, force: force))
        Output.print(json ? try Output.json(report) : MaintenanceText.render(report))
    }
}
