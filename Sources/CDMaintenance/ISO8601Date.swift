import Foundation

/// Dates as `--history-before` takes them: `2024-05-31` (midnight UTC), `2024-05-31T12:00:00Z`,
/// with an offset (`+02:00`), with fractional seconds, or without a zone (read as UTC).
public enum ISO8601Date {
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let attempts: [ISO8601DateFormatter.Options] = [
            [.withFullDate],
            [.withInternetDateTime],
            [.withInternetDateTime, .withFractionalSeconds],
            [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate],
        ]
        for options in attempts {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
