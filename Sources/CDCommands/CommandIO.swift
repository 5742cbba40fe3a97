import CDBase
import CDRendering
import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything a command exchanges with the world besides files: its output and error streams,
/// its standard input, its environment and the terminal its output goes to.
///
/// `cdstore` runs with the process's own (``process()``); tests and the console run commands
/// in-process with memory streams (``memory(input:environment:)``). A run binds its IO to
/// ``current`` for its task, so runs in parallel never mix their output.
package struct CommandIO: Sendable {
    /// Reports, rows, help text.
    package var output: CommandOutput
    /// Error messages and the SQL debug log.
    package var error: CommandOutput
    /// What `explain -` reads a pasted error dump from.
    package var input: CommandInput
    /// The variables the commands read (`CDSTORE_SQL_DEBUG`, `COLUMNS`).
    package var environment: [String: String]
    /// The width of the terminal standard output goes to, in columns; nil when it is not a terminal.
    package var terminalColumns: Int?
    /// Whether standard input is a terminal: `explain -` then tells the person what to do
    /// instead of waiting silently for a paste.
    package var inputIsTerminal: Bool
    /// Whether standard output and standard error are terminals, for `--color auto`.
    package var outputIsTerminal: Bool
    package var errorIsTerminal: Bool
    /// The command's `--color`; ``CommandLineEntry`` sets it once the command line is parsed.
    package var colorMode: ColorMode = .auto

    package init(
        output: CommandOutput, error: CommandOutput, input: CommandInput,
        environment: [String: String], terminalColumns: Int?, inputIsTerminal: Bool = false,
        outputIsTerminal: Bool = false, errorIsTerminal: Bool = false
    ) {
        self.output = output
        self.error = error
        self.input = input
        self.environment = environment
        self.terminalColumns = terminalColumns
        self.inputIsTerminal = inputIsTerminal
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
    }

    /// The process's standard output, error and input, its environment and terminal.
    package static func process() -> CommandIO {
        var size = winsize()
        let hasSize = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
        return CommandIO(
            output: .fileDescriptor(STDOUT_FILENO), error: .fileDescriptor(STDERR_FILENO),
            input: .fileDescriptor(STDIN_FILENO), environment: ProcessInfo.processInfo.environment,
            terminalColumns: hasSize ? Int(size.ws_col) : nil, inputIsTerminal: isatty(STDIN_FILENO) == 1,
            outputIsTerminal: isatty(STDOUT_FILENO) == 1, errorIsTerminal: isatty(STDERR_FILENO) == 1)
    }

    /// Whether reports on the output get colour (``ColorMode/colors(streamIsTerminal:environment:)``).
    package var colorsOutput: Bool { colorMode.colors(streamIsTerminal: outputIsTerminal, environment: environment) }
    /// Whether messages on the error stream get colour.
    package var colorsErrors: Bool { colorMode.colors(streamIsTerminal: errorIsTerminal, environment: environment) }

    /// Memory streams, for running a command in-process: the environment is exactly
    /// `environment` (nothing of the process's), and the output is not a terminal.
    /// `inputIsTerminal` lets a test play a person typing at a terminal.
    package static func memory(input: Data = Data(), environment: [String: String] = [:], inputIsTerminal: Bool = false) -> CommandIO {
        CommandIO(
            output: .memory(), error: .memory(), input: .data(input), environment: environment, terminalColumns: nil,
            inputIsTerminal: inputIsTerminal)
    }

    /// The IO of the command running in this task. Code that writes later, on another thread
    /// (the SQL trace, a buffered output), takes its stream from here when it is set up.
    @TaskLocal static var current: CommandIO = .process()
}

/// One stream a command writes to: a file descriptor, written at once, or memory, collected
/// for whoever ran the command.
///
/// A failed write to a descriptor (`cdstore dump … | head`: the reader has gone) closes the
/// stream: later writes are dropped, and the command line ends the run quietly.
package final class CommandOutput: @unchecked Sendable {
    /// Thrown by a write to a closed stream, to stop a command whose output nobody reads.
    struct Closed: Error {}

    private enum Destination {
        case fileDescriptor(Int32)
        case memory
    }

    private let destination: Destination
    // Guards `collected` and `closed`, and keeps the writes of one stream whole and in order.
    private let lock = NSLock()
    private var collected = Data()
    private var closed = false

    private init(_ destination: Destination) {
        self.destination = destination
    }

    /// Writes straight to `descriptor`, without buffering.
    package static func fileDescriptor(_ descriptor: Int32) -> CommandOutput {
        CommandOutput(.fileDescriptor(descriptor))
    }

    /// Collects what is written; read it with ``data`` or ``text``.
    package static func memory() -> CommandOutput {
        CommandOutput(.memory)
    }

    /// Everything written so far, for a memory stream; empty for a file descriptor.
    package var data: Data { lock.withLock { collected } }

    /// ``data`` as UTF-8 text.
    package var text: String { String(decoding: data, as: UTF8.self) }

    /// True once a write failed because the reader has gone.
    package var isClosed: Bool { lock.withLock { closed } }

    /// Writes `bytes` whole, or throws ``Closed`` when the stream is (or becomes) closed.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try lock.withLock {
            guard !closed else { throw Closed() }
            switch destination {
            case .memory:
                collected.append(contentsOf: bytes)
            case .fileDescriptor(let descriptor):
                guard let start = bytes.baseAddress else { return }
                var offset = 0
                while offset < bytes.count {
                    let written = Foundation.write(descriptor, start + offset, bytes.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else {
                        closed = true
                        throw Closed()
                    }
                    offset += written
                }
            }
        }
    }

    /// Writes `text` as UTF-8, or throws ``Closed``.
    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }
}

/// A command's standard input: the process's, read when a command asks, or fixed bytes.
package struct CommandInput: Sendable {
    private let readAll: @Sendable () -> Data
    /// The descriptor, for a command that streams its input (`trace -`); nil for fixed bytes.
    package private(set) var descriptor: Int32?
    /// The fixed bytes, when the input is not a descriptor.
    package private(set) var fixedData: Data?

    /// Reads `descriptor` to its end when asked (and not before: most commands never read it).
    package static func fileDescriptor(_ descriptor: Int32) -> CommandInput {
        var input = CommandInput(readAll: {
            FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).readDataToEndOfFile()
        })
        input.descriptor = descriptor
        return input
    }

    /// `data` as the whole input.
    package static func data(_ data: Data) -> CommandInput {
        var input = CommandInput(readAll: { data })
        input.fixedData = data
        return input
    }

    /// Everything up to the end of the input.
    func readToEnd() -> Data { readAll() }
}

extension CommandIO {
    /// The width tables and expanded records are laid out to (``Terminal/width(columnsVariable:terminalColumns:)``
    /// with this IO's `COLUMNS` and terminal).
    var layoutWidth: Int {
        Terminal.width(columnsVariable: environment["COLUMNS"], terminalColumns: terminalColumns)
    }
}
