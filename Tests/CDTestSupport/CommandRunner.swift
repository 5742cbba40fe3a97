import CDCommands
import Foundation

/// Runs cdstore command lines for tests: in-process through ``CommandLineEntry`` (fast, and what
/// most tests use), or as the built `cdstore` executable, as a user would (exit statuses, pipes
/// and process streams end to end).
public enum CommandRunner {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// Runs `arguments` in this process with memory streams. `stdin` is the whole standard input
    /// and `environment` the whole environment the command sees, so a test does not depend on
    /// the variables of the shell that runs it. `outputIsTerminal` has the command take its
    /// output and error streams for terminals (colour with `--color auto`).
    public static func runInProcess(
        _ arguments: [String], stdin: Data = Data(), environment: [String: String] = [:],
        stdinIsTerminal: Bool = false, outputIsTerminal: Bool = false
    ) -> Result {
        var io = CommandIO.memory(input: stdin, environment: environment, inputIsTerminal: stdinIsTerminal)
        io.outputIsTerminal = outputIsTerminal
        io.errorIsTerminal = outputIsTerminal
        let status = CommandLineEntry.run(arguments, io: io)
        return Result(status: status, stdout: io.output.text, stderr: io.error.text)
    }

    /// The `cdstore` binary next to the test bundle in the build's products directory.
    public static let executable: URL? = {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        return candidates.map { $0.appendingPathComponent("cdstore") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs the built executable with `arguments`. `environment` adds variables to the test's
    /// own environment.
    public static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> Result {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        return try runProcess(executable, arguments, stdin: stdin, environment: environment)
    }

    /// Runs any program (`sqlite3`, say) with `arguments`, feeding it `stdin` and collecting
    /// both its streams. `environment` adds variables to the test's own environment.
    public static func runProcess(_ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Feed the input and drain both pipes at the same time: a child blocked on a full pipe
        // (more than 64 KiB of SQL debug log on stderr, say) would otherwise wait for a reader
        // that waits for the child.
        let errors = PipeContents()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            errors.data = err.fileHandleForReading.readDataToEndOfFile()
        }
        DispatchQueue.global().async(group: group) {
            if let stdin { input.fileHandleForWriting.write(stdin) }
            try? input.fileHandleForWriting.close()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errors.data, as: UTF8.self))
    }

    /// What a background reader collected; read only after the group it ran in has finished,
    /// which orders the write before the read.
    private final class PipeContents: @unchecked Sendable {
        var data = Data()
    }
}
