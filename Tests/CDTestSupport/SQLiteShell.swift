import Foundation

/// The `sqlite3` shell, the independent writer and reader of the tests: it writes to a store
/// as an app's Core Data would (rows, `Z_PRIMARYKEY`, `Z_OPT`) and reads what cdstore must agree with.
public enum SQLiteShell {
    /// Where Debian's `sqlite3` package (which `.ci/run` installs) puts the shell.
    public static let path = "/usr/bin/sqlite3"

    /// Whether the shell is installed.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The shell stopped at an error: its exit status and what it wrote to standard error.
    public struct Failure: Error, CustomStringConvertible {
        public var status: Int32
        public var message: String
        public var description: String { "sqlite3 exited with \(status): \(message)" }
    }

    /// Runs `sql` (statements and dot-commands) on `store` in batch mode, stopping at the first
    /// error, and returns what it printed. Throws ``Failure`` when it exits non-zero or writes
    /// to standard error.
    @discardableResult public static func run(_ store: URL, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-bail", "-batch", store.path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is read beside standard output, so that neither pipe can fill and stall the shell.
        let problems = Box()
        let reader = Thread { problems.text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        reader.start()
        input.fileHandleForWriting.write(Data(sql.utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let message = problems.wait()
        guard process.terminationStatus == 0, message.isEmpty else { throw Failure(status: process.terminationStatus, message: message) }
        return text
    }

    /// Standard error's text, handed from its reading thread.
    private final class Box: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        var text = "" {
            didSet { done.signal() }
        }

        func wait() -> String {
            done.wait()
            return text
        }
    }
}
