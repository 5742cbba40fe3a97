import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A private tmux server, for tests that need a real pseudo-terminal: its own socket (`-L`) in
/// a short folder directly under /tmp, because a Unix socket path is limited to about 100 bytes
/// and the tests' own temporary folders are nested deeper. tmux's output is collected in the
/// same folder. The server is killed, and the folder removed, when the value goes.
public final class TmuxServer {
    public let socket = "cdstore-tmux-\(UUID().uuidString.prefix(8))"
    public let socketFolder: URL

    /// Whether tmux is installed (`.ci/run` installs it).
    public static let isAvailable = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
        .contains { FileManager.default.isExecutableFile(atPath: $0) }

    /// A server, started by the first `new-session`.
    public init() throws {
        socketFolder = URL(fileURLWithPath: "/tmp/\(socket)")
        try FileManager.default.createDirectory(at: socketFolder, withIntermediateDirectories: true)
    }

    deinit {
        _ = try? run(["kill-server"])
        try? FileManager.default.removeItem(at: socketFolder)
    }

    /// Runs a tmux command and returns what it printed. tmux is started with posix_spawn and
    /// waited for with waitpid: the server it forks keeps the client's descriptors, and
    /// Foundation's Process was seen never to report such a client's exit. It starts with no
    /// signal blocked and the usual ones at their defaults: a spawned process inherits the
    /// calling thread's blocked signals, and a server (or pane) that inherited a blocked
    /// SIGHUP or SIGTERM outlives `kill-server`.
    @discardableResult
    public func run(_ arguments: [String]) throws -> String {
        let capture = socketFolder.appendingPathComponent("tmux-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: capture) }
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        // The server's socket lives in the test's own short folder, not in a shared /tmp/tmux-UID.
        let script = "TMUX_TMPDIR='\(socketFolder.path)' exec tmux -L \(socket) -f /dev/null \(quoted) </dev/null >'\(capture.path)' 2>/dev/null"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(script), nil]
        defer { argv.forEach { free($0) } }
        #if canImport(Glibc)
            var attributes = posix_spawnattr_t()
        #else
            var attributes: posix_spawnattr_t?
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t(), defaults = sigset_t()
        sigemptyset(&unblocked)
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        guard posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else { throw CocoaError(.executableLoad) }
        return (try? String(contentsOf: capture, encoding: .utf8)) ?? ""
    }

    /// The pane's text; with `escapes`, with its colours and attributes as tmux writes them.
    public func screen(escapes: Bool = false) throws -> String {
        try run(["capture-pane", "-p"] + (escapes ? ["-e"] : []))
    }

    /// Waits until the screen shows `text`; fails the test with the screen otherwise.
    public func waitFor(_ text: String, seconds: Double = 20) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if last.contains(text) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("the screen never showed \"\(text)\":\n\(last)")
        throw CocoaError(.userCancelled)
    }
}
