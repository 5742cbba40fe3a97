import CDPredicate
import Foundation

/// Truth values of three-valued logic.
enum Truth: Sendable {
    case `true`, `false`, unknown

    var not: Truth {
        switch self {
        case .true: return .false
        case .false: return .true
        case .unknown: return .unknown
        }
    }

    func and(_ other: Truth) -> Truth {
        if self == .false || other == .false { return .false }
        if self == .unknown || other == .unknown { return .unknown }
        return .true
    }

    func or(_ other: Truth) -> Truth {
        if self == .true || other == .true { return .true }
        if self == .unknown || other == .unknown { return .unknown }
        return .false
    }
}

/// The truth values a sub-predicate can take over the rows of its join dimensions.
struct Truths: OptionSet {
    let rawValue: UInt8
    static let `true` = Truths(rawValue: 1)
    static let `false` = Truths(rawValue: 2)
    static let unknown = Truths(rawValue: 4)

    init(rawValue: UInt8) { self.rawValue = rawValue }
    init(_ truth: Truth) {
        switch truth {
        case .true: self = .true
        case .false: self = .false
        case .unknown: self = .unknown
        }
    }

    /// The members of each of the eight sets, indexed by raw value.
    private static let memberLists: [[Truth]] = (0..<8).map { raw in
        [(1, Truth.true), (2, .false), (4, .unknown)].filter { raw & $0.0 != 0 }.map { $0.1 }
    }

    var members: [Truth] { Truths.memberLists[Int(rawValue & 7)] }

    func combined(with other: Truths, _ operation: (Truth, Truth) -> Truth) -> Truths {
        var result: Truths = []
        for a in members { for b in other.members { result.insert(Truths(operation(a, b))) } }
        return result
    }
}
