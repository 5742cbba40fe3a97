import CDServe
import CDTestSupport
import Foundation
import Testing

/// The measurement behind ``SessionPool``'s design (issue 24 asks that the concurrency of a
/// front end that serves requests in parallel be measured, not guessed): the same entity page
/// (50 objects, JSON) asked for again and again, with a session opened per request and with a
/// pool of reused sessions, in one run. It prints requests per second of each and checks that
/// the pool is the faster of the two by a clear margin, which is why the server pools.
@Suite(.temporaryDirectories, .tags(.slow)) struct SessionPoolSlowTests {
    static let requests = 200

    @Test func aPoolAnswersFasterThanASessionPerRequest() async throws {
        let copies = try ServeHarness.copies([ServeHarness.photos])
        let uri = "/stores/1/entities/Asset.json?size=50"
        var rates: [Int: Double] = [:]
        for idle in [0, 4, 0, 4] {
            let seconds = try await ServeHarness.withServer(copies, idleSessions: idle) { client in
                _ = try await ServeHarness.get(client, uri)
                let start = Date()
                for _ in 0..<Self.requests {
                    let answer = try await ServeHarness.get(client, uri)
                    #expect(answer.status == 200)
                }
                return Date().timeIntervalSince(start)
            }
            rates[idle] = max(rates[idle] ?? 0, Double(Self.requests) / seconds)
        }
        let perRequest = try #require(rates[0])
        let pooled = try #require(rates[4])
        print(String(format: "serve sessions: one per request %.0f requests/s, pool %.0f requests/s (%.1fx)", perRequest, pooled, pooled / perRequest))
        #expect(pooled > perRequest * 1.5)
    }
}
