import CDArchive
import CDStore
import Foundation

/// Text forms of object values shared by the renderers.
public enum ValueText {
    /// Core Data's date form in descriptions: `2013-07-18 11:23:30 +0000`.
    public static func coreDataDate(_ secondsSince2001: Double) -> String {
        var buffer = ByteBuffer(capacity: 25)
        CivilTime(secondsSince2001: secondsSince2001).appendCoreData(to: &buffer)
        return buffer.text
    }

    /// ISO 8601 in UTC, with milliseconds only when the value has a fraction, for JSON and CSV.
    public static func isoDate(_ secondsSince2001: Double) -> String {
        var buffer = ByteBuffer(capacity: 24)
        CivilTime(secondsSince2001: secondsSince2001).appendISO(to: &buffer)
        return buffer.text
    }

    /// A double the way NSNumber prints it: shortest form, no trailing `.0` on whole values.
    public static func number(_ value: Double) -> String {
        if value.rounded() == value && abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
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
struct CivilTime {
    let year: Int64
    let month: Int64
    let day: Int64
    let secondOfDay: Int64
    /// The part of a second, in [0, 1).
    let fraction: Double

    /// Milliseconds when the value is not a whole second.
    var milliseconds: Int64? {
        fraction == 0 ? nil : min(Int64((fraction * 1000).rounded()), 999)
    }

    /// Core Data dates count seconds from 2001-01-01, which is 978,307,200 s after 1970-01-01.
    /// A stored value beyond about 250 million years either way (or infinite) is damage: it is
    /// held at that limit, so the arithmetic below cannot overflow and the date still shows
    /// as absurd.
    init(secondsSince2001: Double) {
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

    /// `YYYY-MM-DD`
    func appendDate(to buffer: inout ByteBuffer) {
        buffer.append(padded: year, width: 4)
        buffer.append(UInt8(ascii: "-"))
        buffer.append(padded: month, width: 2)
        buffer.append(UInt8(ascii: "-"))
        buffer.append(padded: day, width: 2)
    }

    /// `hh:mm:ss`
    func appendTime(to buffer: inout ByteBuffer) {
        buffer.append(padded: secondOfDay / 3600, width: 2)
        buffer.append(UInt8(ascii: ":"))
        buffer.append(padded: secondOfDay / 60 % 60, width: 2)
        buffer.append(UInt8(ascii: ":"))
        buffer.append(padded: secondOfDay % 60, width: 2)
    }

    /// Four-digit years, as every real date has, are written at fixed positions in one append.
    private var hasFourDigitYear: Bool { year >= 0 && year <= 9999 }

    /// `YYYY-MM-DD<separator>hh:mm:ss`, 19 bytes, for a four-digit year.
    private func write(to out: UnsafeMutablePointer<UInt8>, separator: UInt8) {
        func two(_ value: Int64, at index: Int) {
            ByteBuffer.writeTwoDigits(Int(value), to: out + index)
        }
        two(year / 100, at: 0)
        two(year % 100, at: 2)
        out[4] = UInt8(ascii: "-")
        two(month, at: 5)
        out[7] = UInt8(ascii: "-")
        two(day, at: 8)
        out[10] = separator
        two(secondOfDay / 3600, at: 11)
        out[13] = UInt8(ascii: ":")
        two(secondOfDay / 60 % 60, at: 14)
        out[16] = UInt8(ascii: ":")
        two(secondOfDay % 60, at: 17)
    }

    func appendCoreData(to buffer: inout ByteBuffer) {
        guard hasFourDigitYear else {
            appendDate(to: &buffer)
            buffer.append(UInt8(ascii: " "))
            appendTime(to: &buffer)
            buffer.append(" +0000")
            return
        }
        buffer.append(upTo: 25) { out in
            write(to: out, separator: UInt8(ascii: " "))
            out[19] = UInt8(ascii: " ")
            out[20] = UInt8(ascii: "+")
            for index in 21..<25 { out[index] = UInt8(ascii: "0") }
            return 25
        }
    }

    func appendISO(to buffer: inout ByteBuffer) {
        guard hasFourDigitYear else {
            appendDate(to: &buffer)
            buffer.append(UInt8(ascii: "T"))
            appendTime(to: &buffer)
            if let milliseconds {
                buffer.append(UInt8(ascii: "."))
                buffer.append(padded: milliseconds, width: 3)
            }
            buffer.append(UInt8(ascii: "Z"))
            return
        }
        buffer.append(upTo: 24) { out in
            write(to: out, separator: UInt8(ascii: "T"))
            var count = 19
            if let milliseconds {
                out[19] = UInt8(ascii: ".")
                out[20] = UInt8(48 + milliseconds / 100)
                out[21] = UInt8(48 + milliseconds / 10 % 10)
                out[22] = UInt8(48 + milliseconds % 10)
                count = 23
            }
            out[count] = UInt8(ascii: "Z")
            return count + 1
        }
    }
}
