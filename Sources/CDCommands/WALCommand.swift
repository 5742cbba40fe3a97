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
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @OptionGroup var format: ReportFormatOptions

    @OptionGroup var colorOptions: ColorOptions

    func run() throws {
        let report = try WALReport.make(storePath: store)
        try Output.report(report, json: format.json, text: WALText.render(report))
    }
}
