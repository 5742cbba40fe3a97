import CDBase
import CDDiff
import CDRendering
import Foundation
import Hummingbird

/// `/diff/{a}/{b}`: what `cdstore diff A B` finds between two served stores: the model changes,
/// schema and metadata differences, and per entity the objects deleted, inserted and updated,
/// counts first, then up to `limit` described changes per entity (default 20, as `diff`'s
/// `--limit`). The JSON twin's `diff` is `diff --format json`'s document. Both stores are read
/// in place, read-only, as the command reads them.
enum DiffPage {
    static let defaultLimit = 20

    static func respond(_ request: PageRequest) throws -> Response {
        guard case .diff(let nameA, let nameB) = request.route else { throw ServeError.noSuchPage(path: "") }
        try request.parameters.check(known: ["limit"])
        let limit = try request.parameters.integer("limit", in: 0...1000) ?? defaultLimit
        let poolA = try request.catalog.pool(named: nameA)
        let poolB = try request.catalog.pool(named: nameB)
        let (storeA, storeB) = (request.catalog.segment(for: poolA.store), request.catalog.segment(for: poolB.store))
        var options = DiffOptions()
        options.limit = limit
        let report: StoreDiffReport
        do {
            report = try poolA.withSession(request.job, remedy: .useCommand("diff")) { pooledA in
                try poolB.withSession(request.job, remedy: .useCommand("diff")) { pooledB in
                    try StoreDiffer.compare(pooledA.session, pooledB.session, options: options)
                }
            }
        } catch let error as DiffError {
            throw ServeError.badRequest(error.message)
        }
        if request.format == .json {
            // The diff is `diff --format json`'s document, its strings escaped as the command
            // escapes them.
            var diff = JSONWriter()
            try DiffJSON.write(report, to: &diff)
            return ServeResponder.json { json in
                json.beginObject()
                json.key("storeA")
                StorePage.writeStore(poolA.store, segment: storeA, to: &json)
                json.key("storeB")
                StorePage.writeStore(poolB.store, segment: storeB, to: &json)
                json.member("limit", limit)
                json.key("diff")
                json.raw(diff)
                json.endObject()
            }
        }
        var body =
            report.isEmpty
            ? "<p class=\"ok\">The stores are the same.</p>\n" : "<p class=\"warning\">The stores differ.</p>\n"
        if let model = report.model {
            body += "<h2>Model</h2>\n<p>\(HTML.escape(model.sameVersion ? "Same model version." : "\(plural(model.changes.count, "model change"))."))</p>\n"
        }
        if let data = report.data {
            body += "<h2>Objects</h2>\n"
            body += HTML.table(
                headers: ["Entity", "Deleted (only in A)", "Inserted (only in B)", "Updated"],
                rows: data.map { entity in
                    [
                        HTML.escape(entity.entity + (entity.renamedFrom.map { " (was \($0))" } ?? "")), StorePage.grouped(entity.deleted),
                        StorePage.grouped(entity.inserted), StorePage.grouped(entity.updated),
                    ]
                }, className: "counts")
        }
        body += "<h2>Report</h2>\n<p class=\"muted\">\(HTML.escape("At most \(limit) described changes per entity; the counts are complete."))</p>\n"
        body += "<pre>\(HTML.escape(DiffText.render(report, limit: limit)))</pre>\n"
        let title = "\(poolA.store.name) → \(poolB.store.name)"
        let limitParameter = limit == defaultLimit ? [] : [("limit", String(limit))]
        return ServeResponder.html(
            HTML.page(
                title: title, crumbs: [("Stores", "/"), ("Diff " + title, "")], body: body,
                alternate: Paths.diff(storeA, storeB, format: .json, query: limitParameter)))
    }
}
