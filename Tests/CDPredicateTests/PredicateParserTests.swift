import CDPredicate
import CDTestSupport
import Foundation
import Testing

/// Predicates from docs/format/sqldebug.md (Core Data logs) and the issue's seed examples.
let realPredicates: [ParseCase] = [
    ParseCase("age > %@", ["18"], cmp(key("age"), .greater, int(18))),
    ParseCase("wordCategory.firstLetter == \"s\"", cmp(key("wordCategory.firstLetter"), .equal, str("s"))),
    ParseCase(
        "%K > %@", ["timestamp", "2026-11-22T06:00:00Z"],
        cmp(key("timestamp"), .greater, str("2026-11-22T06:00:00Z"))),
    ParseCase(
        "%K > CAST(%@, \"NSDate\")", ["timestamp", "2001-01-02T00:00:00Z"],
        cmp(key("timestamp"), .greater, .constant(.date(Date(timeIntervalSinceReferenceDate: 86_400))))),
    ParseCase("attachments.@count > 2", cmp(key("attachments.@count"), .greater, int(2))),
    ParseCase("$count > 40", cmp(.variable("count"), .greater, int(40))),
    ParseCase("manyBs.@count == 0", cmp(key("manyBs.@count"), .equal, int(0))),
    ParseCase("manyAs.@count == 0", cmp(key("manyAs.@count"), .equal, int(0))),
    ParseCase("NONE manyBs != nil", cmp(key("manyBs"), .notEqual, null, [], .none)),
    ParseCase(
        "(playlist != nil AND playlist == %@) AND group == %@", ["p1", "News"],
        .and([
            .and([cmp(key("playlist"), .notEqual, null), cmp(key("playlist"), .equal, str("p1"))]),
            cmp(key("group"), .equal, str("News")),
        ])),
    ParseCase(
        "NOT (chineseLunarMonth == nil) AND chineseLunarMonth.lunarMonthIndex == %d", ["7"],
        .and([
            .not(cmp(key("chineseLunarMonth"), .equal, null)),
            cmp(key("chineseLunarMonth.lunarMonthIndex"), .equal, int(7)),
        ])),
    ParseCase(
        "title CONTAINS[cdl] %@", ["tagesschau"],
        cmp(key("title"), .contains, str("tagesschau"), [.caseInsensitive, .diacriticInsensitive, .localeSensitive])),
    ParseCase(
        "task_description CONTAINS[cd] %@", ["milk"],
        cmp(key("task_description"), .contains, str("milk"), [.caseInsensitive, .diacriticInsensitive])),
    ParseCase("name LIKE %@", ["*kesp*"], cmp(key("name"), .like, str("*kesp*"))),
    ParseCase(
        "pub_count > 100 OR pub_count < 10",
        .or([cmp(key("pub_count"), .greater, int(100)), cmp(key("pub_count"), .less, int(10))])),
    ParseCase(
        "date_published > CAST(\"2024-01-01\", \"NSDate\")",
        cmp(key("date_published"), .greater, .constant(.date(Date(timeIntervalSince1970: 1_704_067_200))))),
    ParseCase(
        "timestamp BETWEEN {CAST(0, \"NSDate\"), CAST(726000000.5, \"NSDate\")}",
        cmp(
            key("timestamp"), .between,
            .aggregate([
                .constant(.date(Date(timeIntervalSinceReferenceDate: 0))),
                .constant(.date(Date(timeIntervalSinceReferenceDate: 726_000_000.5))),
            ]))),
    ParseCase(
        "CAST(\"2024-05-31T12:00:00.250+02:00\", \"NSDate\") < modified",
        cmp(.constant(.date(Date(timeIntervalSince1970: 1_717_149_600.25))), .less, key("modified"))),
    ParseCase(
        "ANY tags.name BEGINSWITH[c] \"a\"",
        cmp(key("tags.name"), .beginsWith, str("a"), .caseInsensitive, .any)),
    ParseCase("books.@count > 2", cmp(key("books.@count"), .greater, int(2))),
    ParseCase("pages.@sum.number >= 1000", cmp(key("pages.@sum.number"), .greaterOrEqual, int(1000))),
    ParseCase(
        "SUBQUERY(books, $b, $b.pages > 100 AND $b.title BEGINSWITH \"A\").@count > 0",
        cmp(
            .path(
                .subquery(
                    collection: key("books"), variable: "b",
                    predicate: .and([
                        cmp(.path(.variable("b"), components("pages")), .greater, int(100)),
                        cmp(.path(.variable("b"), components("title")), .beginsWith, str("A")),
                    ])), components("@count")), .greater, int(0))),
]

@Test(arguments: realPredicates)
func parsesRealPredicates(_ example: ParseCase) throws {
    #expect(try PredicateParser.parse(example.format, arguments: example.arguments) == example.expected)
}

@Test(arguments: [
    ("==", ComparisonOperator.equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual),
    ("<", .less), ("<=", .lessOrEqual), ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual),
    ("=>", .greaterOrEqual), ("IN", .in), ("in", .in), ("BEGINSWITH", .beginsWith), ("beginsWith", .beginsWith),
    ("ENDSWITH", .endsWith), ("endswith", .endsWith), ("CONTAINS", .contains), ("Contains", .contains),
    ("LIKE", .like), ("like", .like), ("MATCHES", .matches), ("matches", .matches),
])
func parsesEveryOperator(_ spelling: String, _ op: ComparisonOperator) throws {
    #expect(try PredicateParser.parse("value \(spelling) 'x'") == cmp(key("value"), op, str("x")))
    if !spelling.first!.isLetter {
        #expect(try PredicateParser.parse("value\(spelling)'x'") == cmp(key("value"), op, str("x")))
    }
}

@Test func parsesBetweenAndIn() throws {
    #expect(try PredicateParser.parse("age BETWEEN {18, 65}") == cmp(key("age"), .between, .aggregate([int(18), int(65)])))
    #expect(try PredicateParser.parse("age between $range") == cmp(key("age"), .between, .variable("range")))
    #expect(try PredicateParser.parse("name IN {'a', \"b\"}") == cmp(key("name"), .in, .aggregate([str("a"), str("b")])))
    #expect(try PredicateParser.parse("name IN %@", arguments: ["a"]) == cmp(key("name"), .in, str("a")))
    #expect(
        try PredicateParser.parse("name IN[c] author.aliases")
            == cmp(key("name"), .in, key("author.aliases"), .caseInsensitive))
    #expect(try PredicateParser.parse("'swift' IN tags.name") == cmp(str("swift"), .in, key("tags.name")))
    #expect(try PredicateParser.parse("id IN {}") == cmp(key("id"), .in, .aggregate([])))
}

/// Each spelling and the canonical option letters it must give.
@Test(arguments: [
    ("[c]", "[c]"), ("[d]", "[d]"), ("[n]", "[n]"), ("[l]", "[l]"), ("[cd]", "[cd]"), ("[dc]", "[cd]"),
    ("[CD]", "[cd]"), ("[ndc]", "[cdn]"), ("[cdnl]", "[cdnl]"), (" [ c ] ", "[c]"),
])
func parsesOptions(_ spelling: String, _ canonical: String) throws {
    for op in ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "==", "!="] {
        let parsed = try PredicateParser.parse("name \(op)\(spelling) 'x'")
        guard case .comparison(let comparison) = parsed else { Issue.record("not a comparison"); continue }
        #expect(comparison.options.description == canonical)
    }
}

@Test(arguments: [
    ("nil", Value.null), ("NULL", .null), ("Nil", .null), ("TRUE", .bool(true)), ("true", .bool(true)),
    ("YES", .bool(true)), ("FALSE", .bool(false)), ("no", .bool(false)), ("42", .integer(42)), ("-7", .integer(-7)),
    ("0", .integer(0)), ("9223372036854775807", .integer(.max)), ("-9223372036854775808", .integer(.min)),
    ("9223372036854775808", .double(9_223_372_036_854_775_808)), ("3.25", .double(3.25)), ("-0.5", .double(-0.5)),
    ("1e3", .double(1000)), ("2.5E-2", .double(0.025)), ("0x1F", .integer(31)), ("0o17", .integer(15)),
    ("0b101", .integer(5)), ("-0x10", .integer(-16)), ("'single'", .string("single")), ("\"double\"", .string("double")),
    (#""it's""#, .string("it's")), (#"'say "hi"'"#, .string("say \"hi\"")),
    (#""a\nb\tc\rd""#, .string("a\nb\tc\rd")), (#""q\"q\'q\\q""#, .string("q\"q'q\\q")),
    (#""caf\u00e9""#, .string("café")), (#""\uD83D\uDE00""#, .string("😀")), ("\"日本\"", .string("日本")),
    ("\"\"", .string("")),
])
func parsesLiterals(_ literal: String, _ value: Value) throws {
    #expect(try PredicateParser.parse("x == \(literal)") == cmp(key("x"), .equal, .constant(value)))
}

@Test func parsesKeyPaths() throws {
    #expect(try PredicateParser.parse("a.b.c == 1") == cmp(key("a.b.c"), .equal, int(1)))
    #expect(try PredicateParser.parse("SELF == %@", arguments: ["x"]) == cmp(.evaluatedObject, .equal, str("x")))
    #expect(try PredicateParser.parse("self.name == 'x'") == cmp(key("name"), .equal, str("x")))
    #expect(try PredicateParser.parse("#date == nil") == cmp(key("date"), .equal, null))
    #expect(try PredicateParser.parse("#AND.#first == 1") == cmp(key("AND.first"), .equal, int(1)))
    #expect(try PredicateParser.parse("author.#SELF == 1") == cmp(key("author.SELF"), .equal, int(1)))
    #expect(try PredicateParser.parse("@avg.price < 3") == cmp(key("@avg.price"), .less, int(3)))
    #expect(
        try PredicateParser.parse("items.@min.price < items.@max.price")
            == cmp(key("items.@min.price"), .less, key("items.@max.price")))
    #expect(try PredicateParser.parse("ALL scores > 50") == cmp(key("scores"), .greater, int(50), [], .all))
    #expect(try PredicateParser.parse("some tags == 'x'") == cmp(key("tags"), .equal, str("x"), [], .any))
    #expect(try PredicateParser.parse("ANY SELF.tags == 'x'") == cmp(key("tags"), .equal, str("x"), [], .any))
    #expect(try PredicateParser.parse("名前 == 'x'") == cmp(key("名前"), .equal, str("x")))
    #expect(try PredicateParser.parse("$CUTOFF.day < day") == cmp(.path(.variable("CUTOFF"), components("day")), .less, key("day")))
}

@Test func parsesCompoundPredicatesWithPrecedence() throws {
    let a = cmp(key("a"), .equal, int(1)), b = cmp(key("b"), .equal, int(2)), c = cmp(key("c"), .equal, int(3))
    #expect(try PredicateParser.parse("a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
    #expect(try PredicateParser.parse("a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
    #expect(try PredicateParser.parse("(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
    #expect(try PredicateParser.parse("NOT a == 1 AND b == 2") == .and([.not(a), b]))
    #expect(try PredicateParser.parse("!(a == 1 || b == 2) && c == 3") == .and([.not(.or([a, b])), c]))
    #expect(try PredicateParser.parse("not NOT a == 1") == .not(.not(a)))
    #expect(try PredicateParser.parse("a == 1 and b == 2 and c == 3") == .and([a, b, c]))
    #expect(try PredicateParser.parse("a == 1 AND (b == 2 AND c == 3)") == .and([a, .and([b, c])]))
    #expect(try PredicateParser.parse("((a == 1))") == a)
    #expect(try PredicateParser.parse("TRUEPREDICATE") == .constant(true))
    #expect(try PredicateParser.parse("falsepredicate OR a == 1") == .or([.constant(false), a]))
}

@Test func castsOtherThanDatesStayCasts() throws {
    #expect(
        try PredicateParser.parse("CAST(count, \"NSString\") == '3'")
            == cmp(.cast(key("count"), type: "NSString"), .equal, str("3")))
    #expect(
        try PredicateParser.parse("CAST(stamp, \"NSDate\") > CAST(0, \"NSDate\")")
            == cmp(.cast(key("stamp"), type: "NSDate"), .greater, .constant(.date(Date(timeIntervalSinceReferenceDate: 0)))))
}

@Test func substitutesEveryPlaceholder() throws {
    #expect(
        try PredicateParser.parse("%K == %d AND %K < %i", arguments: ["a", "1", "b.c", "-2"])
            == .and([cmp(key("a"), .equal, int(1)), cmp(key("b.c"), .less, int(-2))]))
    #expect(
        try PredicateParser.parse("x == %ld OR x == %lld OR x == %u", arguments: ["5", "6", "7"])
            == .or([cmp(key("x"), .equal, int(5)), cmp(key("x"), .equal, int(6)), cmp(key("x"), .equal, int(7))]))
    #expect(try PredicateParser.parse("x > %f", arguments: ["2"]) == cmp(key("x"), .greater, dbl(2)))
    #expect(try PredicateParser.parse("x > %lf", arguments: ["-1.5"]) == cmp(key("x"), .greater, dbl(-1.5)))
    #expect(try PredicateParser.parse("%K > 2", arguments: ["books.@count"]) == cmp(key("books.@count"), .greater, int(2)))
    #expect(try PredicateParser.parse("%K.@sum.pages > 2", arguments: ["books"]) == cmp(key("books.@sum.pages"), .greater, int(2)))
    #expect(try PredicateParser.parse("name == '%@'") == cmp(key("name"), .equal, str("%@")))
    #expect(
        try PredicateParser.parse("x BETWEEN {%@, %@}", arguments: ["1", "2.5"])
            == cmp(key("x"), .between, .aggregate([int(1), dbl(2.5)])))
}

@Test(arguments: [
    ("42", Value.integer(42)), ("-3", .integer(-3)), ("+3", .integer(3)), ("1.5", .double(1.5)), ("-2e3", .double(-2000)),
    (".5", .double(0.5)), ("true", .bool(true)), ("YES", .bool(true)), ("False", .bool(false)), ("no", .bool(false)),
    ("nil", .null), ("NULL", .null), ("abc", .string("abc")), ("12abc", .string("12abc")), ("", .string("")),
    ("inf", .string("inf")), ("nan", .string("nan")), ("0x10", .string("0x10")), ("1e999", .string("1e999")),
    (" 42", .string(" 42")), ("'quoted'", .string("'quoted'")), ("2024-01-01", .string("2024-01-01")),
])
func typesArguments(_ argument: String, _ value: Value) throws {
    #expect(PredicateParser.value(ofArgument: argument) == value)
    #expect(try PredicateParser.parse("x == %@", arguments: [argument]) == cmp(key("x"), .equal, .constant(value)))
}
