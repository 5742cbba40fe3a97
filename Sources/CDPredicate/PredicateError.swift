import CDBase

/// Why a format string could not be parsed, and where.
public struct PredicateError: UserFacingError, Equatable, Sendable {
    /// The format string as given.
    public let text: String
    /// Offset of the offending spot in `text`, in Characters (0 ... text.count; text.count means
    /// "at the end").
    public let offset: Int
    /// One line saying what was expected or what is wrong.
    public let message: String

    package init(text: String, offset: Int, message: String) {
        self.text = text
        self.offset = offset
        self.message = message
    }

    /// The message with the character offset it points at, as the command line prints it.
    public var description: String { "predicate error at character \(offset): \(message)" }

    /// The caret diagram, for the command line to print under the message.
    public var details: [String] { caretDiagram.split(separator: "\n").map(String.init) }

    /// Two lines: the format string (line breaks and tabs shown as spaces, so the columns line up)
    /// and a caret under the error position. Only ``caretWindow`` characters each side of the
    /// caret are shown, with `…` where text was cut: a generated predicate can be a line of
    /// many kilobytes.
    public var caretDiagram: String {
        let flat = text.map { $0.isNewline || $0 == "\t" ? " " : $0 }
        let caret = min(max(offset, 0), flat.count)
        let start = max(0, caret - Self.caretWindow)
        let end = min(flat.count, caret + Self.caretWindow)
        let head = start > 0 ? "…" : ""
        let tail = end < flat.count ? "…" : ""
        return head + String(flat[start..<end]) + tail + "\n" + String(repeating: " ", count: caret - start + head.count) + "^"
    }

    /// How many characters the caret diagram shows on each side of the caret.
    public static let caretWindow = 60

    /// `text` in double quotes for a message: line breaks and tabs escaped so the message stays on
    /// one line, and long text shortened.
    package static func quoted(_ text: String) -> String {
        let limit = 40
        var visible = ""
        for character in text.prefix(limit) {
            switch character {
            case "\n": visible += "\\n"
            case "\r\n": visible += "\\r\\n"
            case "\r": visible += "\\r"
            case "\t": visible += "\\t"
            case _ where character.isNewline: visible += " "
            default: visible.append(character)
            }
        }
        return "\"" + visible + (text.count > limit ? "…" : "") + "\""
    }
}
