import CDBase
import CDChanges
import CDRendering
import CDSession
import CDStore
import Foundation
import Hummingbird

/// `/stores/{store}/history`: the store's persistent history as a timeline, newest transaction
/// first, each with its time, author, bundle, process and context, its counts per entity and its
/// changes as `cdstore history` writes them (updated properties named from `ZCOLUMNS`, deletes
/// with their tombstones). `author` and `entity` narrow it as `history --author/--entity` do.
/// Pages are keyset pages on the transaction number, never OFFSET: `before=N` shows the newest
/// transactions below N (the `next` link, read `ORDER BY Z_PK DESC LIMIT`), `after=N` the oldest
/// above N (the `newer` link, read `ORDER BY Z_PK LIMIT`), both shown newest first.
/// A store without persistent history gets a page that says so.
enum HistoryPage {
    static let defaultSize = 50

    static func respond(_ request: PageRequest) throws -> Response {
        guard case .history(let name) = request.route else { throw ServeError.noSuchPage(path: "") }
        try request.parameters.check(known: ["before", "after", "size", "author", "entity"])
        let size = try request.parameters.integer("size", in: 1...1000) ?? defaultSize
        let before = try request.parameters.integer("before", in: 1...Int(Int64.max)).map(Int64.init)
        let after = try request.parameters.integer("after", in: 0...Int(Int64.max)).map(Int64.init)
        if before != nil && after != nil { throw ServeError.badRequest("give before or after, not both") }
        let author = try request.parameters.single("author").flatMap { $0.isEmpty ? nil : $0 }
        let entity = try request.parameters.single("entity").flatMap { $0.isEmpty ? nil : $0 }
        let pool = try request.catalog.pool(named: name)
        let store = request.catalog.segment(for: pool.store)
        var changed = false
        // One transaction more than the page shows tells whether there is a page beyond it.
        var filter = HistoryFilter(author: author, entity: entity)
        if let after {
            (filter.afterTransaction, filter.oldest) = (after, size + 1)
        } else {
            (filter.beforeTransaction, filter.newest) = (before, size + 1)
        }
        let read = try pool.withSession(request.job, remedy: .useCommand("history")) { pooled -> [HistoryTransaction]? in
            changed = pooled.showsNewVersion
            return try transactions(pooled.session, filter)
        }
        let hasHistory = read != nil
        var page = read ?? []
        let beyond = page.count > size
        if after == nil {
            page.reverse()
            if beyond { page.removeLast() }
        } else {
            if beyond { page.removeLast() }
            page.reverse()
        }
        // Older pages exist past a full `before` page; an `after` page's transaction N was shown
        // on the page it came from, and newer ones exist past a full `after` page or below a
        // `before` page's N.
        let older = after == nil ? beyond : after.map { $0 > 0 } ?? false
        let newer = after == nil ? before != nil : beyond
        let kept =
            [("author", author), ("entity", entity)].compactMap { name, value in value.map { (name, $0) } }
            + (size == defaultSize ? [] : [("size", String(size))])
        func link(_ cursor: [(String, String)], _ format: Route.Format) -> String {
            Paths.storePage(store, "history", format: format, query: cursor + kept)
        }
        let next = older ? page.last.map { link([("before", String($0.id))], request.format) } : nil
        let newerLink = newer ? page.first.map { link([("after", String($0.id))], request.format) } ?? link([], request.format) : nil
        if request.format == .json {
            return try ServeResponder.json { json in
                json.beginObject()
                json.key("store")
                StorePage.writeStore(pool.store, segment: store, to: &json)
                json.member("history", hasHistory)
                json.key("transactions")
                json.beginArray()
                for transaction in page { try json.encoded(transaction) }
                json.endArray()
                json.member("next", next)
                json.member("newer", newerLink)
                json.endObject()
            }
        }
        var body = HTML.changeNotice(changed)
        if !hasHistory {
            body += "<p class=\"muted\">This store keeps no persistent history (it was not opened with NSPersistentHistoryTrackingKey).</p>\n"
        } else {
            body += filterForm(store: store, author: author, entity: entity, size: size)
            if page.isEmpty {
                body += "<p class=\"muted\">No transactions here.</p>\n"
            } else {
                body += timeline(page, store: store)
                if page.contains(where: { $0.changes.contains { $0.type == .update } }) {
                    body += "<p class=\"muted\">\(HTML.escape(HistoryText.bitLayoutNote))</p>\n"
                }
            }
        }
        var links: [String] = []
        if before != nil || after != nil { links.append(HTML.link(link([], .html), "« Newest")) }
        if let newerLink { links.append(HTML.link(newerLink, "‹ Newer")) }
        if let next { links.append(HTML.link(next, "Older ›")) }
        body += "<div class=\"pager\">" + links.joined(separator: " ") + "</div>\n"
        let cursor = before.map { [("before", String($0))] } ?? after.map { [("after", String($0))] } ?? []
        return ServeResponder.html(
            HTML.page(
                title: "History of \(pool.store.name)", crumbs: [("Stores", "/"), (pool.store.name, Paths.store(store)), ("History", "")], body: body,
                alternate: link(cursor, .json)))
    }

    /// The form that narrows the timeline to an author or an entity (sent with GET to the page).
    private static func filterForm(store: String, author: String?, entity: String?, size: Int) -> String {
        var html = "<form class=\"history-filter\" method=\"get\" action=\"\(HTML.escape(Paths.storePage(store, "history")))\">"
        html += "<label for=\"author\">Author</label> <input id=\"author\" name=\"author\" value=\"\(HTML.escape(author ?? ""))\"> "
        html += "<label for=\"entity\">Entity</label> <input id=\"entity\" name=\"entity\" value=\"\(HTML.escape(entity ?? ""))\"> "
        if size != defaultSize { html += "<input type=\"hidden\" name=\"size\" value=\"\(size)\">" }
        return html + "<button type=\"submit\">Show</button></form>\n"
    }

    /// The transactions `filter` selects, or nil when the store keeps no history.
    static func transactions(_ session: StoreSession, _ filter: HistoryFilter) throws -> [HistoryTransaction]? {
        do {
            return try session.history(filter)
        } catch StoreError.noPersistentHistory {
            return nil
        }
    }

    /// Transactions, in the order given, each as its summary line, its counts per entity and
    /// its changes.
    static func timeline(_ transactions: [HistoryTransaction], store: String) -> String {
        var html = "<ol class=\"history\">\n"
        for transaction in transactions {
            html += "<li id=\"transaction-\(transaction.id)\"><p class=\"summary\">\(HTML.escape(HistoryText.summary(transaction)))</p>\n"
            var counts: [String: [ChangeType: Int]] = [:]
            for change in transaction.changes { counts[change.entity, default: [:]][change.type, default: 0] += 1 }
            html += HTML.table(
                headers: ["Entity", "Inserts", "Updates", "Deletes"],
                rows: counts.keys.sorted().map { entity in
                    [HTML.escape(entity)] + ChangeType.allCases.map { String(counts[entity]?[$0] ?? 0) }
                }, className: "counts")
            html += "<ul class=\"changes\">"
            for change in transaction.changes {
                html += "<li><code>\(HTML.escape(HistoryText.line(change)))</code>"
                if change.type != .delete, let pk = primaryKey(change.objectID) {
                    html += " " + HTML.link(Paths.object(store, change.entity, pk), "object")
                }
                html += "</li>"
            }
            html += "</ul></li>\n"
        }
        return html + "</ol>\n"
    }

    /// The `Z_PK` at the end of an object ID URI (`…/Entity/p12`).
    private static func primaryKey(_ uri: String) -> Int64? {
        guard let last = uri.split(separator: "/").last, last.hasPrefix("p"), let pk = Int64(last.dropFirst()), pk > 0 else { return nil }
        return pk
    }
}
