import CDFetch
import CDMapping
import CDPredicate
import CDModel
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// Every CDQ query example of CDQ's README and sources that uses `Author`, run as SQL on a store
/// of CDQ's Author schema (tables from the predicted mapping, rows inserted with plain SQL), each
/// result compared with SQL written independently for it.
@Suite(.temporaryDirectories) struct CDQResultTests {
    static let model = """
        <?xml version="1.0" encoding="UTF-8"?><model><entity name="Author">
          <attribute name="created_at" attributeType="Date"/><attribute name="fee" attributeType="Double"/>
          <attribute name="name" attributeType="String"/><attribute name="pub_count" attributeType="Integer 32"/>
          <attribute name="publish_count" attributeType="Integer 32"/><attribute name="published" attributeType="Boolean"/>
          <attribute name="published_at" attributeType="Date"/><attribute name="title" attributeType="String"/></entity></model>
        """

    /// Z_PK, name, publish_count, pub_count, created_at (UTC), fee, published, published_at, title.
    static let rows: [(Int, String, Int, Int, String, Double, Int, String, String)] = [
        (1, "Shakespeare", 15, 150, "2024-05-30T10:00:00Z", 10, 1, "2024-01-05T00:00:00Z", "Playwright"),
        (2, "Emily Dickinson", 12, 5, "2024-05-30T20:00:00Z", 20, 0, "2024-02-05T00:00:00Z", "Poet"),
        (3, "Emily Brontë", 120, 120, "2024-05-31T01:00:00Z", 30, 1, "2023-12-24T00:00:00Z", "Novelist"),
        (4, "Austen", 7, 50, "2024-05-29T08:00:00Z", 40, 1, "2024-03-01T00:00:00Z", "Novelist"),
        (5, "Shakespeare", 3, 8, "2024-06-01T12:00:00Z", 50, 0, "2024-04-01T00:00:00Z", "Manager"),
        (6, "Chuck Norris", 101, 500, "2024-05-30T00:00:00Z", 60, 1, "2022-07-07T00:00:00Z", "Ranger"),
        (7, "Anne Carson", 140, 99, "2024-05-28T00:00:00Z", 70, 1, "2021-01-01T00:00:00Z", "Poet"),
        (8, "Chuck", 1, 2, "2024-05-27T00:00:00Z", 80, 0, "2020-01-01T00:00:00Z", "Boss"),
        (9, "Chuck", 4, 3, "2024-05-26T00:00:00Z", 90, 1, "2020-02-01T00:00:00Z", "Manager"),
    ]

    /// The independent SQL for each example: rows as `Z_PK` lists, counts and aggregates as one value.
    static let expectations: [String: String] = [
        "Author.where(:name).eq('Shakespeare')": "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME = 'Shakespeare'",
        "Author.where(:publish_count).gt(10)": "SELECT Z_PK FROM ZAUTHOR WHERE ZPUBLISH_COUNT > 10",
        "Author.where(name: 'Shakespeare', publish_count: 15)": "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME = 'Shakespeare' AND ZPUBLISH_COUNT = 15",
        "Author.where(\"name LIKE %@\", '*kesp*')": "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME GLOB '*kesp*'",
        "Author.sort_by(:created_at).limit(1).offset(10)": "SELECT Z_PK FROM ZAUTHOR ORDER BY ZCREATED_AT LIMIT 1 OFFSET 10",
        "Author.sort_by(:created_at, order: :descending)": "SELECT Z_PK FROM ZAUTHOR ORDER BY ZCREATED_AT DESC",
        "Author.sort_by(:created_at, case_insensitive: true)": "SELECT Z_PK FROM ZAUTHOR ORDER BY ZCREATED_AT",
        "Author.where(:created_at).ge(Time.parse('2024-05-30')).and.lt(Time.parse('2024-05-31'))":
            "SELECT Z_PK FROM ZAUTHOR WHERE ZCREATED_AT >= 738720000 AND ZCREATED_AT < 738806400",
        "Author.where(:name).contains(\"Emily\").and(cdq(:pub_count).gt(100).or.lt(10))":
            "SELECT Z_PK FROM ZAUTHOR WHERE instr(ZNAME, 'Emily') > 0 AND (ZPUB_COUNT > 100 OR ZPUB_COUNT < 10)",
        "Author.where(:name).begins_with('A').where(:publish_count).gt(99).limit(5)":
            "SELECT Z_PK FROM ZAUTHOR WHERE substr(ZNAME, 1, 1) = 'A' AND ZPUBLISH_COUNT > 99 LIMIT 5",
        "cdq('Author').where(:name).eq('Shakespeare')": "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME = 'Shakespeare'",
        "cdq('Author').where(:publish_count).gt(10)": "SELECT Z_PK FROM ZAUTHOR WHERE ZPUBLISH_COUNT > 10",
        "cdq('Author').sort_by(:created_at).limit(1).offset(10)": "SELECT Z_PK FROM ZAUTHOR ORDER BY ZCREATED_AT LIMIT 1 OFFSET 10",
        "Author.first": "SELECT Z_PK FROM ZAUTHOR ORDER BY Z_PK LIMIT 1",
        "Author.where(:name).eq('Shakespeare').sort_by(:created_at).limit(1)":
            "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME = 'Shakespeare' ORDER BY ZCREATED_AT LIMIT 1",
        "Author.where(:name).ne('Shakespeare').and(:publish_count).gt(10)":
            "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME <> 'Shakespeare' AND ZPUBLISH_COUNT > 10",
        "Author.where(cdq(:pub_count).gt(100).or.lt(10))": "SELECT Z_PK FROM ZAUTHOR WHERE ZPUB_COUNT > 100 OR ZPUB_COUNT < 10",
        "Author.where(:name).equal(\"Chuck\").and(:title).not_equal(\"Manager\")":
            "SELECT Z_PK FROM ZAUTHOR WHERE ZNAME = 'Chuck' AND ZTITLE <> 'Manager'",
        "Author.where(:name).contains(\"Chuck\").and.contains(\"Norris\")":
            "SELECT Z_PK FROM ZAUTHOR WHERE instr(ZNAME, 'Chuck') > 0 AND instr(ZNAME, 'Norris') > 0",
        "Author.sum(:fee)": "SELECT total(ZFEE) FROM ZAUTHOR",
        "Author.average(:fee)": "SELECT avg(ZFEE) FROM ZAUTHOR",
        "Author.min(:fee)": "SELECT min(ZFEE) FROM ZAUTHOR",
        "Author.max(:fee)": "SELECT max(ZFEE) FROM ZAUTHOR",
        "Author.where(cdq(:published).eq(true).sort_by(:published_at).limit(1)).first":
            "SELECT Z_PK FROM ZAUTHOR WHERE ZPUBLISHED = 1 ORDER BY ZPUBLISHED_AT LIMIT 1",
    ]

    static let examples: [String] = (cdqReadmeExamples + cdqSourceExamples).map(\.chain).filter {
        $0.hasPrefix("Author") || $0.hasPrefix("cdq('Author')")
    }

    static func store() throws -> (FetchSQL, DatabaseQueue) {
        let model = try XMLModelReader.model(fromXML: Data(Self.model.utf8))
        let mapping = StoreMapping.predict(model: model)
        let database = try DatabaseQueue(path: try TemporaryDirectory.make().appendingPathComponent("cdq.sqlite").path)
        try database.write { db in
            try db.execute(sql: mapping.createScript)
            let column = { (property: String) in mapping.column(forProperty: property, ofEntity: "Author")?.name ?? "?" }
            let names = ["name", "publish_count", "pub_count", "created_at", "fee", "published", "published_at", "title"].map(column)
            let formatter = ISO8601DateFormatter()
            for row in rows {
                let created = formatter.date(from: row.4)!.timeIntervalSinceReferenceDate
                let published = formatter.date(from: row.7)!.timeIntervalSinceReferenceDate
                try db.execute(
                    sql: "INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, \(names.joined(separator: ", "))) VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?)",
                    arguments: [row.0, row.1, row.2, row.3, created, row.5, row.6, published, row.8])
            }
            CoreDataSQLFunctions.register(in: db)
        }
        return (FetchSQL(model: model, mapping: mapping), database)
    }

    @Test func everyAuthorExampleHasAnExpectation() {
        #expect(Self.examples.count >= 20)
        for example in Self.examples { #expect(Self.expectations[example] != nil, "no independent SQL for \(example)") }
    }

    @Test(arguments: examples)
    func exampleMatchesIndependentSQL(_ example: String) throws {
        let (translator, database) = try Self.store()
        let request = try QueryExpression.parse(example)
        let statement = try translator.statement(for: request)
        let expectedSQL = try #require(Self.expectations[example])
        try database.read { db in
            let arguments = StatementArguments(statement.arguments)
            switch statement.kind {
            case .objects:
                let keys = try Row.fetchAll(db, sql: statement.sql, arguments: arguments).map { $0[1] as Int64 }
                let expected = try Int64.fetchAll(db, sql: expectedSQL)
                #expect(keys == expected, "\(statement.sql)")
                if request.sortDescriptors.isEmpty && request.limit == nil { #expect(!keys.isEmpty) }
            case .count, .values:
                let value = try DatabaseValue.fetchOne(db, sql: statement.sql, arguments: arguments)
                #expect(value == (try DatabaseValue.fetchOne(db, sql: expectedSQL)), "\(statement.sql)")
            }
        }
    }
}
