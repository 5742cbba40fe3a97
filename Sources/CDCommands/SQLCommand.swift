import ArgumentParser
import CDFetch
import CDRendering
import CDSession
import CDStore
import Foundation

struct SQLCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Print the SQL Core Data runs for a fetch, or run read-only SQL on a store.",
        discussion: """
            Without --raw the fetch is translated, not run: the statement and its bound values print \
            the way Core Data's SQLDebug log shows them. With --raw the SQL runs on a private \
            read-only copy with Core Data's SQL functions and collations registered, so a statement \
            pasted from an app's log runs as it is.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, ndjson, csv
    }

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @OptionGroup var fetch: FetchOptions

    @Option(name: .long, help: ArgumentHelp("Run this read-only SQL (its ? placeholders filled by --arg) and print the rows.", valueName: "sql"))
    var raw: String?

    @Option(name: .long, help: "Output format: text, json, ndjson or csv.")
    var format: Format = .text

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        if raw != nil {
            if fetch.describesAFetch {
                throw ValidationError("--raw runs its SQL as it is; it does not combine with the fetch options")
            }
            return
        }
        if format == .csv { throw ValidationError("--format csv goes with --raw; a translated fetch prints as text or JSON") }
        try fetch.requireTarget()
    }

    func run() throws {
        let session = try StoreSession(storePath: store, modelPath: fetch.modelOptions.model, trace: sqlDebug.trace, asOf: fetch.asOf.commit)
        // Raw SQL needs no model, so a store whose model cache is unreadable still answers it.
        if let raw {
            try runRaw(raw, snapshot: session.snapshot)
            return
        }
        let statement = try session.runner().statement(for: try fetch.fetchRequest())
        switch format {
        case .text:
            Output.print(statement.text)
        case .json, .ndjson, .csv:
            var json = JSONWriter()
            json.beginObject()
            json.member("entity", statement.entity)
            json.member("sql", statement.sql)
            json.key("arguments")
            json.strings(statement.arguments.map(SQLTrace.bindText))
            json.endObject()
            Output.print(json.text)
        }
    }

    private func runRaw(_ sql: String, snapshot: StoreSnapshot) throws {
        let rowFormat: ValueRowRenderer.Format = [.json: .json, .ndjson: .ndjson, .csv: .csv][format] ?? .text
        var rows: ValueRowRenderer?
        let output = BufferedOutput(to: CommandIO.current.output)
        try FetchRunner.raw(
            sql, arguments: fetch.requestOptions.arg, on: snapshot,
            columns: { names in
                let renderer = ValueRowRenderer(names: names, format: rowFormat)
                try output.write(renderer.header())
                rows = renderer
            },
            row: { values in
                try output.write(rows?.row(values) ?? "")
            })
        try output.write(rows?.footer() ?? "")
        try output.flush()
    }
}
