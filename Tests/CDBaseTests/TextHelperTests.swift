import CDBase
import Foundation
import Testing

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
    }

    @Test func tableAlignsColumns() {
        var table = TextTable([("ID", .right), ("NAME", .left)])
        table.add(["7", "Post"])
        table.add(["16001", "CHANGE"])
        #expect(table.render() == """
                 ID  NAME
                  7  Post
              16001  CHANGE
            """)
    }

    @Test func datesAcrossCenturies() {
        #expect(ValueText.coreDataDate(0) == "2001-01-01 00:00:00 +0000")
        #expect(ValueText.coreDataDate(526_913_713) == "2017-09-12 12:55:13 +0000")
        #expect(ValueText.coreDataDate(-541_232_580) == "1983-11-07 17:37:00 +0000")
        #expect(ValueText.coreDataDate(-978_307_200) == "1970-01-01 00:00:00 +0000")
        #expect(ValueText.isoDate(4_107_542_400) == "2131-03-02T00:00:00Z")
    }

    @Test func dataDescription() {
        #expect(ValueText.dataDescription(Data([1, 2, 3, 4, 5])) == "{length = 5, bytes = 0x01020304 05}")
        let long = Data((0..<32).map(UInt8.init))
        #expect(ValueText.dataDescription(long) == "{length = 32, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 18191a1b 1c1d1e1f}")
    }
}
