@testable import CDFetch
import Testing

@Test func placeholder() throws {
    #expect(try PredicateParser.parse("a == 1").description == "a == 1")
}
