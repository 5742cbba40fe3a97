import CDModel
import CDPredicate
import CDStore
import Foundation

/// JSON values of the import input as typed attribute values: what `cdstore dump --format json
/// --binary base64` prints for each attribute type, read back.
enum ImportValues {
    /// Why a JSON value does not fit an attribute; the importer adds the object and key
    /// (``ImportError/badValue(object:key:reason:)``).
    enum Mismatch: Error, Equatable {
        /// The JSON value is of kind `got`; the attribute takes `expected`.
        case wrongKind(expected: String, got: String)
        /// A number that is not an integer in the range of `type`.
        case notAnInteger(text: String, type: AttributeType)
        /// A string that is not an ISO 8601 date.
        case notADate(text: String)
        /// A string that is not a UUID.
        case notAUUID(text: String)
        /// A reference to an externally stored file instead of the bytes.
        case externalFile
        /// A string that is not base64.
        case notBase64
        /// An attribute type the import does not fill.
        case unsupportedType(AttributeType)

        var message: String {
            switch self {
            case .wrongKind(let expected, let got): return "expected \(expected), got \(got)"
            case .notAnInteger(let text, let type):
                let range = ValueEncoder.integerRange(type)
                return "\(text) is not an integer in range for \(type) (\(range.lowerBound)…\(range.upperBound))"
            case .notADate(let text):
                return "\"\(text)\" is not an ISO 8601 date (2024-05-31T12:00:00Z, fractional seconds and a ±hh:mm offset allowed)"
            case .notAUUID(let text): return "\"\(text)\" is not a UUID"
            case .externalFile: return "references to externally stored files cannot be imported; give the bytes in base64"
            case .notBase64: return "the value is not valid base64"
            case .unsupportedType(let type): return "attributes of type \(type) cannot be imported"
            }
        }
    }

    static func objectValue(_ json: JSONValue, for attribute: AttributeDescription) throws -> ObjectValue {
        if case .null = json { return .null }
        let type = attribute.type
        switch type {
        case .integer16, .integer32, .integer64:
            guard case .number(let text) = json else { throw expected("an integer", json) }
            guard let value = integer(text) else {
                throw Mismatch.notAnInteger(text: text, type: type)
            }
            return .integer(value)
        case .decimal, .double, .float:
            guard case .number(let text) = json, let value = Double(text), value.isFinite else { throw expected("a number", json) }
            return type == .decimal ? .decimal(value) : .double(value)
        case .boolean:
            guard case .bool(let value) = json else { throw expected("true or false", json) }
            return .boolean(value)
        case .string:
            guard case .string(let value) = json else { throw expected("a string", json) }
            return .string(value)
        case .date:
            guard case .string(let text) = json else { throw expected("an ISO 8601 date string", json) }
            guard let seconds = CoreDataDate(iso8601: text)?.secondsSince2001 else {
                throw Mismatch.notADate(text: text)
            }
            return .date(seconds)
        case .uuid:
            guard case .string(let text) = json else { throw expected("a UUID string", json) }
            guard let uuid = UUID(uuidString: text) else { throw Mismatch.notAUUID(text: text) }
            return .uuid(uuid)
        case .uri:
            guard case .string(let text) = json else { throw expected("a URI string", json) }
            return .uri(text)
        case .binary, .transformable:
            if case .object(let members) = json, members.contains(where: { $0.key == "externalFile" }) {
                throw Mismatch.externalFile
            }
            guard case .string(let text) = json else {
                throw expected(type == .binary ? "a base64 string" : "a base64 string (the transformer's archived bytes)", json)
            }
            guard let data = Data(base64Encoded: text) else { throw Mismatch.notBase64 }
            return type == .binary ? .binary(data) : .transformableData(data)
        default:
            throw Mismatch.unsupportedType(type)
        }
    }

    private static func expected(_ what: String, _ json: JSONValue) -> Mismatch {
        Mismatch.wrongKind(expected: what, got: json.kind)
    }

    /// A JSON integer literal (a whole number written with a fraction or exponent, as `3.0`,
    /// counts too) within Int64.
    static func integer(_ text: String) -> Int64? {
        if let value = Int64(text) { return value }
        guard let value = Double(text), value.rounded() == value, abs(value) < 9.2e18 else { return nil }
        return Int64(value)
    }
}
