import CDDiagnostics
import CDTestSupport
import Foundation
import Testing

/// Shapes of dumps beyond the reference's verbatim ones, and input that must never crash.
@Suite struct ParserTests {
    /// The newer wording of errors.md §5.8: each detailed error quoted and escaped.
    @Test func newerMultipleValidationErrors() throws {
        let text = #"""
            2024-03-01 10:00:00.123456+0100 Chat[123:4567] Save failed: Error Domain=NSCocoaErrorDomain Code=1560 "Multiple validation errors occurred." UserInfo={NSDetailedErrors=(
                "Error Domain=NSCocoaErrorDomain Code=1570 \"messageStr is a required value.\" UserInfo={NSValidationErrorObject=<XMPPMessage: 0x600001> (entity: XMPPMessage; id: 0xa1b2c3 <x-coredata://11111111-2222-3333-4444-555555555555/XMPPMessage/p12>; data: {\n    messageStr = nil;\n    thread = \"chat-1\";\n}), NSValidationErrorKey=messageStr, NSLocalizedDescription=messageStr is a required value.}",
                "Error Domain=NSCocoaErrorDomain Code=1570 \"createdAt is a required value.\" UserInfo={NSLocalizedDescription=createdAt is a required value.}"
            ), NSLocalizedDescription=Multiple validation errors occurred.}
            """#
        let reading = try #require(ErrorDumpParser.parse(text))
        let primary = reading.primary
        #expect(primary.code == 1560)
        #expect(primary.message == "Multiple validation errors occurred.")
        #expect(primary.detailedErrors.count == 2)
        let first = try #require(primary.detailedErrors.first)
        #expect(first.entity == "XMPPMessage")
        #expect(first.key == "messageStr")
        #expect(first.value == "nil")
        #expect(first.object?.primaryKey == 12)
        #expect(first.object?.storeUUID == "11111111-2222-3333-4444-555555555555")
        #expect(first.object?.temporary == false)
        // No NSValidationErrorKey: the key comes from Core Data's English message.
        #expect(primary.detailedErrors.last?.key == "createdAt")
    }

    @Test func databaseIsLocked() throws {
        let reading = try #require(ErrorDumpParser.parse("CoreData: error: SQLite error code:5, 'database is locked'"))
        #expect(reading.primary.code == 5)
        #expect(reading.primary.domain == "NSSQLiteErrorDomain")
        let bare = try #require(ErrorDumpParser.parse("error: database is locked"))
        #expect(bare.primary.code == 5)
        #expect(Explanation(reading: bare).section == TroubleshootingSection.locked.rawValue)
    }

    @Test func truncatedMetadataHashes() throws {
        let text = """
            Error Domain=NSCocoaErrorDomain Code=134100 "The managed object model version used to open the persistent store is incompatible with the one that was used to create the persistent store." UserInfo={metadata={
                NSPersistenceFrameworkVersion = 1244;
                NSStoreModelVersionHashes =     {
                    Post = {length = 32, bytes = 0x8a55fd4c 1c43d4e5 ... 7d6ad7b2 5e2d30f4 };
                };
                NSStoreModelVersionIdentifiers =     (
                    "2"
                );
                NSStoreUUID = "0B5E3F5C-1C1B-4C41-9C35-6A0F1C2B8D11";
            }, reason=The model used to open the store is incompatible with the one used to create the store}
            """
        let metadata = try #require(ErrorDumpParser.parse(text)?.primary.metadata)
        #expect(metadata.frameworkVersion == 1244)
        #expect(metadata.versionIdentifiers == ["2"])
        #expect(metadata.versionHashes.isEmpty)
        #expect(metadata.truncatedHashes == ["Post"])
        #expect(metadata.storeUUID == "0B5E3F5C-1C1B-4C41-9C35-6A0F1C2B8D11")
    }

    @Test func textWithoutAnErrorIsNil() {
        #expect(ErrorDumpParser.parse("") == nil)
        #expect(ErrorDumpParser.parse("hello world\nnothing to see") == nil)
    }

    /// Every prefix of every reference dump, cut at a stride, parses without crashing.
    @Test(arguments: ExplainGoldenTests.expectations.map(\.fixture))
    func truncatedDumpsNeverCrash(_ fixture: String) throws {
        let text = try ExplainGoldenTests.dump(fixture)
        var end = text.startIndex
        while end < text.endIndex {
            if let reading = ErrorDumpParser.parse(String(text[..<end])) {
                _ = ExplanationText.render(Explanation(reading: reading))
            }
            end = text.index(end, offsetBy: 13, limitedBy: text.endIndex) ?? text.endIndex
        }
    }

    @Test func hostileInputNeverCrashes() {
        var generator = SeededGenerator(seed: 1570)
        let pieces = [
            "Error Domain=NSCocoaErrorDomain Code=1570 \"", "UserInfo={", "UserInfo=0x1 {", "}", "{", "(", ")", "NSDetailedErrors=(",
            "NSValidationErrorKey=", "metadata={", "NSStoreModelVersionHashes = {", "<", ">", "\"", "\\\"", ";", ",", "\n",
            "x-coredata://", "/p", "é", "👩‍💻", "\u{0}", "I/O error for database at ", "SQLite error code:", "[…", "]", "= ",
        ]
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 1...80, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            if let reading = ErrorDumpParser.parse(text) {
                _ = ExplanationText.render(Explanation(reading: reading))
            }
        }
        let deep = String(repeating: "Error Domain=D Code=1 UserInfo={NSUnderlyingError=", count: 2_000)
        #expect(ErrorDumpParser.parse(deep)?.primary.code == 1)
        let bytes = (0..<4_096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        _ = ErrorDumpParser.parse(String(decoding: bytes, as: UTF8.self))
    }
}

extension ParserTests {
    /// swift-corelibs-foundation prints no space before `UserInfo=` and nests the underlying
    /// error without braces.
    @Test func corelibsFoundationForm() throws {
        let text =
            #"Error Domain=NSCocoaErrorDomain Code=260 "The file doesn’t exist."UserInfo={NSURL=file:///tmp/a.sqlite, NSUnderlyingError=Error Domain=NSPOSIXErrorDomain Code=2 "No such file or directory", NSFilePath=/tmp/a.sqlite}"#
        let reading = try #require(ErrorDumpParser.parse(text))
        #expect(reading.primary.code == 260)
        #expect(reading.primary.message == "The file doesn’t exist.")
        #expect(reading.primary.storePath == "/tmp/a.sqlite")
        #expect(reading.primary.underlyingErrors.first?.code == 2)
        #expect(reading.primary.underlyingErrors.first?.message == "No such file or directory")
    }
}
