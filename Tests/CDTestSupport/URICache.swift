import CDPredicate
import Foundation

/// Parsed `x-coredata://` URIs by text, for one evaluator.
final class URICache {
    private var parsed: [String: (entity: String, primaryKey: Int64)?] = [:]

    func parse(_ text: String) -> (entity: String, primaryKey: Int64)? {
        if let known = parsed[text] { return known }
        let result = Self.objectURI(text)
        parsed[text] = .some(result)
        return result
    }

    /// `x-coredata://<store>/<Entity>/p<N>`: the entity and `Z_PK`.
    static func objectURI(_ text: String) -> (entity: String, primaryKey: Int64)? {
        guard text.hasPrefix("x-coredata://") else { return nil }
        let parts = text.dropFirst("x-coredata://".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, parts[2].first == "p", let key = Int64(parts[2].dropFirst()) else { return nil }
        return (String(parts[1]), key)
    }
}
