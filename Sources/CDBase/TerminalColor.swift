/// When output gets colour (`--color`).
package enum ColorMode: String, CaseIterable, Sendable {
    case auto, always, never

    /// Whether text for one stream is coloured: `always` and `never` decide alone; `auto`
    /// colours a stream that is a terminal, unless `NO_COLOR` is set to anything but the empty
    /// string (no-color.org: a command-line option overrides the variable).
    package func colors(streamIsTerminal: Bool, environment: [String: String]) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto: return streamIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty
        }
    }
}

/// The four looks of terminal text, as ANSI SGR sequences, each closed by a full reset.
package enum TextStyle: Sendable {
    /// Section headings: bold.
    case heading
    /// Warnings: yellow.
    case warning
    /// Errors: red.
    case error
    /// Secondary text (nothing found, pointers elsewhere, hints): dim.
    case secondary

    /// The SGR parameter: 1 bold, 33 yellow, 31 red, 2 dim.
    private var parameter: String {
        switch self {
        case .heading: return "1"
        case .warning: return "33"
        case .error: return "31"
        case .secondary: return "2"
        }
    }

    /// `text` in this style, with the reset after it.
    package func apply(_ text: String) -> String {
        "\u{1B}[\(parameter)m\(text)\u{1B}[0m"
    }
}

/// Colour for the text cdstore writes for people, decided from the text's layout so that
/// every report gets it in one place, without its renderer knowing about terminals.
///
/// Every report is laid out the same way: a heading at the left margin with its lines indented
/// two spaces under it ("Warnings", "Validation errors", "Common causes"). Headings become bold,
/// the lines of a Warnings or lint findings section and lines starting `warning:` yellow, lines
/// starting `error:` red, and secondary lines dim: a section's "none", and the closing "See …" pointers to other
/// pages. Indentation stays outside the escape sequences, so columns line up as without colour.
package enum ReportColors {
    /// `report` with each line styled as its place in the layout says.
    package static func apply(toReport report: String) -> String {
        let lines = report.split(separator: "\n", omittingEmptySubsequences: false)
        var section = ""
        var styled: [String] = []
        styled.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() {
            let isIndented = line.first == " "
            if !isIndented { section = "" }
            let next = index + 1 < lines.count ? lines[index + 1] : ""
            let style: TextStyle?
            if !line.isEmpty && !isIndented && next.first == " " && next.contains(where: { $0 != " " }) {
                section = String(line)
                style = .heading
            } else {
                style = lineStyle(line, section: section)
            }
            styled.append(style.map { apply($0, to: line) } ?? String(line))
        }
        return styled.joined(separator: "\n")
    }

    /// `message` (lines for the error stream) with `cdstore: error:` lines red, `cdstore:
    /// warning:` lines yellow and `hint:` lines dim; other lines (details, usage) stay plain.
    package static func apply(toMessage message: String) -> String {
        message.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            if line.hasPrefix("cdstore: error:") { return TextStyle.error.apply(String(line)) }
            if line.hasPrefix("cdstore: warning:") { return TextStyle.warning.apply(String(line)) }
            if line.hasPrefix("hint:") { return TextStyle.secondary.apply(String(line)) }
            return String(line)
        }.joined(separator: "\n")
    }

    private static func lineStyle(_ line: Substring, section: String) -> TextStyle? {
        let text = line.drop { $0 == " " }
        if text.isEmpty { return nil }
        if text == "none" || (line.first != " " && text.hasPrefix("See ")) { return .secondary }
        if text.hasPrefix("error:") { return .error }
        if text.hasPrefix("warning:") || (isWarningSection(section) && line.first == " ") { return .warning }
        return nil
    }

    /// "Warnings", and the findings of `model --lint` ("Version X: 3 findings"), which are what
    /// momc warns about.
    private static func isWarningSection(_ heading: String) -> Bool {
        heading.hasPrefix("Warnings") || heading.hasSuffix(" finding") || heading.hasSuffix(" findings")
    }

    /// The style around the text of `line`, its indentation left before the escape.
    private static func apply(_ style: TextStyle, to line: Substring) -> String {
        let indentation = line.prefix { $0 == " " }
        return indentation + style.apply(String(line.dropFirst(indentation.count)))
    }
}
