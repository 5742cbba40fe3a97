import CDServe
import CDTestSupport
import Foundation
import Hummingbird
import Testing

/// Conditional GET (``EntityTag``): every page of a store's data carries a weak `ETag` of the
/// store's version; asked again with it, an unchanged store answers 304 with no body, and a
/// store the app wrote answers 200 with the new data and a new tag.
@Suite(.temporaryDirectories) struct ServeConditionalGetTests {
    static let pages = [
        "/", "/stores/1", "/stores/1/entities/Car", "/stores/1/entities/Car.json", "/stores/1/entities/Car.csv", "/stores/1/entities/Car/1",
        "/stores/1/model", "/stores/1/validate", "/stores/1/compat", "/stores/1/history", "/diff/1/2",
    ]

    static func get(_ client: ServeClient, _ uri: String, ifNoneMatch: String? = nil, accept: String? = nil, method: HTTPRequest.Method = .get)
        async throws -> ServeHarness.Answer
    {
        var headers: HTTPFields = [:]
        if let ifNoneMatch { headers[.ifNoneMatch] = ifNoneMatch }
        if let accept { headers[.accept] = accept }
        return try await client.execute(uri: uri, method: method, headers: headers) { response in
            ServeHarness.Answer(status: response.status.code, headers: response.headers, body: String(buffer: response.body))
        }
    }

    @Test func anUnchangedStoreAnswers304AndAWrittenOneItsNewData() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample, ServeHarness.sample])
        try await ServeHarness.withServer(copies) { client in
            var tags: [String: String] = [:]
            for page in Self.pages {
                let first = try await Self.get(client, page)
                let tag = try #require(first.header("ETag"), "\(page)")
                #expect(first.status == 200 && tag.hasPrefix("W/\"") && tag.hasSuffix("\""), "\(page): \(tag)")
                // Data may be kept and revalidated; a page (it opens an event stream) is not kept.
                let kept = [".json", ".csv"].contains { page.hasSuffix($0) }
                #expect(first.headers[.cacheControl] == (kept ? "no-cache, private" : "no-store"), "\(page)")
                #expect(first.header("Vary") == "Accept", "\(page)")
                tags[page] = tag
                for ask in [tag, "\"other\", " + tag, String(tag.dropFirst(2))] {
                    let again = try await Self.get(client, page, ifNoneMatch: ask)
                    #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == tag, "\(page) with \(ask): \(again.status)")
                    ServeHarness.expectSecurityHeaders(again, page)
                }
                let head = try await Self.get(client, page, ifNoneMatch: tag, method: .head)
                #expect(head.status == 304, "\(page) HEAD")
                for ask in ["W/\"other\"", "*"] { #expect(try await Self.get(client, page, ifNoneMatch: ask).status == 200, "\(page) with \(ask)") }
            }
            // HTML and JSON of one page are told apart.
            let json = try await Self.get(client, "/stores/1/entities/Car", accept: "application/json")
            #expect(json.header("ETag") != nil && json.header("ETag") != tags["/stores/1/entities/Car"])
            // The app writes store 1: its pages answer the new data with a new tag; store 2's
            // pages stay as they were, and the diff of the two changes.
            try SQLiteShell.run(copies[0], "UPDATE ZCAR SET Z_OPT = Z_OPT + 1, ZMAKER = 'renamed by the app' WHERE Z_PK = 1;")
            for page in Self.pages {
                let answer = try await Self.get(client, page, ifNoneMatch: tags[page])
                let changes = page == "/" ? false : true
                #expect(answer.status == (changes ? 200 : 304), "\(page) after the write: \(answer.status)")
                if changes { #expect(answer.header("ETag") != tags[page], "\(page)") }
            }
            let object = try await Self.get(client, "/stores/1/entities/Car/1.json", ifNoneMatch: tags["/stores/1/entities/Car/1"])
            #expect(object.body.contains("renamed by the app"))
            let other = try await Self.get(client, "/stores/2/entities/Car/1")
            let otherAgain = try await Self.get(client, "/stores/2/entities/Car/1", ifNoneMatch: other.header("ETag"))
            #expect(otherAgain.status == 304)
        }
    }

    /// Errors, the event stream's refusal and explain carry no tag and are never kept.
    @Test func answersWithoutAVersionAreNotTagged() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        try await ServeHarness.withServer(copies) { client in
            for page in ["/stores/1/entities/NoSuchEntity", "/stores/9", "/explain", "/stores/1/entities/Car?where=name%20%3D%3D"] {
                let answer = try await Self.get(client, page, ifNoneMatch: "*")
                #expect(answer.status != 304 && answer.header("ETag") == nil && answer.header("Cache-Control") == "no-store", "\(page): \(answer.status)")
            }
        }
    }
}
