import CDModel
import CDPredicate
import Foundation

/// A key from a symbol or string, as a key path expression, with its spelling for messages.
struct CDQKey {
    var name: String
    var expression: Expression
}
