import Foundation

/// Dates as `--history-before` takes them: `2024-05-31` (midnight UTC), `2024-05-31T12:00:00Z`,
/// with an offset (`+02:00`), with fractional seconds, or without a zone (read as UTC).
public enum ISO8601Date {
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        // The most specific form first: Foundation's parser accepts a prefix of the text for the
        // shorter forms (a date-only parse of "2024-05-31T12:00:00Z" gives midnight).
        let attempts: [ISO8601DateFormatter.Options] = [
            [.withInternetDateTime, .withFractionalSeconds],
            [.withInternetDateTime],
            [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate],
        ]
        for options in attempts {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        guard text.count == 10 else { return nil }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }
}
