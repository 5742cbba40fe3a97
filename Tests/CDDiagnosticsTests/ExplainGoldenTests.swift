import CDDiagnostics
import CDTestSupport
import Foundation
import Testing

/// Every real error dump of docs/format/errors.md §5 (saved verbatim as
/// `Tests/Fixtures/explain/errors-md-<section>-<n>.dump`) is explained correctly, and its text and
/// JSON explanations match the golden files next to it. Regenerate them with
/// `CDSTORE_UPDATE_GOLDEN=1 swift test` after an intended change, and review the diff.
@Suite struct ExplainGoldenTests {
    /// What each dump must yield: the explained code, and the entity, key and object of the error
    /// that carries them (the dump's own, or its first detailed or underlying error).
    struct Expectation: Sendable, CustomStringConvertible {
        let fixture: String
        let code: Int
        let domain: String
        var entity: String? = nil
        var key: String? = nil
        var object: String? = nil
        var sqliteCode: Int? = nil
        var storePath: String? = nil
        var description: String { fixture }
    }

    static let expectations: [Expectation] = [
        Expectation(
            fixture: "errors-md-5.1-1", code: 134100, domain: "NSCocoaErrorDomain",
            storePath: "/var/mobile/Containers/Data/Application/E5105BDB-88CF-409B-912B-AFC2BB984683/Documents/MyMovies.sqlite"),
        Expectation(
            fixture: "errors-md-5.2-1", code: 134100, domain: "NSCocoaErrorDomain",
            storePath: "/Users/chrisgomez/Library/Application Support/OpenEmu/Game Library/Library.storedata"),
        Expectation(fixture: "errors-md-5.3-1", code: 134100, domain: "NSCocoaErrorDomain"),
        Expectation(
            fixture: "errors-md-5.4-1", code: 134130, domain: "NSCocoaErrorDomain",
            storePath:
                "/var/mobile/Containers/Data/Application/7A2FF1DE-E414-4FB7-8A33-51029CA90D9F/Library/Application Support/com.appbriek.vigilancebuddy/Vigilantia.sqlite"
        ),
        Expectation(
            fixture: "errors-md-5.4-2", code: 134130, domain: "NSCocoaErrorDomain",
            storePath: "/var/mobile/Applications/…/Documents/dbname.sqlite"),
        Expectation(
            fixture: "errors-md-5.5-1", code: 134110, domain: "NSCocoaErrorDomain", entity: "Street", key: "sm_LocalStore_RecordID",
            storePath: "/var/mobile/Containers/Data/Application/1CD79E54-FF39-4B67-8884-83681200BFA1/Documents/Project.sqlite"),
        Expectation(
            fixture: "errors-md-5.5-2", code: 134110, domain: "NSCocoaErrorDomain", sqliteCode: 1,
            storePath:
                "/Users/aerych/Library/Developer/CoreSimulator/Devices/6F48CAF7-B45B-47DF-811E-8DDFFD081AA1/data/Containers/Data/Application/172D80B5-CD30-407E-A610-8ACECA0AE632/Documents/WordPress20.sqlite"
        ),
        Expectation(fixture: "errors-md-5.6-1", code: 134140, domain: "NSCocoaErrorDomain"),
        Expectation(
            fixture: "errors-md-5.8-1", code: 1560, domain: "NSCocoaErrorDomain", entity: "Chat", key: "isOnline",
            object: "x-coredata:///Chat/tA225AA51-6C60-44D3-B178-21340B6A77C24"),
        Expectation(fixture: "errors-md-5.9-1", code: 134060, domain: "NSCocoaErrorDomain", entity: "Book"),
        Expectation(fixture: "errors-md-5.9-2", code: 134060, domain: "NSCocoaErrorDomain", entity: "SDMeal", key: "items"),
        Expectation(
            fixture: "errors-md-5.9-3", code: 134400, domain: "NSCocoaErrorDomain",
            storePath: "/Users/…/Library/Application Support/VisionBoard.sqlite"),
        Expectation(
            fixture: "errors-md-5.10-1", code: 133020, domain: "NSCocoaErrorDomain", entity: "League",
            object: "x-coredata://CDBE45E3-0BD1-4F76-8543-B7B5CBF8953C/League/p1"),
        Expectation(
            fixture: "errors-md-5.10-2", code: 133020, domain: "NSCocoaErrorDomain", entity: "PGEFavorite",
            object: "x-coredata://A3A825A7-13BC-4728-8892-67F56D9023BB/PGEFavorite/p1"),
        Expectation(
            fixture: "errors-md-5.11-1", code: 522, domain: "NSSQLiteErrorDomain", sqliteCode: 522,
            storePath:
                "/Users/admin/Library/Application Support/iPhone Simulator/6.0/Applications/F8038670-847A-4B55-B94A-B8F2325817B5/Library/Application Support/app/app.sqlite"
        ),
        Expectation(fixture: "errors-md-5.11-2", code: 6922, domain: "NSSQLiteErrorDomain", sqliteCode: 6922, storePath: "/path/to/file.sqlite"),
        Expectation(
            fixture: "errors-md-5.11-3", code: 256, domain: "NSCocoaErrorDomain", sqliteCode: 6922,
            storePath:
                "/Users/cmcknight/Library/Developer/CoreSimulator/Devices/5C1C25DC-6C75-4490-B549-49745455CC8E/data/Containers/Data/Application/FE108465-30BA-422A-8855-3A3F1CC20A85/Documents/CDQ.sqlite"
        ),
        Expectation(
            fixture: "errors-md-5.11-4", code: 7, domain: "NSSQLiteErrorDomain", sqliteCode: 7,
            storePath: "/var/mobile/Containers/Data/Application/0569E2D2-D595-4A93-ABAC-DB03CB49FC56/Documents/SingleViewCoreData.sqlite"),
    ]

    static func dump(_ fixture: String) throws -> String {
        try String(contentsOf: Golden.fixtures.appendingPathComponent("explain/\(fixture).dump"), encoding: .utf8)
    }

    static func json(_ explanation: Explanation) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(explanation), as: UTF8.self) + "\n"
    }

    /// The error carrying the entity/key/object: the primary, else its first detailed or
    /// underlying error that has an entity.
    static func subject(_ finding: ErrorFinding) -> ErrorFinding {
        if finding.entity != nil { return finding }
        return (finding.detailedErrors + finding.underlyingErrors).first { $0.entity != nil } ?? finding
    }

    @Test(arguments: expectations)
    func explainsTheDump(_ expected: Expectation) throws {
        let reading = try #require(ErrorDumpParser.parse(try Self.dump(expected.fixture)))
        let primary = reading.primary
        #expect(primary.code == expected.code)
        #expect(primary.domain == expected.domain)
        let subject = Self.subject(primary)
        #expect(subject.entity == expected.entity)
        #expect(subject.key == expected.key)
        #expect(subject.object?.uri == expected.object)
        #expect(primary.sqliteCode == expected.sqliteCode)
        #expect(primary.storePath == expected.storePath)
        let explanation = Explanation(reading: reading)
        #expect(explanation.reference.hasPrefix("cdstore-troubleshooting(7), section \""))
    }

    @Test(arguments: expectations.map(\.fixture))
    func matchesGoldenFiles(_ fixture: String) throws {
        let reading = try #require(ErrorDumpParser.parse(try Self.dump(fixture)))
        let explanation = Explanation(reading: reading)
        let text = ExplanationText.render(explanation) + "\n"
        let json = try Self.json(explanation)
        #expect(try Golden.expected("explain/\(fixture).txt", actual: text) == text)
        #expect(try Golden.expected("explain/\(fixture).json", actual: json) == json)
    }

    /// The fixtures are exactly the code blocks of errors.md §5, so a dump added there fails here
    /// until it has a fixture and an expectation.
    @Test func fixturesAreTheDumpsOfTheReference() throws {
        let markdown = try #require(CatalogueTests.errorsMarkdown)
        let start = try #require(markdown.range(of: "## 5. Real error dumps"))
        let end = try #require(markdown.range(of: "\n## 6. "))
        var blocks: [String: String] = [:]
        var section = "", counter = 0, current: [Substring]? = nil
        for line in markdown[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("### 5.") { section = String(line.dropFirst(4).prefix { $0 != " " }); counter = 0 }
            if line.hasPrefix("```") {
                if let body = current {
                    counter += 1
                    blocks["errors-md-\(section)-\(counter)"] = body.joined(separator: "\n") + "\n"
                    current = nil
                } else {
                    current = []
                }
            } else if current != nil {
                current?.append(line)
            }
        }
        #expect(Set(blocks.keys) == Set(Self.expectations.map(\.fixture)))
        for (name, body) in blocks {
            #expect(try Self.dump(name) == body, "\(name) differs from errors.md")
        }
    }
}
