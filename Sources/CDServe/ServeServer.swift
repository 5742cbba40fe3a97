import Hummingbird
import Logging

/// The HTTP server of `cdstore serve`: Hummingbird's `Application` with the ``ServeResponder``,
/// bound to `host:port` (port 0: a free one), stopped cleanly by SIGINT or SIGTERM.
package enum ServeServer {
    /// The application; `onRunning` gets the bound port once the server listens.
    package static func application(
        catalog: StoreCatalog, host: String = "127.0.0.1", port: Int = 0, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        var logger = Logger(label: "cdstore-serve")
        logger.logLevel = .warning
        return Application(
            responder: ServeResponder(catalog: catalog),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Serves until SIGINT or SIGTERM, then lets requests in flight finish.
    package static func run(catalog: StoreCatalog, host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        try await application(catalog: catalog, host: host, port: port, onRunning: onRunning).runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// Whether `host` names only this machine: the data is the user's, so anything else is said
    /// out loud.
    package static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        return lowered == "localhost" || lowered == "::1" || lowered == "[::1]" || lowered.hasPrefix("127.")
    }
}
