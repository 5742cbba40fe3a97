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
    /// and a caret under the error position.
    public var caretDiagram: String {
        let flat = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return flat + "\n" + String(repeating: " ", count: offset) + "^"
    }

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
