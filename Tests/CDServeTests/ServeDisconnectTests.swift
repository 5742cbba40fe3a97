import CDServe
import CDTestSupport
import Foundation
import Hummingbird
import Testing

/// A client that goes away stops its work: over a real socket, curl asks for a slow filtered
/// page or export (MATCHES over a million cars) and is killed while the statement runs; the
/// server sees the connection close, cancels the request, and its worker's statement is
/// interrupted (counted by the pool as work stopped by cancellation), long before the filter
/// could finish. An export's first chunk is read after its quick checks, in the answer's body.
@Suite(.temporaryDirectories, .tags(.slow)) struct ServeDisconnectTests {
    @Test(arguments: ["/stores/1/entities/Car", "/stores/1/entities/Car.json", "/stores/1/entities/Car.csv", "/stores/1/entities/Car.ndjson"])
    func aClientThatLeavesStopsItsStatement(_ page: String) async throws {
        let big = try await ServeHarness.sampleWithAMillionCars()
        let catalog = StoreCatalog(stores: [ServedStore(number: 1, path: big.path, modelPath: nil)], queryTimeout: 600)
        // No maker matches: the page's statement reads every row.
        let uri = page + "?where=" + ServePagingTests.encode("maker MATCHES '.*(a|b)(c|d).*N.*'")
        try await LiveServer.with(catalog) { port in
            let curl = try SpawnedProcess(
                executable: "/usr/bin/curl", arguments: ["-s", "-o", "/dev/null", "http://127.0.0.1:\(port)\(uri)"], environment: [:],
                output: big.deletingLastPathComponent().appendingPathComponent("curl.txt"))
            defer { curl.stop(seconds: 1) }
            var pauses = 0
            // Running, and still running a moment later: past an export's checks, in its first chunk.
            for _ in 0..<2 {
                while catalog.workers.load.running == 0 && pauses < 3000 {
                    await ServeLiveTests.pause(milliseconds: 20)
                    pauses += 1
                }
                await ServeLiveTests.pause(milliseconds: 300)
            }
            #expect(catalog.workers.load.running == 1, "the page's work never started")
            curl.stop(seconds: 1)
            #expect(!curl.isRunning)
            pauses = 0
            while catalog.workers.cancelledWhileRunning == 0 && pauses < 3000 {
                await ServeLiveTests.pause(milliseconds: 20)
                pauses += 1
            }
            #expect(catalog.workers.cancelledWhileRunning == 1, "\(page): the statement was not stopped")
            #expect(catalog.workers.load.running == 0)
        }
    }

    /// Watching for a client that leaves must not outlive the request's own end: heavy pages that
    /// answer at once (304s, refused filters) and exports raced Hummingbird's reader of the
    /// request's end, and the process trapped when the answer came first (CI, b18c9b6). Many such
    /// answers at once, in process and over a real socket, all arrive whole.
    @Test func heavyPagesThatAnswerAtOnceLeaveTheServerStanding() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample, ServeHarness.sample])
        let pages = ["/stores/1/validate", "/stores/1/compat", "/stores/1/history", "/diff/1/2"]
        // One heavy thread on two cores takes all 6,000 in turn: the queue's wait is not what is tested.
        try await ServeHarness.withServer(copies, queryTimeout: 300, queueLimit: 10_000) { client in
            var firstTags: [String: String] = [:]
            for page in pages { firstTags[page] = try #require(try await ServeConditionalGetTests.get(client, page).header("ETag")) }
            let tags = firstTags
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                for round in 0..<2000 {
                    let page = pages[round % pages.count]
                    group.addTask {
                        [
                            try await ServeConditionalGetTests.get(client, page, ifNoneMatch: tags[page]).status,
                            try await ServeHarness.get(client, "/stores/1/entities/Car?where=maker%20%3D%3D").status,
                            try await ServeHarness.get(client, "/stores/1/entities/Car.csv?size=1").status,
                        ]
                    }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(statuses.count == 6000)
            #expect(Set(statuses) == [304, 400, 200], "\(Set(statuses))")
        }
    }
}
