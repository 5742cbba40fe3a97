import CDBase
import Foundation

/// Writes command output to the running command's ``CommandIO``.
///
/// ``print(_:)`` and ``write(_:)`` write text as it is: data (JSON, CSV, rows, SQL, diagrams)
/// never gets colour. Reports for people go through ``report(_:)``, messages for the error
/// stream through ``message(_:)``: the one place where `--color` and the terminal decide.
enum Output {
    static func print(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// A report for people (``ReportColors/apply(toReport:)`` when the output gets colour).
    static func report(_ text: String) {
        print(CommandIO.current.colorsOutput ? ReportColors.apply(toReport: text) : text)
    }

    /// `value` as JSON when `json` is set, else `text` as a report.
    static func report<Value: Encodable>(_ value: Value, json: Bool, text: @autoclosure () -> String) throws {
        if json { print(try Self.json(value)) } else { report(text()) }
    }

    /// Lines for the error stream, `cdstore: error: …` first (``ReportColors/apply(toMessage:)``
    /// when the error stream gets colour).
    static func message(_ text: String, io: CommandIO = CommandIO.current) {
        let line = text.hasSuffix("\n") ? text : text + "\n"
        try? io.error.write(io.colorsErrors ? ReportColors.apply(toMessage: line) : line)
    }

    /// `text` as it is, without adding a line break.
    static func write(_ text: String) {
        // Nothing to do when nobody reads the output any more: the stream remembers it is
        // closed, and the command line ends the run quietly.
        try? CommandIO.current.output.write(text)
    }

    /// Stable JSON: sorted keys, pretty-printed, no escaped slashes.
    static func json<T: Encodable>(_ value: T) throws -> String { try ReportJSON.pretty(value) }
}
