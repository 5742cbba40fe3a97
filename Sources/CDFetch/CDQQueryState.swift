import CDModel
import CDPredicate
import Foundation

/// A query being built: CDQ's `CDQQuery` state, plus what `.and`/`.or` chaining needs.
struct CDQQueryState {
    var predicate: Predicate?
    /// Set when the top of `predicate` is a compound the chain itself built with `.and`/`.or`: the
    /// next call of the same kind appends to it instead of nesting, which prints the way one reads
    /// the chain and means the same (a parenthesised operand from `cdq(…)`, a hash or a format
    /// string stays one operand).
    var chainCompound: CDQCombination?
    /// CDQ's `saved_key`: the key of the comparison just made, for `.and`/`.or` without an argument.
    var savedKey: CDQKey?
    var sortDescriptors: [CDModel.SortDescriptor] = []
    var limit: Int?
    var offset: Int?

    /// `NSCompoundPredicate` of the old predicate and `right`, as CDQ's `merge_query` does.
    mutating func combine(_ right: Predicate, with combination: CDQCombination) {
        guard let left = predicate else {
            predicate = right
            chainCompound = nil
            return
        }
        switch (left, combination, chainCompound) {
        case (.and(let operands), .and, .and?): predicate = .and(operands + [right])
        case (.or(let operands), .or, .or?): predicate = .or(operands + [right])
        default:
            predicate = combination == .and ? .and([left, right]) : .or([left, right])
            chainCompound = combination
        }
    }
}
