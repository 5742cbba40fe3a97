import CDPredicate
import CDTestSupport
import Testing

@Test(arguments: [
    ("name = \"x\"", "name == \"x\""),
    ("name <> 'x'", "name != \"x\""),
    ("a =< 1 && b => 2", "a <= 1 AND b >= 2"),
    ("any tags.name beginswith[c] 'a'", "ANY tags.name BEGINSWITH[c] \"a\""),
    ("some tags.name like[dc] '*a?'", "ANY tags.name LIKE[cd] \"*a?\""),
    ("NONE manyBs != NULL", "NONE manyBs != nil"),
    ("a == 1 || b == 2 && c == 3", "a == 1 OR (b == 2 AND c == 3)"),
    ("(a == 1 OR b == 2) AND c == 3", "(a == 1 OR b == 2) AND c == 3"),
    ("!(a == 1 OR b == 2)", "NOT (a == 1 OR b == 2)"),
    ("not a == yes", "NOT a == TRUE"),
    ("x IN {1, 2.5, 'three', nil}", "x IN {1, 2.5, \"three\", nil}"),
    ("x == 'it\\'s \"q\"\\n\\\\'", "x == \"it's \\\"q\\\"\\n\\\\\""),
    ("#date == $NOW", "date == $NOW"),
    ("#ci == 'é'", "#ci == \"é\""),
    ("#FIRST.#In == 0x10", "#FIRST.#In == 16"),
    ("SELF.name == 'x'", "name == \"x\""),
    ("SELF IN {1}", "SELF IN {1}"),
    ("books.@count > 2 AND pages.@sum.number < 1e3", "books.@count > 2 AND pages.@sum.number < 1000.0"),
    ("subquery(books, $b, $b.year < 2000).@count == 0", "SUBQUERY(books, $b, $b.year < 2000).@count == 0"),
    ("when > CAST('2001-01-01T00:01:00Z', 'NSDate')", "when > CAST(60.0, \"NSDate\")"),
    ("CAST(n, 'NSString') == '1'", "CAST(n, \"NSString\") == \"1\""),
    ("truepredicate AND FALSEPREDICATE", "TRUEPREDICATE AND FALSEPREDICATE"),
    ("x == '\\u0007'", "x == \"\\u0007\""),
])
func printsCanonicalFormat(_ format: String, _ canonical: String) throws {
    let parsed = try PredicateParser.parse(format)
    #expect(parsed.description == canonical)
    #expect(try PredicateParser.parse(canonical) == parsed)
}

@Test(arguments: realPredicates)
func realPredicatesRoundTrip(_ example: ParseCase) throws {
    let parsed = try PredicateParser.parse(example.format, arguments: example.arguments)
    #expect(try PredicateParser.parse(parsed.description) == parsed)
}

@Test func printsSubstitutedArgumentsAsLiterals() throws {
    let parsed = try PredicateParser.parse("%K CONTAINS[cd] %@ AND n == %@", arguments: ["task_description", "say \"hi\"", "7"])
    #expect(parsed.description == "task_description CONTAINS[cd] \"say \\\"hi\\\"\" AND n == 7")
}

@Test func printedStringsKeepCombiningMarksApartFromQuotes() throws {
    let tree = cmp(key("x"), .equal, str("\u{301}e\u{301}\u{1F3FD}\\\u{301}\"\u{301}1\u{1F3FD}"))
    #expect(try PredicateParser.parse(tree.description) == tree)
}
