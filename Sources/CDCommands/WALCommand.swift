import ArgumentParser
import CDWAL

struct WALCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "wal",
        abstract: "Show a store's write-ahead log: the app's last saves, commit by commit.",
        discussion: """
            Reads the store's -wal as SQLite's recovery does (matching salts, a running checksum, \
            frames up to the last commit frame) and lists its header (page size, checkpoint \
            sequence, salts, checksum byte order), then every commit in order: its frames, the \
            pages they hold, the database's size in pages after it, the pages it wrote that were \
            free after it, and the tables and entities whose pages it wrote, as the store stood \
            after that commit (read through the read-only VFS with the log cut there: nothing is \
            copied or written). Then what SQLite leaves out: frames after the last commit, a frame \
            whose checksum fails and the frames after it, frames of an earlier generation of the \
            log, a last frame cut short; and whether the main file alone holds no table. A -wal of \
            another database (another page size) or one SQLite would not read is an error.

            With --changes, each commit as object changes: the objects it inserted, deleted and \
            updated per entity, each changed property old → new, to-many members added and \
            removed (as diff writes them). Only the objects on the pages the commit wrote are \
            compared, as the store stood before and after it, so the cost grows with the \
            commit, not the store; a commit that changed the schema, or rewrote an overflow page \
            in place, is compared whole and says so. A commit that made the store's tables lists \
            its objects per entity. On a store with persistent history, a commit's new \
            ATRANSACTION rows are shown as the transactions they are, as history shows them.

            With --recovered, rows in no state of the store any more: cells of table leaf pages \
            that are free in the newest state and of frames outside every commit (an earlier \
            generation of the log, a transaction never committed), decoded with the model where \
            their shape fits an entity table (column count and types, Z_ENT of that table, Z_PK \
            up to Z_MAX), each with where it was found; a row equal to a live row is left out. \
            With SQLite's secure_delete on, freed pages are zeroed and nothing is found there.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @Flag(name: .long, help: "Show each commit as the objects it inserted, deleted and updated.")
    var changes = false

    @Flag(name: .long, help: "List rows found in free pages and in frames outside every commit: deleted or overwritten rows, not live objects.")
    var recovered = false

    @Option(name: .long, help: ArgumentHelp("With --changes: the first commit shown (default 1).", valueName: "commit"))
    var from: Int?

    @Option(name: .long, help: ArgumentHelp("With --changes: the last commit shown (default the last).", valueName: "commit"))
    var to: Int?

    @Option(
        name: .customLong("entity"),
        help: ArgumentHelp("With --changes: only this entity's objects, with its sub-entities; repeatable.", valueName: "entity"),
        completion: ShellCompletion.entityName)
    var entities: [String] = []

    @Option(name: .long, help: "With --changes: describe at most this many changed objects per entity and commit (default 20).")
    var limit: Int = 20

    @Flag(name: .long, help: "With --changes: print inserted and deleted objects with all their values.")
    var values = false

    @OptionGroup var modelOptions: ModelOptions

    @OptionGroup var format: ReportFormatOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        try requireNotNegative(limit, option: "--limit")
        if changes, recovered { throw ValidationError("--changes and --recovered are two reports: give one") }
        if !changes {
            for (name, given) in [
                ("--from", from != nil), ("--to", to != nil), ("--entity", !entities.isEmpty), ("--values", values), ("--model", modelOptions.model != nil),
            ] where given {
                throw ValidationError("\(name) needs --changes")
            }
        }
    }

    func run() throws {
        if recovered {
            let report = try RecoveredRows.make(storePath: store, modelPath: modelOptions.model)
            Output.report(format.json ? RecoveredRowsText.document(report) : RecoveredRowsText.render(report))
            return
        }
        if changes {
            let report = try WALChanges.make(
                storePath: store, modelPath: modelOptions.model, from: from, to: to, entities: entities, limit: limit, values: values)
            Output.report(format.json ? try WALChangesJSON.document(report) : WALChangesText.render(report, limit: limit))
            return
        }
        let report = try WALReport.make(storePath: store)
        try Output.report(report, json: format.json, text: WALText.render(report))
    }
}
