import CDBase
import CDRendering
import CDTestSupport
import Foundation
import Testing

/// The one JSON writer: its escapes byte for byte (plain and HTML-safe), its commas in nested
/// objects and arrays, its numbers as `dump` writes them, and over generated keys and values a
/// document that Foundation's JSON parser (an independent reader) reads back as written.
@Suite struct JSONWriterTests {
    static func string(_ text: String, htmlSafe: Bool = false) -> String {
        var json = JSONWriter(htmlSafe: htmlSafe)
        json.string(text)
        return json.text
    }

    @Test func controlCharactersAreEscaped() {
        for code in UInt8(0)..<0x20 {
            let expected: String
            switch code {
            case 0x0A: expected = "\\n"
            case 0x0D: expected = "\\r"
            case 0x09: expected = "\\t"
            default: expected = "\\u00" + (code < 0x10 ? "0" : "") + String(code, radix: 16)
            }
            let text = String(UnicodeScalar(code))
            #expect(Self.string(text) == "\"" + expected + "\"", "U+\(String(code, radix: 16))")
            #expect(Self.string(text, htmlSafe: true) == "\"" + expected + "\"", "U+\(String(code, radix: 16)), HTML-safe")
        }
    }

    @Test func quotesBackslashesAndOtherCharacters() {
        #expect(Self.string("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(Self.string("/\u{7F} é😀\u{2027}") == "\"/\u{7F} é😀\u{2027}\"")
        #expect(Self.string("") == "\"\"")
        // Long enough for the eight-bytes-at-a-time scan, with the escape in a later word.
        #expect(Self.string("abcdefghijklmnop\"qrstuvwx") == "\"abcdefghijklmnop\\\"qrstuvwx\"")
    }

    @Test func htmlSafeEscapesMarkupAndLineSeparators() {
        let text = "</script><b a=\"1\">&\u{2028}\u{2029}\n"
        #expect(Self.string(text) == "\"</script><b a=\\\"1\\\">&\u{2028}\u{2029}\\n\"")
        #expect(Self.string(text, htmlSafe: true) == "\"\\u003c/script\\u003e\\u003cb a=\\\"1\\\"\\u003e\\u0026\\u2028\\u2029\\n\"")
        var json = JSONWriter(htmlSafe: true)
        json.beginObject()
        json.member("<&>", "\u{2028}")
        json.endObject()
        #expect(json.text == "{\"\\u003c\\u0026\\u003e\":\"\\u2028\"}")
    }

    @Test func commasInNestedObjectsAndArrays() throws {
        var json = JSONWriter()
        json.beginObject()
        json.member("a", 1)
        json.key("empty")
        json.beginArray()
        json.endArray()
        json.key("none")
        json.beginObject()
        json.endObject()
        json.key("list")
        json.beginArray()
        json.int(Int64(-1))
        json.beginObject()
        json.member("b", true)
        json.member("c", nil as String?)
        json.endObject()
        json.strings(["x", "y"])
        json.null()
        json.raw("{\"r\":[1]}")
        json.value { $0.append("2") }
        json.endArray()
        json.member("d", nil as Int?)
        json.member("e", false)
        json.endObject()
        #expect(
            json.text == "{\"a\":1,\"empty\":[],\"none\":{},\"list\":[-1,{\"b\":true,\"c\":null},[\"x\",\"y\"],null,{\"r\":[1]},2],\"d\":null,\"e\":false}")
    }

    @Test func linesAndOtherWriters() throws {
        var inner = JSONWriter()
        inner.beginObject()
        inner.member("<", "&")
        inner.endObject()
        var json = JSONWriter(htmlSafe: true)
        json.beginObject()
        json.key("inner")
        json.raw(inner)
        json.key("report")
        try json.encoded(["b": "x/y", "a": "<"])
        json.endObject()
        json.endLine()
        json.beginArray()
        json.endArray()
        json.endLine()
        // Another writer's text and a Codable encoding are copied as they are, not escaped again.
        #expect(json.text == "{\"inner\":{\"<\":\"&\"},\"report\":{\"a\":\"<\",\"b\":\"x/y\"}}\n[]\n")
        #expect(try ReportJSON.compact(["b": "x/y", "a": "<"]) == "{\"a\":\"<\",\"b\":\"x/y\"}")
    }

    @Test func numbersAsDumpWritesThem() {
        let doubles: [Double] = [0, -0.0, 1, -1, 0.5, 1.0 / 3, 123_456_789.25, 1e15 - 1, 1e15, -1e15, 1e300, 5e-324, .pi, -2.5e-7]
        for value in doubles {
            var json = JSONWriter()
            json.number(value)
            #expect(json.text == ValueText.number(value), "\(value)")
        }
        for value in [Double.nan, .infinity, -.infinity] {
            var json = JSONWriter()
            json.number(value)
            #expect(json.text == "null")
        }
        for value in [Int64.min, -10, 0, 9, 10, 99, 100, Int64.max] {
            var json = JSONWriter()
            json.int(value)
            #expect(json.text == String(value))
        }
    }

    /// Generated keys and values, with every character that is escaped: the document parses
    /// back to the same members in both forms, and the HTML-safe form has no `<`, `>`, `&`,
    /// U+2028 or U+2029 left.
    @Test(arguments: [false, true])
    func generatedTextReadsBack(htmlSafe: Bool) throws {
        let texts = RandomText.escapingTexts(
            count: 1000, seed: 3407,
            special: ["<", ">", "&", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{8}", "\u{C}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}", "é", "😀"],
            ordinary: 0x20...0x7E, maxLength: 40, specialOneIn: 3)
        var json = JSONWriter(htmlSafe: htmlSafe)
        json.beginArray()
        for (index, text) in texts.enumerated() {
            json.beginObject()
            json.member("\(index)" + text, text)
            json.key("list")
            json.strings([text, text])
            json.endObject()
        }
        json.endArray()
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [[String: Any]])
        #expect(parsed.count == texts.count)
        for (index, (object, text)) in zip(parsed, texts).enumerated() {
            #expect(object["\(index)" + text] as? String == text, "\(text.debugDescription)")
            #expect(object["list"] as? [String] == [text, text])
        }
        if htmlSafe { #expect(!json.text.contains { "<>&\u{2028}\u{2029}".contains($0) }) }
    }
}
