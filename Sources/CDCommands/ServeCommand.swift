import ArgumentParser
import CDFinder
import CDServe
import CDSession
import Foundation

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Browse stores in a web browser: a local, read-only web UI and JSON API.",
        discussion: """
            Serves each STORE (or, with --find, every store `cdstore find` lists under the PATHs, \
            simulator containers by default) at a local URL, printed when the server is ready. \
            Pages: / (the stores), /stores/STORE (metadata, model hashes, entities with counts), \
            /stores/STORE/entities/ENTITY (objects: sort, filter with an NSPredicate or a CDQ chain, \
            keyset pages, the number of objects the filter matches, the SQL, CSV and NDJSON export), /stores/STORE/entities/ENTITY/PK (one \
            object, its relationships as links); each page has a JSON twin at .json. Stores are read \
            in place, read-only, without locks; only GET and HEAD are answered. Ctrl-C stops it.
            """)

    @Argument(help: ArgumentHelp("Store files to serve; with --find, folders to search.", valueName: "store"), completion: .file())
    var stores: [String] = []

    @Flag(name: .long, help: "Serve every store found under the paths (default: where simulators and apps keep their data).")
    var find = false

    @OptionGroup var modelOptions: ModelOptions

    @Option(name: .long, help: ArgumentHelp("The port to listen on; 0 picks a free one (default 8001).", valueName: "port"))
    var port: Int = 8001

    @Option(
        name: .long, help: ArgumentHelp("The address to listen on (default 127.0.0.1; anything else shows the stores to other machines).", valueName: "address")
    )
    var host: String = "127.0.0.1"

    @Flag(name: .long, help: "Open the server's URL in the default browser.")
    var open = false

    @Option(name: .customLong("query-timeout"), help: ArgumentHelp("Stop a page's query after this many seconds (default 10).", valueName: "seconds"))
    var queryTimeout: Double = 10

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Threads that run the pages' queries (default: one per core); filtered pages, exports and reports take all but one.", valueName: "n"))
    var workers: Int?

    func validate() throws {
        if let workers, !(1...256).contains(workers) { throw ValidationError("--workers takes 1 to 256, not \(workers)") }
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0 to 65535, not \(port)") }
        guard queryTimeout > 0, queryTimeout <= 3600 else { throw ValidationError("--query-timeout must be more than 0 and at most 3600 seconds") }
        if !find && stores.isEmpty { throw ValidationError("give at least one store file, or --find") }
    }

    func run() throws {
        let served = try servedStores()
        // Each store named on the command line is opened once now, so a wrong path is an error
        // before the server starts; stores found with --find (which opened each already) are
        // opened when first visited, so that hundreds of them cost nothing until then.
        if !find {
            for store in served { _ = try StoreSession(storePath: store.path, modelPath: store.modelPath) }
        }
        let catalog = StoreCatalog(stores: served, queryTimeout: queryTimeout, workers: workers)
        if !ServeServer.isLoopback(host) {
            Output.message("cdstore: warning: listening on \(host): other machines that reach it can read these stores")
        }
        let io = CommandIO.current
        let host = host
        let port = port
        let opens = open
        let outcome = ServeOutcome()
        Task {
            do {
                try await ServeServer.run(catalog: catalog, host: host, port: port) { port in
                    let shown = host.contains(":") ? "[\(host)]" : host
                    let url = "http://\(shown):\(port)/"
                    try? io.output.write("cdstore serve: \(served.count == 1 ? "1 store" : "\(served.count) stores") at \(url) (Ctrl-C stops)\n")
                    if opens { Self.openBrowser(url) }
                }
                outcome.finish(nil)
            } catch {
                outcome.finish(error)
            }
        }
        if let error = outcome.wait() { throw error }
    }

    /// The stores to serve: the arguments, or what `find` lists under them, grouped by device
    /// and app.
    private func servedStores() throws -> [ServedStore] {
        guard find else {
            return stores.enumerated().map { ServedStore(number: $0.offset + 1, path: $0.element, modelPath: modelOptions.model) }
        }
        let report = StoreFinder.find(roots: stores.isEmpty ? StoreFinder.defaultRoots() : stores, app: nil, sort: .path, progress: nil)
        let found = report.stores.filter { $0.problem == nil }
        guard !found.isEmpty else {
            throw ValidationError("--find found no Core Data store under \(stores.isEmpty ? "the default folders" : stores.joined(separator: ", "))")
        }
        return found.enumerated().map { index, store in
            let group = [store.location.device, store.location.bundleID].compactMap { $0 }.joined(separator: " — ")
            return ServedStore(number: index + 1, path: store.path, modelPath: modelOptions.model, group: group.isEmpty ? "Other stores" : group)
        }
    }

    /// `open URL` on macOS, `xdg-open URL` elsewhere; a failure only loses the convenience.
    private static func openBrowser(_ url: String) {
        let process = Process()
        #if os(macOS)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/open")
            process.arguments = [url]
        #else
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["xdg-open", url]
        #endif
        do {
            try process.run()
        } catch {
            Output.message("cdstore: warning: could not open a browser (\(error.localizedDescription)); open \(url) yourself")
        }
    }
}

/// How the server task ended, handed to the command's thread, which waits for it.
private final class ServeOutcome: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var error: (any Error)?

    func finish(_ error: (any Error)?) {
        lock.withLock { self.error = error }
        done.signal()
    }

    func wait() -> (any Error)? {
        done.wait()
        return lock.withLock { error }
    }
}
