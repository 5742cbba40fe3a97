import CDFetch
import CDPredicate
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

    @Test func argumentsOfOtherTypesAreReadAsText() throws {
        #expect(try Self.value("SELECT NSCoreDataStringSearch(CAST(x'61006263' AS TEXT), 'bc', 0, 1)") == 0.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataStringSearch(CAST(x'61006263' AS TEXT), 'a', 0, 0)") == 1.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataStringSearch(12345, 234, 0, 1)") == 1.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataStringSearch(x'C3A9', 'É', 257, 0)") == 1.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataStringSearch(2.5, '2.5', 0, 0)") == 1.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataStringSearch('ABC', 'b', 257.9, 1)") == 1.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataStringSearch('ABC', 'b', '257', 1)") == 0.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataStringSearch('ABC', 'C', 0, 'x')") == 1.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataStringSearch('ABC', 'A', 0, 9)") == 1.databaseValue)
        #expect(try Self.value("SELECT NSCoreDataStringSearch('ABC', NULL, 0, 1)") == .null)
        #expect(try Self.value("SELECT NSCoreDataLike(NULL, '*', 0)") == .null)
        #expect(try Self.value("SELECT NSCoreDataLike(1.5, '1?5', 0)") == 1.databaseValue)
    }

    /// Random values against random patterns through SQLite: every row with its own pattern,
    /// flags and operation, then each pattern bound once for all rows (the prepared pattern kept
    /// for the statement), then one pattern with flags and operation changing from row to row.
    @Test func agreeWithTheUnicodeImplementationThroughSQLite() throws {
        var generator = SeededGenerator(seed: 0xC0DE_17)
        let flagSets = [0, 0x101, 0x180, 0x181, 0x120]
        var rows: [(value: String, pattern: String, flags: Int, operation: Int)] = []
        for round in 0..<800 {
            let asciiOnly = round % 2 == 0
            // SQLite text with a NUL in it is read up to the NUL: argumentsOfOtherTypesAreReadAsText.
            let value = RandomText.string(using: &generator, asciiOnly: asciiOnly).replacingOccurrences(of: "\0", with: "")
            let operation = Int.random(in: 0...4, using: &generator)
            let pattern = RandomText.pattern(for: value, using: &generator, asciiOnly: asciiOnly, wildcards: operation == 4)
                .replacingOccurrences(of: "\0", with: "")
            rows.append((value, pattern, flagSets.randomElement(using: &generator) ?? 0, operation))
        }
        func expected(_ value: String, _ pattern: String, _ flags: Int, _ operation: Int) -> Bool {
            guard let search = StringMatching.SearchOperation(rawValue: operation) else {
                return StringMatching.like(value, pattern: pattern, flags: flags)
            }
            return StringMatching.stringSearch(value, pattern, flags: flags, operation: search)
        }
        /// The function `o` names (4 is LIKE) on the value column `v`, in SQL.
        func call(pattern: String, flags: String, operation: String) -> String {
            "CASE \(operation) WHEN 4 THEN NSCoreDataLike(v, \(pattern), \(flags)) ELSE NSCoreDataStringSearch(v, \(pattern), \(flags), \(operation)) END"
        }
        let database = try DatabaseQueue()
        try database.write { db in
            CoreDataSQLFunctions.register(in: db)
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, p TEXT, f INTEGER, o INTEGER)")
            for (index, row) in rows.enumerated() {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)", arguments: [index, row.value, row.pattern, row.flags, row.operation])
            }
            var mismatches: [String] = []
            let perRow = try Bool.fetchAll(db, sql: "SELECT \(call(pattern: "p", flags: "f", operation: "o")) FROM t ORDER BY id")
            for (row, got) in zip(rows, perRow) where got != expected(row.value, row.pattern, row.flags, row.operation) {
                mismatches.append("row: \(row)")
            }
            for (index, fixed) in rows.enumerated() where index % 20 == 0 {
                let sql = "SELECT \(call(pattern: "?", flags: "\(fixed.flags)", operation: "\(fixed.operation)")) FROM t ORDER BY id"
                let got = try Bool.fetchAll(db, sql: sql, arguments: [fixed.pattern, fixed.pattern])
                for (row, matched) in zip(rows, got) where matched != expected(row.value, fixed.pattern, fixed.flags, fixed.operation) {
                    mismatches.append(
                        "bound \(fixed.pattern.debugDescription), flags \(fixed.flags), operation \(fixed.operation): \(row.value.debugDescription)")
                }
            }
            let changing = try Bool.fetchAll(db, sql: "SELECT \(call(pattern: "'aB*'", flags: "f", operation: "o")) FROM t ORDER BY id")
            for (row, got) in zip(rows, changing) where got != expected(row.value, "aB*", row.flags, row.operation) {
                mismatches.append("'aB*', flags \(row.flags), operation \(row.operation): \(row.value.debugDescription)")
            }
            #expect(perRow.count == rows.count && changing.count == rows.count)
            #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5).joined(separator: "\n"))")
        }
    }

    static func ordered(_ collation: String) throws -> [String] {
        let database = try DatabaseQueue()
        return try database.read { db in
            CoreDataSQLFunctions.register(in: db)
            return try String.fetchAll(
                db, sql: "SELECT column1 FROM (VALUES ('b'), ('A'), ('a10'), ('a2'), ('C')) ORDER BY column1 COLLATE \(collation), column1")
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
