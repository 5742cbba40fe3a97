import CDBase
import CDFetch
import CDRendering
import CDStore
import Hummingbird

/// `/stores/{store}/entities/{Entity}`: a page of objects with decoded values, sortable columns,
/// keyset pages (``EntityQuery``, ``PageToken``), a filter box whose errors show inline with
/// the parser's caret, the SQL Core Data would run for the filter (behind a toggle, or open
/// with `sql=1`), and links to export the filter as CSV or NDJSON. `changed` (comma-separated
/// `Z_PK`s, as the script passes them after a live notice's Refresh) marks those objects' rows.
enum EntityPage {
    static func respond(_ request: PageRequest) throws -> Response {
        guard case .entity(let storeName, let entity) = request.route else { throw ServeError.noSuchPage(path: "") }
        let pool = try request.catalog.pool(named: storeName)
        let store = request.catalog.segment(for: pool.store)
        let query = try EntityQuery(entity: entity, parameters: request.parameters)
        let showsSQL = try request.parameters.flag("sql")
        let marked = try changedKeys(request.parameters)
        let json = request.format == .json
        struct Result {
            var page: EntityQuery.Page?
            /// The page of the JSON twin, which reads no ``page``.
            var jsonPage: EntityQuery.JSONPage?
            var coreDataSQL: String?
            var pageSQL: String?
            /// Without a filter, the entity's objects; with one, the objects it matches.
            var total: FilteredCount?
            var toMany: Set<String> = []
            /// The entity and its sub-entities, whose changes the live notice reports here.
            var family: [String] = []
        }
        var changed = false
        let result = try pool.withSession(request.job) { pooled -> Result in
            changed = pooled.showsNewVersion
            let runner = try pooled.session.runner()
            // An unknown entity is a 404 even when the filter is also wrong.
            _ = try pooled.statement(for: FetchRequest(entity: entity, result: .count))
            let total = try pool.inspection(of: pooled).entities.first { $0.name == entity }?.rowsIncludingSubentities
            // The sortable columns and the live notice's entities are the HTML page's only.
            let toMany =
                json
                ? []
                : Set(
                    runner.reader.model.allProperties(of: entity).compactMap { property -> String? in
                        if case .relationship(let relationship) = property, relationship.isToMany { return relationship.name }
                        return nil
                    })
            let model = runner.reader.model
            let family =
                json ? [] : model.entities.filter { candidate in model.lineage(of: candidate.name).contains { $0.name == entity } }.map(\.name)
            var result = Result(total: total.map(FilteredCount.counted), toMany: toMany, family: family)
            if query.problem != nil { return result }
            if json {
                result.jsonPage = try EntityQuery.readJSONPage(runner, query: query, after: query.after?.position, size: query.size)
                result.coreDataSQL = try pooled.statement(for: query.coreDataRequest).text
            } else {
                result.page = try EntityQuery.readPage(runner, query: query, after: query.after?.position, size: query.size)
                result.coreDataSQL = try pooled.statement(for: query.coreDataRequest).text
                result.pageSQL = try runner.statement(for: query.pageRequest(after: query.after?.position, size: query.size)).text
            }
            // Last, so that a count past the time limit leaves the rows read.
            if let predicate = query.predicate {
                result.total = try pool.filteredCount(of: query.countRequest, key: "\(entity)\n\(predicate)", on: pooled)
            }
            return result
        }
        if let problem = query.problem, request.format == .json { throw problem }
        let next = (result.page?.next ?? result.jsonPage?.next).map { token in
            Paths.entity(store, entity, format: request.format, query: query.linkParameters + [("after", token.encoded)])
        }
        if json, let page = result.jsonPage {
            return ServeResponder.json { json in
                json.beginObject()
                json.key("store")
                StorePage.writeStore(pool.store, segment: store, to: &json)
                json.member("entity", entity)
                json.member("where", query.whereText)
                json.key("sort")
                json.strings(query.sortTexts)
                json.member("size", query.size)
                json.member("count", result.total.flatMap(\.number))
                json.member("counted", result.total != .stopped)
                json.key("columns")
                json.strings(page.properties)
                json.key("objects")
                json.raw(page.objects)
                json.member("next", next)
                json.member("sql", result.coreDataSQL)
                json.endObject()
            }
        }
        let live = HTML.Live(events: Paths.events(store), entities: result.family)
        var body = HTML.changeNotice(changed)
        if !marked.isEmpty {
            body += "<p class=\"notice\">Marked: the objects inserted or updated since the page was last loaded.</p>\n"
        }
        if let total = result.total {
            body += "<p class=\"muted count\">\(HTML.escape(countText(total, filtered: query.predicate != nil, timeout: pool.queryTimeout)))</p>\n"
        }
        body += filterForm(query, store: store)
        if let problem = query.problem {
            body += "<p class=\"error\">\(HTML.escape(problem.message))</p>\n"
            if case .badQuery(_, let caret?) = problem { body += "<pre class=\"error\">\(HTML.escape(caret))</pre>\n" }
            let page = HTML.page(title: entity, crumbs: crumbs(pool.store, store: store, entity: entity), body: body, alternate: nil, live: live)
            var response = ServeResponder.html(page)
            response.status = .badRequest
            return response
        }
        guard let page = result.page else { throw ServeError.noSuchPage(path: "") }
        body += sqlPanel(coreData: result.coreDataSQL ?? "", page: result.pageSQL ?? "", open: showsSQL)
        body += table(page, query: query, store: store, unsortable: result.toMany, marked: marked)
        body += pager(query: query, store: store, next: next, shown: page.objects.count)
        let alternate = Paths.entity(store, entity, format: .json, query: query.linkParameters + (query.after.map { [("after", $0.encoded)] } ?? []))
        return ServeResponder.html(
            HTML.page(title: entity, crumbs: crumbs(pool.store, store: store, entity: entity), body: body, alternate: alternate, live: live))
    }

    /// The count line above the table: `N objects`, `N matching objects` with a filter, or why
    /// a filter's count is missing.
    static func countText(_ count: FilteredCount, filtered: Bool, timeout: Double) -> String {
        switch count {
        case .counted(let number): return filtered ? plural(number, "matching object") : plural(number, "object")
        case .stopped:
            return "Matching objects not counted: the count did not finish within the \(QueryDeadline.format(timeout)) s --query-timeout."
        }
    }

    /// The `Z_PK`s of `changed`: at most ``LiveChange/maximumKeys`` positive whole numbers,
    /// comma-separated.
    static func changedKeys(_ parameters: QueryParameters) throws(ServeError) -> Set<Int64> {
        guard let text = try parameters.single("changed"), !text.isEmpty else { return [] }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= LiveChange.maximumKeys else {
            throw .badRequest("changed takes at most \(LiveChange.maximumKeys) primary keys, not \(parts.count)")
        }
        var keys = Set<Int64>()
        for part in parts {
            guard part.allSatisfy(\.isASCII), let key = Int64(part), key > 0 else {
                throw .badRequest("changed takes Z_PKs (positive whole numbers) separated by commas, not \"\(part)\"")
            }
            keys.insert(key)
        }
        return keys
    }

    static func crumbs(_ served: ServedStore, store: String, entity: String) -> [(String, String)] {
        [("Stores", "/"), (served.name, Paths.store(store)), (entity, Paths.entity(store, entity))]
    }

    private static func filterForm(_ query: EntityQuery, store: String) -> String {
        var html = "<form class=\"filter\" method=\"get\" action=\"\(HTML.escape(Paths.entity(store, query.entity)))\">"
        html += "<label for=\"where\">Filter</label>"
        html +=
            "<input type=\"text\" id=\"where\" name=\"where\" value=\"\(HTML.escape(query.whereText ?? ""))\" placeholder=\"NSPredicate (name BEGINSWITH 'A') or CDQ chain\">"
        for sort in query.sortTexts { html += "<input type=\"hidden\" name=\"sort\" value=\"\(HTML.escape(sort))\">" }
        if query.size != EntityQuery.defaultSize { html += "<input type=\"hidden\" name=\"size\" value=\"\(query.size)\">" }
        html += "<button type=\"submit\">Apply</button>"
        html += HTML.link(Paths.entity(store, query.entity), "Clear")
        html += " · Export " + HTML.link(Paths.entity(store, query.entity, format: .csv, query: query.linkParameters), "CSV")
        html += " " + HTML.link(Paths.entity(store, query.entity, format: .ndjson, query: query.linkParameters), "NDJSON")
        return html + "</form>\n"
    }

    private static func sqlPanel(coreData: String, page: String, open: Bool) -> String {
        var html =
            "<p><button type=\"button\" data-toggle=\"sql\" data-show=\"Show SQL\" data-hide=\"Hide SQL\">\(open ? "Hide SQL" : "Show SQL")</button></p>\n"
        html +=
            "<div id=\"sql\" class=\"sql\"\(open ? "" : " hidden")><p>The SQL Core Data would run for this filter and sort:</p><pre>\(HTML.escape(coreData))</pre>"
        html += "<p>This page's SQL (keyset pagination: Z_PK breaks ties, the next page starts after the last row):</p><pre>\(HTML.escape(page))</pre></div>\n"
        return html
    }

    private static func table(_ page: EntityQuery.Page, query: EntityQuery, store: String, unsortable: Set<String>, marked: Set<Int64>) -> String {
        let current = query.sortDescriptors.first
        var html = "<table class=\"objects\"><thead><tr><th>Z_PK</th>"
        for property in page.properties {
            guard !unsortable.contains(property) else {
                html += "<th>\(HTML.escape(property))</th>"
                continue
            }
            let isSorted = current?.key == property
            let sort = isSorted && current?.ascending == true ? property + ":desc" : property
            let arrow = isSorted ? (current?.ascending == true ? " ▲" : " ▼") : ""
            let parameters = (query.whereText.map { [("where", $0)] } ?? []) + [("sort", sort)]
            html += "<th>" + HTML.link(Paths.entity(store, query.entity, query: parameters), property + arrow, className: isSorted ? "sorted" : nil) + "</th>"
        }
        html += "</tr></thead><tbody>\n"
        for object in page.objects {
            html +=
                (marked.contains(object.id.pk) ? "<tr class=\"changed\"><td>" : "<tr><td>")
                + HTML.link(Paths.object(store, object.id.entity, object.id.pk), String(object.id.pk)) + "</td>"
            for property in page.properties {
                html += ValueHTML.cell(object.value(property) ?? .null, store: store)
            }
            html += "</tr>\n"
        }
        html += "</tbody></table>\n"
        if page.objects.isEmpty { html += "<p class=\"muted\">No objects\(query.after == nil ? "" : " after this point").</p>\n" }
        return html
    }

    private static func pager(query: EntityQuery, store: String, next: String?, shown: Int) -> String {
        var links: [String] = []
        if query.after != nil { links.append(HTML.link(Paths.entity(store, query.entity, query: query.linkParameters), "« First page")) }
        if let next { links.append(HTML.link(next, "Next page »")) }
        return "<div class=\"pager\">" + links.joined(separator: " ") + "</div>\n"
    }
}
