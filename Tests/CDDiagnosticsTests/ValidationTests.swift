import CDBase
import CDDiagnostics
import CDModel
import CDPredicate
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// `validate` on copies of real stores: clean stores report nothing, and a copy with one injected
/// fault reports exactly that fault and nothing else.
@Suite(.temporaryDirectories) struct ValidationTests {
    static let books = "cdplus-samplemodel2/SampleModel2_V1.sqlite"

    /// A corpus store copy with `sql` applied to it (the copy, never the corpus).
    static func store(_ source: String = books, _ sql: String = "") throws -> URL {
        let copy = try Corpus.copyStore(source)
        if !sql.isEmpty {
            let database = try DatabaseQueue(path: copy.path)
            try database.write { db in
                // Core Data's triggers call functions that exist only inside Core Data.
                let triggers = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'")
                for trigger in triggers { try db.execute(sql: "DROP TRIGGER \(trigger.quotedSQLIdentifier)") }
                try db.execute(sql: sql)
            }
            try database.close()
        }
        return copy
    }

    static func report(_ store: URL, model: ManagedObjectModel? = nil) throws -> ValidationReport {
        try StoreValidator.validate(try StoreSnapshot(path: store.path), model: model)
    }

    static func uri(_ store: URL, _ table: String, _ pk: Int) throws -> String {
        let database = try DatabaseQueue(path: store.path)
        return try database.read { db in
            let uuid = try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA") ?? ""
            let entity =
                try String.fetchOne(
                    db, sql: "SELECT p.Z_NAME FROM \(table) t JOIN Z_PRIMARYKEY p ON p.Z_ENT = t.Z_ENT WHERE t.Z_PK = ?",
                    arguments: [pk]) ?? ""
            return "x-coredata://\(uuid)/\(entity)/p\(pk)"
        }
    }

    @Test(arguments: [
        books, "plaso-accounts3/Accounts3.sqlite", "wibosco-migration/CoreDataMigration_Example_3.sqlite",
        "cdplus-samplemodel3/SampleModel3_V1.sqlite",
    ])
    func cleanStoresReportNothing(_ source: String) throws {
        let report = try Self.report(try Self.store(source))
        #expect(report.errors.isEmpty && report.integrity.isEmpty, "\(report.errors) \(report.integrity)")
        #expect(report.objects > 0)
        #expect(!report.hasProblems)
    }

    @Test func nullMandatoryValue() throws {
        let copy = try Self.store(Self.books, "UPDATE ZBOOK SET ZTITLE = NULL WHERE Z_PK = 3")
        let report = try Self.report(copy)
        #expect(
            report.errors == [
                ValidationFailure(
                    code: 1570, entity: try Self.uri(copy, "ZBOOK", 3).split(separator: "/")[2].description,
                    key: "title", object: try Self.uri(copy, "ZBOOK", 3), value: nil,
                    message: "title is a required value.")
            ])
        #expect(report.integrity.isEmpty)
    }

    @Test func stringOverItsMaximumLength() throws {
        let copy = try Self.store(Self.books, "UPDATE ZBOOK SET ZTITLE = 'title ' || replace(hex(zeroblob(30)), '0', 'x') WHERE Z_PK = 3")
        let report = try Self.report(copy)
        #expect(report.errors.map(\.code) == [1660])
        #expect(try report.errors.first?.object == (Self.uri(copy, "ZBOOK", 3)))
        #expect(report.errors.first?.value?.count == 66)
        #expect(report.integrity.isEmpty)
    }

    @Test func severalErrorsOfOneObjectAre1560() throws {
        let copy = try Self.store(Self.books, "UPDATE ZBOOK SET ZTITLE = 'ab' WHERE Z_PK = 3")
        let report = try Self.report(copy)
        try #require(report.errors.count == 1)
        let wrapper = report.errors[0]
        #expect(try wrapper.code == 1560 && wrapper.key == nil && wrapper.object == (Self.uri(copy, "ZBOOK", 3)))
        #expect(wrapper.errors.map(\.code) == [1670, 1550])
        #expect(wrapper.errors.last?.message == "title is not valid. Title must contain 'title'.")
        #expect(report.integrity.isEmpty)
    }

    @Test func toManyBelowItsMinimum() throws {
        let copy = try Self.store(Self.books, "UPDATE ZPAGE SET ZBOOK = 5, Z1_BOOK = (SELECT Z_ENT FROM ZBOOK WHERE Z_PK = 5) WHERE ZBOOK = 4")
        let report = try Self.report(copy)
        #expect(try report.errors.map { "\($0.code) \($0.key ?? "") \($0.object)" } == ["1580 pages \(Self.uri(copy, "ZBOOK", 4))"])
        #expect(report.integrity.isEmpty)
    }

    @Test func danglingToOneKey() throws {
        let copy = try Self.store(Self.books, "UPDATE ZPAGE SET ZBOOK = 99999 WHERE Z_PK = 5")
        let report = try Self.report(copy)
        #expect(report.errors.isEmpty)
        #expect(report.integrity.map(\.kind) == [.danglingToOne])
        #expect(try report.integrity.first?.examples == ["\(Self.uri(copy, "ZPAGE", 5)) → Z_PK 99999"])
        #expect(report.integrity.first?.entity == "Page" && report.integrity.first?.key == "book")
    }

    @Test func danglingJoinRow() throws {
        let copy = try Self.store("plaso-accounts3/Accounts3.sqlite", "INSERT INTO Z_4SUPPORTEDDATACLASSES VALUES (1, 9999)")
        let report = try Self.report(copy)
        #expect(report.errors.isEmpty)
        #expect(report.integrity.map { "\($0.kind.rawValue) \($0.entity ?? "") \($0.count)" } == ["danglingJoinRow Dataclass 1"])
    }

    @Test func loweredPrimaryKeyMaximum() throws {
        let copy = try Self.store(Self.books, "UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Book'")
        let report = try Self.report(copy)
        #expect(report.errors.isEmpty)
        #expect(report.integrity.map { "\($0.kind.rawValue) \($0.entity ?? "")" } == ["primaryKeyBelowMaximum Book"])
    }

    @Test func unknownAndAbstractEntityNumbers() throws {
        let unknown = try Self.report(try Self.store(Self.books, "UPDATE ZBOOK SET Z_ENT = 42 WHERE Z_PK = 7"))
        #expect(unknown.errors.isEmpty)
        #expect(unknown.integrity.map { "\($0.kind.rawValue) \($0.key ?? "") \($0.count)" } == ["unknownEntity ZBOOK 1"])
        let abstract = try Self.report(
            try Self.store(
                Self.books,
                "UPDATE ZWRITER SET Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Writer') WHERE Z_PK = 2"))
        #expect(abstract.errors.isEmpty)
        #expect(abstract.integrity.map { "\($0.kind.rawValue) \($0.entity ?? "") \($0.count)" } == ["abstractEntity Writer 1"])
    }

    /// Book.cover allowed to be stored externally (the model exported as XML and edited), with
    /// p2's cover in `_EXTERNAL_DATA`: marker 0x02, then "COVER-2" and a NUL (store-format.md §9).
    static func externalStore() throws -> (URL, ManagedObjectModel, URL) {
        let copy = try Self.store(Self.books, "UPDATE ZBOOK SET ZCOVER = X'02434F5645522D3200' WHERE Z_PK = 2")
        let cached = try ModelSource.versions(at: copy.path)[0].model
        let xml = ModelXMLWriter.xml(for: cached).replacingOccurrences(
            of: "<attribute name=\"cover\" ",
            with: "<attribute name=\"cover\" allowsExternalBinaryDataStorage=\"YES\" ")
        let model = try XMLModelReader.model(fromXML: Data(xml.utf8))
        let folder = copy.deletingLastPathComponent().appendingPathComponent(".SampleModel2_V1_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("cover".utf8).write(to: folder.appendingPathComponent("COVER-2"))
        return (copy, model, folder)
    }

    @Test func deletedAndOrphanedExternalFiles() throws {
        let (copy, model, folder) = try Self.externalStore()
        let intact = try Self.report(copy, model: model)
        #expect(intact.errors.isEmpty && intact.integrity.isEmpty, "\(intact.integrity)")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("COVER-2"))
        let deleted = try Self.report(copy, model: model)
        #expect(deleted.errors.isEmpty)
        #expect(deleted.integrity.map { "\($0.kind.rawValue) \($0.entity ?? "").\($0.key ?? "") \($0.count)" } == ["missingExternalFile Book.cover 1"])
        #expect(try deleted.integrity.first?.examples == ["\(Self.uri(copy, "ZBOOK", 2)) → COVER-2"])
        try Data("stray".utf8).write(to: folder.appendingPathComponent("STRAY-FILE"))
        try Data("cover".utf8).write(to: folder.appendingPathComponent("COVER-2"))
        let orphaned = try Self.report(copy, model: model)
        #expect(orphaned.integrity.map { "\($0.kind.rawValue) \($0.examples)" } == ["orphanedExternalFile [\"STRAY-FILE\"]"])
    }

    @Test func boundsFromAContentsFileAreCheckedWithTheirCodes() throws {
        let copy = try Self.store()
        let cached = try ModelSource.versions(at: copy.path)[0].model
        let xml = ModelXMLWriter.xml(for: cached).replacingOccurrences(
            of: "<attribute name=\"price\" ",
            with: "<attribute name=\"price\" minValueString=\"10.5\" maxValueString=\"20\" ")
        let report = try Self.report(copy, model: try XMLModelReader.model(fromXML: Data(xml.utf8)))
        let database = try DatabaseQueue(path: copy.path)
        let (high, low) = try database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZBOOK WHERE ZPRICE > 20") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZBOOK WHERE ZPRICE < 10.5") ?? -1
            )
        }
        #expect(report.errors.filter { $0.code == 1610 }.count == high)
        #expect(report.errors.filter { $0.code == 1620 }.count == low)
        #expect(high + low > 0 && report.errors.count == high + low)
    }

    @Test(arguments: [
        ("length >= 3", 1670), ("length <= 50", 1660), ("SELF >= 1", 1620), ("SELF < 10", 1610),
        ("SELF <= CAST(700000000, \"NSDate\")", 1630), ("SELF >= CAST('2001-01-01T00:00:00Z', \"NSDate\")", 1640),
        ("SELF MATCHES \"[a-z]+\"", 1680), ("SELF CONTAINS \"title\"", 1550), ("length == 4", 1550),
    ])
    func predicateShapesGiveCoreDataCodes(_ text: String, _ code: Int) throws {
        #expect(ValidationRuleCode.code(for: try PredicateParser.parse(text)) == code)
    }
}
