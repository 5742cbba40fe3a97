import CDRendering
import CDTestSupport
import Foundation
import Testing

/// JSON string literals, plain (dump's) and HTML-safe (serve's): over generated text, Foundation's
/// JSON parser (an independent reader) reads back the original, and the HTML-safe form has no
/// character that could end a `<script>` or a JavaScript line.
@Suite struct JSONStringTests {
    static func generatedTexts(count: Int, seed: UInt64) -> [String] {
        RandomText.escapingTexts(
            count: count, seed: seed,
            special: ["<", ">", "&", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}", "\u{2027}", "é", "😀"],
            ordinary: 0x20...0x7E, maxLength: 40, specialOneIn: 3)
    }

    static func decoded(_ literal: String) throws -> String? {
        try JSONSerialization.jsonObject(with: Data(literal.utf8), options: [.fragmentsAllowed]) as? String
    }

    @Test func bothFormsReadBackAsTheText() throws {
        for text in Self.generatedTexts(count: 1000, seed: 2311) {
            let plain = JSONValues.string(text)
            let safe = JSONValues.string(text, htmlSafe: true)
            #expect(try Self.decoded(plain) == text, "\(text.debugDescription) → \(plain)")
            #expect(try Self.decoded(safe) == text, "\(text.debugDescription) → \(safe)")
            #expect(!safe.contains { "<>&\u{2028}\u{2029}".contains($0) }, "\(safe)")
        }
    }

    @Test func exactEscapes() {
        #expect(JSONValues.string("</script><b a=\"1\">&\u{2028}\u{2029}\n") == "\"</script><b a=\\\"1\\\">&\u{2028}\u{2029}\\n\"")
        #expect(
            JSONValues.string("</script><b a=\"1\">&\u{2028}\u{2029}\n", htmlSafe: true)
                == "\"\\u003c/script\\u003e\\u003cb a=\\\"1\\\"\\u003e\\u0026\\u2028\\u2029\\n\"")
    }
}
