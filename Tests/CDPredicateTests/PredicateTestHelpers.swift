import CDPredicate
import CDTestSupport
import Testing

/// A format string, its arguments and the tree it must parse to.
struct ParseCase: Sendable, CustomTestStringConvertible {
    var format: String
    var arguments: [String] = []
    var expected: Predicate

    init(_ format: String, _ arguments: [String] = [], _ expected: Predicate) {
        self.format = format
        self.arguments = arguments
        self.expected = expected
    }

    init(_ format: String, _ expected: Predicate) {
        self.init(format, [], expected)
    }

    var testDescription: String { format + (arguments.isEmpty ? "" : " \(arguments)") }
}
