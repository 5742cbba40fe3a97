import CDPredicate
import CDTestSupport
import Foundation
import Testing

/// Parses `text` and returns what is wrong with the outcome, if anything: an error must point into
/// the text and render a two-line caret diagram; a success must survive printing and re-parsing.
private func problem(parsing text: String, arguments: [String]) -> String? {
    do {
        let parsed = try PredicateParser.parse(text, arguments: arguments)
        let printed = parsed.description
        guard let reparsed = try? PredicateParser.parse(printed), reparsed == parsed else {
            return "\(text.debugDescription) printed as \(printed.debugDescription) does not parse back to the same tree"
        }
        return nil
    } catch {
        let lines = error.caretDiagram.split(separator: "\n", omittingEmptySubsequences: false)
        if !(0...text.count).contains(error.offset) { return "\(text.debugDescription): offset \(error.offset) outside the text" }
        if lines.count != 2 || lines[1].count != caretColumn(of: error) + 1 { return "\(text.debugDescription): bad caret diagram" }
        if error.message.isEmpty || error.message.contains("\n") { return "\(text.debugDescription): bad message" }
        return nil
    }
}

private let fragments = [
    "name", " ", " ", "==", "=", "!=", "<>", "<", ">=", "=>", "(", ")", "AND", "or", "NOT", "!", "&&", "||", "{", "}",
    ",", ".", "\"", "'", "\"str\"", "'it\\'s'", "\\", "\\u", "\\u00e9", "\\uD83D", "%@", "%K", "%d", "%f", "%", "ANY",
    "ALL", "NONE", "some", "@count", "@sum", "@", "[c]", "[cd]", "[x]", "[", "]", "$x", "$", "SUBQUERY(", "CAST(",
    "\"NSDate\"", "'2024-01-01'", "FUNCTION(", "42", "-", "-7", "1.5e", "1e3", "0x", "0x1F", "0b2", "#", "#date",
    "BETWEEN", "IN", "CONTAINS", "LIKE", "BEGINSWITH", "matches", "TRUEPREDICATE", "nil", "YES", "SELF", "first",
    "é", "\u{301}", "👍🏽", "\n", "\t", "~", ";", "*", "+", "日本",
]

private let argumentPool = ["1", "-2.5", "a", "nil", "YES", "x.y", "books.@count", "a b", "", "2024-01-01T00:00:00Z", "\"q\""]

private func randomArguments(_ rng: inout SeededGenerator) -> [String] {
    (0..<Int.random(in: 0...3, using: &rng)).map { _ in argumentPool.randomElement(using: &rng)! }
}

@Test func randomTokenSoupNeverCrashes() {
    var rng = SeededGenerator(seed: 0x5EED_0001)
    var problems: [String] = []
    for _ in 0..<5000 {
        let text = (0..<Int.random(in: 0...14, using: &rng)).map { _ in fragments.randomElement(using: &rng)! }.joined()
        if let problem = problem(parsing: text, arguments: randomArguments(&rng)) { problems.append(problem) }
    }
    #expect(problems.isEmpty, "\(problems.prefix(10))")
}

private let seedFormats: [(String, [String])] =
    realPredicates.map { ($0.format, $0.arguments) } + [
        ("a == 1 OR b == 2 AND NOT (c == 3 || d IN {1, 2, 'x'})", []),
        ("ANY tags.name BEGINSWITH[cd] 'sw' AND ALL scores BETWEEN {1, 10}", []),
        ("name MATCHES '^[a-z]+\\\\d$' AND #date > CAST(726000000, \"NSDate\")", []),
        ("%K == %d AND x > %f AND y LIKE[c] %@", ["a.b", "3", "2.5", "*x?"]),
        ("SUBQUERY(items, $i, $i.price > 10 AND $i.tags.@count == 0).@count >= 2 OR FALSEPREDICATE", []),
        ("x == \"caf\\u00e9 \\\"q\\\" \\n\" AND y != 0x1F AND z < -0b101", []),
    ]

@Test func mutatedPredicatesNeverCrash() {
    var rng = SeededGenerator(seed: 0x5EED_0002)
    var problems: [String] = []
    for _ in 0..<5000 {
        let (format, baseArguments) = seedFormats.randomElement(using: &rng)!
        let mutated = TextMutation.mutate(format, fragments: fragments, longestDeletion: 3, longestRepeat: 8, using: &rng)
        var arguments = baseArguments
        switch Int.random(in: 0...5, using: &rng) {
        case 0: arguments.append(argumentPool.randomElement(using: &rng)!)
        case 1 where !arguments.isEmpty: arguments.removeLast()
        default: break
        }
        if let problem = problem(parsing: mutated, arguments: arguments) { problems.append(problem) }
    }
    #expect(problems.isEmpty, "\(problems.prefix(10))")
}

/// Builds random trees of the shapes the parser produces.
private struct TreeGenerator {
    var rng: SeededGenerator

    static let keys = ["name", "date", "first", "AND", "in", "SELF", "ci", "x_1", "名前", "é", "_private", "trueName"]
    static let variables = ["x", "b", "NOW", "count"]
    static let stringPieces = [
        "a", "Z", " ", "\"", "'", "\\", "\n", "\t", "\r\n", "é", "e\u{301}", "\u{301}", "🏽",
        "👍🏽", "👨‍👩‍👧", "\u{200D}", "\u{0}", "\u{7F}", "*", "?", "%@", "日", "\u{600}", "🇺", "🇸", "1", "u",
    ]

    mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &rng)! }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

    mutating func predicate(depth: Int) -> CDPredicate.Predicate {
        switch depth > 2 ? 0 : Int.random(in: 0...5, using: &rng) {
        case 1: return .constant(chance(50))
        case 2: return .not(predicate(depth: depth + 1))
        case 3: return .and(operands(depth: depth))
        case 4: return .or(operands(depth: depth))
        default: return .comparison(comparison(depth: depth))
        }
    }

    mutating func operands(depth: Int) -> [CDPredicate.Predicate] {
        var operands: [CDPredicate.Predicate] = []
        for _ in 0..<Int.random(in: 2...3, using: &rng) { operands.append(predicate(depth: depth + 1)) }
        return operands
    }

    mutating func comparison(depth: Int) -> Comparison {
        let op = pick(ComparisonOperator.allCases)
        var options: ComparisonOptions = []
        for (_, option) in [
            ("c", ComparisonOptions.caseInsensitive), ("d", .diacriticInsensitive),
            ("n", .normalized), ("l", .localeSensitive),
        ] where chance(25) {
            options.insert(option)
        }
        let left = expression(depth: depth)
        let right =
            op == .between && chance(70)
            ? .aggregate([expression(depth: depth + 1), expression(depth: depth + 1)])
            : nonAggregate(depth: depth)
        return Comparison(left, op, right, options: options, quantifier: pick(ComparisonQuantifier.allCases))
    }

    /// BETWEEN only accepts two-element aggregates, so its operand avoids other aggregates.
    mutating func nonAggregate(depth: Int) -> CDPredicate.Expression {
        while true {
            let candidate = expression(depth: depth)
            if case .aggregate = candidate { continue }
            return candidate
        }
    }

    mutating func expression(depth: Int) -> CDPredicate.Expression {
        switch Int.random(in: 0...(depth > 2 ? 4 : 8), using: &rng) {
        case 0, 1: return .constant(value())
        case 2: return .keyPath(components(allowingLeadingOperator: true))
        case 3: return chance(50) ? .evaluatedObject : .variable(pick(Self.variables))
        case 4: return .path(.variable(pick(Self.variables)), components(allowingLeadingOperator: true))
        case 5:
            var elements: [CDPredicate.Expression] = []
            for _ in 0..<Int.random(in: 0...3, using: &rng) { elements.append(expression(depth: depth + 1)) }
            return .aggregate(elements)
        case 6:
            let subquery = CDPredicate.Expression.subquery(
                collection: .keyPath(components(allowingLeadingOperator: false)),
                variable: pick(Self.variables), predicate: predicate(depth: depth + 1))
            return chance(70) ? .path(subquery, [.collectionOperator(.count)]) : subquery
        case 7: return .cast(.keyPath(components(allowingLeadingOperator: false)), type: pick(["NSString", "NSNumber", "NSDate"]))
        default: return .constant(.date(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &rng))))
        }
    }

    mutating func components(allowingLeadingOperator: Bool) -> [KeyPathComponent] {
        var components: [KeyPathComponent] = []
        for index in 0..<Int.random(in: 1...3, using: &rng) {
            if (index > 0 || allowingLeadingOperator) && chance(25) {
                components.append(.collectionOperator(pick(CollectionOperator.allCases)))
            } else {
                components.append(.key(pick(Self.keys)))
            }
        }
        return components
    }

    mutating func value() -> Value {
        switch Int.random(in: 0...6, using: &rng) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return .integer(pick([Int64.min, Int64.max, 0, -1, Int64.random(in: .min ... .max, using: &rng)]))
        case 3:
            let bits = Double(bitPattern: rng.next())
            return .double(bits.isFinite ? bits : pick([0.5, -2.25, 1e300, .leastNonzeroMagnitude]))
        case 4: return .double(Double.random(in: -1e6...1e6, using: &rng))
        default:
            var string = ""
            for _ in 0..<Int.random(in: 0...6, using: &rng) { string += pick(Self.stringPieces) }
            return .string(string)
        }
    }
}

@Test func randomTreesRoundTripThroughTheirDescription() {
    var generator = TreeGenerator(rng: SeededGenerator(seed: 0x5EED_0003))
    var problems: [String] = []
    for _ in 0..<3000 {
        let tree = generator.predicate(depth: 0)
        let printed = tree.description
        do {
            let reparsed = try PredicateParser.parse(printed)
            if reparsed != tree { problems.append("\(printed.debugDescription) parsed to \(reparsed.description.debugDescription)") }
        } catch {
            problems.append("\(printed.debugDescription): \(error)")
        }
    }
    #expect(problems.isEmpty, "\(problems.prefix(10))")
}
