import CDRendering
import Hummingbird

/// Answers every request of `cdstore serve`. One responder instead of Hummingbird's `Router`,
/// so that every answer passes the same checks and gets the same headers: a method other than
/// GET or HEAD is a 405 on any path (a router answers it 404), and error pages carry the
/// security headers too (router middleware skips thrown errors). ``Route`` is the URL scheme;
/// each of its cases is answered by a page type in a file of its own (``StorePage``,
/// ``EntityPage``, ``ModelPage``, ``DiffPage``, ``EventStream``…), named in ``answer(_:wantsJSON:)``'s switch.
package struct ServeResponder: HTTPResponder {
    package typealias Context = BasicRequestContext

    let catalog: StoreCatalog

    package init(catalog: StoreCatalog) {
        self.catalog = catalog
    }

    /// The policy every answer carries: only the server's own stylesheet and script, no inline
    /// script or style, no framing, forms only to the server itself.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// `Referrer-Policy`, which HTTPTypes has no name for.
    private static let referrerPolicy: HTTPFields.Element.Name = .init("Referrer-Policy")!

    package func respond(to request: Request, context: Context) async throws -> Response {
        let wantsJSON = Self.wantsJSON(request)
        var response: Response
        do {
            response = try await answer(request, wantsJSON: wantsJSON)
        } catch {
            response = Self.errorResponse(ServeError(error), json: wantsJSON || request.uri.path.hasSuffix(".json"))
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        // A tagged answer may be kept and revalidated (If-None-Match); anything else is not kept,
        // and neither is an HTML page, tag or not: a page holds its store's event stream open,
        // a browser that keeps pages for Back and Forward keeps their streams too, and with six
        // connections per host it then waits for one to close before loading the next page (a
        // browser test of 64 s took 370 s with pages kept). Clients that ask with a page's tag
        // still get their 304.
        let isPage = response.headers[.contentType]?.hasPrefix("text/html") == true
        response.headers[.cacheControl] = response.headers[.eTag] == nil || isPage ? "no-store" : "no-cache, private"
        if response.headers[.eTag] != nil { response.headers[.vary] = "Accept" }
        if request.method == .head { response.body = ResponseBody() }
        return response
    }

    private func answer(_ request: Request, wantsJSON: Bool) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            throw ServeError.methodNotAllowed(method: request.method.rawValue)
        }
        var (route, format) = try Route.parse(request.uri.path)
        if format == .html && wantsJSON { format = .json }
        let parameters = try QueryParameters(request.uri.query)
        let page = PageRequest(catalog: catalog, route: route, format: format, parameters: parameters, job: nil)
        switch route {
        case .asset(let name):
            try parameters.check(known: [])
            guard let asset = StaticAssets.asset(name) else { throw ServeError.noSuchPage(path: request.uri.path) }
            return Response(
                status: .ok, headers: [.contentType: asset.contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
        case .events: return try EventStream.respond(page, body: request.body)
        default:
            let respond = Self.pageFunction(route, format: format)
            let ifNoneMatch = request.headers[.ifNoneMatch]
            let lane = Self.lane(route, format: format, parameters: parameters)
            let isExport = format == .csv || format == .ndjson
            var page = page
            if isExport { page.requestBody = request.body }
            let (catalog, route, format, built) = (catalog, route, format, page)
            let work: @Sendable () async throws -> Response = {
                try await catalog.workers.run(lane) { job in
                    catalog.closeIdleSessions()
                    let tag = EntityTag.of(route, format: format, catalog: catalog)
                    if let tag, EntityTag.matches(ifNoneMatch, tag) {
                        return Response(status: .notModified, headers: [.eTag: tag])
                    }
                    var page = built
                    page.job = job
                    var response = try respond(page)
                    if let tag, response.status == .ok { response.headers[.eTag] = tag }
                    return response
                }
            }
            // A heavy page whose client goes away (a tab closed on a slow filter) is cancelled,
            // which stops its statement. Watching for that reads the connection past this request,
            // so the connection closes after the answer: a cost for heavy pages only. An export
            // watches in its body, which outlives this function.
            guard lane == .heavy && !isExport else { return try await work() }
            return try await ClientWatch.run(request.body, work)
        }
    }

    /// The function that builds the page of `route`, which runs on a worker thread.
    private static func pageFunction(_ route: Route, format: Route.Format) -> @Sendable (PageRequest) throws -> Response {
        switch route {
        case .stores: return StoresPage.respond
        case .store: return StorePage.respond
        case .entity: return format == .csv || format == .ndjson ? ExportResponse.respond : EntityPage.respond
        case .object, .members: return ObjectPage.respond
        case .model: return ModelPage.respond
        case .validate: return ValidatePage.respond
        case .compat: return CompatPage.respond
        case .explain: return ExplainPage.respond
        case .history: return HistoryPage.respond
        case .diff: return DiffPage.respond
        case .asset, .events: return { _ in throw ServeError.noSuchPage(path: "") }
        }
    }

    /// The worker lane of a request (``WorkerPool``): whole-store reports, diffs, exports and
    /// filtered or sorted entity pages are heavy (a sort on an attribute without an index reads
    /// every row, as a filter may); plain pages, in `Z_PK` order, are quick.
    static func lane(_ route: Route, format: Route.Format, parameters: QueryParameters) -> WorkerPool.Lane {
        switch route {
        case .validate, .compat, .explain, .history, .diff: return .heavy
        case .entity:
            if format == .csv || format == .ndjson { return .heavy }
            let given = { (name: String) in parameters.all(name).contains { !$0.trimmingCharacters(in: .whitespaces).isEmpty } }
            return given("where") || given("sort") ? .heavy : .quick
        case .stores, .store, .object, .members, .model, .asset, .events: return .quick
        }
    }

    /// JSON when the client asks for it and not for HTML (a browser's Accept lists HTML first).
    static func wantsJSON(_ request: Request) -> Bool {
        guard let accept = request.headers[.accept]?.lowercased() else { return false }
        return accept.contains("application/json") && !accept.contains("text/html")
    }

    static func errorResponse(_ error: ServeError, json: Bool) -> Response {
        var headers: HTTPFields = [:]
        switch error {
        case .methodNotAllowed: headers[.allow] = "GET, HEAD"
        case .busy, .waitedTooLong: headers[.retryAfter] = "1"
        default: break
        }
        if json {
            return Self.json(status: error.status, headers: headers) { json in
                json.beginObject()
                json.key("error")
                writeError(error, to: &json)
                json.endObject()
            }
        }
        var body = "<p class=\"error\">\(HTML.escape(error.message))</p>\n"
        if case .badQuery(_, let caret?) = error { body += "<pre class=\"error\">\(HTML.escape(caret))</pre>\n" }
        let title = "\(error.status.code) \(error.status.reasonPhrase)"
        return text(
            HTML.page(title: title, crumbs: [("Stores", "/"), (title, "")], body: body, alternate: nil), contentType: "text/html; charset=utf-8",
            status: error.status, headers: headers)
    }

    static func text(_ text: String, contentType: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `text` as a response body's bytes (NIO's buffer, not CDRendering's).
    static func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    static func html(_ page: String) -> Response { text(page, contentType: "text/html; charset=utf-8") }

    /// The JSON document `write` writes, with a final newline: strings HTML-safe, the bytes
    /// copied once, from the writer's buffer to the body's.
    static func json(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], _ write: (inout JSONWriter) throws -> Void) rethrows -> Response {
        var json = JSONWriter(htmlSafe: true)
        try write(&json)
        json.endLine()
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: json.buffer.withUnsafeBytes { ByteBuffer(bytes: $0) }))
    }

    /// An error as the JSON of a page or an event names it: `{"status":…,"message":…}`, and
    /// the caret under a query's mistake.
    static func writeError(_ error: ServeError, to json: inout JSONWriter) {
        json.beginObject()
        json.member("status", Int(error.status.code))
        json.member("message", error.message)
        if case .badQuery(_, let caret?) = error { json.member("caret", caret) }
        json.endObject()
    }
}

/// What a page gets: the catalog, the parsed route, the representation asked for, the query,
/// the worker job it runs as (whose cancellation stops its statements) and, for an export, the
/// request's body.
struct PageRequest: Sendable {
    let catalog: StoreCatalog
    let route: Route
    let format: Route.Format
    let parameters: QueryParameters
    var job: WorkerJob?
    /// The request's body, for an export, whose streamed answer watches the connection through
    /// it and stops when the client goes away.
    var requestBody: RequestBody?
}
