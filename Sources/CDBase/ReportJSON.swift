import Foundation

/// The one `JSONEncoder` configuration, for the reports whose Codable type is their JSON
/// contract: keys sorted and slashes left unescaped, so the same report is the same bytes on
/// every run and paths stay readable. The `--json` reports are ``pretty(_:)``; JSON lines and
/// the parts of larger documents are ``compact(_:)``, or ``data(_:)`` for a writer to copy.
package enum ReportJSON {
    /// `value` on one line.
    package static func compact<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try data(value), as: UTF8.self)
    }

    /// `value` indented, one member per line (`JSONEncoder`'s pretty printing).
    package static func pretty<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try encoder(pretty: true).encode(value), as: UTF8.self)
    }

    /// The bytes of ``compact(_:)``.
    package static func data<Value: Encodable>(_ value: Value) throws -> Data {
        try encoder(pretty: false).encode(value)
    }

    private static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
