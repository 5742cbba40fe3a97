import CDModel
import CDStore
import Foundation

/// JSON values of the import input as typed attribute values: what `cdstore dump --format json
/// --binary base64` prints for each attribute type, read back.
enum ImportValues {
    /// Why a JSON value does not fit an attribute; the importer adds the object and key.
    struct Mismatch: Error {
        let message: String
    }

    static func objectValue(_ json: JSONValue, for attribute: AttributeDescription) throws -> ObjectValue {
        if case .null = json { return .null }
        let type = attribute.type
        switch type {
        case .integer16, .integer32, .integer64:
            guard case .number(let text) = json else { throw expected("an integer", json) }
            guard let value = integer(text) else {
                throw Mismatch(message: "\(text) is not an integer in range for \(type) "
                               + "(\(ValueEncoder.integerRange(type).lowerBound)…\(ValueEncoder.integerRange(type).upperBound))")
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
            guard let seconds = secondsSince2001(iso: text) else {
                throw Mismatch(message: "\"\(text)\" is not an ISO 8601 date (2024-05-31T12:00:00Z, fractional seconds and a ±hh:mm offset allowed)")
            }
            return .date(seconds)
        case .uuid:
            guard case .string(let text) = json else { throw expected("a UUID string", json) }
            guard let uuid = UUID(uuidString: text) else { throw Mismatch(message: "\"\(text)\" is not a UUID") }
            return .uuid(uuid)
        case .uri:
            guard case .string(let text) = json else { throw expected("a URI string", json) }
            return .uri(text)
        case .binary, .transformable:
            if case .object(let members) = json, members.contains(where: { $0.key == "externalFile" }) {
                throw Mismatch(message: "references to externally stored files cannot be imported; give the bytes in base64")
            }
            guard case .string(let text) = json else {
                throw expected(type == .binary ? "a base64 string" : "a base64 string (the transformer's archived bytes)", json)
            }
            guard let data = Data(base64Encoded: text) else { throw Mismatch(message: "the value is not valid base64") }
            return type == .binary ? .binary(data) : .transformableData(data)
        default:
            throw Mismatch(message: "attributes of type \(type) cannot be imported")
        }
    }

    private static func expected(_ what: String, _ json: JSONValue) -> Mismatch {
        Mismatch(message: "expected \(what), got \(json.kind)")
    }

    /// A JSON integer literal (a whole number written with a fraction or exponent, as `3.0`,
    /// counts too) within Int64.
    static func integer(_ text: String) -> Int64? {
        if let value = Int64(text) { return value }
        guard let value = Double(text), value.rounded() == value, abs(value) < 9.2e18 else { return nil }
        return Int64(value)
    }

    /// `[-]YYYY…-MM-DD[T ]hh:mm:ss[.fraction][Z|±hh:mm|±hhmm]` (no zone means UTC, as dump prints
    /// every date in UTC) to seconds since 2001-01-01T00:00:00Z, Core Data's date value (§7.5).
    static func secondsSince2001(iso text: String) -> Double? {
        let chars = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int? {
            guard index + width <= chars.count else { return nil }
            var value = 0
            for byte in chars[index..<index + width] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += width
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < chars.count, chars[index] == byte else { return false }
            index += 1
            return true
        }
        // Years have four digits or more: dump prints far-future values (seen in Photos) in full.
        let negativeYear = take(UInt8(ascii: "-"))
        var yearDigits = 0
        while index + yearDigits < chars.count, (48...57).contains(chars[index + yearDigits]) { yearDigits += 1 }
        guard yearDigits >= 4, yearDigits <= 12, let rawYear = number(yearDigits), take(UInt8(ascii: "-")), let month = number(2), take(UInt8(ascii: "-")),
              let day = number(2), take(UInt8(ascii: "T")) || take(UInt8(ascii: " ")),
              let hour = number(2), take(UInt8(ascii: ":")), let minute = number(2), take(UInt8(ascii: ":")),
              let second = number(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let year = negativeYear ? -rawYear : rawYear
        var fraction = 0.0
        if take(UInt8(ascii: ".")) {
            let start = index
            while index < chars.count, (48...57).contains(chars[index]) { index += 1 }
            guard index > start, let value = Double("0." + String(decoding: chars[start..<index], as: UTF8.self)) else { return nil }
            fraction = value
        }
        var offset = 0
        if take(UInt8(ascii: "Z")) {
            offset = 0
        } else if index < chars.count, chars[index] == UInt8(ascii: "+") || chars[index] == UInt8(ascii: "-") {
            let sign = chars[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2) else { return nil }
            _ = take(UInt8(ascii: ":"))
            guard let minutes = number(2) else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == chars.count else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let unix = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        // Whole seconds first and the fraction last, so the double is the nearest one to the
        // printed instant and prints with the same milliseconds again.
        return Double(unix - 978_307_200) + fraction
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (the inverse of the civil-date
    /// arithmetic the dump uses).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
