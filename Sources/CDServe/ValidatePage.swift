import CDBase
import CDDiagnostics
import CDRendering
import Foundation
import Hummingbird

/// `/stores/{store}/validate`: what `cdstore validate` finds in the store (every object against
/// the model's validation rules, and the store's integrity), from the same ``StoreValidator``
/// on the request's session: the JSON twin's `report` is `validate --json`'s report.
enum ValidatePage {
    static func respond(_ request: PageRequest) throws -> Response {
        guard case .validate(let name) = request.route else { throw ServeError.noSuchPage(path: "") }
        try request.parameters.check(known: [])
        let pool = try request.catalog.pool(named: name)
        let store = request.catalog.segment(for: pool.store)
        var changed = false
        let report = try pool.withSession(request.job, remedy: .useCommand("validate")) { pooled -> ValidationReport in
            changed = pooled.showsNewVersion
            return try pooled.session.validation()
        }
        if request.format == .json {
            return try ServeResponder.json { json in
                json.beginObject()
                json.key("store")
                StorePage.writeStore(pool.store, segment: store, to: &json)
                json.member("problems", report.hasProblems)
                json.key("report")
                try json.encoded(report)
                json.endObject()
            }
        }
        var body = HTML.changeNotice(changed)
        let errors = report.errors.flatMap { $0.code == 1560 ? $0.errors : [$0] }
        body +=
            report.hasProblems
            ? "<p class=\"error\">\(HTML.escape("\(plural(errors.count, "validation error")), \(plural(report.integrity.count, "integrity problem"))"))</p>\n"
            : "<p class=\"ok\">\(HTML.escape("No problems in \(plural(report.objects, "object")) checked."))</p>\n"
        if !errors.isEmpty {
            body += "<h2>Validation errors</h2>\n"
            body += HTML.table(
                headers: ["Code", "Entity", "Key", "Object", "Value", "Message"],
                rows: errors.map { failure in
                    [
                        String(failure.code), HTML.escape(failure.entity), HTML.escape(failure.key ?? ""), HTML.escape(failure.object),
                        HTML.escape(failure.value ?? ""), HTML.escape(failure.message),
                    ]
                })
        }
        if !report.integrity.isEmpty {
            body += "<h2>Integrity</h2>\n"
            body += HTML.table(
                headers: ["Problem", "Entity", "Key", "Count", "Message", "Examples"],
                rows: report.integrity.map { problem in
                    [
                        HTML.escape(problem.kind.rawValue), HTML.escape(problem.entity ?? ""), HTML.escape(problem.key ?? ""), String(problem.count),
                        HTML.escape(problem.message), HTML.escape(problem.examples.joined(separator: ", ")),
                    ]
                })
        }
        body += "<h2>Report</h2>\n<pre>\(HTML.escape(ValidationText.render(report)))</pre>\n"
        return ServeResponder.html(
            HTML.page(
                title: "Validation of \(pool.store.name)", crumbs: [("Stores", "/"), (pool.store.name, Paths.store(store)), ("Validate", "")],
                body: body, alternate: Paths.storePage(store, "validate", format: .json)))
    }
}
