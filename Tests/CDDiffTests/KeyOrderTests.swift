@testable import CDDiff
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
}
