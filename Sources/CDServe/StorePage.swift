import CDBase
import CDRendering
import CDStore
import Foundation
import Hummingbird

/// `/stores/{store}`: what `inspect` reports (metadata, model version identifiers and whether
/// the hashes match, warnings, persistent history and CloudKit tables) and the entities as their
/// inheritance tree with object counts, each linked to its objects. The inspection, counts
/// included, is computed once per version of the store (``SessionPool/inspection(of:)``).
enum StorePage {
    static func respond(_ request: PageRequest) throws -> Response {
        guard case .store(let name) = request.route else { throw ServeError.noSuchPage(path: "") }
        try request.parameters.check(known: [])
        let pool = try request.catalog.pool(named: name)
        let segment = request.catalog.segment(for: pool.store)
        var changed = false
        let (inspection, browsable, modelProblem) = try pool.withSession(request.job, remedy: .useCommand("inspect")) {
            pooled -> (StoreInspection, Set<String>, String?) in
            changed = pooled.showsNewVersion
            let inspection = try pool.inspection(of: pooled)
            do {
                return (inspection, Set(try pooled.session.reader().dumpableEntities), nil)
            } catch let error as UserFacingError {
                return (inspection, [], error.message)
            }
        }
        if request.format == .json {
            return try ServeResponder.json { json in
                json.beginObject()
                json.key("store")
                writeStore(pool.store, segment: segment, to: &json)
                json.member("modelProblem", modelProblem)
                json.key("entities")
                json.beginArray()
                for entity in inspection.entities {
                    let linked = browsable.contains(entity.name)
                    json.beginObject()
                    json.member("name", entity.name)
                    json.member("superEntity", entity.superEntity)
                    json.member("depth", entity.depth)
                    json.member("rows", entity.rows)
                    json.member("rowsIncludingSubentities", entity.rowsIncludingSubentities)
                    json.member("url", linked ? Paths.entity(segment, entity.name) : nil)
                    json.member("json", linked ? Paths.entity(segment, entity.name, format: .json) : nil)
                    json.endObject()
                }
                json.endArray()
                json.key("pages")
                writePages(request.catalog, store: pool.store, segment: segment, to: &json)
                json.key("inspection")
                try json.encoded(inspection)
                json.endObject()
            }
        }
        var body = HTML.changeNotice(changed)
        if let modelProblem { body += "<p class=\"error\">\(HTML.escape(modelProblem))</p>\n" }
        body += warnings(inspection)
        body += pages(request.catalog, store: pool.store, segment: segment)
        body += "<h2>Entities</h2>\n" + entityTree(inspection, browsable: browsable, segment: segment)
        body += "<h2>Store</h2>\n" + metadata(inspection, store: pool.store)
        body += "<h2>Model version</h2>\n" + model(inspection)
        body += "<h2>History and CloudKit</h2>\n" + extras(inspection)
        return ServeResponder.html(
            HTML.page(
                title: pool.store.name, crumbs: [("Stores", "/"), (pool.store.name, "")], body: body, alternate: Paths.store(segment, format: .json),
                live: HTML.Live(events: Paths.events(segment))))
    }

    /// The store as every page's JSON names it.
    static func writeStore(_ store: ServedStore, segment: String, to json: inout JSONWriter) {
        json.beginObject()
        json.member("number", store.number)
        json.member("name", store.name)
        json.member("url", Paths.store(segment))
        json.endObject()
    }

    /// Links to the store's other pages, and to its comparison with each other served store.
    private static func pages(_ catalog: StoreCatalog, store: ServedStore, segment: String) -> String {
        let links = [("model", "Model"), ("validate", "Validate"), ("compat", "Compat"), ("history", "History")].map {
            HTML.link(Paths.storePage(segment, $0.0), $0.1)
        }
        var html =
            "<p class=\"pages\">" + links.joined(separator: " · ") + " · " + HTML.link(Paths.explain(query: [("store", segment)]), "Explain an error")
            + "</p>\n"
        let others = catalog.stores.filter { $0.number != store.number }
        if !others.isEmpty {
            html +=
                "<p class=\"compare\">Compare with "
                + others.map { HTML.link(Paths.diff(segment, catalog.segment(for: $0)), $0.name) }.joined(separator: ", ") + "</p>\n"
        }
        return html
    }

    /// The same links in the JSON twin: each page's JSON URL, and each comparison's.
    private static func writePages(_ catalog: StoreCatalog, store: ServedStore, segment: String, to json: inout JSONWriter) {
        json.beginObject()
        for page in ["model", "validate", "compat", "history"] { json.member(page, Paths.storePage(segment, page, format: .json)) }
        json.key("compare")
        json.beginArray()
        for other in catalog.stores where other.number != store.number {
            json.beginObject()
            json.key("store")
            writeStore(other, segment: catalog.segment(for: other), to: &json)
            json.member("url", Paths.diff(segment, catalog.segment(for: other), format: .json))
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    private static func warnings(_ inspection: StoreInspection) -> String {
        guard !inspection.warnings.isEmpty else { return "" }
        return "<ul class=\"warning\">" + inspection.warnings.map { "<li>\(HTML.escape($0))</li>" }.joined() + "</ul>\n"
    }

    private static func entityTree(_ inspection: StoreInspection, browsable: Set<String>, segment: String) -> String {
        let rows = inspection.entities.map { entity -> [String] in
            let indent = String(repeating: "&nbsp;&nbsp;&nbsp;&nbsp;", count: min(entity.depth, 32))
            let name = browsable.contains(entity.name) ? HTML.link(Paths.entity(segment, entity.name), entity.name) : HTML.escape(entity.name)
            return [
                indent + name, entity.rows.map { grouped($0) } ?? "", entity.rowsIncludingSubentities.map { grouped($0) } ?? "",
                HTML.escape(entity.table) + (entity.tableExists ? "" : " <span class=\"error\">(missing)</span>"),
                String(entity.ent),
            ]
        }
        return HTML.table(headers: ["Entity", "Objects", "With sub-entities", "Table", "Z_ENT"], rows: rows, className: "entities")
    }

    /// The store's path as the command line gave it (relative stays relative; `--find`'s as
    /// found), with the absolute path it resolved to as the tooltip when that differs; the JSON
    /// twin's `inspection.path` is the absolute one.
    private static func metadata(_ inspection: StoreInspection, store: ServedStore) -> String {
        let meta = inspection.metadata
        let path =
            store.path == inspection.path
            ? HTML.escape(store.path) : "<span title=\"\(HTML.escape(inspection.path))\">\(HTML.escape(store.path))</span>"
        var pairs: [(String, String)] = [("Path", path)]
        for file in inspection.files {
            pairs.append(("File (\(file.role))", HTML.escape("\(grouped(file.size)) bytes" + (file.walFrames.map { ", \($0) committed WAL frames" } ?? ""))))
        }
        pairs.append(("Store UUID", HTML.escape(meta.storeUUID ?? "—")))
        pairs.append(("Store type", HTML.escape(meta.storeType ?? "—")))
        pairs.append(("Framework version", HTML.escape(meta.frameworkVersion.map(String.init) ?? "—")))
        pairs.append(("Journal mode", HTML.escape(inspection.sqlite.journalMode)))
        pairs.append(("Pages", HTML.escape("\(grouped(inspection.sqlite.pageCount)) × \(inspection.sqlite.pageSize) bytes")))
        for (key, value) in meta.otherKeys.sorted(by: { $0.key < $1.key }) { pairs.append((key, HTML.escape(value))) }
        return HTML.definitions(pairs)
    }

    private static func model(_ inspection: StoreInspection) -> String {
        let meta = inspection.metadata
        let cache = inspection.modelCache
        var pairs: [(String, String)] = [
            ("Version identifiers", HTML.escape(meta.versionIdentifiers.isEmpty ? "—" : meta.versionIdentifiers.joined(separator: ", "))),
            ("Model cache", cache.present ? "present" + (cache.entityCount.map { ", \($0) entities" } ?? "") : "<span class=\"warning\">absent</span>"),
            ("Hashes", verdict(cache.hashesMatch, yes: "match the cached model", no: "differ from the cached model")),
            ("Hashes digest", verdict(meta.hashesDigestMatches, yes: "matches", no: "does not match")),
        ]
        if let error = cache.error { pairs.append(("Cache error", "<span class=\"error\">\(HTML.escape(error))</span>")) }
        var html = HTML.definitions(pairs)
        if !cache.mismatches.isEmpty {
            html += HTML.table(
                headers: ["Entity", "Metadata hash", "Cached model hash"],
                rows: cache.mismatches.map { [HTML.escape($0.entity), HTML.escape($0.metadataHash ?? "—"), HTML.escape($0.cacheHash ?? "—")] })
        }
        let hashes = meta.versionHashes.sorted { $0.key < $1.key }.map { [HTML.escape($0.key), "<code>\(HTML.escape($0.value))</code>"] }
        if !hashes.isEmpty { html += "<details><summary>Version hashes</summary>" + HTML.table(headers: ["Entity", "Hash"], rows: hashes) + "</details>\n" }
        return html
    }

    private static func verdict(_ value: Bool?, yes: String, no: String) -> String {
        switch value {
        case true?: return "<span class=\"ok\">\(yes)</span>"
        case false?: return "<span class=\"error\">\(no)</span>"
        case nil: return "<span class=\"muted\">not compared</span>"
        }
    }

    private static func extras(_ inspection: StoreInspection) -> String {
        var pairs: [(String, String)] = []
        if let history = inspection.extras.history {
            pairs.append(("Persistent history", "\(history.transactions.map(grouped) ?? "?") transactions, \(history.changes.map(grouped) ?? "?") changes"))
        } else {
            pairs.append(("Persistent history", "<span class=\"muted\">none</span>"))
        }
        let cloudKit = inspection.extras.cloudKitTables
        pairs.append(
            (
                "CloudKit",
                cloudKit.isEmpty
                    ? "<span class=\"muted\">none</span>" : HTML.escape(cloudKit.map { "\($0.name) (\($0.rows.map(grouped) ?? "?"))" }.joined(separator: ", "))
            ))
        if !inspection.extras.otherTables.isEmpty { pairs.append(("Other tables", HTML.escape(inspection.extras.otherTables.joined(separator: ", ")))) }
        return HTML.definitions(pairs)
    }

    static func grouped(_ number: Int) -> String { CDBase.grouped(number) }
}
