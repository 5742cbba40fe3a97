import Foundation

/// Writes command output to the running command's ``CommandIO``.
enum Output {
    static func print(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// `text` as it is, without adding a line break.
    static func write(_ text: String) {
        // Nothing to do when nobody reads the output any more: the stream remembers it is
        // closed, and the command line ends the run quietly.
        try? CommandIO.current.output.write(text)
    }

    /// Stable JSON: sorted keys, pretty-printed, no escaped slashes.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
