import CDBase
import Foundation
import Testing

/// The text helpers every report shares: counts, plurals, tables, dates and numbers.
@Suite struct FormattingTests {
    @Test func thousandsSeparators() {
        #expect(grouped(0) == "0")
        #expect(grouped(999) == "999")
        #expect(grouped(1000) == "1,000")
        #expect(grouped(1_763_392) == "1,763,392")
        #expect(grouped(-12345) == "-12,345")
    }

    @Test func plurals() {
        #expect(plural(1, "frame") == "1 frame")
        #expect(plural(2, "entity", "entities") == "2 entities")
        #expect(plural(1200, "row") == "1,200 rows")
        #expect(plural(1200, "row", grouping: false) == "1200 rows")
        #expect(plural(0, "object has", "objects have", grouping: false) == "0 objects have")
        #expect(plural(1, "object has", "objects have") == "1 object has")
    }

    @Test func nounsAlone() {
        #expect(noun("value", count: 1) == "value")
        #expect(noun("value", count: 0) == "values")
        #expect(noun("row has", count: 3, "rows have") == "rows have")
    }

    @Test func tableAlignsColumns() {
        var table = TextTable([("ID", .right), ("NAME", .left)])
        table.add(["7", "Post"])
        table.add(["16001", "CHANGE"])
        #expect(
            table.render() == """
                     ID  NAME
                      7  Post
                  16001  CHANGE
                """)
    }

    /// Label/value lists: no header, a chosen gap, and no trailing spaces after an empty cell.
    @Test func tableWithoutHeader() {
        var table = TextTable(columns: 2)
        table.add(["page size:", "4,096"])
        table.add(["encoding:", ""])
        table.add(["journal mode:", "wal"])
        #expect(
            table.render(header: false, separator: " ") == """
                  page size:    4,096
                  encoding:
                  journal mode: wal
                """)
        #expect(TextTable(columns: 2).render(header: false) == "")
    }

    @Test func datesAcrossCenturies() {
        #expect(ValueText.coreDataDate(0) == "2001-01-01 00:00:00 +0000")
        #expect(ValueText.coreDataDate(526_913_713) == "2017-09-12 12:55:13 +0000")
        #expect(ValueText.coreDataDate(-541_232_580) == "1983-11-07 17:37:00 +0000")
        #expect(ValueText.coreDataDate(-978_307_200) == "1970-01-01 00:00:00 +0000")
        #expect(ValueText.isoDate(4_107_542_400) == "2131-03-02T00:00:00Z")
    }

    /// Years outside 0...9999 keep their digits and sign; fractions show as milliseconds in
    /// ISO 8601 only, the Core Data form drops them.
    @Test func datesBeyondFourDigitYearsAndFractions() {
        #expect(ValueText.isoDate(1.5) == "2001-01-01T00:00:01.500Z")
        #expect(ValueText.isoDate(-0.001) == "2000-12-31T23:59:59.999Z")
        #expect(ValueText.coreDataDate(1.5) == "2001-01-01 00:00:01 +0000")
        #expect(ValueText.coreDataDate(-63_140_342_400) == "0000-03-01 00:00:00 +0000")
        #expect(ValueText.coreDataDate(-63_171_964_800) == "-0001-03-01 00:00:00 +0000")
        #expect(ValueText.isoDate(252_477_475_200) == "10001-09-11T00:00:00Z")
        let time = CivilTime(secondsSince2001: 526_913_713.25)
        #expect((time.year, time.month, time.day, time.secondOfDay, time.milliseconds) == (2017, 9, 12, 46_513, 250))
    }

    @Test func numbersAsNSNumberPrintsThem() {
        #expect(ValueText.number(3) == "3")
        #expect(ValueText.number(-0.5) == "-0.5")
        #expect(ValueText.number(1e20) == "1e+20")
        #expect(ValueText.byteCount(Data([1, 2, 3])) == "<3 bytes>")
    }

    @Test func dataDescription() {
        #expect(ValueText.dataDescription(Data([1, 2, 3, 4, 5])) == "{length = 5, bytes = 0x01020304 05}")
        let long = Data((0..<32).map(UInt8.init))
        #expect(ValueText.dataDescription(long) == "{length = 32, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 18191a1b 1c1d1e1f}")
    }
}
