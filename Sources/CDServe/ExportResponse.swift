import CDFetch
import CDRendering
import CDStore
import Hummingbird

/// `/stores/{store}/entities/{Entity}.csv` and `.ndjson`: every object of the current filter and
/// sort, in `dump`'s CSV and NDJSON, streamed, values over ``ObjectPage/largeValueLimit`` left
/// unread (as `{"size": N, "notRead": true}`) so that a chunk's memory stays bounded.
///
/// The objects are read in keyset chunks of ``chunkSize``, each on a session borrowed for that
/// chunk under the query time limit and on a worker thread (heavy lane, ``WorkerPool``), so
/// memory stays flat however many objects there are and the body's writer never waits on
/// SQLite. Before the answer starts, the filter is parsed and its statement built and compiled
/// (no row is read), so a bad filter, an unknown key or entity is still a 4xx. Every chunk, the
/// first included, is read while the client is watched (``ClientWatch``): a client that goes
/// away stops the chunk's statement, however slow the filter. So a failure while reading, a
/// time-out included, ends the transfer without its last chunk, which a client sees as
/// incomplete, rather than a short file that looks whole. `size` is accepted and ignored: the
/// page's export links carry it.
enum ExportResponse {
    static let chunkSize = 500

    /// Runs on a worker thread (the checks); the body awaits every chunk from the pool.
    static func respond(_ request: PageRequest) throws -> Response {
        guard case .entity(let storeName, let entity) = request.route else { throw ServeError.noSuchPage(path: "") }
        let pool = try request.catalog.pool(named: storeName)
        let query = try EntityQuery(entity: entity, parameters: request.parameters, known: ["where", "sort", "after", "size"])
        if let problem = query.problem { throw problem }
        try pool.withSession(request.job) { pooled in _ = try pooled.session.runner().statement(for: query.pageRequest(after: nil, size: chunkSize)) }
        let format: ObjectFormat = request.format == .csv ? .csv : .ndjson
        let workers = request.catalog.workers
        let contentType = format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8"
        var headers: HTTPFields = [.contentType: contentType]
        headers[.contentDisposition] = "inline; filename=\"\(entity).\(request.format.rawValue)\""
        let requestBody = request.requestBody
        let body = ResponseBody { writer in
            func all(_ writer: inout any ResponseBodyWriter) async throws {
                var position = query.after?.position
                var includeHead = true
                repeat {
                    let after = position
                    let head = includeHead
                    let next = try await workers.run(.heavy) { job in
                        try chunk(job, pool: pool, query: query, format: format, after: after, includeHead: head)
                    }
                    try await writer.write(ServeResponder.bytes(next.text))
                    position = next.next
                    includeHead = false
                } while position != nil
            }
            if let requestBody {
                try await ClientWatch.run(requestBody) { try await all(&writer) }
            } else {
                try await all(&writer)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The text of up to ``chunkSize`` objects after `after`, and where the next chunk starts.
    private static func chunk(_ job: WorkerJob?, pool: SessionPool, query: EntityQuery, format: ObjectFormat, after: KeysetPosition?, includeHead: Bool) throws
        -> (
            text: String, next: KeysetPosition?
        )
    {
        try pool.withSession(job) { pooled in
            let page = try EntityQuery.readPage(try pooled.session.runner(), query: query, after: after, size: chunkSize, countsToMany: format.countsToMany)
            var renderer = format.renderer()
            let head = renderer.beginSection(entity: query.entity, properties: page.properties)
            var text = includeHead ? head : ""
            for object in page.objects { text += renderer.render(object) }
            if page.next == nil { text += renderer.endSection() + renderer.finish() }
            return (text, page.next?.position)
        }
    }
}
