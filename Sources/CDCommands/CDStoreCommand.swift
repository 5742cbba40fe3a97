import ArgumentParser

/// The `cdstore` command: subcommands only, each a thin layer over the library modules.
struct CDStoreCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "cdstore",
        abstract: "Inspect Core Data store files without Core Data.",
        discussion: """
            Every command that reads a store reads it in place, read-only, with its -wal (through a \
            SQLite VFS that never writes a byte and takes no lock; a store with a -journal is read from a \
            private copy), so the store itself is never changed; only create writes a new one, and reset \
            and clean change it, after backing it up. `cdstore --version` shows the version.
            """,
        subcommands: [
            InspectCommand.self, ModelCommand.self, DumpCommand.self, QueryCommand.self, SQLCommand.self,
            ValidateCommand.self, CompatCommand.self, ExplainCommand.self, ConsoleCommand.self, CreateCommand.self,
            ResetCommand.self, CleanCommand.self, FindCommand.self, HistoryCommand.self, WatchCommand.self, TraceCommand.self, DiffCommand.self,
            ServeCommand.self, WALCommand.self,
        ])
}
