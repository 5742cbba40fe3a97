import CDChanges
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// The merge of two snapshots' ordered scans against an independent reading: every row's
/// `(Z_ENT, Z_OPT)` by `Z_PK`, read whole from the writer before and after seeded random saves
/// (inserts, updates, deletes, a `Z_PK` taken over by another entity, writes that leave `Z_OPT`)
/// on a corpus store whose `ZCAR` holds three entities of one hierarchy.
@Suite(.temporaryDirectories) struct SnapshotComparisonTests {
    typealias Rows = [String: [Int64: (ent: Int, opt: Int64)]]

    static let tables = ["ZCAR": [1, 2, 3], "ZPERSON": [4]]

    static func rows(_ writer: DatabaseQueue) throws -> Rows {
        try writer.read { db in
            var result: Rows = [:]
            for table in tables.keys {
                for row in try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT, Z_OPT FROM \(table)") {
                    result[table, default: [:]][row[0]] = (row[1], row[2])
                }
            }
            return result
        }
    }

    /// `(ent, pk)` of what changed, as the merge orders it: by entity, then `Z_PK`.
    static func expected(_ before: Rows, _ after: Rows, ents: Set<Int>) -> (inserted: [[Int64]], updated: [[Int64]], deleted: [[Int64]]) {
        var inserted: [[Int64]] = [], updated: [[Int64]] = [], deleted: [[Int64]] = []
        for table in tables.keys {
            let old = before[table] ?? [:], new = after[table] ?? [:]
            for (pk, row) in new where ents.contains(row.ent) {
                if let previous = old[pk], previous.ent == row.ent {
                    if previous.opt != row.opt { updated.append([Int64(row.ent), pk]) }
                } else {
                    inserted.append([Int64(row.ent), pk])
                }
            }
            for (pk, row) in old where ents.contains(row.ent) && new[pk]?.ent != row.ent {
                deleted.append([Int64(row.ent), pk])
            }
        }
        let order: ([Int64], [Int64]) -> Bool = { $0.lexicographicallyPrecedes($1) }
        return (inserted.sorted(by: order), updated.sorted(by: order), deleted.sorted(by: order))
    }

    @Test func matchesEveryRowsVersionReadWhole() throws {
        let copy = try Corpus.copyStore("cdplus-samplemodel/SampleModel_V2.sqlite")
        let writer = try DatabaseQueue(path: copy.path)
        defer { try? writer.close() }
        var random = SeededGenerator(seed: 35)
        var before = try Self.rows(writer)
        var previous = try ObjectReader(snapshot: try StoreSnapshot(path: copy.path, keepingThisVersion: true))
        var changesSeen = 0
        for _ in 0..<40 {
            let ents = Set([1, 2, 3, 4].filter { _ in Bool.random(using: &random) })
            try writer.write { db in
                for _ in 0..<Int.random(in: 0...6, using: &random) {
                    let table = Bool.random(using: &random) ? "ZCAR" : "ZPERSON"
                    let pks = try Int64.fetchAll(db, sql: "SELECT Z_PK FROM \(table)")
                    let pk = pks.randomElement(using: &random) ?? 1
                    let ent = Self.tables[table]?.randomElement(using: &random) ?? 1
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0:
                        let next = (pks.max() ?? 0) + 1
                        try db.execute(sql: "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT) VALUES (?, ?, 1)", arguments: [next, ent])
                    case 1: try db.execute(sql: "UPDATE \(table) SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", arguments: [pk])
                    case 2: try db.execute(sql: "DELETE FROM \(table) WHERE Z_PK = ?", arguments: [pk])
                    case 3: try db.execute(sql: "UPDATE \(table) SET Z_ENT = ? WHERE Z_PK = ?", arguments: [ent, pk])
                    default: try db.execute(sql: "UPDATE \(table) SET Z_PK = Z_PK WHERE Z_PK = ?", arguments: [pk])
                    }
                }
            }
            let after = try Self.rows(writer)
            let current = try ObjectReader(snapshot: try StoreSnapshot(path: copy.path, keepingThisVersion: true))
            let changed = try SnapshotComparison.changes(from: previous, to: current, ents: ents)
            let expected = Self.expected(before, after, ents: ents)
            #expect(changed.inserted.map { [Int64($0.ent), $0.pk] } == expected.inserted)
            #expect(changed.updated.map { [Int64($0.ent), $0.pk] } == expected.updated)
            #expect(changed.deleted.map { [Int64($0.ent), $0.pk] } == expected.deleted)
            #expect((changed.inserted + changed.updated + changed.deleted).allSatisfy { current.modelEntityName(ent: $0.ent) == $0.entity })
            changesSeen += expected.inserted.count + expected.updated.count + expected.deleted.count
            before = after
            previous = current
        }
        #expect(changesSeen > 40)
    }
}
