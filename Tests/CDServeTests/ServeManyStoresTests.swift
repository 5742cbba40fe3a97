import CDServe
import CDTestSupport
import Foundation
import Hummingbird
import Testing

/// `serve --find` at scale: 200 stores served, none opened by the store list, each opened when
/// first visited, its session closed once unused for the catalog's idle time, and no more than
/// ``StoreCatalog/defaultOpenStores`` stores keeping sessions at once.
@Suite(.temporaryDirectories) struct ServeManyStoresTests {
    @Test func storesAreOpenedWhenVisitedAndClosedWhenIdle() async throws {
        let copies = try (0..<200).map { _ in try Corpus.copyStore(ServeHarness.sample) }
        let stores = copies.enumerated().map { ServedStore(number: $0.offset + 1, path: $0.element.path, modelPath: nil, group: "Group \($0.offset / 50)") }
        let catalog = StoreCatalog(stores: stores, queryTimeout: 10, sessionIdleTime: 3600)
        try await ServeHarness.withClient(catalog) { client in
            let list = try await ServeHarness.get(client, "/.json")
            #expect(list.status == 200)
            #expect(try list.json["stores"]?.array?.count == 200)
            #expect(catalog.idleSessionCount == 0)
            let visited = Array(stride(from: 1, through: 200, by: 10))
            for number in visited {
                let page = try await ServeHarness.get(client, "/stores/\(number).json")
                #expect(page.status == 200, "store \(number)")
            }
            // Of the 20 stores visited, the 16 used last keep their session.
            #expect(StoreCatalog.defaultOpenStores == 16)
            #expect(catalog.idleSessionCount == 16)
            #expect(catalog.storesWithSessions == Array(visited.suffix(16)))
            // A store whose session was closed opens again when visited, and the one used
            // longest ago closes its own.
            let again = try await ServeHarness.get(client, "/stores/1/entities/Car.json")
            #expect(again.status == 200)
            #expect(catalog.idleSessionCount == 16)
            #expect(catalog.storesWithSessions == Array(visited.suffix(15)) + [1])
        }
        // A sweep closes exactly the sessions unused for the idle time.
        catalog.closeIdleSessions(now: Date().addingTimeInterval(1800))
        #expect(catalog.idleSessionCount == 16)
        catalog.closeIdleSessions(now: Date().addingTimeInterval(3601))
        #expect(catalog.idleSessionCount == 0)
        #expect(catalog.storesWithSessions.isEmpty)
    }

    /// The sweep needs no timer: the next request, whatever it is, runs it.
    @Test func anyRequestClosesWhatWasIdle() async throws {
        let copies = try ServeHarness.copies([ServeHarness.sample])
        let catalog = StoreCatalog(stores: [ServedStore(number: 1, path: copies[0].path, modelPath: nil)], queryTimeout: 10, sessionIdleTime: 0.3)
        try await ServeHarness.withClient(catalog) { client in
            let page = try await ServeHarness.get(client, "/stores/1/entities/Car.json")
            #expect(page.status == 200)
            #expect(catalog.idleSessionCount == 1)
            await ServeLiveTests.pause(milliseconds: 1200)
            let list = try await ServeHarness.get(client, "/")
            #expect(list.status == 200)
            #expect(catalog.idleSessionCount == 0)
        }
    }
}
