import CDBase
import CDTestSupport
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The escaping rules of the pages, diagrams and model files: exact outputs, and over generated
/// text an XML parser (an independent reader) gets back what was escaped.
@Suite struct MarkupTextTests {
    @Test func eachContextEscapesItsCharacters() {
        let text = "a<b>&\"c'\td\ne\r\u{1}\u{85}\u{FFFE}é"
        #expect(MarkupText.escape(text, for: .html) == "a&lt;b&gt;&amp;&quot;c&#39;\td\ne\r\u{1}\u{85}\u{FFFE}é")
        #expect(MarkupText.escape(text, for: .xml) == "a&lt;b&gt;&amp;&quot;c'\u{FFFD}d\u{FFFD}e\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}é")
        #expect(MarkupText.escape(text, for: .xmlAttribute) == "a&lt;b&gt;&amp;&quot;c'&#9;d&#10;e&#13;\u{FFFD}\u{FFFD}\u{FFFD}é")
        #expect(MarkupText.escape("<script>alert(1)</script>", for: .html) == "&lt;script&gt;alert(1)&lt;/script&gt;")
    }

    /// Text of characters that matter to markup, mixed with ordinary ones.
    static func generatedTexts(count: Int, seed: UInt64) -> [String] {
        RandomText.escapingTexts(
            count: count, seed: seed,
            special: ["<", ">", "&", "\"", "'", "\t", "\n", "\r", "\u{0}", "\u{1F}", "\u{7F}", "\u{9F}", "\u{FFFE}", "\u{FFFF}", "]", ";", "#"],
            ordinary: 0x20...0x2FF, maxLength: 24, specialOneIn: 2)
    }

    /// What `.xmlAttribute` must keep: every character, the ones XML cannot carry as U+FFFD.
    static func carried(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    let value = scalar.value
                    let whitespace = scalar == "\t" || scalar == "\n" || scalar == "\r"
                    return !whitespace && (value < 0x20 || (0x7F...0x9F).contains(value) || value >= 0xFFFE && value <= 0xFFFF) ? "\u{FFFD}" : scalar
                }))
    }

    @Test func anXMLParserReadsBackTheAttributeValues() throws {
        for (index, text) in Self.generatedTexts(count: 500, seed: 2311).enumerated() {
            let document = "<a v=\"\(MarkupText.escape(text, for: .xmlAttribute))\">\(MarkupText.escape(text, for: .xml))</a>"
            let reader = AttributeReader()
            let parser = XMLParser(data: Data(document.utf8))
            parser.delegate = reader
            #expect(parser.parse(), "text \(index): \(text.debugDescription): \(parser.parserError.map { "\($0)" } ?? "")")
            #expect(reader.value == Self.carried(text), "text \(index): \(text.debugDescription)")
            #expect(!reader.content.unicodeScalars.contains { $0.value < 0x20 }, "text \(index)")
        }
    }

    @Test func htmlEscapingLeavesNoMarkup() {
        for text in Self.generatedTexts(count: 500, seed: 7) {
            let escaped = MarkupText.escape(text, for: .html)
            #expect(!escaped.contains("<") && !escaped.contains(">") && !escaped.contains("\"") && !escaped.contains("'"))
            let decoded = escaped.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
            #expect(decoded == text)
        }
    }
}

/// Collects the attribute `v` and the text of the parsed element.
private final class AttributeReader: NSObject, XMLParserDelegate {
    var value: String?
    var content = ""

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]
    ) {
        value = attributes["v"]
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        content += string
    }
}
