import CDRendering
import Hummingbird

/// `/`: the served stores, grouped by device and app when they were found with `--find`.
enum StoresPage {
    static func respond(_ request: PageRequest) throws -> Response {
        try request.parameters.check(known: [])
        let catalog = request.catalog
        if request.format == .json {
            return ServeResponder.json { json in
                json.beginObject()
                json.key("stores")
                json.beginArray()
                for store in catalog.stores {
                    let segment = catalog.segment(for: store)
                    json.beginObject()
                    json.member("number", store.number)
                    json.member("name", store.name)
                    json.member("path", store.path)
                    json.member("group", store.group)
                    json.member("url", Paths.store(segment))
                    json.member("json", Paths.store(segment, format: .json))
                    json.endObject()
                }
                json.endArray()
                json.endObject()
            }
        }
        var body = ""
        var groups: [String?] = []
        for store in catalog.stores where !groups.contains(store.group) { groups.append(store.group) }
        for group in groups {
            if let group { body += "<h2>\(HTML.escape(group))</h2>\n" }
            let rows = catalog.stores.filter { $0.group == group }.map { store in
                [String(store.number), HTML.link(Paths.store(catalog.segment(for: store)), store.name), HTML.escape(store.path)]
            }
            body += HTML.table(headers: ["#", "Store", "Path"], rows: rows)
        }
        if catalog.stores.isEmpty { body += "<p class=\"muted\">No stores.</p>\n" }
        return ServeResponder.html(HTML.page(title: "Stores", crumbs: [("Stores", "/")], body: body, alternate: "/.json"))
    }
}
