import CDPredicate
import Foundation
import Testing

/// `CoreDataDate(iso8601:)`: every form the query syntaxes, `clean --history-before` and import
/// take, as seconds since 2001.
@Suite struct CoreDataDateTests {
    private func seconds(_ text: String) -> Double? { CoreDataDate(iso8601: text)?.secondsSince2001 }

    @Test func bareDateIsMidnightUTC() {
        #expect(seconds("2001-01-02") == 86_400)
        #expect(seconds("2024-05-31") == 738_806_400)
    }

    /// A date-time without a zone is UTC, like a bare date, and not the date's midnight.
    @Test func zoneLessDateTimeIsUTC() {
        #expect(seconds("2001-01-01T00:01:00") == 60)
        #expect(seconds("2024-05-31T12:00:00") == 738_849_600)
        #expect(seconds("2001-01-01 00:00:00") == 0)
    }

    @Test func zonesAndFractions() {
        #expect(seconds("2001-01-01T01:00:00Z") == 3_600)
        #expect(seconds("2001-01-01T01:00:00+01:00") == 0)
        #expect(seconds("2001-01-01T01:00:00+0100") == 0)
        #expect(seconds("2001-01-01T01:00:00+01") == 0)
        #expect(seconds("2000-12-31T23:00:00-01:00") == 0)
        #expect(seconds("2001-01-01T00:00:01.500Z") == 1.5)
        #expect(seconds("2017-09-12T12:55:13Z") == 526_913_713)
        #expect(seconds("2017-09-12T12:55:13.250Z") == 526_913_713.25)
        #expect(seconds("2017-09-12T14:55:13+02:00") == 526_913_713)
        #expect(seconds("1983-11-07T17:37:00Z") == -541_232_580)
    }

    /// Dump prints far-future dates with every year digit; import reads them back exactly.
    @Test func yearsBeyond9999AndBeforeZero() {
        #expect(seconds("10000-01-01T00:00:00Z") == 252_423_993_600)
        #expect(seconds("-0001-01-01T00:00:00Z") == -63_177_062_400)
        #expect(CoreDataDate(iso8601: "4001-01-01")?.date == Date(timeIntervalSinceReferenceDate: 63_113_904_000))
    }

    @Test func refusesWhatIsNotADate() {
        for text in [
            "yesterday", "", "2017-13-12T12:55:13Z", "2023-02-29", "2024-04-31", "24-05-31", "2024-5-31",
            "2024-05-31T12:00", "2024-05-31T24:00:00Z", "2024-05-31T12:00:00.Z", "2024-05-31T12:00:00+2",
            "2024-05-31T12:00:00Zjunk", "2024-05-31X",
        ] {
            #expect(CoreDataDate(iso8601: text) == nil, "\(text)")
        }
        #expect(seconds("2024-02-29") != nil)
    }
}
