import CDModel
import CDPredicate
import Foundation

/// `sort_by` and its options.
extension CDQChainParser {
    /// `sort_by(key)`, `sort_by(key, :desc)` (the older positional order) or
    /// `sort_by(key, order: :descending, case_insensitive: true)` (`motion/cdq/query.rb`).
    /// CDQ's case-insensitive sort uses `localizedCaseInsensitiveCompare:`.
    mutating func parseSortArguments() throws(PredicateError) -> CDModel.SortDescriptor {
        try expectPunctuation("(", "\"(\" and a key")
        let key = try parseKey(for: ".sort_by")
        var descriptor = CDModel.SortDescriptor(key: key.name)
        if isPunctuation(",") {
            advance()
            switch current.kind {
            case .symbol where tokens[index + 1].kind != .punctuation("=>"), .string:
                descriptor.ascending = try parseSortOrder()
            default:
                let braced = isPunctuation("{")
                if braced { advance() }
                try parseSortOptions(into: &descriptor)
                if braced { try expectPunctuation("}", "\"}\" to close the options") }
            }
        }
        try expectPunctuation(")", "\")\" to close .sort_by(")
        return descriptor
    }

    /// CDQ reads any order whose first four letters are `desc` as descending and everything else
    /// as ascending; here anything that is neither `asc…` nor `desc…` is an error.
    mutating func parseSortOrder() throws(PredicateError) -> Bool {
        let token = current
        let order: String
        switch token.kind {
        case .symbol(let name): order = name
        case .string(let string): order = string.value
        default: throw expectation("an order such as :ascending or :descending")
        }
        advance()
        let lowercased = order.lowercased()
        if lowercased.hasPrefix("desc") { return false }
        if lowercased.hasPrefix("asc") { return true }
        throw error(
            "unknown sort order \(PredicateError.quoted(order)); expected :ascending or :descending",
            at: token.start)
    }

    mutating func parseSortOptions(into descriptor: inout CDModel.SortDescriptor) throws(PredicateError) {
        while true {
            let keyToken = current
            let option: String
            switch current.kind {
            case .label(let name): option = name; advance()
            case .symbol(let name):
                option = name
                advance()
                try expectPunctuation("=>", "\"=>\"")
            default:
                throw expectation("a sort option: order: or case_insensitive:")
            }
            switch option {
            case "order":
                descriptor.ascending = try parseSortOrder()
            case "case_insensitive":
                let valueToken = current
                switch current.kind {
                case .identifier("true"): descriptor.comparison = .localizedCaseInsensitiveCompare
                case .identifier("false"), .identifier("nil"): descriptor.comparison = .compare
                default: throw error("case_insensitive: takes true or false", at: valueToken.start)
                }
                advance()
            default:
                throw error(
                    "unknown sort option \(PredicateError.quoted(option)); "
                        + "expected order: or case_insensitive:", at: keyToken.start)
            }
            guard isPunctuation(",") else { return }
            advance()
        }
    }
}
