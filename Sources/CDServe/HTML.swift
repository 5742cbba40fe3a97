import CDBase
import CDRendering
import Foundation

/// HTML text for the pages: every value from a store, a request or a file name goes through
/// ``escape(_:)`` (a store is untrusted input), and every page through ``page(title:crumbs:body:alternate:)``,
/// which links the embedded stylesheet and script and nothing outside the server.
enum HTML {
    /// `text` with `& < > " '` replaced by character references, safe in element content and in
    /// quoted attribute values.
    static func escape(_ text: String) -> String { MarkupText.escape(text, for: .html) }

    /// A link; `href` is one of the server's own URLs (built from escaped path segments) and
    /// `text` is escaped here.
    static func link(_ href: String, _ text: String, className: String? = nil) -> String {
        "<a href=\"\(escape(href))\"" + (className.map { " class=\"\($0)\"" } ?? "") + ">\(escape(text))</a>"
    }

    /// What the script needs to follow a store's changes on a page (``EventStream``): the event
    /// stream's URL, and on an entity page the names whose changed objects it lists (the entity
    /// and its sub-entities), which a refresh passes back as `changed` to mark their rows.
    struct Live {
        var events: String
        var entities: [String] = []

        /// The `<body>` attributes the script reads. The names are a JSON array, not a list
        /// separated by spaces: they come from the store's model cache, which is untrusted and
        /// may name an entity with any character, a space or a quote included.
        var attributes: String {
            guard !entities.isEmpty else { return " data-events=\"\(escape(events))\"" }
            var names = JSONWriter(htmlSafe: true)
            names.strings(entities)
            return " data-events=\"\(escape(events))\" data-entities=\"\(escape(names.text))\""
        }
    }

    /// The shared layout: a header with the breadcrumbs (`(text, href)`; the last one is the
    /// page itself), then `body`, which the caller built from escaped parts. `alternate` is the
    /// page's JSON twin; `live`, when given, has the script announce the store's changes.
    static func page(title: String, crumbs: [(String, String)], body: String, alternate: String?, live: Live? = nil) -> String {
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<title>\(escape(title)) — cdstore</title>\n"
        html += "<link rel=\"stylesheet\" href=\"\(StaticAssets.stylesheetPath)\">\n"
        if let alternate { html += "<link rel=\"alternate\" type=\"application/json\" href=\"\(escape(alternate))\">\n" }
        html += "<script src=\"\(StaticAssets.scriptPath)\" defer></script>\n</head>\n<body\(live?.attributes ?? "")>\n<header><nav>"
        html += crumbs.enumerated().map { index, crumb in
            index == crumbs.count - 1 ? "<span>\(escape(crumb.0))</span>" : link(crumb.1, crumb.0)
        }.joined(separator: " <span class=\"sep\">/</span> ")
        if let alternate { html += " <span class=\"json\">" + link(alternate, "JSON") + "</span>" }
        html += "</nav></header>\n<main>\n<h1>\(escape(title))</h1>\n" + body + "\n</main>\n</body>\n</html>\n"
        return html
    }

    /// The notice on the first page read after the app wrote to the store.
    static func changeNotice(_ changed: Bool) -> String {
        changed ? "<p class=\"notice\">The store changed since the last page was read: this page shows its new version.</p>\n" : ""
    }

    /// A table: header cells escaped here, row cells already HTML.
    static func table(headers: [String], rows: [[String]], className: String? = nil) -> String {
        var html = "<table" + (className.map { " class=\"\($0)\"" } ?? "") + "><thead><tr>"
        html += headers.map { "<th>\(escape($0))</th>" }.joined()
        html += "</tr></thead><tbody>\n"
        for row in rows { html += "<tr>" + row.map { "<td>\($0)</td>" }.joined() + "</tr>\n" }
        return html + "</tbody></table>\n"
    }

    /// A definition list of `(term, HTML)` pairs; terms are escaped here.
    static func definitions(_ pairs: [(String, String)]) -> String {
        "<dl>" + pairs.map { "<dt>\(escape($0.0))</dt><dd>\($0.1)</dd>" }.joined() + "</dl>\n"
    }
}
