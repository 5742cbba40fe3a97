import CDBase
import CDDiagnostics
import CDRendering
import Foundation
import Hummingbird

/// `/explain`: a form to paste an error dump (an `NSError` description or a Core Data console
/// log), sent with GET as the `dump` parameter, and below it what `cdstore explain -` says of
/// it (``ErrorDumpParser``, ``Explanation``); with `store` (a served store's number or name) it
/// is checked against that store as `explain --store` checks it. A dump longer than
/// ``maximumDumpBytes`` is refused with a 414: the page takes it from the URL, and the first
/// error with its userInfo is all the explanation reads.
enum ExplainPage {
    /// The longest dump accepted, in UTF-8 bytes.
    static let maximumDumpBytes = 16_384

    static func respond(_ request: PageRequest) throws -> Response {
        try request.parameters.check(known: ["dump", "store"])
        let dump = try request.parameters.single("dump") ?? ""
        guard dump.utf8.count <= maximumDumpBytes else {
            throw ServeError.tooLong(
                "the error dump is \(grouped(dump.utf8.count)) bytes; paste at most \(grouped(maximumDumpBytes)) (the first error and its userInfo are enough)")
        }
        let storeName = try request.parameters.single("store").flatMap { $0.isEmpty ? nil : $0 }
        let pool = try storeName.map { name throws(ServeError) in try request.catalog.pool(named: name) }
        var explanation: Explanation?
        var problem: ServeError?
        if dump.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            if request.format == .json {
                throw ServeError.badRequest("give the error dump in the dump parameter (Error Domain=… Code=… or a CoreData: error: line)")
            }
        } else if let reading = ErrorDumpParser.parse(dump) {
            var result = Explanation(reading: reading)
            if let pool {
                result.crossCheck = try pool.withSession(request.job, remedy: .useCommand("explain --store")) { pooled in
                    try CrossChecker.check(reading.primary, snapshot: pooled.session.snapshot, storePath: pool.store.path, modelPath: pool.store.modelPath)
                }
            }
            explanation = result
        } else {
            problem = .badRequest(
                "no Core Data error found in the dump: expected text such as Error Domain=NSCocoaErrorDomain Code=1570 … or CoreData: error: (522) I/O error …")
        }
        if request.format == .json {
            if let problem { throw problem }
            return try ServeResponder.json { json in
                json.beginObject()
                json.key("store")
                if let pool { StorePage.writeStore(pool.store, segment: request.catalog.segment(for: pool.store), to: &json) } else { json.null() }
                json.key("explanation")
                if let explanation { try json.encoded(explanation) } else { json.null() }
                json.endObject()
            }
        }
        var body = form(dump: dump, store: storeName, catalog: request.catalog)
        if let problem { body += "<p class=\"error\">\(HTML.escape(problem.message))</p>\n" }
        if let explanation {
            body += "<h2>\(HTML.escape("\(explanation.code) \(explanation.name)"))</h2>\n"
            body += "<p>\(HTML.escape(explanation.meaning))</p>\n<pre>\(HTML.escape(ExplanationText.render(explanation)))</pre>\n"
        }
        let alternate = explanation == nil ? nil : Paths.explain(format: .json, query: [("dump", dump)] + (storeName.map { [("store", $0)] } ?? []))
        var response = ServeResponder.html(HTML.page(title: "Explain an error", crumbs: [("Stores", "/"), ("Explain", "")], body: body, alternate: alternate))
        if problem != nil { response.status = .badRequest }
        return response
    }

    private static func form(dump: String, store: String?, catalog: StoreCatalog) -> String {
        var html = "<form class=\"explain\" method=\"get\" action=\"/explain\">"
        html += "<label for=\"dump\">Paste an error dump (an NSError description or a Core Data console log)</label><br>"
        html += "<textarea id=\"dump\" name=\"dump\" rows=\"12\" cols=\"100\" maxlength=\"\(maximumDumpBytes)\">\(HTML.escape(dump))</textarea><br>"
        html += "<label for=\"store\">Check it against</label> <select id=\"store\" name=\"store\"><option value=\"\">no store</option>"
        for served in catalog.stores {
            let segment = catalog.segment(for: served)
            let selected = store == segment || store == String(served.number) || store == served.name ? " selected" : ""
            html += "<option value=\"\(HTML.escape(segment))\"\(selected)>\(HTML.escape(served.name))</option>"
        }
        return html + "</select> <button type=\"submit\">Explain</button></form>\n"
    }
}
