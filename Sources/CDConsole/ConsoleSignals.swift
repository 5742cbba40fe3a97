import Foundation
import GRDBSQLite

/// The console's own signal handling, installed only while it runs.
///
/// A command-line read stops on SIGINT; the console instead interrupts the statement that is
/// running (`sqlite3_interrupt`, which SQLite allows from a signal handler) and returns to the
/// prompt. SIGTERM and SIGHUP interrupt the same way and then end the session through its
/// normal exit path, so the private snapshot is removed before the process exits with 128+n.
/// The handlers only store a flag and call `sqlite3_interrupt`; everything else happens on the
/// main path when the line editor or the query sees the flag.
enum ConsoleSignals {
    /// Whether a SIGINT arrived that nobody has answered yet.
    static func takeInterrupt() -> Bool {
        let pending = signalInterruptPending != 0
        signalInterruptPending = 0
        return pending
    }

    /// Whether a SIGINT is waiting, without answering it: a long loop stops on it.
    static var interruptPending: Bool { signalInterruptPending != 0 || signalTermination != 0 }

    /// SIGTERM or SIGHUP, once received: the session ends and the process exits with 128+n.
    static var terminationSignal: Int32? {
        signalTermination == 0 ? nil : signalTermination
    }

    /// The connection a SIGINT interrupts; set for each new session.
    static func watch(_ connection: OpaquePointer?) {
        signalConnection = connection
    }

    nonisolated(unsafe) private static var previous: [Int32: sigaction] = [:]

    static func install() {
        signalInterruptPending = 0
        signalTermination = 0
        signalConnection = nil
        // No SA_RESTART: a read at the prompt returns EINTR so the editor sees the signal.
        for signal in [SIGINT, SIGTERM, SIGHUP] { handle(signal, with: consoleSignalHandler) }
        // A parent may hand down a mask that blocks them (some process launchers do); the
        // console's Ctrl-C and clean exit depend on receiving them.
        var handled = sigset_t()
        sigemptyset(&handled)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&handled, signal) }
        sigprocmask(SIG_UNBLOCK, &handled, nil)
        // A closed output pipe is a write error the writer reports, not a reason to die.
        handle(SIGPIPE, with: SIG_IGN)
    }

    /// Installs `handler` for `signal` and remembers the action it replaces.
    private static func handle(_ signal: Int32, with handler: (@convention(c) (Int32) -> Void)?) {
        var action = sigaction()
        #if canImport(Darwin)
            action.__sigaction_u.__sa_handler = handler
        #else
            action.__sigaction_handler.sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var old = sigaction()
        sigaction(signal, &action, &old)
        previous[signal] = old
    }

    static func restore() {
        for (signal, action) in previous {
            var action = action
            sigaction(signal, &action, nil)
        }
        previous = [:]
        signalConnection = nil
    }
}

// Plain globals, read and written by the handler: only word-sized stores happen there.
nonisolated(unsafe) private var signalInterruptPending: sig_atomic_t = 0
nonisolated(unsafe) private var signalTermination: Int32 = 0
nonisolated(unsafe) private var signalConnection: OpaquePointer?

private let consoleSignalHandler: @convention(c) (Int32) -> Void = { signal in
    if signal == SIGINT {
        signalInterruptPending = 1
    } else {
        signalTermination = signal
    }
    if let connection = signalConnection { sqlite3_interrupt(connection) }
}
