@testable import CDDiff
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// `--key` merges two scans that SQLite sorts, so ``KeyValue``'s order must be SQLite's
/// `ORDER BY` order exactly; checked against SQLite itself on seeded random values of every
/// storage class (NULL, integers, reals, text with non-ASCII and prefixes, blobs).
@Suite struct KeyOrderTests {
    static func randomValue(_ random: inout SeededGenerator) -> DatabaseValue {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .null
        case 1: return Int64.random(in: -5...5, using: &random).databaseValue
        case 2: return (Double(Int.random(in: -50...50, using: &random)) / 10).databaseValue
        case 3, 4:
            let alphabet = ["a", "b", "B", "é", "ab", "z", "😀", " ", "0"]
            let length = Int.random(in: 0...3, using: &random)
            return (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }.joined().databaseValue
        default:
            return Data((0..<Int.random(in: 0...3, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) }).databaseValue
        }
    }

    @Test(arguments: [UInt64(11), 12, 13, 14, 15])
    func keyValuesSortAsSQLiteSorts(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let queue = try DatabaseQueue()
        let order = try queue.write { db -> [Int64] in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a, b)")
            for id in 1...300 {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?)", arguments: [id, Self.randomValue(&random), Self.randomValue(&random)])
            }
            return try Int64.fetchAll(db, sql: "SELECT id FROM t ORDER BY a, b, id")
        }
        let sorted = try queue.read { db -> [Int64] in
            let scan = try OrderedScan(db, sql: "SELECT id, a, b FROM t ORDER BY id", arguments: [])
            var rows: [(key: [KeyValue], id: Int64)] = []
            while scan.hasRow {
                rows.append(([scan.keyValue(1), scan.keyValue(2)], scan.integer(0)))
                try scan.advance()
            }
            return rows.sorted { left, right in
                left.key.lexicographicallyPrecedes(right.key) || (left.key == right.key && left.id < right.id)
            }.map(\.id)
        }
        #expect(sorted == order)
    }

    /// ``ScanKey`` compares keys where SQLite holds them: its order of every pair of rows, and
    /// its finding of a repeated key in a sorted scan, must be SQLite's (ranks of `ORDER BY`).
    @Test(arguments: [UInt64(31), 32, 33, 34])
    func scanKeysCompareAsSQLiteSorts(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a, b)")
            for id in 1...60 {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?)", arguments: [id, Self.randomValue(&random), Self.randomValue(&random)])
            }
            // Every fifth row repeats an earlier row's key.
            try db.execute(sql: "UPDATE t SET (a, b) = (SELECT p.a, p.b FROM t p WHERE p.id = t.id - 3) WHERE id % 5 = 0")
        }
        let ranked = "WITH r AS (SELECT a, b, dense_rank() OVER (ORDER BY a, b) AS rank FROM t)"
        let (pairs, repeats) = try queue.read { db -> (Int, Int) in
            let scan = try OrderedScan(db, sql: "\(ranked) SELECT x.a, x.b, y.a, y.b, x.rank, y.rank FROM r x, r y", arguments: [])
            let x = ScanKey(scan: scan, columns: [0, 1]), y = ScanKey(scan: scan, columns: [2, 3])
            var pairs = 0
            while scan.hasRow {
                let expected = scan.integer(4) < scan.integer(5) ? -1 : scan.integer(4) > scan.integer(5) ? 1 : 0
                #expect(ScanKey.order(x, y) == expected, "\(x.values) against \(y.values)")
                pairs += 1
                try scan.advance()
            }
            let sorted = try OrderedScan(db, sql: "\(ranked) SELECT a, b, rank FROM r ORDER BY a, b", arguments: [])
            let key = ScanKey(scan: sorted, columns: [0, 1])
            var previousRank: Int64?, repeats = 0
            while sorted.hasRow {
                let repeated = key.repeatsPrevious()
                #expect(repeated == (previousRank == sorted.integer(2)), "\(key.values)")
                if repeated { repeats += 1 }
                previousRank = sorted.integer(2)
                try sorted.advance()
            }
            return (pairs, repeats)
        }
        #expect(pairs == 3600)
        #expect(repeats >= 12, "every fifth row repeats a key")
    }
}
