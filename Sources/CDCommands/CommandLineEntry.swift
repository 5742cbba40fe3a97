import ArgumentParser
import CDBase
import CDStore
import Foundation

/// The whole command line: parses the arguments, runs the command and gives its exit status.
/// The `cdstore` executable is only a call to ``main()``; tests and the console call
/// ``run(_:io:)`` in-process.
package enum CommandLineEntry {
    /// Runs `cdstore` with the process's arguments and streams, and exits with the status.
    package static func main() -> Never {
        PrivateCopyRegistry.installSignalHandlers()
        PrivateCopyRegistry.removeStaleCopies()
        exit(run(Array(CommandLine.arguments.dropFirst()), io: .process()))
    }

    /// Runs one command line (`arguments` without the program name) with `io`, and returns the
    /// exit status. Everything the command writes goes to `io`, even when other runs go on in
    /// parallel.
    package static func run(_ arguments: [String], io: CommandIO) -> Int32 {
        CommandIO.$current.withValue(io) { execute(arguments, io: io) }
    }

    private static func execute(_ arguments: [String], io: CommandIO) -> Int32 {
        // `cdstore --version` is handled here: an ArgumentParser flag on the root command would also be
        // parsed inside subcommands and clash with `model --version NAME`.
        if arguments == ["--version"] {
            Output.print("cdstore \(CDStoreCommand.version)")
            return 0
        }
        // A command line that does not parse still has its usage error follow its --color.
        var io = io
        io.colorMode = ColorOptions.mode(in: arguments) ?? .auto
        do {
            var command = try CDStoreCommand.parseAsRoot(arguments)
            if let choosing = command as? ChoosesColor { io.colorMode = choosing.colorOptions.color }
            try CommandIO.$current.withValue(io) { try command.run() }
            return 0
        } catch _ where io.output.isClosed {
            // Nobody reads the output any more (`| head`): the failed write stopped the command,
            // whatever error it became on the way up. End quietly with 141 (128 + SIGPIPE), the
            // status a shell reports for a process a closed pipe ended.
            return 141
        } catch let error as UserFacingError {
            // Problems with the user's input: one line, then any lines that show where.
            Output.message(error.renderedLines(prefix: "cdstore: error: ").map(\.text).joined(separator: "\n"), io: io)
            return error.exitStatus
        } catch {
            // Usage errors, help and `ExitCode` keep ArgumentParser's own messages and exit codes.
            return report(argumentParserError: error, io: io)
        }
    }

    /// What `CDStoreCommand.exit(withError:)` would print and return, written to `io`: help to
    /// the output, everything else to the error stream.
    private static func report(argumentParserError error: Error, io: CommandIO) -> Int32 {
        let status = CDStoreCommand.exitCode(for: error).rawValue
        var message = CDStoreCommand.fullMessage(for: error, columns: helpColumns(io))
        // ArgumentParser starts a usage error with "Error: "; cdstore's own errors start
        // "cdstore: error: ", and both should read (and grep) the same.
        let parserPrefix = "Error: "
        if status != ExitCode.success.rawValue && message.hasPrefix(parserPrefix) {
            message = "cdstore: error: " + message.dropFirst(parserPrefix.count)
        }
        if status == ExitCode.success.rawValue {
            if !message.isEmpty { try? io.output.write(message + "\n") }
        } else if !message.isEmpty {
            Output.message(message, io: io)
        }
        return status
    }

    /// The width ArgumentParser wraps help to: `COLUMNS`, else the terminal's, else its own 80.
    private static func helpColumns(_ io: CommandIO) -> Int {
        io.environment["COLUMNS"].flatMap(Int.init) ?? io.terminalColumns ?? 80
    }
}
