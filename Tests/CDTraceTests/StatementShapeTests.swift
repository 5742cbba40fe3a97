@testable import CDTrace
import Foundation
import Testing

/// Shapes: the spacing of real logs (reference/sqldebug.md §2) does not matter, values do not,
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
}
