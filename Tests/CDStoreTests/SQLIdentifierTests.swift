import CDBase
import CDTestSupport
import Foundation
import GRDB
import Testing

/// `quotedSQLIdentifier` over generated names (quotes, spaces, brackets, Unicode): SQLite itself,
/// the independent reader, creates the table and column so named and reports back exactly the
/// names, which GRDB's `quotedDatabaseIdentifier` does not do for a name with a double quote.
@Suite struct SQLIdentifierTests {
    @Test func sqliteReadsBackEveryQuotedName() throws {
        var generator = SeededGenerator(seed: 2_026)
        var names = ["Evil\" data-x='1'><img src=x onerror=alert(3)> Car", "\"", "\"\"", "a\"b", "Z\"; DROP TABLE t; --", "[x]", "`y`"]
        while names.count < 300 {
            let text = RandomText.string(using: &generator, asciiOnly: names.count % 2 == 0, maxPieces: 10).replacingOccurrences(of: "\0", with: "")
            names.append("t" + text)
        }
        let queue = try DatabaseQueue()
        try queue.write { db in
            for (index, name) in names.enumerated() {
                let table = name + " \(index)", column = "c" + name
                try db.execute(sql: "CREATE TABLE \(table.quotedSQLIdentifier) (\(column.quotedSQLIdentifier) TEXT)")
                try db.execute(sql: "INSERT INTO \(table.quotedSQLIdentifier) (\(column.quotedSQLIdentifier)) VALUES (?)", arguments: [name])
                let created = try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid DESC LIMIT 1")
                #expect(created == table, "\(name.debugDescription)")
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                #expect(columns == [column], "\(name.debugDescription)")
                #expect(try String.fetchOne(db, sql: "SELECT \(column.quotedSQLIdentifier) FROM \(table.quotedSQLIdentifier)") == name)
            }
        }
        #expect("a\"b".quotedSQLIdentifier == "\"a\"\"b\"")
    }

    /// Core Data's style: plain names bare, as in its logs and `sqlite_master`; any other name
    /// quoted, and read back by SQLite as exactly that name.
    @Test func renderedIdentifiersAreQuotedOnlyWhenNeeded() throws {
        for plain in ["ZTITLE", "Z_DKAPP__ISELIGIBLE", "Z_2TAGS", "Z_FOK_OWNER", "t0", "_x"] {
            #expect(plain.renderedSQLIdentifier == plain)
        }
        for needsQuotes in ["ZNAME WITH SPACE", "1Z", "ZÉ", "Z-A", "Z\"Q", ""] {
            #expect(needsQuotes.renderedSQLIdentifier == needsQuotes.quotedSQLIdentifier)
        }
        var generator = SeededGenerator(seed: 27)
        let queue = try DatabaseQueue()
        try queue.write { db in
            for index in 0..<200 {
                let name =
                    "Z" + RandomText.string(using: &generator, asciiOnly: index % 2 == 0, maxPieces: 6).replacingOccurrences(of: "\0", with: "") + "\(index)"
                try db.execute(sql: "CREATE TABLE \(name.renderedSQLIdentifier) (\(name.renderedSQLIdentifier) INTEGER)")
                #expect(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [name]) == [name], "\(name.debugDescription)")
            }
        }
    }
}
