import CDPredicate
import CDTestSupport
import Foundation
import Testing

/// `PredicateEvaluator`: validation rules evaluated on one value, as NSPredicate does.
@Suite struct PredicateEvaluatorTests {
    private func evaluate(_ format: String, _ value: PredicateEvaluator.Operand?) throws -> Bool? {
        PredicateEvaluator.evaluate(try PredicateParser.parseModelText(format), on: value)
    }

    @Test func numberBoundsOnSelf() throws {
        #expect(try evaluate("SELF >= 1 AND SELF <= 8", .number(5)) == true)
        #expect(try evaluate("SELF >= 1", .number(0)) == false)
        #expect(try evaluate("SELF BETWEEN {1, 3}", .number(3)) == true)
        #expect(try evaluate("SELF IN {1, 2}", .number(3)) == false)
        #expect(try evaluate("SELF != nil", .null) == false)
        #expect(try evaluate("SELF == nil", .null) == true)
    }

    @Test func dateBoundsCompareSecondsSince2001() throws {
        #expect(try evaluate("SELF >= CAST(0.5, \"NSDate\")", .number(1)) == true)
        #expect(try evaluate("SELF < CAST('2001-01-01T00:01:00', 'NSDate')", .number(61)) == false)
    }

    @Test func stringLengthIsUTF16() throws {
        #expect(try evaluate("length >= 3 AND length <= 5", .text("abcd")) == true)
        #expect(try evaluate("SELF.length < 2", .text("😀")) == false)
        #expect(try evaluate("length > 1", .number(5)) == nil)
    }

    @Test func stringOperators() throws {
        #expect(try evaluate("SELF CONTAINS[cd] \"TITLE\"", .text("a títle here")) == true)
        #expect(try evaluate("SELF BEGINSWITH \"a\" AND SELF ENDSWITH \"z\"", .text("abcz")) == true)
        #expect(try evaluate("SELF LIKE[c] \"*.PNG\"", .text("x.png")) == true)
        #expect(try evaluate("SELF MATCHES \"[a-z]+\\\\d\"", .text("abc1")) == true)
        #expect(try evaluate("SELF MATCHES \"[a-z]+\"", .text("abc1")) == false)
        #expect(try evaluate("SELF MATCHES \"(\"", .text("x")) == nil)
        #expect(try evaluate("SELF == \"x\" OR NOT SELF == \"y\"", .text("z")) == true)
    }

    /// Only SELF, `length` and constants: anything else has no answer, and an unknown SELF
    /// answers only predicates that do not look at it.
    @Test func unknownShapesHaveNoAnswer() throws {
        #expect(try evaluate("author.name == \"x\"", .text("x")) == nil)
        #expect(try evaluate("ANY SELF == 1", .number(1)) == nil)
        #expect(try evaluate("count:(SELF) == 1", .number(1)) == nil)
        #expect(try evaluate("SELF == 1", nil) == nil)
        #expect(try evaluate("FALSEPREDICATE", nil) == false)
        #expect(PredicateEvaluator.canEvaluate(try PredicateParser.parseModelText("length > 1")))
        #expect(!PredicateEvaluator.canEvaluate(try PredicateParser.parseModelText("a.b > 1")))
    }
}
