import CDFetch
import CDModel
import CDPredicate
import CDSession
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// The session every front end opens: value rows against straight SQL on a copy of a real store,
/// and a store whose model cannot be read still answering what needs no model.
@Suite(.temporaryDirectories) struct StoreSessionTests {
    static let books = "cdplus-samplemodel2/SampleModel2_V1.sqlite"

    /// Rows of `sql` on a plain read-only connection to `path`.
    static func plainRows(_ path: String, _ sql: String) throws -> [[DatabaseValue]] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        return try queue.read { db in try Row.fetchAll(db, sql: sql).map { Array($0.databaseValues) } }
    }

    static func values(_ session: StoreSession, _ request: CDFetch.FetchRequest) throws -> (names: [String], rows: [[ObjectValue]]) {
        var names: [String] = []
        var rows: [[ObjectValue]] = []
        try session.values(request, names: { names = $0 }, row: { rows.append($0) })
        return (names, rows)
    }

    @Test func countsAndDistinctValuesEqualStraightSQL() throws {
        let copy = try Corpus.copyStore(Self.books)
        let session = try StoreSession(storePath: copy.path, modelPath: nil)
        let predicate = try PredicateParser.parse("pagesCount > 100")
        let count = try Self.values(session, CDFetch.FetchRequest(entity: "Book", predicate: predicate, result: .count))
        let expectedCount = try Self.plainRows(copy.path, "SELECT COUNT(*) FROM ZBOOK WHERE ZPAGESCOUNT > 100")
        #expect(count.names == ["count"])
        #expect(count.rows == [[.integer(Int64.fromDatabaseValue(expectedCount[0][0]) ?? -1)]])

        let distinct = try Self.values(
            session,
            CDFetch.FetchRequest(
                entity: "Book", sortDescriptors: [CDModel.SortDescriptor(key: "pagesCount", ascending: true)],
                result: .distinct(["pagesCount"])))
        let expected = try Self.plainRows(copy.path, "SELECT DISTINCT ZPAGESCOUNT FROM ZBOOK ORDER BY ZPAGESCOUNT")
            .map { row in [row[0].isNull ? ObjectValue.null : .integer(Int64.fromDatabaseValue(row[0]) ?? -1)] }
        #expect(distinct.names == ["pagesCount"])
        #expect(distinct.rows == expected)
        #expect(expected.count > 1)
    }

    @Test func objectRequestsHaveNoValueRows() throws {
        let session = try StoreSession(storePath: try Corpus.copyStore(Self.books).path, modelPath: nil)
        #expect(throws: FetchSQLError.objectsHaveNoValueRows) {
            try Self.values(session, CDFetch.FetchRequest(entity: "Book"))
        }
    }

    @Test func opensWithoutReadingTheModel() throws {
        let copy = try Corpus.copyStore(Self.books)
        // A model cache that cannot be read: the session opens, and fails only when the model is needed.
        let queue = try DatabaseQueue(path: copy.path)
        try queue.write { db in try db.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = x'00010203'") }
        try queue.close()
        let session = try StoreSession(storePath: copy.path, modelPath: nil)
        #expect(throws: (any Error).self) { try session.model() }
        var rows: [[ObjectValue]] = []
        try FetchRunner.raw("SELECT COUNT(*) FROM ZBOOK", on: session.snapshot, columns: { _ in }, row: { rows.append($0) })
        let expected = try Self.plainRows(copy.path, "SELECT COUNT(*) FROM ZBOOK")
        #expect(rows == [[.integer(Int64.fromDatabaseValue(expected[0][0]) ?? -1)]])
    }

    @Test func aReloadedSessionSeesWhatWasWrittenSince() throws {
        let copy = try Corpus.copyStore(Self.books)
        let session = try StoreSession(storePath: copy.path, modelPath: nil)
        let request = CDFetch.FetchRequest(entity: "Book", result: .count)
        let before = try Self.values(session, request).rows
        let queue = try DatabaseQueue(path: copy.path)
        try queue.write { db in try db.execute(sql: "DELETE FROM ZBOOK WHERE Z_PK = (SELECT MIN(Z_PK) FROM ZBOOK)") }
        try queue.close()
        #expect(
            try Self.values(session.reloaded(), request).rows == [
                [.integer((before.first?.first.flatMap { if case .integer(let n) = $0 { n } else { nil } } ?? 0) - 1)]
            ])
    }
}
