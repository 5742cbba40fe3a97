import CDFetch
import CDModel
import CDPredicate
import CDTestSupport
import Testing

@Test(arguments: [
    ("Author.where(:name).eq('x')", QueryExpression.Syntax.cdq),
    ("  Author .first", .cdq),
    ("cdq('Author').count", .cdq),
    ("Author[0]", .cdq),
    ("Foo::Author", .cdq),
    ("Author where name == 'a.b'", .keywords),
    ("Author", .keywords),
    ("Author sort by name", .keywords),
    ("", .keywords),
    ("'Author'.first", .keywords),
])
func detectsTheSyntax(_ text: String, _ syntax: QueryExpression.Syntax) {
    #expect(QueryExpression.syntax(of: text) == syntax)
}

/// A keyword-form query, its arguments and the request it must give.
struct KeywordCase: Sendable, CustomTestStringConvertible {
    var text: String
    var arguments: [String]
    var expected: FetchRequest

    init(_ text: String, _ arguments: [String] = [], _ expected: FetchRequest) {
        self.text = text
        self.arguments = arguments
        self.expected = expected
    }

    init(_ text: String, _ expected: FetchRequest) {
        self.init(text, [], expected)
    }

    var testDescription: String { text + (arguments.isEmpty ? "" : " \(arguments)") }
}

let keywordExamples: [KeywordCase] = [
    KeywordCase("Author", FetchRequest(entity: "Author")),
    KeywordCase("  Author  ", FetchRequest(entity: "Author")),
    KeywordCase(
        "Author where name == 'x'",
        FetchRequest(entity: "Author", predicate: cmp(key("name"), .equal, str("x")))),
    KeywordCase(
        "Author WHERE name LIKE[c] %@ SORT BY name DESC, date LIMIT 5 OFFSET 10", ["*kesp*"],
        FetchRequest(
            entity: "Author", predicate: cmp(key("name"), .like, str("*kesp*"), .caseInsensitive),
            sortDescriptors: [
                CDModel.SortDescriptor(key: "name", ascending: false),
                CDModel.SortDescriptor(key: "date"),
            ],
            limit: 5, offset: 10)),
    KeywordCase(
        "Author where title == 'sort by x limit 5' limit 2",
        FetchRequest(
            entity: "Author", predicate: cmp(key("title"), .equal, str("sort by x limit 5")),
            limit: 2)),
    KeywordCase(
        "Author where limit > 5 AND offset < 2 limit 3",
        FetchRequest(
            entity: "Author",
            predicate: .and([
                cmp(key("limit"), .greater, int(5)),
                cmp(key("offset"), .less, int(2)),
            ]), limit: 3)),
    KeywordCase(
        "Author where (a == 1 OR b IN {1, 2}) offset 4 sort by books.@count ascending, a.b descending",
        FetchRequest(
            entity: "Author",
            predicate: .or([
                cmp(key("a"), .equal, int(1)),
                cmp(key("b"), .in, .aggregate([int(1), int(2)])),
            ]),
            sortDescriptors: [
                CDModel.SortDescriptor(key: "books.@count"),
                CDModel.SortDescriptor(key: "a.b", ascending: false),
            ],
            offset: 4)),
    KeywordCase(
        "Author where x == %@ AND y == %K", ["5", "z"],
        FetchRequest(
            entity: "Author",
            predicate: .and([cmp(key("x"), .equal, int(5)), cmp(key("y"), .equal, key("z"))]))),
    KeywordCase(
        "Author sort by #where",
        FetchRequest(entity: "Author", sortDescriptors: [CDModel.SortDescriptor(key: "where")])),
    KeywordCase("Author limit 0", FetchRequest(entity: "Author")),
    KeywordCase(
        "Book\nwhere\tauthor.name BEGINSWITH \"A\"\nlimit 1",
        FetchRequest(entity: "Book", predicate: cmp(key("author.name"), .beginsWith, str("A")), limit: 1)),
]

@Test(arguments: keywordExamples)
func parsesTheKeywordForm(_ example: KeywordCase) throws {
    #expect(try QueryExpression.parse(example.text, arguments: example.arguments) == example.expected)
}

@Test func dispatchesCDQChains() throws {
    let request = try QueryExpression.parse("Author.where(:name).eq('Shakespeare').sort_by(:created_at).limit(1)")
    #expect(
        request
            == FetchRequest(
                entity: "Author", predicate: cmp(key("name"), .equal, str("Shakespeare")),
                sortDescriptors: [CDModel.SortDescriptor(key: "created_at")], limit: 1))
}

/// A query that must fail, its arguments, where the error must point and a phrase of its message.
struct QueryErrorCase: Sendable, CustomTestStringConvertible {
    var text: String
    var arguments: [String]
    var offset: Int
    var phrase: String

    init(_ text: String, _ arguments: [String] = [], at offset: Int, _ phrase: String) {
        self.text = text
        self.arguments = arguments
        self.offset = offset
        self.phrase = phrase
    }

    var testDescription: String { text + (arguments.isEmpty ? "" : " \(arguments)") }
}

let queryErrorExamples: [QueryErrorCase] = [
    QueryErrorCase("", at: 0, "the query is empty"),
    QueryErrorCase("'Author'", at: 0, "expected an entity name"),
    QueryErrorCase("Author where", at: 12, "expected a predicate after WHERE"),
    QueryErrorCase("Author where limit 5", at: 13, "expected a predicate after WHERE"),
    QueryErrorCase("Author where name ==", at: 20, "expected a value or key path"),
    QueryErrorCase("Author where name == %@", at: 21, "too few arguments"),
    QueryErrorCase("Author where name == 'x", at: 21, "unterminated"),
    QueryErrorCase("Author where name == 'x' limit", at: 25, "LIMIT and OFFSET take a number"),
    QueryErrorCase("Author sort by a limit", at: 22, "expected a number"),
    QueryErrorCase("Author where name == 'x' limit -1", at: 31, "cannot be negative"),
    QueryErrorCase("Author where name == 'x' limit 5 limit 6", at: 33, "LIMIT is given twice"),
    QueryErrorCase("Author where a == 1 sort name", at: 20, "expected AND, OR"),
    QueryErrorCase("Author sort name", at: 12, "expected BY after SORT"),
    QueryErrorCase("Author sort by", at: 14, "expected a key to sort by"),
    QueryErrorCase("Author sort by a desc b", at: 22, "expected SORT BY, LIMIT, OFFSET or the end"),
    QueryErrorCase("Author foo", at: 7, "expected WHERE, SORT BY, LIMIT or OFFSET"),
    QueryErrorCase("Author", ["1"], at: 6, "no predicate"),
    QueryErrorCase("Author.first", ["1"], at: 0, "takes no separate arguments"),
    QueryErrorCase("Author.frist", at: 7, "unknown query method .frist"),
]

@Test(arguments: queryErrorExamples)
func reportsQueryErrorsWithTheirPosition(_ example: QueryErrorCase) {
    #expect {
        _ = try QueryExpression.parse(example.text, arguments: example.arguments)
    } throws: { error in
        guard let error = error as? PredicateError else { return false }
        #expect(error.offset == example.offset, "\(error.message)")
        #expect(error.message.contains(example.phrase), "\(error.message)")
        #expect(error.text == example.text)
        return true
    }
}
