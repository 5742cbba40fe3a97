@testable import CDTrace
import CDTestSupport
import Foundation
import Testing

/// Shapes: the spacing of real logs (docs/format/sqldebug.md §2) does not matter, values do not,
/// the way the request was made does.
@Suite struct StatementShapeTests {
    @Test func spacingAndBindsDoNotMatter() {
        let logged = StatementShape(
            sql: "SELECT COUNT(DISTINCT t0.Z_PK) FROM ZWORD t0 JOIN ZWORDCATEGORY t1 ON t0.ZWORDCATEGORY = t1.Z_PK WHERE  t1.ZFIRSTLETTER = ?")
        let collapsed = StatementShape(
            sql: "SELECT COUNT( DISTINCT t0.Z_PK ) FROM ZWORD t0 JOIN ZWORDCATEGORY t1 ON t0.ZWORDCATEGORY = t1.Z_PK WHERE t1.ZFIRSTLETTER = 's' ")
        #expect(logged == collapsed)
        #expect(logged.text == "SELECT COUNT(DISTINCT t0.Z_PK) FROM ZWORD t0 JOIN ZWORDCATEGORY t1 ON t0.ZWORDCATEGORY = t1.Z_PK WHERE t1.ZFIRSTLETTER = ?")
        #expect(logged.kind == .count)
        #expect(logged.tables.map(\.alias) == ["t0", "t1"] && logged.tables.map(\.table) == ["ZWORD", "ZWORDCATEGORY"])
        #expect(logged.whereClause == "t1.ZFIRSTLETTER = ?")
    }

    @Test func listsAndIntarraysOfAnyLength() {
        #expect(
            StatementShape(sql: "SELECT 0, t0.Z_PK FROM ZITEM t0 WHERE t0.Z_PK IN (1, 2, 3)").text
                == StatementShape(sql: "SELECT 0, t0.Z_PK FROM ZITEM t0 WHERE t0.Z_PK IN (?)").text)
        let batch = StatementShape(sql: "SELECT t0.ZMAKER, t0.Z_ENT, t0.Z_PK FROM ZCAR t0 WHERE  t0.Z_PK IN (SELECT * FROM _Z_intarray3)   LIMIT 10")
        #expect(batch.text == "SELECT t0.ZMAKER, t0.Z_ENT, t0.Z_PK FROM ZCAR t0 WHERE t0.Z_PK IN (SELECT * FROM _Z_intarray#) LIMIT 10")
        #expect(batch.kind == .intarray && batch.limit == 10)
    }

    @Test func numbersOfTheRequestStay() {
        let search = StatementShape(
            sql: "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZTITLE FROM ZBOOK t0 WHERE  NSCoreDataStringSearch( t0.ZTITLE, ?, 417, 1) ORDER BY t0.Z_PK")
        #expect(search.text == "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZTITLE FROM ZBOOK t0 WHERE NSCoreDataStringSearch(t0.ZTITLE, ?, 417, 1) ORDER BY t0.Z_PK")
        #expect(search.orderClause == "t0.Z_PK")
        #expect(StatementShape(sql: "SELECT 0, t0.Z_PK FROM ZA t0 LIMIT 1").limit == 1)
        #expect(StatementShape(sql: "pragma cache_size=1000").text == "pragma cache_size = 1000")
    }

    @Test func kinds() {
        let cases: [(String, StatementShape.Kind)] = [
            ("SELECT t0.Z_ENT, t0.Z_PK, t0.Z_OPT, t0.ZNAME FROM ZGEOGRAPHICREGION t0 WHERE t0.Z_PK = ?", .singleObject),
            ("SELECT 0, t0.Z_PK, … FROM ZCHANNEL t0 WHERE  t0.Z_PK = ?  LIMIT 1", .singleObject),
            ("SELECT 0, t0.Z_PK FROM Z_1TAGS t1 JOIN ZTAG t0 ON t0.Z_PK = t1.Z_2TAGS WHERE t1.Z_1ITEMS = ?", .fetch),
            ("SELECT COUNT(*) FROM ZITEM", .count),
            ("SELECT total( t0.ZATTACHMENTCOUNT) FROM ZITEM t0", .fetch),
            ("BEGIN EXCLUSIVE", .begin), ("COMMIT", .commit), ("ROLLBACK", .rollback),
            ("INSERT INTO ZBUDGETCATEGORY(Z_PK, Z_ENT, Z_OPT, ZAMOUNT, ZTITLE) VALUES(?, ?, ?, ?, ?)", .insert),
            ("UPDATE OR FAIL Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX = ?", .bookkeeping),
            ("DELETE FROM ZMESSAGE WHERE Z_PK = ? AND Z_OPT = ?", .delete),
            ("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", .bookkeeping),
            ("SELECT TBL_NAME FROM SQLITE_MASTER WHERE TBL_NAME = 'Z_METADATA'", .bookkeeping),
            ("pragma journal_mode=wal", .bookkeeping),
        ]
        for (sql, kind) in cases {
            #expect(StatementShape(sql: sql).kind == kind, "\(sql)")
        }
        let insert = StatementShape(sql: "INSERT INTO ZBUDGETCATEGORY(Z_PK, Z_ENT, Z_OPT, ZAMOUNT, ZTITLE) VALUES(?, ?, ?, ?, ?)")
        #expect(insert.mainTable == "ZBUDGETCATEGORY")
        #expect(insert.text == "INSERT INTO ZBUDGETCATEGORY(Z_PK, Z_ENT, Z_OPT, ZAMOUNT, ZTITLE) VALUES (?, ?, ?, ?, ?)")
    }

    /// The byte test for a one-key filter agrees with the regular expression it stands for, on
    /// generated conditions near the form (seeded).
    @Test func oneKeyComparisonAgreesWithTheExpression() {
        var random = SeededGenerator(seed: 26)
        let pieces = ["t", "0", "1", "2", ".", "Z", "_", "A", "z", "9", " ", "=", "?", "é", "\u{301}", "PK", " = ?", "t0.Z", "t1.Z"]
        var conditions = ["t0.ZITEM = ?", "t1.Z_1ITEMS = ?", "t0.Z = ?", "t0.Z_PK = ?", "t2.ZA = ?", "t0.ZA = ? ", "t0.ZÉ = ?", "t0.ZA\u{301} = ?"]
        for _ in 0..<5000 {
            let count = Int.random(in: 1...6, using: &random)
            conditions.append((0..<count).map { _ in pieces.randomElement(using: &random) ?? "" }.joined())
            conditions.append(
                (["t0.Z", "t1.Z"].randomElement(using: &random) ?? "") + (0..<count).map { _ in pieces.randomElement(using: &random) ?? "" }.joined())
        }
        for condition in conditions {
            #expect(StatementShape.comparesOneKey(condition) == (condition.wholeMatch(of: /t[01]\.Z[A-Z0-9_]+ = \?/) != nil), "\(condition)")
        }
    }

    /// The interner gives equal statements one number and one text, and different ones
    /// different numbers, like a dictionary of the texts would (generated statements, seeded).
    @Test func internerNumbersLikeADictionary() {
        var random = SeededGenerator(seed: 18)
        let interner = StatementInterner()
        var numbers: [[UInt8]: Int] = [:]
        let alphabet: [UInt8] = [UInt8(ascii: "a"), UInt8(ascii: "b"), 0x20, 0xC3, 0xA9, 0xFF]
        for _ in 0..<20000 {
            let length = Int.random(in: 0...40, using: &random)
            var bytes: [UInt8] = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            if Bool.random(using: &random) { bytes = Array(bytes.prefix(3)) }
            let interned: (text: String, number: Int?) = bytes.withUnsafeBufferPointer { interner.intern($0) }
            #expect(interned.text == String(decoding: bytes, as: UTF8.self))
            let expected = numbers[bytes] ?? numbers.count
            numbers[bytes] = expected
            #expect(interned.number == expected, "\(bytes)")
        }
        let numbering = StatementInterner()
        func number(_ text: String) -> StatementInterner.Numbered {
            var copy = text
            return copy.withUTF8 { numbering.number($0) }
        }
        #expect(number("SELECT 1") == .new("SELECT 1", 0) && number("SELECT 2") == .new("SELECT 2", 1))
        #expect(number("SELECT 1") == .known(0) && number("SELECT 2") == .known(1))
        let small = StatementInterner(maximumStatements: 2, maximumBytes: 100)
        func intern(_ text: String) -> Int? {
            var copy = text
            return copy.withUTF8 { small.intern($0).number }
        }
        #expect(intern("SELECT 1") == 0 && intern("SELECT 2") == 1 && intern("SELECT 3") == nil)
        #expect(intern("SELECT 1") == 0 && intern("SELECT 2") == 1 && intern("SELECT 3") == nil)
        let fewBytes = StatementInterner(maximumStatements: 10, maximumBytes: 10)
        var long = "SELECT 10"
        var short = "SELECT"
        #expect(long.withUTF8 { fewBytes.intern($0).number } == 0)
        #expect(short.withUTF8 { fewBytes.intern($0).number } == nil)
    }
}
