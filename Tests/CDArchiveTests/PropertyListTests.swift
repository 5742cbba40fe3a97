import CDTestSupport
import CDArchive
import Foundation
import Testing

@Suite("Property lists")
struct PropertyListTests {
    /// `values.bplist` was written by python's plistlib (see `make-fixtures.py`); the expected
    /// value restates that script's input. The dates are seconds since 2001-01-01 as python
    /// computed them; "unicode" is stored as UTF-16 (marker 0x6C) and ends in a surrogate pair.
    @Test func everyValueTypeFromPlistlib() throws {
        let value = try PropertyList.decode(try ArchiveTestFiles.fixture("values.bplist"))
        let expected = PropertyListValue.dictionary([
            ("ascii", .string("Core Data")),
            ("unicode", .string("Grüße, 世界 🦊")),
            ("empty", .string("")),
            ("uids", .array([.uid(0), .uid(255), .uid(256), .uid(70000)])),
            ("reals", .array([.real(3.141592653589793), .real(-0.5), .real(1e300)])),
            ("dates", .array([.date(730_902_615), .date(-31_622_401)])),
            (
                "integers",
                .array([
                    .integer(0), .integer(255), .integer(256), .integer(65536),
                    .integer(4_294_967_296), .integer(-1), .integer(Int64.min),
                ])
            ),
            ("data", .data(Data([0x00, 0x01, 0xFE, 0xFF]))),
            ("flags", .dictionary([("yes", .boolean(true)), ("no", .boolean(false))])),
            (
                "nested",
                .dictionary([
                    ("list", .array([.dictionary([("deep", .dictionary([("deeper", .array([.string("x"), .uid(7)]))]))])])),
                    ("emptyList", .array([])),
                    ("emptyDict", .dictionary([])),
                ])
            ),
        ])
        #expect(value == expected)
        #expect(value["unicode"]?.stringValue?.utf16.count == 12)
        #expect(value["nested"]?["list"]?.arrayValue?.first?["deep"]?["deeper"]?.arrayValue?.last == .uid(7))
    }

    @Test func accessorsConvertOnlyWhatTheyShould() {
        #expect(PropertyListValue.integer(7).intValue == 7)
        #expect(PropertyListValue.real(3).intValue == 3)
        #expect(PropertyListValue.real(3.5).intValue == nil)
        #expect(PropertyListValue.real(1e300).intValue == nil)
        #expect(PropertyListValue.boolean(true).intValue == 1)
        #expect(PropertyListValue.integer(0).boolValue == false)
        #expect(PropertyListValue.string("1").intValue == nil)
        #expect(PropertyListValue.array([]).dictionaryEntries == nil)
        #expect(PropertyListValue.string("x")["key"] == nil)
        // Dictionaries compare in order: the same entries in another order are a different file.
        #expect(
            PropertyListValue.dictionary([("a", .integer(1)), ("b", .integer(2))])
                != .dictionary([("b", .integer(2)), ("a", .integer(1))]))
        #expect(PropertyListValue.integer(1) != .real(1))
        #expect(PropertyListValue.uid(1) != .integer(1))
    }

    /// plistlib stores `True` once and refers to it 100 times, so the array is longer than the
    /// whole object table (2 objects), which is valid.
    @Test func arrayLongerThanTheObjectTable() throws {
        let value = try PropertyList.decode(try ArchiveTestFiles.fixture("repeated-references.bplist"))
        #expect(value == .array(Array(repeating: .boolean(true), count: 100)))
    }

    /// Encodings plistlib never writes but the format allows: a 4-byte real, a 16-byte integer
    /// (value in its low 8 bytes), a length given as a 2-byte integer object.
    @Test func encodingsOtherWritersUse() throws {
        #expect(try PropertyList.decode(handBuiltPlist([[0x22, 0x40, 0x20, 0x00, 0x00]])) == .real(2.5))
        let int16: [UInt8] = [0x14] + Array(repeating: 0, count: 15) + [42]
        #expect(try PropertyList.decode(handBuiltPlist([int16])) == .integer(42))
        #expect(try PropertyList.decode(handBuiltPlist([[0x5F, 0x11, 0x00, 0x03] + Array("abc".utf8)])) == .string("abc"))
    }

    /// Expected values from `python3 -c 'import plistlib; print(plistlib.load(open(path, "rb")))'`.
    @Test func binaryVersionInfo() throws {
        let data = try ArchiveTestFiles.corpusFile("cdplus-samplemodel/SampleModel.momd/VersionInfo.plist")
        #expect(data.starts(with: Array("bplist00".utf8)))
        let info = try PropertyList.decode(data)
        #expect(info.dictionaryEntries?.map(\.key) == ["NSManagedObjectModel_VersionHashes", "NSManagedObjectModel_CurrentVersionName"])
        #expect(info["NSManagedObjectModel_CurrentVersionName"] == .string("SampleModel"))
        let hashes = try #require(info["NSManagedObjectModel_VersionHashes"])
        #expect(hashes.dictionaryEntries?.map(\.key) == ["SampleModel3", "SampleModel2", "SampleModel"])
        #expect(
            hashes["SampleModel2"]
                == .dictionary([
                    ("Car", .data(Data(hex: "7e503efbf4b63cd93ff729e9675e21c63c65262d85a9889f59a2440af6481b93"))),
                    ("Person", .data(Data(hex: "067ae62e1bd1014cb6559d990803ae58f354dd1b7ba7b7722a361c0c39f2134e"))),
                    ("LuxuryCar", .data(Data(hex: "a873c5590010e4ea3f7bdf846786dfbf5cb095526b86aa0de2c569c4bb121886"))),
                    ("SportCar", .data(Data(hex: "722a55b5bbcd51d74876a4dd8f8f7bbde57ddc61cb65a577ec5b0fbe978d7b8c"))),
                ]))
        #expect(hashes["SampleModel3"]?.dictionaryEntries?.map(\.key).sorted() == ["Car", "LuxuryCar", "Maker", "Person", "SportCar"])
    }

    /// The GameLibrary bundle has no current version name, only hashes.
    @Test func binaryVersionInfoWithoutCurrentVersion() throws {
        let info = try PropertyList.decode(try ArchiveTestFiles.corpusFile("nintendoish-gamelibrary-model/GameLibrary.momd/VersionInfo.plist"))
        #expect(
            info
                == .dictionary([
                    (
                        "NSManagedObjectModel_VersionHashes",
                        .dictionary([
                            (
                                "DataStore",
                                .dictionary([
                                    ("Game", .data(Data(hex: "0025b0d3ff20b5874a4c3d8745274f59b4a3d0e046c7f2f4c99adb29aebd29e5"))),
                                    ("Rom", .data(Data(hex: "86626e5c667b76b9591cae96077639e299548f40172aa3f25ba45b6881235a79"))),
                                ])
                            )
                        ])
                    )
                ]))
    }

    /// An XML plist: keys come back sorted (Foundation's reader does not keep their order).
    /// The hashes are the file's base64 `<data>`, decoded to hex with python.
    @Test func xmlVersionInfo() throws {
        let data = try ArchiveTestFiles.corpusFile("restkit-coredata-momd/RestKitCoreData.momd/VersionInfo.plist")
        #expect(data.starts(with: Array("<?xml".utf8)))
        let info = try PropertyList.decode(data)
        #expect(
            info
                == .dictionary([
                    ("NSManagedObjectModel_CurrentVersionName", .string("RestKitCoreData")),
                    (
                        "NSManagedObjectModel_VersionHashes",
                        .dictionary([
                            (
                                "RestKitCoreData",
                                .dictionary([
                                    ("RKDummyEntity", .data(Data(hex: "ffacb66b61f37a968a594ea3c916c56cd1a0f3388f538a7acabe34a941ba6f1f"))),
                                    ("RKSearchWord", .data(Data(hex: "f082cccd80a761ef2e1b374b1ea9f1a3a4545fe89f122f6d8dc46be1d4592f6e"))),
                                    ("RKSearchableManagedObject", .data(Data(hex: "9a43d10ae76e91744ee6f057e69514ea574956485fedb13bc246e60ce971243a"))),
                                ])
                            )
                        ])
                    ),
                ]))
    }

    @Test(arguments: [
        ("cdplus-samplemodel/SampleModel.xcdatamodeld/.xccurrentversion", "SampleModel.xcdatamodel"),
        ("wibosco-migration/CoreDataMigration_Example.xcdatamodeld/.xccurrentversion", "CoreDataMigration_Example 4.xcdatamodel"),
        ("apple-coredatabooks/CoreDataBooks.xcdatamodeld/.xccurrentversion", "CoreDataBooks.xcdatamodel"),
    ])
    func xcCurrentVersion(path: String, name: String) throws {
        let info = try PropertyList.decode(try ArchiveTestFiles.corpusFile(path))
        #expect(info == .dictionary([("_XCCurrentVersionName", .string(name))]))
    }

    /// Scalar types through the XML reader, which on Linux hands back Swift values, not NSNumber.
    @Test func xmlScalars() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>int</key><integer>42</integer>
            <key>negative</key><integer>-7</integer>
            <key>real</key><real>2.5</real>
            <key>yes</key><true/>
            <key>no</key><false/>
            <key>date</key><date>2024-02-29T12:30:15Z</date>
            <key>list</key><array><string>ü</string><data>AAH+/w==</data></array>
            </dict></plist>
            """
        let value = try PropertyList.decode(Data(xml.utf8))
        #expect(
            value
                == .dictionary([
                    ("date", .date(730_902_615)),
                    ("int", .integer(42)),
                    ("list", .array([.string("ü"), .data(Data([0x00, 0x01, 0xFE, 0xFF]))])),
                    ("negative", .integer(-7)),
                    ("no", .boolean(false)),
                    ("real", .real(2.5)),
                    ("yes", .boolean(true)),
                ]))
    }

    @Test func notAPropertyList() {
        #expect(throws: PropertyListError.self) { try PropertyList.decode(Data("hello, world".utf8)) }
        #expect(throws: PropertyListError.self) { try PropertyList.decode(Data()) }
        #expect(throws: PropertyListError.self) { try PropertyList.decode(Data("<?xml version=\"1.0\"?><plist><dict><key>a</key></plist>".utf8)) }
    }
}
