import Foundation
import Testing

/// A real pseudo-terminal for tests, driven through tmux: one private tmux server (`-L`) running
/// one pane, typed into with send-keys and read with capture-pane. The server, the pane's
/// processes and the folders are removed when the terminal is released.
open class TmuxTerminal {
    public let socket = "cdstore-tmux-\(UUID().uuidString.prefix(8))"
    /// A private folder for the test's files, removed at the end.
    public let home: URL
    /// tmux's socket folder: short and directly under /tmp, because a Unix socket path is
    /// limited to about 100 bytes and the tests' own temporary folders are nested deeper.
    let socketFolder: URL

    /// Whether tmux is installed (.ci/run installs it).
    public static let isAvailable = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
        .contains { FileManager.default.isExecutableFile(atPath: $0) }

    public init() throws {
        // Not a cdstore-tests-* folder: the tmux socket must outlive any sweep of those while the
        // test runs, or the server could not be reached to kill it.
        home = FileManager.default.temporaryDirectory.appendingPathComponent("cdstore-terminal-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        socketFolder = URL(fileURLWithPath: "/tmp/\(socket)")
        try FileManager.default.createDirectory(at: socketFolder, withIntermediateDirectories: true)
    }

    /// The process group of the pane's shell, killed at the end so the server, left without
    /// sessions, exits even if `kill-server` cannot reach it.
    private var paneProcess: pid_t?

    deinit {
        if let paneProcess { kill(-paneProcess, SIGKILL) }
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(at: home)
        try? FileManager.default.removeItem(at: socketFolder)
    }

    /// Runs `command` (a `/bin/sh` command line) in a 120×40 pane, replacing whatever ran there.
    public func start(_ command: String) throws {
        if (try? tmux(["has-session"])) == nil {
            try tmux(["new-session", "-d", "-x", "120", "-y", "40", command])
        } else {
            try tmux(["respawn-pane", "-k", command])
        }
        paneProcess = pid_t(try tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs a tmux command and returns what it printed. tmux is started with posix_spawn and
    /// waited for with waitpid: the server it forks keeps the client's descriptors, and
    /// Foundation's Process was seen never to report such a client's exit.
    @discardableResult
    public func tmux(_ arguments: [String]) throws -> String {
        let capture = home.appendingPathComponent("tmux-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: capture) }
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        // The server's socket lives in the test's own short folder, not in a shared /tmp/tmux-UID.
        let script = "TMUX_TMPDIR='\(socketFolder.path)' exec tmux -L \(socket) -f /dev/null \(quoted) </dev/null >'\(capture.path)' 2>/dev/null"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(script), nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else { throw CocoaError(.executableLoad) }
        return (try? String(contentsOf: capture, encoding: .utf8)) ?? ""
    }

    /// Sends keys by tmux's names ("Tab", "C-d", "Enter").
    public func send(_ keys: String...) throws {
        try tmux(["send-keys"] + keys)
    }

    /// Types `text` literally (no key names).
    public func type(_ text: String) throws {
        try tmux(["send-keys", "-l", text])
    }

    public func screen() throws -> String {
        try tmux(["capture-pane", "-p"])
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
