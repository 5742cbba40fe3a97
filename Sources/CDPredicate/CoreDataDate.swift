import Foundation

/// A Core Data date value: seconds since 2001-01-01T00:00:00Z, what an `NSDate` attribute's
/// column holds (store-format.md §7.5) and what `CAST(…, "NSDate")` means in a predicate.
///
/// It is read from ISO-8601 text, the one way every part of cdstore takes a date (predicates,
/// CDQ queries, bound arguments, `clean --history-before`, import):
/// * a date alone, `2024-05-31`, is midnight UTC;
/// * a date-time, `2024-05-31T12:00:00` (a space may stand for the `T`), with optional
///   fractional seconds (`.250`), and a zone `Z`, `±hh:mm`, `±hhmm` or `±hh`; without a zone it
///   is UTC, like a date alone, and like `dump` prints every date;
/// * years have four digits or more, and may be negative: `dump` prints far-future values
///   (seen in Photos) in full, and import must read them back exactly.
public struct CoreDataDate: Sendable, Equatable, Hashable {
    /// Seconds since 2001-01-01T00:00:00Z (Foundation's reference date); negative before it.
    public var secondsSince2001: Double

    /// The date `secondsSince2001` seconds after 2001-01-01T00:00:00Z, as a store column holds it.
    public init(secondsSince2001: Double) {
        self.secondsSince2001 = secondsSince2001
    }

    /// The same instant as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSinceReferenceDate: secondsSince2001) }

    /// The instant `text` names, or nil when it is not one of the forms above or names no
    /// calendar day (`2023-02-30`).
    public init?(iso8601 text: String) {
        var reader = ISO8601Reader(text)
        guard let seconds = reader.secondsSince2001() else { return nil }
        self.secondsSince2001 = seconds
    }
}

/// The hand-written reader behind `CoreDataDate(iso8601:)`. Foundation's formatter is not used:
/// it reads a date-time without a zone as the date alone (midnight) and stops at year 9999.
private struct ISO8601Reader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    mutating func secondsSince2001() -> Double? {
        let negativeYear = take("-")
        var yearDigits = 0
        while index + yearDigits < bytes.count, isDigit(bytes[index + yearDigits]) { yearDigits += 1 }
        guard (4...12).contains(yearDigits), let unsignedYear = number(yearDigits), take("-"),
            let month = number(2), take("-"), let day = number(2)
        else { return nil }
        let year = negativeYear ? -unsignedYear : unsignedYear
        guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day) else { return nil }
        var secondOfDay = 0
        var fraction = 0.0
        var offset = 0
        if index < bytes.count {
            guard take("T") || take(" "), let hour = number(2), take(":"), let minute = number(2), take(":"),
                let second = number(2), hour < 24, minute < 60, second < 61
            else { return nil }
            secondOfDay = hour * 3600 + minute * 60 + second
            if take(".") {
                let start = index
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                guard index > start, let value = Double("0." + String(decoding: bytes[start..<index], as: UTF8.self)) else {
                    return nil
                }
                fraction = value
            }
            guard let zoneOffset = zone() else { return nil }
            offset = zoneOffset
        }
        guard index == bytes.count else { return nil }
        let unix = Self.daysSince1970(year: year, month: month, day: day) * 86_400 + secondOfDay - offset
        // Whole seconds first and the fraction last, so the double is the nearest one to the
        // printed instant and prints with the same digits again.
        return Double(unix - 978_307_200) + fraction
    }

    /// Seconds east of UTC: `Z`, `±hh:mm`, `±hhmm`, `±hh`, or nothing (UTC); nil when malformed.
    private mutating func zone() -> Int? {
        if take("Z") || index == bytes.count { return 0 }
        let sign: Int
        if take("+") {
            sign = 1
        } else if take("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = number(2), hours < 24 else { return nil }
        var minutes = 0
        if index < bytes.count {
            _ = take(":")
            guard let value = number(2), value < 60 else { return nil }
            minutes = value
        }
        return sign * (hours * 3600 + minutes * 60)
    }

    private func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }

    private mutating func number(_ width: Int) -> Int? {
        guard index + width <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + width] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        index += width
        return value
    }

    private mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
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
