import CDFetch
import CDPredicate
import CDTestSupport
import Foundation
import Testing

/// Parses `text` as a query and returns what is wrong with the outcome, if anything: an error must
/// point into the text with a one-line message; a predicate must survive printing and re-parsing.
private func problem(parsingQuery text: String, arguments: [String] = []) -> String? {
    do {
        let now = Date(timeIntervalSinceReferenceDate: 0)
        let request = try QueryExpression.parse(text, arguments: arguments, now: now)
        guard let predicate = request.predicate else { return nil }
        guard let reparsed = try? PredicateParser.parse(predicate.description), reparsed == predicate else {
            return "\(text.debugDescription) printed as \(predicate.description.debugDescription) does not parse back"
        }
        return nil
    } catch {
        let lines = error.caretDiagram.split(separator: "\n", omittingEmptySubsequences: false)
        let quoted = text.debugDescription
        if !(0...text.count).contains(error.offset) { return "\(quoted): offset \(error.offset) outside the text" }
        if error.text != text { return "\(quoted): the error quotes other text" }
        if lines.count != 2 || lines[1].count != caretColumn(of: error) + 1 { return "\(quoted): bad caret diagram" }
        if error.message.isEmpty || error.message.contains("\n") { return "\(quoted): bad message" }
        return nil
    }
}

private let cdqFragments = [
    "Author", "cdq(", "cdq('Author')", ":name", ":'a.b'", ":\"x\"", ".", ".where", ".and", ".or", "(", ")", "[", "]",
    ",", "eq", "ne", ".gt(", ".in(", ".between(", ".sort_by(", ".limit(", ".offset(", ".first", ".last", ".count",
    ".sum(", ".calculate(", "name:", " => ", "{", "}", "|", "'", "\"", "'x'", "\"a\\\"b\"", "\"#{x}\"", "\\", "\\u{",
    "\\u12", "\\x4", "1", "-2", "1.5", "1e9", "0x", "9999999999999999999999", "1_0", "true", "nil", "yesterday",
    "Time.now", "Time.parse('2024-01-01')", "Time.utc(", "Time.at(", "NSCaseInsensitivePredicateOption", " ", "\n",
    "\"name LIKE %@\"", "\"%K == %d\"", "'%@'", "order: :desc", "case_insensitive: true", "::", ":", "?", "!", "é",
    "\u{301}", "👍🏽", "日本", ";", "+", "where", " sort by ", " limit ", " offset ", "WHERE", "==", "%@",
]

private let validChains =
    cdqReadmeExamples.map(\.chain) + cdqSourceExamples.map(\.chain)
    + cdqFeatureExamples.map(\.chain) + [
        "Author where name LIKE[c] 'a*' AND (x == 1 OR y IN {1, 2}) sort by name desc, b limit 5 offset 2",
        "Author where title == 'sort by limit 5' limit 2",
    ]

@Test func randomCDQTokenSoupNeverCrashes() {
    var rng = SeededGenerator(seed: 0xCD0_0001)
    var problems: [String] = []
    for _ in 0..<5000 {
        var text = Bool.random(using: &rng) ? "Author" : ""
        for _ in 0..<Int.random(in: 0...14, using: &rng) { text += cdqFragments.randomElement(using: &rng)! }
        let arguments = Int.random(in: 0...4, using: &rng) == 0 ? ["1"] : []
        if let problem = problem(parsingQuery: text, arguments: arguments) { problems.append(problem) }
    }
    #expect(problems.isEmpty, "\(problems.prefix(10))")
}

@Test func mutatedCDQChainsNeverCrash() {
    var rng = SeededGenerator(seed: 0xCD0_0002)
    var problems: [String] = []
    for _ in 0..<5000 {
        let mutated = TextMutation.mutate(validChains.randomElement(using: &rng)!, fragments: cdqFragments, longestDeletion: 4, longestRepeat: 10, using: &rng)
        if let problem = problem(parsingQuery: mutated) { problems.append(problem) }
    }
    #expect(problems.isEmpty, "\(problems.prefix(10))")
}

@Test func validChainsRoundTripTheirPredicates() {
    let problems = validChains.compactMap { problem(parsingQuery: $0) }
    #expect(problems.isEmpty, "\(problems.prefix(10))")
}
