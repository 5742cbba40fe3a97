import CDBase
import CDChanges
import CDSession
import CDStore
import Foundation
import Hummingbird

/// `/stores/{store}/history`: the store's persistent history as a timeline, newest transaction
/// first, each with its time, author, bundle, process and context, its counts per entity and its
/// changes as `cdstore history` writes them (updated properties named from `ZCOLUMNS`, deletes
/// with their tombstones). Pages are keyset pages on the transaction number: `before=N` starts
/// below transaction N (the `next` link), read with `ORDER BY Z_PK DESC LIMIT`, never OFFSET.
/// A store without persistent history gets a page that says so.
enum HistoryPage {
    static let defaultSize = 50

    static func respond(_ request: PageRequest) throws -> Response {
        guard case .history(let name) = request.route else { throw ServeError.noSuchPage(path: "") }
        try request.parameters.check(known: ["before", "size"])
        let size = try request.parameters.integer("size", in: 1...1000) ?? defaultSize
        let before = try request.parameters.integer("before", in: 1...Int(Int64.max)).map(Int64.init)
        let pool = try request.catalog.pool(named: name)
        let store = request.catalog.segment(for: pool.store)
        var changed = false
        // One transaction more than the page shows tells whether there is a next page.
        let read = try pool.withSession(remedy: .useCommand("history")) { pooled -> [HistoryTransaction]? in
            changed = pooled.showsNewVersion
            return try transactions(pooled.session, HistoryFilter(beforeTransaction: before, newest: size + 1))
        }
        let hasHistory = read != nil
        var page = Array((read ?? []).reversed())
        let more = page.count > size
        if more { page.removeLast() }
        let sizeParameter = size == defaultSize ? [] : [("size", String(size))]
        let next = more ? page.last.map { Paths.storePage(store, "history", format: request.format, query: [("before", String($0.id))] + sizeParameter) } : nil
        if request.format == .json {
            return ServeResponder.json(
                JSONText.object([
                    ("store", StorePage.storeJSON(pool.store, segment: store)), ("history", hasHistory ? "true" : "false"),
                    ("transactions", JSONText.array(try page.map(ReportJSON.encode))), ("next", JSONText.optional(next)),
                ]))
        }
        var body = HTML.changeNotice(changed)
        if !hasHistory {
            body += "<p class=\"muted\">This store keeps no persistent history (it was not opened with NSPersistentHistoryTrackingKey).</p>\n"
        } else if page.isEmpty {
            body += "<p class=\"muted\">No transactions\(before == nil ? "" : " before transaction \(before ?? 0)").</p>\n"
        } else {
            body += timeline(page, store: store)
            if page.contains(where: { $0.changes.contains { $0.type == .update } }) {
                body += "<p class=\"muted\">\(HTML.escape(HistoryText.bitLayoutNote))</p>\n"
            }
        }
        var links: [String] = []
        if before != nil { links.append(HTML.link(Paths.storePage(store, "history", query: sizeParameter), "« Newest")) }
        if let next { links.append(HTML.link(next, "Older »")) }
        body += "<div class=\"pager\">" + links.joined(separator: " ") + "</div>\n"
        let alternate = Paths.storePage(store, "history", format: .json, query: (before.map { [("before", String($0))] } ?? []) + sizeParameter)
        return ServeResponder.html(
            HTML.page(
                title: "History of \(pool.store.name)", crumbs: [("Stores", "/"), (pool.store.name, Paths.store(store)), ("History", "")], body: body,
                alternate: alternate))
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
