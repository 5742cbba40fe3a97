@testable import CDFetch
import CDModel
import CDPredicate
import GRDB
import Testing

/// A string compared with a date attribute is bound as the date it names.
@Suite struct DateArgumentTests {
    private func bound(_ text: String) -> DatabaseValue {
        SQLBuilder.databaseValue(.string(text), type: .date)
    }

    /// `2024-05-31T12:00:00` is noon UTC, not the midnight of its date.
    @Test func zoneLessDateTimeIsUTC() {
        #expect(bound("2024-05-31T12:00:00") == (738_806_400.0 + 43_200).databaseValue)
        #expect(bound("2024-05-31") == 738_806_400.0.databaseValue)
        #expect(bound("2024-05-31T12:00:00+02:00") == (738_806_400.0 + 36_000).databaseValue)
        #expect(bound("soon") == "soon".databaseValue)
    }
}
