import CDServe
import CDTestSupport
import Foundation
import Hummingbird
import Testing

/// Big values: an object page reads no binary or transformable value over 64 KiB. It gives the
/// value's size (HTML, JSON and description) and links to the value's own URL, which streams
/// the stored bytes exactly; entity pages and exports leave the same values unread. The store is the corpus's SampleModel2 (Book.frontCover,
/// Page.content; GraphicNovel is a sub-entity of Book) with seeded values written by sqlite3.
@Suite(.temporaryDirectories) struct ServeLargeValueTests {
    static let store = "cdplus-samplemodel2/SampleModel2_V2.sqlite"

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

    static func raw(_ client: ServeClient, _ uri: String) async throws -> (status: Int, headers: HTTPFields, body: [UInt8]) {
        try await client.execute(uri: uri, method: .get, headers: [:], body: nil) { response in
            (Int(response.status.code), response.headers, Array(response.body.readableBytesView))
        }
    }

    @Test func aValueOverTheLimitIsSizedLinkedAndStreamedWhole() async throws {
        let copy = try Corpus.copyStore(Self.store)
        let big = Self.bytes(1 << 20, seed: 35)
        let atLimit = Self.bytes(64 * 1024, seed: 36)
        let overLimit = Self.bytes(64 * 1024 + 1, seed: 37)
        try SQLiteShell.run(
            copy,
            """
            UPDATE ZBOOK SET ZFRONTCOVER = X'\(Self.hex(big))' WHERE Z_PK = 1;
            UPDATE ZPAGE SET ZCONTENT = X'\(Self.hex(atLimit))' WHERE Z_PK = 1;
            UPDATE ZPAGE SET ZCONTENT = X'\(Self.hex(overLimit))' WHERE Z_PK = 2;
            UPDATE ZPAGE SET ZCONTENT = NULL WHERE Z_PK = 3;
            """)
        // The small sub-entity value as an independent reader sees it.
        let small = try SQLiteShell.run(copy, "SELECT hex(ZFRONTCOVER) FROM ZBOOK WHERE Z_PK = 3;").trimmingCharacters(in: .whitespacesAndNewlines)
        let folder = copy.deletingLastPathComponent()
        let before = try Checksums.of(directory: folder)
        try await ServeHarness.withServer([copy]) { client in
            let page = try await ServeHarness.get(client, "/stores/1/entities/Book/1")
            #expect(page.status == 200)
            #expect(page.body.contains("&lt;1048576 bytes, not read&gt; <a href=\"/stores/SampleModel2_V2/entities/Book/1/frontCover\">download »</a>"))
            #expect(page.body.contains("frontCover = {length = 1048576, bytes not read};"), "\(page.body)")
            #expect(page.body.utf8.count < 64 * 1024)

            let json = try await ServeHarness.get(client, "/stores/1/entities/Book/1.json")
            #expect(try ServeHarness.problems(json.body, schema: "serve-object.schema.json") == [])
            #expect(try json.json["object"]?["frontCover"] == .object([(key: "size", value: .number("1048576")), (key: "notRead", value: .bool(true))]))
            #expect(json.body.utf8.count < 64 * 1024)

            let value = try await Self.raw(client, "/stores/1/entities/Book/1/frontCover")
            #expect(value.status == 200)
            #expect(value.headers[.contentType] == "application/octet-stream")
            #expect(value.headers[.contentLength] == "1048576")
            #expect(value.headers[.contentDisposition] == "attachment; filename=\"Book-1-frontCover.bin\"")
            #expect(value.body == big)

            // At the limit the value is read into the page; one byte over it is not.
            let first = try await ServeHarness.get(client, "/stores/1/entities/Page/1.json")
            #expect(
                try first.json["object"]?["content"]
                    == .object([(key: "size", value: .number("65536")), (key: "sha256", value: .string(try Checksums.sha256Hex(Data(atLimit))))]))
            let second = try await ServeHarness.get(client, "/stores/1/entities/Page/2.json")
            #expect(try second.json["object"]?["content"] == .object([(key: "size", value: .number("65537")), (key: "notRead", value: .bool(true))]))
            #expect(try await Self.raw(client, "/stores/1/entities/Page/2/content").body == overLimit)
            #expect(try await Self.raw(client, "/stores/1/entities/Page/1/content").body == atLimit)

            // Entity pages and exports leave the same values unread.
            let entityJSON = try await ServeHarness.get(client, "/stores/1/entities/Page.json?size=3")
            #expect(try ServeHarness.problems(entityJSON.body, schema: "serve-entity.schema.json") == [])
            let listed = try #require(try entityJSON.json["objects"]?.array)
            #expect(listed.count == 3)
            #expect(try listed.first?["content"] == first.json["object"]?["content"])
            #expect(try listed.dropFirst().first?["content"] == second.json["object"]?["content"])
            #expect(listed.last?["content"] == .null)
            let entityHTML = try await ServeHarness.get(client, "/stores/1/entities/Page?size=3")
            #expect(entityHTML.body.contains("<td>&lt;65537 bytes, not read&gt;</td>") && entityHTML.body.contains("<td>&lt;65536 bytes&gt;</td>"))
            let export = try await ServeHarness.get(client, "/stores/1/entities/Page.ndjson")
            let lines = export.body.split(separator: "\n")
            #expect(lines.count == 119 && lines[1].contains("\"content\":{\"size\":65537,\"notRead\":true}"), "\(export.body.prefix(500))")

            // A sub-entity's object through its parent's URL, and a small value.
            let novel = try await Self.raw(client, "/stores/1/entities/Book/3/frontCover")
            #expect(novel.status == 200 && Self.hex(novel.body) == small)

            // What has no bytes to give is refused with a message.
            let refusals = [
                ("/stores/1/entities/Page/3/content", 400, "holds no bytes to download"),
                ("/stores/1/entities/Book/1/frontCover.json", 400, "have no .json twin"),
                ("/stores/1/entities/Book/1/title", 404, "has no to-many relationship &quot;title&quot;"),
                ("/stores/1/entities/Book/999/frontCover", 404, "999"),
            ]
            for (uri, status, message) in refusals {
                let answer = try await ServeHarness.get(client, uri)
                #expect(answer.status == status, "\(uri): \(answer.status)")
                #expect(answer.body.contains(message), "\(uri): \(answer.body)")
            }
        }
        #expect(try Checksums.of(directory: folder) == before)
    }
}
