import CDPredicate
import Foundation

// The small part of Ruby that ruby-xcdm schema files use, read as data: method calls with
// literal arguments and `do … end` / `{ … }` blocks (docs/format/model-format.md §7).
//
// Nothing is evaluated. There are no variables, constants, operators, string interpolation,
// heredocs or `%w` literals; meeting one is a parse error, never a guess.

/// 1-based line and column (counted in Unicode scalars) in a Ruby file.
struct RubySourcePosition: Equatable, Sendable {
    var line: Int
    var column: Int
}

/// A parse or DSL error at a position in a Ruby file.
struct RubySyntaxError: Error {
    var position: RubySourcePosition
    var message: String
}

/// A literal value.
indirect enum RubyValue: Equatable, Sendable {
    case string(String)
    case symbol(String)
    /// An integer literal as Ruby's `to_s` prints it: decimal, no underscores.
    case integer(String)
    case float(Double)
    case boolean(Bool)
    case `nil`
    case hash([RubyHashEntry])

    /// Everything but `nil` and `false` is true in Ruby.
    var isTruthy: Bool {
        switch self {
        case .nil, .boolean(false): return false
        default: return true
        }
    }

    /// Ruby's `to_s`; `nil` for a hash, whose `inspect` text no schema should depend on.
    var rubyString: String? {
        switch self {
        case .string(let text), .symbol(let text), .integer(let text): return text
        case .float(let value): return RubyFloatFormat.string(value)
        case .boolean(let value): return value ? "true" : "false"
        case .nil: return ""
        case .hash: return nil
        }
    }

    /// How the value reads in an error message.
    var summary: String {
        switch self {
        case .string(let text): return "\"\(text)\""
        case .symbol(let name): return ":\(name)"
        case .hash: return "a hash"
        case .nil: return "nil"
        default: return rubyString ?? ""
        }
    }
}

/// One `key => value` (or `key: value`) pair of a hash, in source order.
struct RubyHashEntry: Equatable, Sendable {
    var key: RubyValue
    var value: RubyValue
    var position: RubySourcePosition
}

/// A positional argument and where it starts.
struct RubyArgument {
    var value: RubyValue
    var position: RubySourcePosition
}

/// `name args` optionally followed by a block. Trailing `key: value` pairs are gathered into
/// one final hash argument, as Ruby does.
struct RubyCall {
    var name: String
    var position: RubySourcePosition
    var arguments: [RubyArgument]
    var block: [RubyCall]?
}

/// A whole file: its top-level calls and where the code ends (for "found end of file" errors).
struct RubyProgram {
    var calls: [RubyCall]
    var endPosition: RubySourcePosition
}
