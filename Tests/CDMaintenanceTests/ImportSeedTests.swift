@testable import CDMaintenance
import CDModel
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// `create --import` of a hand-written seed for `Tests/Fixtures/import/Shop.xcdatamodel`: an
/// abstract Item with Product and Service, a to-one to Item (companion column), one-to-many,
/// an ordered one-to-many, an ordered many-to-many, a to-many without inverse, a one-to-one,
/// and every attribute type.
@Suite(.temporaryDirectories) struct ImportSeedTests {
    static let model = Golden.fixtures.appendingPathComponent("import/Shop.xcdatamodel").path
    static let seed = Golden.fixtures.appendingPathComponent("import/shop-seed.json").path

    private func importSeed() throws -> URL {
        let store = try TemporaryDirectory.make().appendingPathComponent("Shop.sqlite")
        let result = try CommandRunner.run(["create", store.path, "--model", Self.model, "--import", Self.seed])
        #expect(result.status == 0, "\(result.stderr)")
        return store
    }

    @Test func rowsAreCoreDatasBookkeeping() throws {
        let store = try importSeed()
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        func rows(_ sql: String) throws -> [[String]] {
            try queue.read { db in
                try Row.fetchAll(db, sql: sql).map { row in
                    row.databaseValues.map { $0.isNull ? "NULL" : "\($0.storage.value!)" }
                }
            }
        }
        do {
            #expect(
                try rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [
                    ["1", "Catalog", "0", "1"], ["2", "Item", "0", "3"], ["3", "Product", "2", "0"], ["4", "Service", "2", "0"],
                    ["5", "Owner", "0", "1"], ["6", "Page", "0", "3"], ["7", "Review", "0", "2"], ["8", "Tag", "0", "2"],
                ])
            // One key space for Item's hierarchy, in input order; Z_ENT the concrete entity.
            #expect(
                try rows("SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZHOURS FROM ZITEM ORDER BY Z_PK") == [
                    ["1", "3", "1", "Lamp", "NULL"], ["2", "3", "1", "Desk", "NULL"], ["3", "4", "1", "Repair", "3"],
                ])
            #expect(
                try rows(
                    "SELECT ZACTIVE, ZSERIAL, ZSTOCK, ZVIEWS, ZCREATED, ZRATIO, ZWEIGHT, ZPRICE, ZLINK, hex(ZUID), hex(ZEXTRA), hex(ZPHOTO), hex(ZTHUMB) FROM ZITEM WHERE Z_PK = 1"
                ) == [
                    [
                        "1", "9007199254740993", "-32768", "2147483647", "738851415.25", "0.25", "0.001", "12.5", "https://example.com/lamp",
                        "614F21514EDD4099BA6DA085528EEF6F", "62706C6973743030", "01000102FF", "0102",
                    ]
                ])
            // A whole date is stored as INTEGER through the TIMESTAMP column's affinity.
            #expect(try rows("SELECT typeof(ZCREATED), ZCREATED FROM ZITEM WHERE Z_PK = 2") == [["integer", "-31626001"]])
            // To-one to the abstract Item: the key and the Z2_ companion with the concrete Z_ENT.
            #expect(
                try rows("SELECT Z_PK, Z_ENT, ZSTARS, ZSUBJECT, Z2_SUBJECT FROM ZREVIEW ORDER BY Z_PK") == [
                    ["1", "7", "5", "3", "4"], ["2", "7", "4", "1", "3"],
                ])
            // One-to-one: both keys, though only Catalog and Owner each named the other.
            #expect(try rows("SELECT Z_PK, ZOWNER, ZTITLE FROM ZCATALOG") == [["1", "1", "Spring"]])
            #expect(try rows("SELECT Z_PK, ZCATALOG FROM ZOWNER") == [["1", "1"]])
            // Ordered one-to-many: the list's order in Z_FOK_, 2048 then 1024 apart.
            #expect(
                try rows("SELECT Z_PK, ZNUMBER, ZCATALOG, Z_FOK_CATALOG FROM ZPAGE ORDER BY Z_PK") == [
                    ["1", "1", "1", "3072"], ["2", "2", "1", "2048"], ["3", "3", "NULL", "NULL"],
                ])
            // Ordered many-to-many: join rows from both sides, ordered by Product.tags.
            #expect(
                try rows("SELECT Z_3PRODUCTS, Z_8TAGS, Z_FOK_8TAGS FROM Z_3TAGS ORDER BY Z_FOK_8TAGS") == [
                    ["1", "2", "2048"], ["1", "1", "3072"],
                ])
            // To-many without inverse: the hidden key Z1WATCHERS in the destination table.
            #expect(try rows("SELECT Z_PK, Z1WATCHERS, ZLABEL FROM ZTAG ORDER BY Z_PK") == [["1", "1", "new"], ["2", "1", "sale"]])
        }
    }

    @Test func validatesAndDumpsTheImportedValues() throws {
        let store = try importSeed()
        let validation = try CommandRunner.run(["validate", store.path])
        #expect(validation.status == 0, "\(validation.stdout)")
        let dump = try CommandRunner.run([
            "dump", store.path, "--format", "json", "--binary", "base64",
            "--include", "pages", "--include", "tags", "--include", "products", "--include", "watchers",
        ])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [[String: Any]])
        let byName = Dictionary(objects.compactMap { object in (object["name"] as? String).map { ($0, object) } }) { a, _ in a }
        let lamp = try #require(byName["Lamp"])
        #expect(lamp["created"] as? String == "2024-05-31T12:30:15.250Z")
        #expect(lamp["active"] as? Bool == true)
        #expect(lamp["extra"] as? String == "YnBsaXN0MDA=")
        #expect(lamp["photo"] as? String == "AAEC/w==")
        #expect(lamp["thumb"] as? String == "AQI=")
        #expect(lamp["link"] as? String == "https://example.com/lamp")
        #expect((lamp["price"] as? NSNumber)?.doubleValue == 12.5)
        #expect((lamp["ratio"] as? NSNumber)?.doubleValue == 0.25)
        #expect((lamp["weight"] as? NSNumber)?.doubleValue == 0.001)
        #expect((lamp["serial"] as? NSNumber)?.int64Value == 9_007_199_254_740_993)
        #expect((lamp["stock"] as? NSNumber)?.intValue == -32768)
        #expect((lamp["views"] as? NSNumber)?.intValue == 2_147_483_647)
        #expect(lamp["uid"] as? String == "614F2151-4EDD-4099-BA6D-A085528EEF6F")
        #expect((lamp["tags"] as? [String])?.map { String($0.suffix(6)) } == ["Tag/p2", "Tag/p1"])
        #expect(byName["Desk"]?["created"] as? String == "1999-12-31T22:59:59Z")
        let catalog = try #require(objects.first { $0["_entity"] as? String == "Catalog" })
        #expect((catalog["pages"] as? [String])?.map { String($0.suffix(7)) } == ["Page/p2", "Page/p1"])
        #expect((catalog["watchers"] as? [String])?.count == 2)
    }

    /// The three input forms give the same objects.
    @Test func inputFormsAgree() throws {
        let array = #"[{"_entity":"Tag","_id":"a","label":"x"},{"_id":"b","_entity":"Tag"}]"#
        let ndjson = "{\"_entity\":\"Tag\",\"_id\":\"a\",\"label\":\"x\"}\n{\"_id\":\"b\",\"_entity\":\"Tag\"}\n"
        let keyed = #"{"Tag":[{"_id":"a","label":"x"},{"_id":"b"}]}"#
        func read(_ text: String) throws -> [String] {
            var seen: [String] = []
            try ImportInput(data: Data(text.utf8)).forEachObject { object in
                seen.append("\(object.entity) \(object.id ?? "-") \(object.index) \(object.properties.map(\.key))")
            }
            return seen
        }
        let expected = ["Tag a 1 [\"label\"]", "Tag b 2 []"]
        #expect(try read(array) == expected)
        #expect(try read(ndjson) == expected)
        #expect(try read(keyed) == expected)
        #expect(try read("  \n") == [])
    }

    /// ValueEncoder is the inverse of ValueDecoder for every stored type.
    @Test func valueEncoderRoundTripsThroughTheDecoder() throws {
        let cases: [(ObjectValue, AttributeType, Bool)] = [
            (.integer(-32768), .integer16, false), (.integer(Int64(Int32.max)), .integer32, false), (.integer(.min), .integer64, false),
            (.boolean(true), .boolean, false), (.boolean(false), .boolean, false),
            (.decimal(3.3333333333), .decimal, false), (.double(-0.5), .double, false), (.double(1e-300), .float, false),
            (.string("ünï\u{0}code"), .string, false), (.date(-541_232_580), .date, false), (.date(526_913_713.25), .date, false),
            (.binary(Data([1, 2, 0xFF])), .binary, false), (.binary(Data([0x02, 0x41])), .binary, true), (.binary(Data()), .binary, true),
            (.uuid(UUID(uuidString: "614F2151-4EDD-4099-BA6D-A085528EEF6F")!), .uuid, false),
            (.uri("https://example.com/a?b"), .uri, false), (.transformableData(Data([0x00, 0x01])), .transformable, false),
            (.null, .string, false),
        ]
        for (value, type, external) in cases {
            let raw = try ValueEncoder.encode(value, type: type, allowsExternalStorage: external)
            #expect(ValueDecoder.decode(raw, type: type, allowsExternalStorage: external, externalData: nil) == value, "\(value) as \(type)")
        }
        #expect(throws: ValueEncoder.Failure.self) { try ValueEncoder.encode(.integer(32768), type: .integer16, allowsExternalStorage: false) }
        #expect(throws: ValueEncoder.Failure.self) { try ValueEncoder.encode(.integer(Int64(Int32.min) - 1), type: .integer32, allowsExternalStorage: false) }
        #expect(throws: ValueEncoder.Failure.self) { try ValueEncoder.encode(.string("x"), type: .integer64, allowsExternalStorage: false) }
        #expect(throws: ValueEncoder.Failure.self) {
            try ValueEncoder.encode(.externalReference(file: "F", exists: true), type: .binary, allowsExternalStorage: true)
        }
    }
}
