import CDModel
import CDPredicate
import Foundation

/// `.and` (and its alias `.where`) or `.or`.
enum CDQCombination: Equatable {
    case and, or
}
