import CDBase
import Foundation

/// The one writer of JSON text: values appended as UTF-8 straight into an ``OutputBuffer``, keys
/// in the order written, commas placed by the writer. Every report, page, document and line of
/// JSON that is not a Codable type's own encoding is written through it; strings are escaped by
/// ``OutputBuffer/appendJSONString(_:htmlSafe:)``, the escaping `dump`'s objects use.
///
/// `htmlSafe` (for `serve`) also escapes `<`, `>`, `&`, U+2028 and U+2029 in the strings it
/// writes, so that no value can close a `<script>` element or end a JavaScript line.
package struct JSONWriter {
    /// The JSON written so far.
    package private(set) var buffer: OutputBuffer
    package let htmlSafe: Bool
    /// Whether the next value or key follows another in its object or array (or, at the top,
    /// on its line).
    private var followsValue = false

    package init(htmlSafe: Bool = false, capacity: Int = 256) {
        buffer = OutputBuffer(capacity: capacity)
        self.htmlSafe = htmlSafe
    }

    /// The text written so far.
    package var text: String { buffer.text }

    /// Before a value: the comma after the previous one.
    @inline(__always)
    private mutating func separate() {
        if followsValue { buffer.append(UInt8(ascii: ",")) }
        followsValue = true
    }

    package mutating func beginObject() {
        separate()
        buffer.append(UInt8(ascii: "{"))
        followsValue = false
    }

    package mutating func endObject() {
        buffer.append(UInt8(ascii: "}"))
        followsValue = true
    }

    package mutating func beginArray() {
        separate()
        buffer.append(UInt8(ascii: "["))
        followsValue = false
    }

    package mutating func endArray() {
        buffer.append(UInt8(ascii: "]"))
        followsValue = true
    }

    /// A member's key, and its colon; the value written next is the member's.
    package mutating func key(_ name: String) {
        separate()
        buffer.appendJSONString(name, htmlSafe: htmlSafe)
        buffer.append(UInt8(ascii: ":"))
        followsValue = false
    }

    package mutating func string(_ text: String) {
        separate()
        buffer.appendJSONString(text, htmlSafe: htmlSafe)
    }

    /// `text`, or `null` when there is none.
    package mutating func string(_ text: String?) {
        if let text { string(text) } else { null() }
    }

    package mutating func int(_ value: Int64) {
        separate()
        buffer.append(value)
    }

    package mutating func int(_ value: Int) { int(Int64(value)) }

    /// `value`, or `null` when there is none.
    package mutating func int(_ value: Int?) {
        if let value { int(Int64(value)) } else { null() }
    }

    /// A double as `dump` writes one (``ValueText/number(_:)``); `null` when it is not finite.
    package mutating func number(_ value: Double) {
        separate()
        if value.isFinite { buffer.appendNumber(value) } else { buffer.append(literal: "null") }
    }

    package mutating func bool(_ value: Bool) {
        separate()
        buffer.append(literal: value ? "true" : "false")
    }

    package mutating func null() {
        separate()
        buffer.append(literal: "null")
    }

    /// A member whose value is a string, or `null` when there is none.
    package mutating func member(_ name: String, _ text: String?) {
        key(name)
        string(text)
    }

    /// A member whose value is a whole number, or `null` when there is none.
    package mutating func member(_ name: String, _ value: Int?) {
        key(name)
        int(value)
    }

    package mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// An array of strings.
    package mutating func strings(_ list: [String]) {
        beginArray()
        for item in list { string(item) }
        endArray()
    }

    /// A whole JSON value given as text (a Codable report's encoding), copied as it is.
    package mutating func raw(_ json: String) {
        separate()
        buffer.append(json)
    }

    /// The JSON another writer wrote (one whole value), copied as it is.
    package mutating func raw(_ other: JSONWriter) {
        separate()
        other.buffer.withUnsafeBytes(from: 0) { buffer.append($0) }
    }

    /// One value that `write` appends to the buffer itself: an object as `dump` writes it,
    /// through ``JSONValues``.
    package mutating func value(_ write: (inout OutputBuffer) throws -> Void) rethrows {
        separate()
        try write(&buffer)
    }

    /// `value` as ``ReportJSON`` encodes it (its Codable encoding, keys sorted), copied as it is.
    package mutating func encoded<Value: Encodable>(_ value: Value) throws {
        let data = try ReportJSON.data(value)
        separate()
        data.withUnsafeBytes { buffer.append($0.assumingMemoryBound(to: UInt8.self)) }
    }

    /// Ends a line of JSON lines: the next value starts the next line.
    package mutating func endLine() {
        buffer.append(UInt8(ascii: "\n"))
        followsValue = false
    }
}
