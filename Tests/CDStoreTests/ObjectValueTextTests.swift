import CDArchive
@testable import CDStore
import Foundation
import Testing

/// The one value-to-text function shared by dumps, validation reports and `inspect` metadata.
@Suite struct ObjectValueTextTests {
    @Test func scalarsAsDumpsWriteThem() {
        #expect(ObjectValue.null.text() == nil)
        #expect(ObjectValue.boolean(true).text() == "1")
        #expect(ObjectValue.double(2).text() == "2")
        #expect(ObjectValue.decimal(2.5).text() == "2.5")
        #expect(ObjectValue.date(0).text() == "2001-01-01 00:00:00 +0000")
        #expect(ObjectValue.objectCount(1).text() == "1 object")
        #expect(ObjectValue.externalReference(file: "A1", exists: false).text() == "<external data: A1, missing>")
    }

    @Test func bytesAsTheCallerAsks() {
        let bytes = ObjectValue.binary(Data([0xAB, 0xCD]))
        #expect(bytes.text() == "<2 bytes>")
        #expect(bytes.text(binary: { $0.base64EncodedString() }) == "q80=")
    }

    @Test func archivesOnOneLine() {
        let archived = ArchivedValue.dictionary([(.string("tags"), .set([.string("a"), .integer(2)])), (.string("at"), .date(60))])
        #expect(ObjectValue.transformable(archived, size: 90).text() == "{tags = {(a, 2)}; at = 2001-01-01 00:01:00 +0000}")
    }

    /// Metadata values the app set read as attribute values do.
    @Test func metadataValues() {
        #expect(ObjectValue(metadata: .real(3)).text() == "3")
        #expect(ObjectValue(metadata: .boolean(false)).text() == "0")
        #expect(ObjectValue(metadata: .data(Data(count: 5))).text() == "<5 bytes>")
        let nested = PropertyListValue.dictionary([(key: "list", value: .array([.string("x"), .data(Data(count: 3))])), (key: "ref", value: .uid(4))])
        #expect(ObjectValue(metadata: nested).text() == "{list = (x, <3 bytes>); ref = 4}")
    }
}
