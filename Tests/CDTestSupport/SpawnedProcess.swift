import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A long-running helper a test starts (a WebDriver server, say) as a clean child: started with
/// posix_spawn, with no signal blocked and the usual ones at their default action, and with no
/// descriptor of the test process but standard input (/dev/null), output and error (a file).
///
/// Why not Foundation's `Process`: the test runner's threads block most signals (SIGTERM,
/// SIGINT, SIGHUP, SIGCHLD… were seen blocked in chromedriver started with `Process`), a spawned
/// process inherits that mask, and a child with SIGTERM blocked does not stop when told to.
public final class SpawnedProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// A spawn that failed: the executable, and the error number posix_spawn returned.
    public struct SpawnError: Error, CustomStringConvertible {
        public var executable: String
        public var code: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    /// Starts `executable` with `arguments` and exactly `environment`; its standard output and
    /// error go to `output` (created or truncated).
    public init(executable: String, arguments: [String], environment: [String: String], output: URL) throws {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        #if canImport(Glibc)
            var attributes = posix_spawnattr_t()
            var actions = posix_spawn_file_actions_t()
        #else
            var attributes: posix_spawnattr_t?
            var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var unblocked = sigset_t()
        var defaults = sigset_t()
        sigemptyset(&unblocked)
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        #if canImport(Glibc)
            // Every other descriptor of the test process (sockets, pipes of other tests) stays out.
            // glibc has had closefrom for spawns since 2.34; Swift's Glibc module does not
            // declare it.
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            if let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") {
                _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            }
            let flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #else
            let flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var child: pid_t = 0
        let code = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard code == 0 else { throw SpawnError(executable: executable, code: code) }
        pid = child
    }

    /// Whether the child has not exited yet (reaps it when it has).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || (result == -1 && errno == ECHILD) {
            exitStatus = status
            return false
        }
        return true
    }

    /// Sends SIGTERM, waits up to `seconds` for the child to exit, then SIGKILL; returns once
    /// the child is gone and reaped.
    public func stop(seconds: Double = 10) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard isRunning else { return }
        kill(pid, SIGKILL)
        while isRunning { Thread.sleep(forTimeInterval: 0.02) }
    }

    deinit { stop() }
}
