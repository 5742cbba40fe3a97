import CDPredicate
import CDTestSupport
import Testing

/// A malformed format string and where and how the parser must complain.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    var format: String
    var arguments: [String]
    var offset: Int
    var message: String

    init(_ format: String, _ arguments: [String] = [], at offset: Int, _ message: String) {
        self.format = format
        self.arguments = arguments
        self.offset = offset
        self.message = message
    }

    var testDescription: String { format }
}

@Test(arguments: [
    ErrorCase("name == \"abc", at: 8, "unterminated string: missing closing \""),
    ErrorCase("name == 'abc\\'", at: 8, "unterminated string: missing closing '"),
    ErrorCase("name ==", at: 7, "expected a value or key path after \"==\", found the end of the predicate"),
    ErrorCase(
        "name BEGINSWITH[cd]", at: 19,
        "expected a value or key path after \"BEGINSWITH[cd]\", found the end of the predicate"),
    ErrorCase("name LIKE[c] )", at: 13, "expected a value or key path after \"LIKE[c]\", found \")\""),
    ErrorCase("== 'x'", at: 0, "expected a value or key path, found \"==\""),
    ErrorCase("name", at: 4, "expected a comparison operator after \"name\", found the end of the predicate"),
    ErrorCase("author.name 'x'", at: 12, "expected a comparison operator after \"author.name\", found \"'x'\""),
    ErrorCase("name IS 'x'", at: 5, "expected a comparison operator after \"name\", found \"IS\""),
    ErrorCase("name ~= 'x'", at: 5, "unexpected character \"~\""),
    ErrorCase("(name == 'a'", at: 12, "expected \")\" to close the \"(\" at character 0 after \"'a'\", found the end of the predicate"),
    ErrorCase("name == 'a')", at: 11, "unbalanced \")\": there is no matching \"(\""),
    ErrorCase("((a == 1) OR (b == 2)", at: 21, "expected \")\" to close the \"(\" at character 0 after \")\", found the end of the predicate"),
    ErrorCase("name CONTAINS[x] 'a'", at: 14, "unknown comparison option \"x\"; expected c, d, n or l"),
    ErrorCase("name CONTAINS[cx] 'a'", at: 15, "unknown comparison option \"x\"; expected c, d, n or l"),
    ErrorCase("name CONTAINS[] 'a'", at: 14, "expected comparison options such as c, d, n or l after \"[\", found \"]\""),
    ErrorCase("name CONTAINS[c 'a'", at: 16, "expected \"]\" to close the comparison options after \"c\", found \"'a'\""),
    ErrorCase("name == %@", at: 8, "too few arguments: %@ needs argument 1 but 0 were given"),
    ErrorCase("a == %@ AND b == %K", ["1"], at: 17, "too few arguments: %K needs argument 2 but 1 were given"),
    ErrorCase("name == %@", ["a", "b"], at: 10, "too many arguments: the format uses 1 but 2 were given"),
    ErrorCase("a == %d", ["x"], at: 5, "argument 1 for %d is not an integer: \"x\""),
    ErrorCase("a == %f", ["one"], at: 5, "argument 1 for %f is not a number: \"one\""),
    ErrorCase("%K == 1", ["a b"], at: 0, "argument 1 for %K is not a key path: \"a b\""),
    ErrorCase("%K == 1", ["a..b"], at: 0, "argument 1 for %K is not a key path: \"a..b\""),
    ErrorCase("a == %q", at: 5, "unknown substitution \"%q\"; expected %@, %K, %d, %i, %ld or %f"),
    ErrorCase("a == 1 AND", at: 10, "expected a value or key path after \"AND\", found the end of the predicate"),
    ErrorCase("a == 1 b == 2", at: 7, "expected AND, OR or the end of the predicate after \"1\", found \"b\""),
    ErrorCase("", at: 0, "the predicate is empty"),
    ErrorCase("   ", at: 0, "the predicate is empty"),
    ErrorCase("AND == 1", at: 0, "expected a value or key path, found the keyword AND; write #AND for a key named AND"),
    ErrorCase("first == 1", at: 0, "index expressions (FIRST) are not supported; write #first for a key named first"),
    ErrorCase("FUNCTION(name, 'uppercase') == 'A'", at: 0, "FUNCTION(…) expressions are not supported"),
    ErrorCase("uppercase(name) == 'A'", at: 0, "function calls such as uppercase(…) are not supported"),
    ErrorCase("a == 1 + 2", at: 7, "expected AND, OR or the end of the predicate after \"1\", found \"+\""),
    ErrorCase("a == -b", at: 5, "arithmetic expressions are not supported"),
    ErrorCase("a + 1 == 2", at: 2, "expected a comparison operator after \"a\", found \"+\""),
    ErrorCase("age BETWEEN {1, 2, 3}", at: 12, "BETWEEN needs exactly two values, {low, high}; found 3"),
    ErrorCase("x IN {1, 2", at: 10, "expected \",\" or \"}\" in the aggregate after \"2\", found the end of the predicate"),
    ErrorCase("x == 'a\\qb'", at: 7, "unknown escape \"\\q\" in string"),
    ErrorCase("x == 'a\\u12'", at: 7, "expected four hex digits after \\u"),
    ErrorCase("x == '\\uD800'", at: 6, "\\ud800 must be followed by a low surrogate escape"),
    ErrorCase("books.@foo > 1", at: 6, "unknown collection operator @foo; expected @count, @sum, @avg, @min or @max"),
    ErrorCase("books. > 1", at: 7, "expected a key or collection operator after \".\", found \">\""),
    ErrorCase("x == 12abc", at: 7, "malformed number: unexpected \"a\""),
    ErrorCase("x == 0x", at: 5, "malformed number \"0x\""),
    ErrorCase("x == 1e999", at: 5, "number \"1e999\" is out of range"),
    ErrorCase("x == 0x8000000000000000", at: 5, "number \"0x8000000000000000\" is out of range"),
    ErrorCase("x == $", at: 6, "expected a variable name after \"$\""),
    ErrorCase("# == 1", at: 1, "expected a key after \"#\""),
    ErrorCase(
        "SUBQUERY(books, b, b.year > 1).@count > 0", at: 16,
        "expected a variable such as $x as the second SUBQUERY argument after \",\", found \"b\""),
    ErrorCase(
        "x > CAST('yesterday', 'NSDate')", at: 9,
        "\"yesterday\" is not an ISO-8601 date such as 2024-05-31 or 2024-05-31T12:00:00Z"),
    ErrorCase("x > CAST(1, NSDate)", at: 12, "expected a quoted type name such as \"NSDate\" after \",\", found \"NSDate\""),
])
func reportsErrorsWithPositions(_ example: ErrorCase) {
    #expect {
        try PredicateParser.parse(example.format, arguments: example.arguments)
    } throws: { error in
        guard let error = error as? PredicateError else { return false }
        #expect(error.offset == example.offset)
        #expect(error.message == example.message)
        #expect(error.text == example.format)
        return true
    }
}

@Test func caretDiagramPointsAtTheError() {
    let error = #expect(throws: PredicateError.self) {
        try PredicateParser.parse("name CONTAINS[x] \"a\"")
    }
    #expect(
        error?.caretDiagram == """
            name CONTAINS[x] "a"
                          ^
            """)
    #expect(error?.description == "predicate error at character 14: unknown comparison option \"x\"; expected c, d, n or l")
}

@Test func caretDiagramKeepsColumnsForTabsAndLineBreaks() {
    let error = #expect(throws: PredicateError.self) {
        try PredicateParser.parse("a == 1\n\tAND")
    }
    #expect(error?.caretDiagram == "a == 1  AND\n           ^")
}

@Test func deepNestingIsAnErrorNotACrash() throws {
    for opener in ["(", "NOT ", "!", "{", "SUBQUERY(x, $y, "] {
        let text = String(repeating: opener, count: 5000) + "a == 1"
        let error = #expect(throws: PredicateError.self) { try PredicateParser.parse(text) }
        #expect(error.map { (0...text.count).contains($0.offset) } == true)
    }
    let nested = String(repeating: "(", count: 50) + "a == 1" + String(repeating: ")", count: 50)
    #expect(try PredicateParser.parse(nested) == cmp(key("a"), .equal, int(1)))
}
