@testable import CDRendering
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Object IDs of entities whose names hold quotes, brackets and non-ASCII letters
/// (``OddNameStore``): JSON and NDJSON escape them inside their strings and CSV quotes their
/// fields, so a JSON parser and a CSV parser read back exactly the IDs that sqlite3 lists, in
/// place and through objects alike.
@Suite(.temporaryDirectories) struct OddNameRenderingTests {
    @Test func parsersReadBackEveryObjectID() throws {
        let store = try OddNameStore.make(seed: 8, cars: 25)
        let reader = try ObjectReader(snapshot: StoreSnapshot(path: store.path))
        let uuid = reader.storeUUID
        // sqlite3 names every object, entity by entity in the order dump writes them, and
        // every part's owner.
        let tables = [OddNameStore.car: "\"ZODD \"\"CAR\"\" X\"", OddNameStore.part: "\"ZPART [1]\"", OddNameStore.tag: "\"ZTAG-Ü\""]
        #expect(Set(reader.dumpableEntities) == Set(tables.keys))
        var expectedIDs: [String] = []
        for entity in reader.dumpableEntities {
            for pk in try SQLiteShell.run(store, "SELECT Z_PK FROM \(tables[entity] ?? "") ORDER BY Z_PK;").split(separator: "\n") {
                expectedIDs.append("x-coredata://\(uuid)/\(entity)/p\(pk)")
            }
        }
        #expect(expectedIDs.count > 25)
        let owners = try SQLiteShell.run(store, "SELECT \"ZÖWNER\" FROM \"ZPART [1]\" ORDER BY Z_PK;").split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map { $0.isEmpty ? nil : "x-coredata://\(uuid)/\(OddNameStore.car)/p\($0)" }
        let query = ObjectQuery()

        let jsonText = try RowRenderingCorpusWideTests.compare(reader, query: query) { JSONRenderer() }
        let ndjsonText = try RowRenderingCorpusWideTests.compare(reader, query: query) { NDJSONRenderer() }
        let csvText = try RowRenderingCorpusWideTests.compare(reader, query: query) { CSVRenderer() }

        let json = try JSONSerialization.jsonObject(with: Data(jsonText.utf8)) as? [[String: Any]]
        #expect(json?.map { $0["_id"] as? String } == expectedIDs)
        #expect(json?.filter { $0["_entity"] as? String == OddNameStore.part }.map { $0["öwner"] as? String } == owners)

        let lines = ndjsonText.split(separator: "\n")
        let ndjson = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(ndjson.map { $0?["_id"] as? String } == expectedIDs)

        // Three sections, each a header and its rows; `_id` is the second field.
        let records = CSV.records(csvText)
        let rows = records.filter { $0.count > 1 && $0[0] != "_entity" }
        #expect(rows.map { $0[1] } == expectedIDs)
        #expect(rows.filter { $0[0] == OddNameStore.part }.map { $0[3].isEmpty ? nil : $0[3] } == owners)
        let headers = records.filter { $0.first == "_entity" }
        #expect(headers.count == 3 && headers.allSatisfy { $0[1] == "_id" })
    }
}
