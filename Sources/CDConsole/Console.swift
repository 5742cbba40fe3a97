import CDStore
import Foundation
import GRDB

/// How `cdstore console` was started.
package struct ConsoleOptions: Sendable {
    package var storePath: String
    package var modelPath: String?
    /// The commit of the store's `-wal` to read it as of; nil for the store as it is now.
    package var asOf: Int?
    /// Dot-commands run first; `~/.cdstorerc` when not given.
    package var initFile: String?
    /// `-c` commands: run them and exit instead of reading standard input.
    package var commands: [String]
    /// Stop at the first failing command.
    package var bail: Bool
    /// Whether reports on standard output and error lines on standard error get colour, as
    /// the command line decided from `--color`, the terminal and NO_COLOR (`CommandIO`).
    package var colorsOutput: Bool
    package var colorsErrors: Bool

    package init(
        storePath: String, modelPath: String? = nil, asOf: Int? = nil, initFile: String? = nil, commands: [String] = [],
        bail: Bool = false, colorsOutput: Bool = false, colorsErrors: Bool = false
    ) {
        self.storePath = storePath
        self.modelPath = modelPath
        self.asOf = asOf
        self.initFile = initFile
        self.commands = commands
        self.bail = bail
        self.colorsOutput = colorsOutput
        self.colorsErrors = colorsErrors
    }
}

/// The console's main loop: the start-up file, then `-c` commands, the interactive editor on a
/// terminal, or standard input line by line.
///
/// Every way out (Ctrl-D, `.quit`, a failing script with `--bail`, SIGTERM, SIGHUP) returns
/// through ``run(_:)``, which releases the session and so removes the private snapshot.
package enum Console {
    /// Runs a session and returns the exit status: 0, 1 when a scripted command failed, 128+n
    /// after signal n. Throws when the store cannot be opened.
    package static func run(_ options: ConsoleOptions) throws -> Int32 {
        let output = ConsoleWriter(descriptor: STDOUT_FILENO)
        let errors = ConsoleWriter(descriptor: STDERR_FILENO)
        output.colors = options.colorsOutput
        errors.colors = options.colorsErrors
        let session = try ConsoleSession(storePath: options.storePath, modelPath: options.modelPath, traceLevel: 0, asOf: options.asOf)
        ConsoleSignals.install()
        defer { ConsoleSignals.restore() }
        ConsoleSignals.watch(connection(of: session))
        let interpreter = ConsoleInterpreter(
            session: session, output: output, errors: errors,
            settings: ConsoleSettings(rowLimit: output.isTerminal ? 100 : nil))
        interpreter.sessionChanged = { ConsoleSignals.watch(connection(of: $0)) }
        defer { interpreter.finish() }

        var script = Script(interpreter: interpreter, bail: options.bail)
        if let initFile = options.initFile ?? defaultInitFile() {
            guard let text = try? String(contentsOfFile: initFile, encoding: .utf8) else {
                errors.line("error: cannot read the start-up file \(initFile)", style: .error)
                errors.flush()
                return 1
            }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard script.run(String(line), location: "in \(initFile) line \(number + 1)") else { break }
            }
        }
        if !options.commands.isEmpty {
            for command in options.commands {
                guard script.run(command, location: nil) else { break }
            }
        } else if !script.stopped {
            if isatty(STDIN_FILENO) == 1 {
                interactive(interpreter, output: output)
            } else {
                var number = 0
                var input = InputLines(descriptor: STDIN_FILENO)
                while let line = input.next() {
                    number += 1
                    guard script.run(line, location: "near line \(number)") else { break }
                }
            }
        }
        if let signal = ConsoleSignals.terminationSignal { return 128 + signal }
        return script.failed ? 1 : 0
    }

    /// Commands of a script, a start-up file or `-c`: remembers failures and stops on `.quit`,
    /// a signal, or (with `--bail`) the first error.
    private struct Script {
        let interpreter: ConsoleInterpreter
        let bail: Bool
        var failed = false
        var stopped = false

        init(interpreter: ConsoleInterpreter, bail: Bool) {
            self.interpreter = interpreter
            self.bail = bail
        }

        /// Runs `line`; false when the script must stop.
        mutating func run(_ line: String, location: String?) -> Bool {
            if !interpreter.execute(line, location: location) {
                failed = true
                stopped = stopped || bail
            }
            _ = ConsoleSignals.takeInterrupt()
            stopped = stopped || interpreter.wantsToQuit || ConsoleSignals.terminationSignal != nil
            return !stopped
        }
    }

    private static func interactive(_ interpreter: ConsoleInterpreter, output: ConsoleWriter) {
        let session = interpreter.session
        let entities = session.model.entities.count
        output.line("cdstore console: \(session.snapshot.files.main.lastPathComponent), \(entities) entit\(entities == 1 ? "y" : "ies"), a private snapshot.")
        output.line("Enter .help for the commands, Tab to complete, Ctrl-D to leave.")
        output.flush()
        let prompt = URL(fileURLWithPath: session.storePath).deletingPathExtension().lastPathComponent + "> "
        guard
            let editor = LineEditor(
                program: "cdstore", prompt: prompt, historyPath: historyPath(),
                complete: { line, cursor in
                    CompletionEngine.complete(line: line, cursor: cursor, model: interpreter.session.model)
                })
        else {
            FileHandle.standardError.write(Data("cdstore: warning: line editing is not available (libedit could not start); reading plain lines\n".utf8))
            plainLines(interpreter, output: output, prompt: prompt)
            return
        }
        var emptyInterrupts = 0
        while ConsoleSignals.terminationSignal == nil {
            switch editor.readLine() {
            case .line(let line):
                emptyInterrupts = 0
                editor.remember(line)
                interpreter.execute(line)
                _ = ConsoleSignals.takeInterrupt()
                if interpreter.wantsToQuit { return }
            case .interrupted(let discardedText):
                _ = ConsoleSignals.takeInterrupt()
                emptyInterrupts = discardedText ? 0 : emptyInterrupts + 1
                if emptyInterrupts >= 2 { return }
                if emptyInterrupts == 1 { output.line("(Ctrl-C again, Ctrl-D or .quit leaves the console)") }
                output.flush()
            case .end:
                output.line("")
                return
            }
        }
    }

    /// The interactive loop without line editing: a prompt, then a line of standard input.
    private static func plainLines(_ interpreter: ConsoleInterpreter, output: ConsoleWriter, prompt: String) {
        var lines = InputLines(descriptor: STDIN_FILENO)
        while ConsoleSignals.terminationSignal == nil {
            FileHandle.standardOutput.write(Data(prompt.utf8))
            guard let line = lines.next() else {
                output.line("")
                return
            }
            interpreter.execute(line)
            _ = ConsoleSignals.takeInterrupt()
            if interpreter.wantsToQuit { return }
        }
    }

    /// Lines of a script on a descriptor. Unlike `readLine`, a read interrupted by SIGTERM or
    /// SIGHUP ends the input, so the session can end while it waits for the next line.
    private struct InputLines {
        let descriptor: Int32
        private var pending: [UInt8] = []
        private var ended = false

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        mutating func next() -> String? {
            while true {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    var line = Array(pending[..<newline])
                    pending.removeSubrange(...newline)
                    if line.last == UInt8(ascii: "\r") { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                if ended || ConsoleSignals.terminationSignal != nil {
                    guard !pending.isEmpty, ConsoleSignals.terminationSignal == nil else { return nil }
                    defer { pending.removeAll() }
                    return String(decoding: pending, as: UTF8.self)
                }
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                let count = read(descriptor, &chunk, chunk.count)
                if count > 0 {
                    pending.append(contentsOf: chunk[..<count])
                } else if count == 0 || errno != EINTR {
                    ended = true
                }
            }
        }
    }

    /// `$XDG_STATE_HOME/cdstore/history`, else `~/.cdstore_history`.
    static func historyPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty {
            return (state as NSString).appendingPathComponent("cdstore/history")
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return (home as NSString).appendingPathComponent(".cdstore_history")
    }

    /// `~/.cdstorerc`, when it exists.
    static func defaultInitFile() -> String? {
        guard let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty else { return nil }
        let path = (home as NSString).appendingPathComponent(".cdstorerc")
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// The SQLite connection of the session's snapshot, for `sqlite3_interrupt`.
    private static func connection(of session: ConsoleSession) -> OpaquePointer? {
        session.snapshot.database.inDatabase { $0.sqliteConnection }
    }
}
