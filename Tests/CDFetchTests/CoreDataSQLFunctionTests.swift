import CDFetch
import CDTestSupport
import Foundation
import GRDB
import Testing

/// cdstore's definitions of Core Data's SQL functions and collations, called through SQLite as
/// a pasted statement would call them.
@Suite struct CoreDataSQLFunctionTests {
    static func value(_ sql: String, _ arguments: StatementArguments = []) throws -> DatabaseValue {
        let database = try DatabaseQueue()
        return try database.read { db in
            CoreDataSQLFunctions.register(in: db)
            return try DatabaseValue.fetchOne(db, sql: sql, arguments: arguments) ?? .null
        }
    }

    @Test(arguments: [
        ("Shakespeare", "*kesp*", 0, true), ("Shakespeare", "*KESP*", 0, false), ("Shakespeare", "*KESP*", 0x101, true),
        ("Shakespeare", "Sh?kespeare", 0, true), ("Shakespeare", "Sh?speare", 0, false), ("a*b", "a\\*b", 0, true),
        ("axb", "a\\*b", 0, false), ("Brontë", "bronte", 0x181, true), ("Brontë", "bronte", 0x101, false), ("", "*", 0, true),
        ("abc", "", 0, false), ("a.b", "a.b", 0, true), ("aXb", "a.b", 0, false), ("🏽x", "?x", 0, true),
    ])
    func like(_ value: String, _ pattern: String, _ flags: Int, _ expected: Bool) throws {
        #expect(try Self.value("SELECT NSCoreDataLike(?, ?, ?)", [value, pattern, flags]) == (expected ? 1 : 0).databaseValue)
    }

    @Test func matchesTestsTheWholeValue() throws {
        #expect(try Self.value("SELECT NSCoreDataMatches('ab', 'a|ab', 0)") == 1.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataMatches('abc', 'ab', 0)") == 0.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataMatches('ABC', '[a-c]+', 257)") == 1.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataMatches(NULL, 'x', 0)") == .null)
        #expect { try Self.value("SELECT NSCoreDataMatches('x', '(', 0)") } throws: { "\($0)".contains("invalid regular expression") }
    }

    @Test(arguments: [
        (0, "Émile Zola", "Émile Zola", true, 0), (2, "Émile Zola", "Émile", true, 0), (1, "Émile Zola", "ZOLA", false, 0),
        (1, "Émile Zola", "ZOLA", true, 0x101), (2, "Émile Zola", "emile", true, 0x181), (3, "Émile Zola", "Zola", true, 0),
        (0, "Émile Zola", "émile zola", true, 0x181), (1, "abc", "", true, 0), (3, "abc", "B", false, 0),
    ])
    func stringSearch(_ operation: Int, _ value: String, _ search: String, _ expected: Bool, _ flags: Int) throws {
        #expect(try Self.value("SELECT NSCoreDataStringSearch(?, ?, ?, ?)", [value, search, flags, operation]) == (expected ? 1 : 0).databaseValue)
    }

    static func ordered(_ collation: String) throws -> [String] {
        let database = try DatabaseQueue()
        return try database.read { db in
            CoreDataSQLFunctions.register(in: db)
            return try String.fetchAll(db, sql: "SELECT column1 FROM (VALUES ('b'), ('A'), ('a10'), ('a2'), ('C')) ORDER BY column1 COLLATE \(collation), column1")
        }
    }

    @Test func collationsOrderText() throws {
        #expect(try Self.ordered("BINARY") == ["A", "C", "a10", "a2", "b"])
        #expect(try Self.ordered("NSCollateNoCase") == ["A", "a10", "a2", "b", "C"])
        #expect(try Self.ordered("NSCollateNumericallyNoCase") == ["A", "a2", "a10", "b", "C"])
        #expect(try Self.ordered("NSCollateFinderlike") == ["A", "a2", "a10", "b", "C"])
        #expect(try Self.ordered("NSCollateLocaleSensitiveNoCase").prefix(3) == ["A", "a10", "a2"])
        #expect(try Self.ordered("NSCollateLocaleSensitive").count == 5)
    }
}
