import CDBase
import CDDiagnostics
import CDRendering
import Foundation
import Hummingbird

/// `/stores/{store}/compat`: what `cdstore compat STORE --model PATH` says (which version wrote
/// the store, whether the current version opens it, the changes and the predicted error), against
/// the model `serve` was started with. Without `--model` there is nothing to compare with: the
/// page says how to start the server (and its JSON twin has `report: null`).
enum CompatPage {
    static func respond(_ request: PageRequest) throws -> Response {
        guard case .compat(let name) = request.route else { throw ServeError.noSuchPage(path: "") }
        try request.parameters.check(known: [])
        let pool = try request.catalog.pool(named: name)
        let store = request.catalog.segment(for: pool.store)
        var changed = false
        let report = try pool.store.modelPath.map { modelPath in
            try pool.withSession(request.job, remedy: .useCommand("compat")) { pooled -> CompatibilityReport in
                changed = pooled.showsNewVersion
                return try pooled.session.compatibility(withModelAt: modelPath)
            }
        }
        if request.format == .json {
            return try ServeResponder.json { json in
                json.beginObject()
                json.key("store")
                StorePage.writeStore(pool.store, segment: store, to: &json)
                json.key("report")
                if let report { try json.encoded(report) } else { json.null() }
                json.endObject()
            }
        }
        var body = HTML.changeNotice(changed)
        if let report {
            body +=
                report.opens
                ? "<p class=\"ok\">\(HTML.escape(report.reason))</p>\n" : "<p class=\"error\">\(HTML.escape(report.reason))</p>\n"
            body += HTML.definitions([
                ("Model", HTML.escape(report.model)), ("Version that wrote the store", HTML.escape(report.matchedVersion ?? "none of the model's")),
                ("Current version", HTML.escape(report.currentVersion)), ("Opens", report.opens ? "yes" : "no"),
                ("Expected error", report.expectedError.map { String($0) } ?? "none"),
            ])
            body += "<h2>Report</h2>\n<pre>\(HTML.escape(CompatibilityText.render(report)))</pre>\n"
        } else {
            body +=
                "<p class=\"notice\">\(HTML.escape("No model to compare with: start the server with the app's model, as cdstore serve STORE --model PATH (an .xcdatamodeld, .momd, .mom or ruby-xcdm schemas), and this page tells whether the app opens the store."))</p>\n"
        }
        return ServeResponder.html(
            HTML.page(
                title: "Compatibility of \(pool.store.name)", crumbs: [("Stores", "/"), (pool.store.name, Paths.store(store)), ("Compat", "")],
                body: body, alternate: Paths.storePage(store, "compat", format: .json)))
    }
}
