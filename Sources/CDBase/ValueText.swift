import Foundation

/// The text forms of single values — dates, numbers, bytes — that every output shares: dump
/// formats, validation reports and metadata in `inspect`.
public enum ValueText {
    /// Core Data's date form in descriptions: `2013-07-18 11:23:30 +0000`.
    public static func coreDataDate(_ secondsSince2001: Double) -> String {
        CivilTime(secondsSince2001: secondsSince2001).text(CivilTime.writeCoreData)
    }

    /// ISO 8601 in UTC, with milliseconds only when the value has a fraction, for JSON and CSV.
    public static func isoDate(_ secondsSince2001: Double) -> String {
        CivilTime(secondsSince2001: secondsSince2001).text(CivilTime.writeISO)
    }

    /// A double the way NSNumber prints it: shortest form, no trailing `.0` on whole values.
    public static func number(_ value: Double) -> String {
        if value.rounded() == value && abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `<4 bytes>`: bytes by their size alone, where their content would only be noise.
    public static func byteCount(_ data: Data) -> String {
        "<\(data.count) bytes>"
    }

    /// `{length = 4, bytes = 0x01020304}`, NSData's modern description; long data is elided
    /// in the middle as Foundation does.
    public static func dataDescription(_ data: Data) -> String {
        func hex(_ bytes: Data.SubSequence) -> String {
            var groups: [String] = []
            var group = ""
            for (index, byte) in bytes.enumerated() {
                group += String(format: "%02x", byte)
                if index % 4 == 3 { groups.append(group); group = "" }
            }
            if !group.isEmpty { groups.append(group) }
            return groups.joined(separator: " ")
        }
        if data.count <= 24 { return "{length = \(data.count), bytes = 0x\(hex(data[...]))}" }
        return "{length = \(data.count), bytes = 0x\(hex(data.prefix(16))) ... \(hex(data.suffix(8)))}"
    }
}

/// A UTC calendar date and time computed arithmetically: formatting millions of dates through
/// `DateFormatter` or `String(format:)` would dominate a dump's run time.
///
/// The writers fill raw memory so that the dump formats can write a date straight into their
/// output buffer and ``ValueText`` into a `String`, from the same code. They are inlinable for
/// the dumps, which call them once per date across a module boundary.
package struct CivilTime: Sendable {
    package let year: Int64
    package let month: Int64
    package let day: Int64
    package let secondOfDay: Int64
    /// The part of a second, in [0, 1).
    package let fraction: Double

    /// Room enough for either form of any date: a 20-character year and 25 more bytes.
    package static let maximumTextLength = 48

    /// Milliseconds when the value is not a whole second.
    @inlinable package var milliseconds: Int64? {
        fraction == 0 ? nil : min(Int64((fraction * 1000).rounded()), 999)
    }

    /// Core Data dates count seconds from 2001-01-01, which is 978,307,200 s after 1970-01-01.
    /// A stored value beyond about 250 million years either way (or infinite) is damage: it is
    /// held at that limit, so the arithmetic below cannot overflow and the date still shows
    /// as absurd.
    @inlinable package init(secondsSince2001: Double) {
        let limit = 8e15
        let unix = secondsSince2001.isNaN ? 0 : min(max(secondsSince2001 + 978_307_200, -limit), limit)
        // `unix.rounded(.down)` by conversion, which is much cheaper than the libm call; the
        // same value, as a double beyond 2^53 is already whole.
        var total = Int64(unix)
        if Double(total) > unix { total -= 1 }
        fraction = unix - Double(total)
        var days = total / 86_400
        var second = total % 86_400
        if second < 0 { second += 86_400; days -= 1 }
        secondOfDay = second
        // Days since 1970-01-01 to a proleptic Gregorian date, counting in 400-year eras that
        // start on March 1st so leap days fall at the end of each year.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// `YYYY-MM-DD hh:mm:ss +0000` at `out`, which has room for ``maximumTextLength`` bytes;
    /// returns the number written.
    @inlinable package func writeCoreData(to out: UnsafeMutablePointer<UInt8>) -> Int {
        var count = write(to: out, separator: UInt8(ascii: " "))
        for byte in " +0000".utf8 {
            out[count] = byte
            count += 1
        }
        return count
    }

    /// `YYYY-MM-DDThh:mm:ss[.mmm]Z` at `out`, which has room for ``maximumTextLength`` bytes;
    /// returns the number written.
    @inlinable package func writeISO(to out: UnsafeMutablePointer<UInt8>) -> Int {
        var count = write(to: out, separator: UInt8(ascii: "T"))
        if let milliseconds {
            out[count] = UInt8(ascii: ".")
            count += 1 + Self.writePadded(milliseconds, width: 3, to: out + count + 1)
        }
        out[count] = UInt8(ascii: "Z")
        return count + 1
    }

    /// One form as a `String`.
    func text(_ form: (CivilTime) -> (UnsafeMutablePointer<UInt8>) -> Int) -> String {
        let writer = form(self)
        return String(unsafeUninitializedCapacity: Self.maximumTextLength) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            return writer(base)
        }
    }

    /// `YYYY-MM-DD<separator>hh:mm:ss`: 19 bytes for a four-digit year, as every real date has.
    @usableFromInline func write(to out: UnsafeMutablePointer<UInt8>, separator: UInt8) -> Int {
        let count = Self.writePadded(year, width: 4, to: out)
        let rest = out + count
        rest[0] = UInt8(ascii: "-")
        Self.writeTwoDigits(month, to: rest + 1)
        rest[3] = UInt8(ascii: "-")
        Self.writeTwoDigits(day, to: rest + 4)
        rest[6] = separator
        Self.writeTwoDigits(secondOfDay / 3600, to: rest + 7)
        rest[9] = UInt8(ascii: ":")
        Self.writeTwoDigits(secondOfDay / 60 % 60, to: rest + 10)
        rest[12] = UInt8(ascii: ":")
        Self.writeTwoDigits(secondOfDay % 60, to: rest + 13)
        return count + 15
    }

    /// `value` (0...99) as two digits.
    @usableFromInline static func writeTwoDigits(_ value: Int64, to out: UnsafeMutablePointer<UInt8>) {
        out[0] = UInt8(48 + value / 10)
        out[1] = UInt8(48 + value % 10)
    }

    /// `value` with at least `width` digits, zero-padded, a minus sign first when negative.
    @usableFromInline static func writePadded(_ value: Int64, width: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 0
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            count = 1
        }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 { digits += 1; rest /= 10 }
        let length = max(digits, width)
        for index in stride(from: count + length - 1, through: count, by: -1) {
            out[index] = UInt8(48 + magnitude % 10)
            magnitude /= 10
        }
        return count + length
    }
}
