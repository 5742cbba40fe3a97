import Foundation

/// The server's URL scheme, stable and documented in the man page:
///
///     /                                            the served stores
///     /stores/{store}                              a store: metadata, hashes, entities, counts
///     /stores/{store}/entities/{Entity}            its objects, sorted, filtered, paged
///     /stores/{store}/entities/{Entity}/{pk}       one object
///     /stores/{store}/entities/{Entity}/{pk}/{to-many}   the members of one relationship, paged
///     /stores/{store}/entities/{Entity}/{pk}/{attribute} a binary or transformable value's bytes
///     /stores/{store}/model                        its model: entities, properties, indexes, diagram
///     /stores/{store}/validate                     what `validate` finds in it
///     /stores/{store}/compat                       `compat` against the model given with --model
///     /stores/{store}/history                      its persistent history, newest first, paged
///     /stores/{store}/events                       the store's changes as Server-Sent Events
///     /explain                                     `explain` for a pasted error dump
///     /diff/{a}/{b}                                what `diff` finds between two served stores
///     /-/cdstore.css, /-/cdstore.js                the embedded stylesheet and script
///
/// `{store}` is a number from `/` or a store's name; entities and relationships by name; objects
/// by `Z_PK`. Each page but the static files and the event stream has a JSON twin at `.json` (or with
/// `Accept: application/json`); the entity page also exports as `.csv` and `.ndjson`. Segments
/// are percent-decoded here and nothing in a path is ever used as a file path.
enum Route: Equatable, Sendable {
    case stores
    case store(String)
    case entity(store: String, entity: String)
    case object(store: String, entity: String, primaryKey: Int64)
    case members(store: String, entity: String, primaryKey: Int64, relationship: String)
    case model(store: String)
    case validate(store: String)
    case compat(store: String)
    case history(store: String)
    case events(store: String)
    case explain
    case diff(String, String)
    case asset(String)

    /// The representation the path's suffix asks for.
    enum Format: String, Equatable, Sendable {
        case html, json, csv, ndjson
    }

    /// Parses a request path into a route and the format its last segment's suffix names.
    static func parse(_ path: String) throws(ServeError) -> (Route, Format) {
        if path == "/" || path.isEmpty { return (.stores, .html) }
        if path == "/.json" || path == "/stores.json" { return (.stores, .json) }
        if path.hasPrefix("/-/") {
            let name = String(path.dropFirst(3))
            guard StaticAssets.names.contains(name) else { throw .noSuchPage(path: path) }
            return (.asset(name), .html)
        }
        var raw = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if raw.last == "" { raw.removeLast() }
        guard raw.count >= 1, raw.count <= 6, ["stores", "explain", "explain.json", "diff"].contains(raw[0]), !raw.contains("") else {
            throw .noSuchPage(path: path)
        }
        var format = Format.html
        if let last = raw.last, let dot = last.lastIndex(of: "."), let suffix = Format(rawValue: String(last[last.index(after: dot)...])),
            suffix != .html
        {
            format = suffix
            raw[raw.count - 1] = String(last[..<dot])
        }
        var segments: [String] = []
        for segment in raw {
            guard let decoded = Self.percentDecoded(segment), !decoded.isEmpty, !decoded.contains(where: \.isNewline) else {
                throw .badRequest("the path segment \"\(segment)\" is not valid percent-encoded text")
            }
            segments.append(decoded)
        }
        let route: Route
        switch segments.count {
        case 1 where segments[0] == "explain": route = .explain
        case 3 where segments[0] == "diff": route = .diff(segments[1], segments[2])
        case _ where segments[0] != "stores": throw .noSuchPage(path: path)
        case 3 where segments[2] == "model": route = .model(store: segments[1])
        case 3 where segments[2] == "validate": route = .validate(store: segments[1])
        case 3 where segments[2] == "compat": route = .compat(store: segments[1])
        case 3 where segments[2] == "history": route = .history(store: segments[1])
        case 2: route = .store(segments[1])
        case 3 where segments[2] == "events": route = .events(store: segments[1])
        case 4 where segments[2] == "entities": route = .entity(store: segments[1], entity: segments[3])
        case 5 where segments[2] == "entities":
            route = .object(store: segments[1], entity: segments[3], primaryKey: try primaryKey(segments[4]))
        case 6 where segments[2] == "entities":
            route = .members(store: segments[1], entity: segments[3], primaryKey: try primaryKey(segments[4]), relationship: segments[5])
        default: throw .noSuchPage(path: path)
        }
        switch (route, format) {
        case (.events, .html): return (route, format)
        case (.events, _): throw .badRequest("the event stream has no .\(format.rawValue) twin; it is text/event-stream")
        case (.entity, _), (_, .html), (_, .json): return (route, format)
        default: throw .badRequest("only an entity's objects export as .\(format.rawValue); this page has .json")
        }
    }

    /// `text` percent-decoded; nil when it is not valid percent-encoded UTF-8. Text without `%`
    /// is its own decoding, and skipping Foundation's `removingPercentEncoding` for it (every
    /// segment of a usual path) saves a visible part of each request under scripts/bench-serve.sh.
    static func percentDecoded<Text: StringProtocol>(_ text: Text) -> String? {
        text.utf8.contains(UInt8(ascii: "%")) ? text.removingPercentEncoding : String(text)
    }

    private static func primaryKey(_ segment: String) throws(ServeError) -> Int64 {
        guard segment.allSatisfy(\.isASCII), let value = Int64(segment), value > 0 else {
            throw .badRequest("an object is named by its Z_PK, a positive whole number, not \"\(segment)\"")
        }
        return value
    }
}

/// Builds the server's own URLs: every segment percent-encoded, dots included, so a name can
/// never be read as a suffix.
enum Paths {
    /// `text` with every UTF-8 byte but ASCII letters, digits, `-`, `_` and `~` written `%XX`.
    /// Byte by byte rather than with Foundation's `addingPercentEncoding`, which builds a
    /// character set bitmap on every call: an entity page makes a link per row, and that was
    /// the largest cost of the HTML page under `scripts/bench-serve.sh`.
    static func segment(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func store(_ store: String, format: Route.Format = .html) -> String {
        "/stores/" + segment(store) + suffix(format)
    }

    static func events(_ store: String) -> String { "/stores/" + segment(store) + "/events" }

    static func entity(_ store: String, _ entity: String, format: Route.Format = .html, query: [(String, String)] = []) -> String {
        "/stores/" + segment(store) + "/entities/" + segment(entity) + suffix(format) + queryString(query)
    }

    static func object(_ store: String, _ entity: String, _ primaryKey: Int64, format: Route.Format = .html) -> String {
        "/stores/" + segment(store) + "/entities/" + segment(entity) + "/\(primaryKey)" + suffix(format)
    }

    static func members(
        _ store: String, _ entity: String, _ primaryKey: Int64, _ relationship: String, format: Route.Format = .html, query: [(String, String)] = []
    )
        -> String
    {
        object(store, entity, primaryKey) + "/" + segment(relationship) + suffix(format) + queryString(query)
    }

    /// `/stores/{store}/{page}` for the model, validate, compat and history pages.
    static func storePage(_ store: String, _ page: String, format: Route.Format = .html, query: [(String, String)] = []) -> String {
        "/stores/" + segment(store) + "/" + page + suffix(format) + queryString(query)
    }

    static func diff(_ a: String, _ b: String, format: Route.Format = .html, query: [(String, String)] = []) -> String {
        "/diff/" + segment(a) + "/" + segment(b) + suffix(format) + queryString(query)
    }

    static func explain(format: Route.Format = .html, query: [(String, String)] = []) -> String {
        "/explain" + suffix(format) + queryString(query)
    }

    private static func suffix(_ format: Route.Format) -> String { format == .html ? "" : "." + format.rawValue }

    /// `?a=b&c=d`, each name and value percent-encoded; empty without parameters.
    static func queryString(_ items: [(String, String)]) -> String {
        guard !items.isEmpty else { return "" }
        return "?" + items.map { segment($0.0) + "=" + segment($0.1) }.joined(separator: "&")
    }
}

/// A request's query string, decoded strictly: `+` is a space, `%XX` must be valid UTF-8, and
/// only the parameters a page knows are accepted (anything else is a 400 naming them).
struct QueryParameters: Sendable {
    private var values: [String: [String]] = [:]

    init(_ query: String?) throws(ServeError) {
        guard let query, !query.isEmpty else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) throws(ServeError) -> String {
                let spaced = text.utf8.contains(UInt8(ascii: "+")) ? text.replacingOccurrences(of: "+", with: " ") : String(text)
                guard let decoded = Route.percentDecoded(spaced) else {
                    throw .badRequest("the query parameter \"\(pair)\" is not valid percent-encoded text")
                }
                return decoded
            }
            let name = try decode(parts[0])
            let value = parts.count > 1 ? try decode(parts[1]) : ""
            values[name, default: []].append(value)
        }
    }

    /// Refuses parameters other than `known`.
    func check(known: Set<String>) throws(ServeError) {
        let unknown = values.keys.filter { !known.contains($0) }.sorted()
        guard unknown.isEmpty else {
            let list = known.isEmpty ? "this page takes none" : "this page takes " + known.sorted().joined(separator: ", ")
            throw .badRequest("unknown query parameter\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")); \(list)")
        }
    }

    /// The one value of `name`; a repeated parameter is a 400.
    func single(_ name: String) throws(ServeError) -> String? {
        guard let list = values[name] else { return nil }
        guard list.count == 1 else { throw .badRequest("give \(name) once") }
        return list[0]
    }

    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// A whole number in `range`, or nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(ServeError) -> Int? {
        guard let text = try single(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .badRequest("\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    /// `1`/`on`/`true` or `0`/`off`/`false`; absent is false.
    func flag(_ name: String) throws(ServeError) -> Bool {
        guard let text = try single(name) else { return false }
        switch text.lowercased() {
        case "", "1", "on", "true", "yes": return true
        case "0", "off", "false", "no": return false
        default: throw .badRequest("\(name) takes 1 or 0, not \"\(text)\"")
        }
    }
}
