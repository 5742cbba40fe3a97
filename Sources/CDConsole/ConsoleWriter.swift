import CDBase
import CDRendering
import Foundation

/// Where console text goes: a file descriptor (standard output, standard error, a `.output`
/// file) or memory, for tests. Text is collected and written in large pieces; ``flush()`` runs
/// after every command so results and errors appear in the order they happened.
package final class ConsoleWriter {
    private enum Target {
        case descriptor(Int32, closesOnFinish: Bool)
        case memory
    }

    private var target: Target
    private var pending: [UInt8] = []
    /// Everything written to a memory writer.
    package private(set) var captured = ""
    /// Whether reports and errors get colour (`--color` and the terminal decide; a `.output`
    /// file never does). Results (objects, rows, SQL) are data and stay plain.
    package var colors = false
    /// Set when a write failed (a closed pipe): later text is dropped instead of failing again.
    package private(set) var isBroken = false
    private static let chunk = 64 * 1024

    private init(target: Target) {
        self.target = target
    }

    /// A writer on `descriptor`; `closesOnFinish` closes it in ``finish()`` (a `.output` file).
    package convenience init(descriptor: Int32, closesOnFinish: Bool = false) {
        self.init(target: .descriptor(descriptor, closesOnFinish: closesOnFinish))
    }

    /// A writer that keeps its text in ``captured``.
    package static func memory() -> ConsoleWriter {
        ConsoleWriter(target: .memory)
    }

    /// Whether the text reaches a terminal (row caps and prompts depend on it).
    package var isTerminal: Bool {
        if case .descriptor(let descriptor, _) = target { return isatty(descriptor) == 1 }
        return false
    }

    /// The width of the terminal the text reaches, or 120.
    package var width: Int {
        if case .descriptor(let descriptor, _) = target { return Terminal.width(of: descriptor) }
        return 120
    }

    package func write(_ text: String) {
        pending.append(contentsOf: text.utf8)
        if pending.count >= Self.chunk { flush() }
    }

    /// `text` and a line break, unless it already ends with one.
    package func line(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// A report for people (validation, compatibility, an explanation, the model), coloured by
    /// its layout as the one-shot commands colour theirs (``ReportColors/apply(toReport:)``).
    package func report(_ text: String) {
        line(colors ? ReportColors.apply(toReport: text) : text)
    }

    /// One line in `style` when this writer colours.
    package func line(_ text: String, style: TextStyle) {
        line(colors ? style.apply(text) : text)
    }

    package func flush() {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        switch target {
        case .memory:
            captured += String(decoding: pending, as: UTF8.self)
        case .descriptor(let descriptor, _):
            guard !isBroken else { return }
            pending.withUnsafeBytes { bytes in
                guard var next = bytes.baseAddress else { return }
                var remaining = bytes.count
                while remaining > 0 {
                    let written = Foundation.write(descriptor, next, remaining)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else {
                        isBroken = true
                        return
                    }
                    next += written
                    remaining -= written
                }
            }
        }
    }

    /// Flushes, and closes a file opened for `.output`.
    package func finish() {
        flush()
        if case .descriptor(let descriptor, true) = target {
            close(descriptor)
            target = .memory
        }
    }
}

/// Objects reach the console's output through the one ``ObjectPrinter``, as they reach a
/// command's.
extension ConsoleWriter: ObjectPrinterOutput {
    package var chunkSize: Int { Self.chunk }

    package func write(_ bytes: inout OutputBuffer) {
        bytes.withUnsafeBytes { pending.append(contentsOf: $0) }
        bytes.removeAll()
        if pending.count >= Self.chunk { flush() }
    }
}
