import ArgumentParser
import CDStore

/// `--sql-debug N`, also accepted as typed in an Xcode scheme (`-com.apple.CoreData.SQLDebug N`)
/// and from the `CDSTORE_SQL_DEBUG` environment variable: Core Data's SQL debug log, levels 1–4,
/// on standard error (docs/format/sqldebug.md §1, §3).
struct SQLDebugOptions: ParsableArguments {
    @Option(
        name: .customLong("sql-debug"),
        help: ArgumentHelp(
            "Log on standard error what Core Data's SQLDebug level 1-4 prints for the same work (cdstore's own reads only at 4, as cdstore: lines).",
            valueName: "level"))
    var level: Int?

    @Option(
        name: .customLong("com.apple.CoreData.SQLDebug", withSingleDash: true),
        help: ArgumentHelp("The same, spelled as an Xcode scheme's launch argument.", valueName: "level"))
    var schemeLevel: Int?

    func validate() throws {
        for value in [level, schemeLevel].compactMap({ $0 }) where !(0...4).contains(value) {
            throw ValidationError("the SQL debug level is 0 to 4, not \(value)")
        }
    }

    /// The level asked for: the options first, then `CDSTORE_SQL_DEBUG`; nil when it is 0.
    /// The log goes to the running command's error stream, taken now because SQLite's hooks
    /// may log from another thread.
    var trace: SQLTrace? {
        let io = CommandIO.current
        let environment = io.environment["CDSTORE_SQL_DEBUG"].flatMap(Int.init)
        guard let chosen = level ?? schemeLevel ?? environment, chosen > 0 else { return nil }
        let log = io.error
        return SQLTrace(level: chosen) { line in try? log.write(line + "\n") }
    }
}
