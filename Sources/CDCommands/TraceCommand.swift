import ArgumentParser
import CDBase
import CDMaintenance
import CDModel
import CDSession
import CDStore
import CDTrace
import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct TraceCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Read an app's Core Data SQL debug log: statements by time in the model's names, fault storms, table scans, large fetches, saves.",
        discussion: """
            LOG is a file, or - (the default) for standard input, as captured from Xcode's console, \
            `log stream`/`log show` (any style) or cdstore's own --sql-debug, at SQLDebug level 1 to 4; \
            other lines are skipped. With --store (or the store the log's "Connecting to" line names, \
            when it can be read here) or --model, tables and columns are shown in the model's names, \
            and with a store each filtered fetch's EXPLAIN QUERY PLAN is run on it read-only.
            """)

    @Argument(help: ArgumentHelp("The log file, or - for standard input.", valueName: "log"), completion: .file())
    var log: String = "-"

    @Option(
        name: .long, help: ArgumentHelp("The app's store: the model's names, and query plans run on it read-only.", valueName: "store"), completion: .file())
    var store: String?

    @Option(
        name: .long, help: ArgumentHelp("A model for the names, when the store is not at hand or has no model cache.", valueName: "path"), completion: .file())
    var model: String?

    @Flag(name: .long, help: "Keep reading a growing log and print each finding as it appears; the report follows at the end.")
    var follow = false

    @OptionGroup var format: ReportFormatOptions

    @Option(name: .long, help: ArgumentHelp("How many statement shapes to list; 0 lists none.", valueName: "n"))
    var top: Int = 10

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        if top < 0 { throw ValidationError("--top is 0 or more, not \(top)") }
    }

    func run() throws {
        let io = CommandIO.current
        var names: TraceNames?
        var namesKind = "none"
        var namesFrom: String?
        var session: StoreSession?
        if let store {
            let opened = try StoreSession(storePath: store, modelPath: nil)
            session = opened
            names = try Self.names(of: opened)
            if names != nil {
                namesKind = "store"
                namesFrom = opened.snapshot.files.main.path
            } else if model == nil {
                throw TraceError.noModelCache(path: opened.snapshot.files.main.path)
            }
        }
        if names == nil, let model {
            let version = try ModelSource.version(at: model, named: nil)
            let mapping = try ModelSource.mapping(at: model, frameworkVersion: FrameworkFeatures.defaultVersion)
            names = TraceNames(mapping: mapping, model: version.model)
            namesKind = "model"
            namesFrom = URL(fileURLWithPath: model).standardizedFileURL.path
        }

        let source: LogLineReader.Source
        var opened: Int32?
        if log == "-" {
            if let descriptor = io.input.descriptor {
                source = .descriptor(descriptor)
            } else {
                source = .data(io.input.fixedData ?? Data())
            }
        } else {
            let descriptor = open(log, O_RDONLY)
            guard descriptor >= 0 else { throw TraceError.unreadableLog(path: log, reason: String(cString: strerror(errno))) }
            opened = descriptor
            source = .descriptor(descriptor)
        }
        defer { if let opened { close(opened) } }
        let reader = LogLineReader(source: source, follow: follow)
        // Ctrl-C ends following a file with the report; on a pipe the writer's end ends it
        // (`log stream` stops with the same Ctrl-C), and a terminal keeps Ctrl-C's default.
        let stop = follow && log != "-" ? StopSignal() : nil
        reader.shouldStop = { stop?.isSet ?? false }

        let analyzer = TraceAnalyzer()
        if names == nil {
            // The store the log names, when it is readable here: opened once, read-only.
            analyzer.onConnect = { path in
                guard names == nil, session == nil, FileManager.default.isReadableFile(atPath: path),
                    let logged = try? StoreSession(storePath: path, modelPath: nil), let found = try? Self.names(of: logged)
                else { return }
                session = logged
                names = found
                namesKind = "store"
                namesFrom = logged.snapshot.files.main.path
            }
        }
        if follow {
            analyzer.onEvent = { event in
                Output.print(TraceText.event(event, analyzer: analyzer))
            }
        }
        let lines = TraceReader.read(reader, into: analyzer)
        guard analyzer.records > 0 else {
            throw TraceError.noCoreDataLines(lines: lines, source: log == "-" ? "standard input" : log)
        }
        let report = TraceReport.build(
            from: analyzer, lines: lines, names: names, namesKind: namesKind, namesFrom: namesFrom,
            snapshot: session?.snapshot, top: top)
        try Output.report(report, json: format.json, text: TraceText.render(report))
    }

    /// The names the store's own model cache gives its tables and columns; nil without a cache.
    private static func names(of session: StoreSession) throws -> TraceNames? {
        try session.cachedModelAndMapping().map { TraceNames(mapping: $0.mapping, model: $0.model) }
    }
}
