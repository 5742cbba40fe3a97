import CDFetch
import CDModel
import CDPredicate
import CDTestSupport
import Foundation
import Testing

/// Foundation has a `SortDescriptor` too.
typealias Sort = CDModel.SortDescriptor

/// A CDQ chain and the request it must give; the predicate is written in its canonical format,
/// which tells strings from numbers and shows the nesting.
struct CDQCase: Sendable, CustomTestStringConvertible {
    var chain: String
    var expected: FetchRequest
    var predicate: String?

    init(
        _ chain: String, _ predicate: String? = nil, entity: String = "Author", sort: [Sort] = [],
        limit: Int? = nil, offset: Int? = nil, result: FetchResultKind = .objects, takesLast: Bool = false
    ) {
        self.chain = chain
        self.predicate = predicate
        self.expected = FetchRequest(
            entity: entity, sortDescriptors: sort, limit: limit, offset: offset,
            result: result, takesLast: takesLast)
    }

    var testDescription: String { chain }
}

/// The parsed request, its predicate replaced by that predicate's canonical text.
private func parsed(_ chain: String, now: Date = Date()) throws -> (FetchRequest, String?) {
    var request = try CDQParser.parse(chain, now: now)
    let predicate = request.predicate?.description
    request.predicate = nil
    return (request, predicate)
}

private func check(_ example: CDQCase) throws {
    let (request, predicate) = try parsed(example.chain)
    #expect(predicate == example.predicate)
    #expect(request == example.expected)
}

private let createdAt = Sort(key: "created_at")

/// The query examples of CDQ's README (Conditions; Sorts, Limits and Offsets; Conjunctions;
/// Nested Conjunctions; Named Scopes, expanded; the master method), with runnable values.
let cdqReadmeExamples: [CDQCase] = [
    CDQCase("Author.where(:name).eq('Shakespeare')", "name == \"Shakespeare\""),
    CDQCase("Author.where(:publish_count).gt(10)", "publish_count > 10"),
    CDQCase(
        "Author.where(name: 'Shakespeare', publish_count: 15)",
        "name == \"Shakespeare\" AND publish_count == 15"),
    CDQCase("Author.where(\"name LIKE %@\", '*kesp*')", "name LIKE \"*kesp*\""),
    CDQCase("Author.sort_by(:created_at).limit(1).offset(10)", sort: [createdAt], limit: 1, offset: 10),
    CDQCase(
        "Author.sort_by(:created_at, order: :descending)",
        sort: [Sort(key: "created_at", ascending: false)]),
    CDQCase(
        "Author.sort_by(:created_at, case_insensitive: true)",
        sort: [Sort(key: "created_at", comparison: .localizedCaseInsensitiveCompare)]),
    CDQCase(
        "Author.where(:created_at).ge(Time.parse('2024-05-30')).and.lt(Time.parse('2024-05-31'))",
        "created_at >= CAST(738720000.0, \"NSDate\") AND created_at < CAST(738806400.0, \"NSDate\")"),
    CDQCase(
        "Author.where(:name).contains(\"Emily\").and(cdq(:pub_count).gt(100).or.lt(10))",
        "name CONTAINS \"Emily\" AND (pub_count > 100 OR pub_count < 10)"),
    CDQCase(
        "Author.where(:name).begins_with('A').where(:publish_count).gt(99).limit(5)",
        "name BEGINSWITH \"A\" AND publish_count > 99", limit: 5),
    CDQCase("cdq('Author').where(:name).eq('Shakespeare')", "name == \"Shakespeare\""),
    CDQCase("cdq('Author').where(:publish_count).gt(10)", "publish_count > 10"),
    CDQCase("cdq('Author').sort_by(:created_at).limit(1).offset(10)", sort: [createdAt], limit: 1, offset: 10),
    CDQCase("Author.first", limit: 1),
    CDQCase(
        "Author.where(:name).eq('Shakespeare').sort_by(:created_at).limit(1)", "name == \"Shakespeare\"",
        sort: [createdAt], limit: 1),
    CDQCase(
        "Author.where(:name).ne('Shakespeare').and(:publish_count).gt(10)",
        "name != \"Shakespeare\" AND publish_count > 10"),
    CDQCase("Author.where(cdq(:pub_count).gt(100).or.lt(10))", "pub_count > 100 OR pub_count < 10"),
]

/// Examples from the doc comments of CDQ's sources (`query.rb`, `targeted_query.rb`,
/// `managed_object.rb`), with the entity written out.
let cdqSourceExamples: [CDQCase] = [
    CDQCase(
        "Author.where(:name).equal(\"Chuck\").and(:title).not_equal(\"Manager\")",
        "name == \"Chuck\" AND title != \"Manager\""),
    CDQCase(
        "Author.where(:name).contains(\"Chuck\").and.contains(\"Norris\")",
        "name CONTAINS \"Chuck\" AND name CONTAINS \"Norris\""),
    CDQCase("Author.sum(:fee)", result: .aggregate(.sum, keyPath: "fee")),
    CDQCase("Author.average(:fee)", result: .aggregate(.average, keyPath: "fee")),
    CDQCase("Author.min(:fee)", result: .aggregate(.min, keyPath: "fee")),
    CDQCase("Author.max(:fee)", result: .aggregate(.max, keyPath: "fee")),
    CDQCase("MyEntity.where(:name).eq(\"John\").limit(2)", "name == \"John\"", entity: "MyEntity", limit: 2),
    CDQCase("MyEntity.first", entity: "MyEntity", limit: 1),
    CDQCase(
        "MyEntity.sort_by(:title)[4]", entity: "MyEntity", sort: [Sort(key: "title")],
        limit: 1, offset: 4),
    CDQCase("MyEntity.where(:created_by => 'john')", "created_by == \"john\"", entity: "MyEntity"),
    CDQCase(
        "Author.where(cdq(:published).eq(true).sort_by(:published_at).limit(1)).first", "published == TRUE",
        sort: [Sort(key: "published_at")], limit: 1),
]

/// Every operator, alias, literal and terminal.
let cdqFeatureExamples: [CDQCase] = [
    CDQCase("Author.where(:a).eq(1).or(:b).eq(2).and(:c).eq(3)", "(a == 1 OR b == 2) AND c == 3"),
    CDQCase("Author.where(:a).eq(1).and(:b).eq(2).and(:c).eq(3)", "a == 1 AND b == 2 AND c == 3"),
    CDQCase("Author.where(:a).eq(1).and(b: 2, c: 3)", "a == 1 AND (b == 2 AND c == 3)"),
    CDQCase("Author.where(b: 2).and(c: 3)", "b == 2 AND c == 3"),
    CDQCase("Author.where(\"a == 1 OR b == 2\").and(:c).eq(3)", "(a == 1 OR b == 2) AND c == 3"),
    CDQCase("Author.or(:a).eq(1)", "a == 1"),
    CDQCase("Author.where(:a).gt(1).and().lt(5).or.eq(9)", "(a > 1 AND a < 5) OR a == 9"),
    CDQCase(
        "Author.where(:a).less_than(1).or(:a).less_than_or_equal(2).or(:a).greater_than(3)"
            + ".or(:a).greater_than_or_equal(4)", "a < 1 OR a <= 2 OR a > 3 OR a >= 4"),
    CDQCase(
        "Author.where(:a).le(1).and(:b).ge(2).and(:c).include('x').and(:d).ends_with('y')",
        "a <= 1 AND b >= 2 AND c CONTAINS \"x\" AND d ENDSWITH \"y\""),
    CDQCase("Author.where(:name).matches('^A.*$')", "name MATCHES \"^A.*$\""),
    CDQCase("Author.where(:id).in([1, 2, 3])", "id IN {1, 2, 3}"),
    CDQCase("Author.where(:id).in([])", "id IN {}"),
    CDQCase("Author.where(:count).between(1, 5.5)", "count BETWEEN {1, 5.5}"),
    CDQCase(
        "Author.where(:name).eq('x', NSCaseInsensitivePredicateOption | NSDiacriticInsensitivePredicateOption)",
        "name ==[cd] \"x\""),
    CDQCase("Author.where(:name).contains('x', 1)", "name CONTAINS[c] \"x\""),
    CDQCase("Author.where(:name).eq(nil).and(:alive).eq(false)", "name == nil AND alive == FALSE"),
    CDQCase(
        "Author.where(:n).eq(-3).or.eq(1_000).or.eq(0x1F).or.eq(-2.5e3)",
        "n == -3 OR n == 1000 OR n == 31 OR n == -2500.0"),
    CDQCase(
        "Author.where(:name).eq(\"a\\\"b\\n\\u00e9\\u{1F600}\\x41\\101\\s\")",
        "name == \"a\\\"b\\né😀AA \""),
    CDQCase("Author.where(:name).eq('it\\'s \\n \\\\')", "name == \"it's \\\\n \\\\\""),
    CDQCase(
        "Author.where(:'author.name').eq('x').and(:\"books.@count\").gt(2)",
        "author.name == \"x\" AND books.@count > 2"),
    CDQCase("Author.sort_by('author.name')", sort: [Sort(key: "author.name")]),
    CDQCase("Author.where(:in).eq(1)", "#in == 1"),
    CDQCase(
        "Author.where(\"count > %@ AND name == %@ AND id IN %@\", 5, '5', [1, 2])",
        "count > 5 AND name == \"5\" AND id IN {1, 2}"),
    CDQCase("Author.where(\"%K == %d OR %K > %f\", 'name', 3, 'fee', 2)", "name == 3 OR fee > 2.0"),
    CDQCase("Author.where({name: 'x'})", "name == \"x\""),
    CDQCase("Author.where(\"name\": 'x', 'fee': 2,)", "name == \"x\" AND fee == 2"),
    CDQCase("Author\n  .where(:name)\n  .eq('x')\n  .first(3)", "name == \"x\"", limit: 3),
    CDQCase("cdq(Author).all.where(:a).eq(1).all", "a == 1"),
    CDQCase("cdq(\"Author\").to_a"),
    CDQCase("Author.array"),
    CDQCase("Author.all()"),
    CDQCase("Author.limit(10).first", limit: 1),
    CDQCase("Author.limit(2).first(5)", limit: 2),
    CDQCase("Author.limit(0)"),
    CDQCase("Author.limit(5).limit(nil).offset(nil)"),
    CDQCase("Author.sort_by(:name).last", sort: [Sort(key: "name")], limit: 1, takesLast: true),
    CDQCase("Author.last(3)", limit: 3, takesLast: true),
    CDQCase("Author.where(:a).eq(1).count", "a == 1", result: .count),
    CDQCase("Author.size()", result: .count),
    CDQCase("Author.length", result: .count),
    CDQCase("Author.minimum(:fee)", result: .aggregate(.min, keyPath: "fee")),
    CDQCase("Author.maximum('fee')", result: .aggregate(.max, keyPath: "fee")),
    CDQCase("Author.calculate(:count, :fee)", result: .aggregate(.count, keyPath: "fee")),
    CDQCase("Author[2, 5]", limit: 5, offset: 2),
    CDQCase(
        "Author.sort_by(:a).sort_by(:b, :desc).sort_by(:c, 'ascending')"
            + ".sort_by(:d, order: :desc, case_insensitive: true).sort_by(:e, :order => :descending)",
        sort: [
            Sort(key: "a"), Sort(key: "b", ascending: false),
            Sort(key: "c"),
            Sort(key: "d", ascending: false, comparison: .localizedCaseInsensitiveCompare),
            Sort(key: "e", ascending: false),
        ]),
    CDQCase("Author.sort_by(:a, {case_insensitive: false})", sort: [Sort(key: "a")]),
    CDQCase(
        "Author.where(:a).eq(1).and(cdq(:b).eq(2).limit(3).offset(4).sort_by(:c)).limit(5)",
        "a == 1 AND b == 2", sort: [Sort(key: "c")], limit: 5, offset: 4),
    CDQCase(
        "Author.where(cdq(:a).eq(1).and(cdq(:b).eq(2).or(cdq(:c).eq(3))))",
        "a == 1 AND (b == 2 OR c == 3)"),
    CDQCase(
        "Author.where(:born).lt(Time.utc(1970, 1, 2)).and.gt(Time.at(0))",
        "born < CAST(-978220800.0, \"NSDate\") AND born > CAST(-978307200.0, \"NSDate\")"),
    CDQCase(
        "Author.where(:born).eq(Time.iso8601('2001-01-01T00:00:10Z')).or.eq(Time.gm(2001))",
        "born == CAST(10.0, \"NSDate\") OR born == CAST(0.0, \"NSDate\")"),
]

@Test(arguments: cdqReadmeExamples)
func parsesCDQReadmeExamples(_ example: CDQCase) throws { try check(example) }

@Test(arguments: cdqSourceExamples)
func parsesCDQSourceExamples(_ example: CDQCase) throws { try check(example) }

@Test(arguments: cdqFeatureExamples)
func parsesCDQFeatures(_ example: CDQCase) throws { try check(example) }

@Test func keepsRubyLiteralTypesInComparisons() throws {
    let request = try CDQParser.parse("Author.where(:a).eq('15').and(:b).eq(15).and(:c).eq(1.5).and(:d).eq(true)")
    #expect(
        request.predicate
            == .and([
                cmp(key("a"), .equal, str("15")), cmp(key("b"), .equal, int(15)),
                cmp(key("c"), .equal, dbl(1.5)), cmp(key("d"), .equal, bool(true)),
            ]))
}

@Test func timeNowIsTheGivenClock() throws {
    let now = Date(timeIntervalSinceReferenceDate: 12_345)
    for clock in ["Time.now", "NSDate.date", "Time.new()"] {
        let chain = "Author.where(:at).lt(\(clock))"
        let (_, predicate) = try parsed(chain, now: now)
        #expect(predicate == "at < CAST(12345.0, \"NSDate\")")
    }
}

@Test func readsLocalTimesInTheLocalZone() throws {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .current
    let blake = calendar.date(from: DateComponents(year: 1700, month: 1, day: 1))!
    let request = try CDQParser.parse("Author.where(:name).eq('Blake').and(:first_published).le(Time.local(1700))")
    #expect(
        request.predicate
            == .and([
                cmp(key("name"), .equal, str("Blake")),
                cmp(key("first_published"), .lessOrEqual, .constant(.date(blake))),
            ]))
    let noon = calendar.date(from: DateComponents(year: 2024, month: 5, day: 31, hour: 12, minute: 30, second: 15))!
    #expect(
        try CDQParser.parse("Author.where(:a).eq(Time.mktime(2024, 5, 31, 12, 30, 15))").predicate
            == cmp(key("a"), .equal, .constant(.date(noon))))
}

/// A chain that must fail, the offset the error must point at and a phrase of its message.
struct CDQErrorCase: Sendable, CustomTestStringConvertible {
    var chain: String
    var offset: Int
    var phrase: String

    init(_ chain: String, at offset: Int, _ phrase: String) {
        self.chain = chain
        self.offset = offset
        self.phrase = phrase
    }

    var testDescription: String { chain }
}

let cdqErrorExamples: [CDQErrorCase] = [
    CDQErrorCase("", at: 0, "the query is empty"),
    CDQErrorCase("   ", at: 3, "the query is empty"),
    CDQErrorCase("author.where(:a).eq(1)", at: 0, "expected an entity name"),
    CDQErrorCase("cdq(:author).where(:a).eq(1)", at: 4, "starts a condition on the attribute \"author\""),
    CDQErrorCase("cdq('')", at: 4, "the entity name is empty"),
    CDQErrorCase("cdq(1)", at: 4, "expected an entity name such as 'Author'"),
    CDQErrorCase("Foo::Author.first", at: 3, "namespaced constants"),
    CDQErrorCase("Author.foo", at: 7, "unknown query method .foo"),
    CDQErrorCase("Author.where(:name).foo(1)", at: 20, "unknown comparison .foo on :name"),
    CDQErrorCase("Author.where(:name)", at: 19, "expected a comparison such as .eq(…)"),
    CDQErrorCase("Author.where(:name).eq", at: 22, "expected \"(\" and a value after \"eq\""),
    CDQErrorCase("Author.where(:name).eq 'x'", at: 23, "write the arguments in parentheses"),
    CDQErrorCase("Author.where(:name).eq('x'", at: 26, "expected \")\" to close .eq("),
    CDQErrorCase("Author.where(name: 'x').and.lt(3)", at: 24, ".and without an argument"),
    CDQErrorCase("Author.where(:a).gt(1).limit(2).or.lt(3)", at: 32, ".or without an argument"),
    CDQErrorCase("Author.where(:created_at).ge(yesterday).and.lt(today)", at: 29, "yesterday is a Ruby variable"),
    CDQErrorCase("Author.where(:a).eq(:b)", at: 20, "a symbol names a key"),
    CDQErrorCase("Author.where(:a).eq(Foo)", at: 20, "the constant Foo cannot be evaluated"),
    CDQErrorCase("Author.where(:a).eq([1, 2])", at: 20, "an array is a value only for .in"),
    CDQErrorCase("Author.where(:a).in([1, [2]])", at: 24, "an array is a value only"),
    CDQErrorCase("Author.where(:a).in([1, 2)", at: 25, "expected \",\" or \"]\" in the array"),
    CDQErrorCase("Author.where(:a).between(1)", at: 26, "expected \",\" and the upper bound"),
    CDQErrorCase("Author.where(:a).eq(1, NSFooOption)", at: 23, "unknown comparison option NSFooOption"),
    CDQErrorCase("Author.where(:a).eq(1, 16)", at: 23, "unknown comparison option bits 16"),
    CDQErrorCase("Author.where(\"name LIKE '%@'\", '%kesp%')", at: 28, "a quoted '%@' is a string"),
    CDQErrorCase("Author.where(\"name LIKE %@\")", at: 24, "in the format string: too few arguments"),
    CDQErrorCase("Author.where(\"name ==\\t\\\"x\\\" AN b\")", at: 29, "in the format string: expected AND, OR"),
    CDQErrorCase("Author.where(\"%d > 1\", 'x')", at: 14, "for %d must be an integer"),
    CDQErrorCase("Author.where(:a).eq('x\")", at: 24, "unterminated string"),
    CDQErrorCase("Author.where(:a).eq(\"#{x}\")", at: 21, "string interpolation"),
    CDQErrorCase("Author.where(:a).eq(\"\\u12\")", at: 21, "four hexadecimal digits"),
    CDQErrorCase("Author.where(:a).eq(\"\\u{D800}\")", at: 21, "not a Unicode scalar value"),
    CDQErrorCase("Author.where(:a).eq(99999999999999999999)", at: 20, "too large for a 64-bit integer"),
    CDQErrorCase("Author.where(:a).eq(12abc)", at: 22, "after a number"),
    CDQErrorCase("Author.where(:a).eq(1 + 2)", at: 22, "arithmetic"),
    CDQErrorCase("Author.where(:a).eq(1) ; x", at: 23, "unexpected \";\""),
    CDQErrorCase("Author.where(:'a..b').eq(1)", at: 13, "is not a key path"),
    CDQErrorCase("Author.where('books.@count').gt(2)", at: 26, "in the format string: expected a comparison operator"),
    CDQErrorCase("Author.where(1)", at: 13, "expected a key such as :name, a hash"),
    CDQErrorCase("Author.where(:a => 1, 'b' => 2)", at: 22, "expected a key such as name:"),
    CDQErrorCase("Author.where(cdq('Author'))", at: 17, "expected a key such as :name"),
    CDQErrorCase("Author.where(cdq(:a))", at: 20, "expected a comparison"),
    CDQErrorCase("Author.where(cdq(:a).eq(1).first)", at: 27, ".first cannot be used inside a condition"),
    CDQErrorCase("Author.count.first", at: 12, "nothing can follow .count"),
    CDQErrorCase("Author[1].first", at: 9, "nothing can follow […]"),
    CDQErrorCase("Author.limit(2).last", at: 16, ".last counts back from the end"),
    CDQErrorCase("Author.first(0)", at: 13, ".first needs at least one object"),
    CDQErrorCase("Author.limit(-1)", at: 13, "cannot be negative"),
    CDQErrorCase("Author.limit('5')", at: 13, "expected a number of objects"),
    CDQErrorCase("Author.count(1)", at: 13, ".count takes no arguments"),
    CDQErrorCase("Author.sum", at: 10, "expected \"(\" and the attribute to sum"),
    CDQErrorCase("Author.calculate(:median, :fee)", at: 17, "unknown function \"median\""),
    CDQErrorCase("Author.sort_by(:a, order: :sideways)", at: 26, "unknown sort order \"sideways\""),
    CDQErrorCase("Author.sort_by(:a, reverse: true)", at: 19, "unknown sort option \"reverse\""),
    CDQErrorCase("Author.sort_by(:a, case_insensitive: 1)", at: 37, "case_insensitive: takes true or false"),
    CDQErrorCase("Author.each", at: 7, ".each takes a Ruby block"),
    CDQErrorCase("Author.create(name: \"Le Guin\", publish_count: 150)", at: 7, ".create changes data"),
    CDQErrorCase("cdq('Author').scope :a_authors, cdq(:name).begins_with('A')", at: 14, ".scope defines a named scope"),
    CDQErrorCase("Author.prolific.a_authors.limit(5)", at: 7, "unknown query method .prolific"),
    CDQErrorCase("Author.where(:a).eq(1) .", at: 24, "expected a method name"),
    CDQErrorCase("Author where(:a)", at: 7, "expected a method call such as .where"),
    CDQErrorCase("Author.where(:a).eq(Time.yesterday)", at: 25, "unknown date method Time.yesterday"),
    CDQErrorCase("Author.where(:a).eq(Time.parse('May 31'))", at: 31, "is not an ISO-8601 date"),
    CDQErrorCase("Author.where(:a).eq(Time.utc(2024, 13))", at: 35, "the month must be 1…12"),
    CDQErrorCase("Author.where(:a).eq(Time.now(1))", at: 29, ".now takes no arguments"),
    CDQErrorCase(
        String(repeating: "Author.where(", count: 1) + String(repeating: "cdq(:a).eq(1).and(", count: 120),
        at: 1813, "nested more than 100 levels"),
]

@Test(arguments: cdqErrorExamples)
func reportsCDQErrorsWithTheirPosition(_ example: CDQErrorCase) {
    #expect {
        _ = try CDQParser.parse(example.chain)
    } throws: { error in
        guard let error = error as? CDPredicate.PredicateError else { return false }
        #expect(error.offset == example.offset, "\(error.message)")
        #expect(error.message.contains(example.phrase), "\(error.message)")
        #expect(error.text == example.chain)
        return true
    }
}

@Test func typedArgumentsKeepTheirTypes() throws {
    let date = Date(timeIntervalSinceReferenceDate: 0)
    let format = "a == %@ AND b == %@ AND c IN %@ AND %K > %f AND e < %d AND f > CAST(%@, \"NSDate\")"
    let predicate = try PredicateParser.parse(
        format,
        typedArguments: [
            str("7"), int(7), .aggregate([int(1), str("x")]), str("d.@count"), int(2), int(-1), .constant(.date(date)),
        ])
    #expect(
        predicate
            == .and([
                cmp(key("a"), .equal, str("7")), cmp(key("b"), .equal, int(7)),
                cmp(key("c"), .in, .aggregate([int(1), str("x")])), cmp(key("d.@count"), .greater, dbl(2)),
                cmp(key("e"), .less, int(-1)), cmp(key("f"), .greater, .constant(.date(date))),
            ]))
    let (_, printed) = try parsed("Author.where(\"created > %@\", Time.parse('2001-01-01T00:01:00Z'))")
    #expect(printed == "created > CAST(60.0, \"NSDate\")")
}

@Test(
    arguments: [
        ("%K == 1", [int(1)], 0, "for %K must be a key path string"),
        ("x > %f", [str("1")], 4, "for %f must be a number"),
        ("x > %d", [dbl(1.5)], 4, "for %d must be an integer"),
        ("x == %@", [int(1), int(2)], 7, "too many arguments"),
        ("x == %@ OR y == %@", [int(1)], 16, "too few arguments"),
        ("x BETWEEN %@", [.aggregate([int(1)])], 10, "BETWEEN needs exactly two values"),
    ] as [(String, [CDPredicate.Expression], Int, String)])
func typedArgumentsAreChecked(_ format: String, _ arguments: [CDPredicate.Expression], _ offset: Int, _ phrase: String) {
    #expect {
        _ = try PredicateParser.parse(format, typedArguments: arguments)
    } throws: { error in
        guard let error = error as? CDPredicate.PredicateError else { return false }
        #expect(error.offset == offset, "\(error.message)")
        #expect(error.message.contains(phrase), "\(error.message)")
        return true
    }
}

/// CDQ strings decode Ruby's escapes: bytes from `\x` and octal escapes form UTF-8, `\u{…}` may
/// hold several code points.
@Test func cdqStringsDecodeRubyEscapes() throws {
    let request = try CDQParser.parse(#"Author.where(:a).eq("\xC3\xA9\101\u{42 43}")"#)
    #expect(request.predicate == cmp(key("a"), .equal, str("éABC")))
    #expect(throws: CDPredicate.PredicateError.self) { try CDQParser.parse(#"Author.where(:a).eq("\xFF")"#) }
}
