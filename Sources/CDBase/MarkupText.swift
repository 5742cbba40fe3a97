/// Text escaped for HTML or XML, one set of rules named by where the text goes, so the web
/// pages, the model diagrams and the model files written back to `.xcdatamodel` escape alike.
package enum MarkupText {
    /// Where the escaped text goes.
    package enum Context: Sendable {
        /// HTML element content or a quoted attribute value: `& < > " '` as references (the
        /// apostrophe too, so a single-quoted attribute is safe as well).
        case html
        /// A one-line XML label or attribute (SVG text, Graphviz HTML labels): `& < > "` as
        /// references, and as U+FFFD the characters XML 1.0 forbids even as references (C0
        /// controls, U+FFFE, U+FFFF), or the document would not parse, C1 controls, and tab,
        /// newline and return, which a one-line label cannot show.
        case xml
        /// An XML attribute that must keep its whitespace: as ``xml``, and tab, newline and
        /// return as character references, which attribute-value normalization leaves alone.
        case xmlAttribute
    }

    /// `text` escaped for `context`.
    package static func escape(_ text: String, for context: Context) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'" where context == .html: result += "&#39;"
            case "\t" where context == .xmlAttribute: result += "&#9;"
            case "\n" where context == .xmlAttribute: result += "&#10;"
            case "\r" where context == .xmlAttribute: result += "&#13;"
            case _ where context != .html && isForbiddenInXML(scalar): result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Control characters and the noncharacters U+FFFE and U+FFFF.
    private static func isForbiddenInXML(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0xFFFE || value == 0xFFFF
    }
}
