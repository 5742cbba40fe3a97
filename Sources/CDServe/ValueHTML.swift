import CDRendering
import CDStore

/// A stored value in a page, in the text the dump renderers write (``ObjectValue/text(binary:)``),
/// escaped; a to-one relationship is a link to its object, NULL a muted `null`.
enum ValueHTML {
    /// Characters of a value shown in a table cell before it is cut with `…` (the object page
    /// shows it whole).
    static let cellLimit = 300

    static func cell(_ value: ObjectValue, store: String, limit: Int? = cellLimit) -> String {
        switch value {
        case .null: return "<td class=\"null\">null</td>"
        case .integer, .decimal, .double: return "<td class=\"number\">\(HTML.escape(value.text() ?? ""))</td>"
        default: return "<td>\(content(value, store: store, limit: limit))</td>"
        }
    }

    static func content(_ value: ObjectValue, store: String, limit: Int? = nil) -> String {
        switch value {
        case .null: return "<span class=\"null\">null</span>"
        case .object(let target): return HTML.link(Paths.object(store, target.entity, target.pk), "\(target.entity)/p\(target.pk)")
        default:
            var text = value.text() ?? ""
            if let limit, text.count > limit { text = String(text.prefix(limit)) + "…" }
            return HTML.escape(text)
        }
    }
}
