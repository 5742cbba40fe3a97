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
        let result = try CommandRunner.runProcess(URL(fileURLWithPath: path), ["-bail", "-batch", store.path], stdin: Data(sql.utf8))
        guard result.status == 0, result.stderr.isEmpty else { throw Failure(status: result.status, message: result.stderr) }
        return result.stdout
    }
}
