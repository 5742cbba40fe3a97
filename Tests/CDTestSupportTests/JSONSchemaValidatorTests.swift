import CDMaintenance
import CDTestSupport
import Foundation
import Testing

/// The schema validator the contract tests rely on: it must accept conforming documents and
/// reject each kind of wrong one, or the contract tests would pass on anything.
@Suite(.temporaryDirectories) struct JSONSchemaValidatorTests {
    func problems(_ document: String, _ schema: String) throws -> [String] {
        try JSONSchemaValidator(schema: try JSONValue(parsing: schema)).problems(in: try JSONValue(parsing: document))
    }

    /// A report with a kind-tagged union, the way schemas/*.schema.json describe them.
    static let report = """
        {"type": "object", "additionalProperties": false, "required": ["name", "count", "items", "note"],
         "properties": {
           "name": {"type": "string", "minLength": 1},
           "count": {"type": "integer", "minimum": 0, "maximum": 10},
           "note": {"type": ["string", "null"]},
           "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/item"}},
           "hashes": {"type": "object", "additionalProperties": {"type": "string", "pattern": "^[0-9a-f]{4}$"}}
         },
         "$defs": {
           "item": {"oneOf": [
             {"type": "object", "additionalProperties": false, "required": ["kind", "size"],
              "properties": {"kind": {"const": "box"}, "size": {"enum": ["small", "large"]}}},
             {"type": "object", "additionalProperties": false, "required": ["kind", "length"],
              "properties": {"kind": {"const": "rope"}, "length": {"type": "number"}}}
           ]}
         }}
        """

    @Test func acceptsAConformingDocument() throws {
        let document = """
            {"name": "shed", "count": 2, "note": null, "hashes": {"a": "00ff"},
             "items": [{"kind": "box", "size": "small"}, {"kind": "rope", "length": 2.5}]}
            """
        #expect(try problems(document, Self.report) == [])
    }

    @Test(arguments: [
        // Each wrong document with the one problem it must produce.
        (#"{"count": 2, "note": null, "items": [{"kind": "box", "size": "small"}]}"#, #"$: the key "name" is missing"#),
        (
            #"{"name": "a", "count": 2, "note": null, "items": [{"kind": "box", "size": "small"}], "extra": 1}"#,
            #"$: the key "extra" is not allowed"#
        ),
        (
            #"{"name": "a", "count": "2", "note": null, "items": [{"kind": "box", "size": "small"}]}"#,
            #"$.count: expected integer, found "2""#
        ),
        (
            #"{"name": "a", "count": 2.5, "note": null, "items": [{"kind": "box", "size": "small"}]}"#,
            "$.count: expected integer, found 2.5"
        ),
        (
            #"{"name": "a", "count": true, "note": null, "items": [{"kind": "box", "size": "small"}]}"#,
            "$.count: expected integer, found true"
        ),
        (
            #"{"name": "a", "count": 11, "note": null, "items": [{"kind": "box", "size": "small"}]}"#,
            "$.count: 11 is above the maximum 10"
        ),
        (
            #"{"name": "a", "count": -1, "note": null, "items": [{"kind": "box", "size": "small"}]}"#,
            "$.count: -1 is below the minimum 0"
        ),
        (
            #"{"name": "", "count": 1, "note": null, "items": [{"kind": "box", "size": "small"}]}"#,
            #"$.name: "" is shorter than 1 characters"#
        ),
        (
            #"{"name": "a", "count": 1, "note": 3, "items": [{"kind": "box", "size": "small"}]}"#,
            "$.note: expected string or null, found 3"
        ),
        (#"{"name": "a", "count": 1, "note": null, "items": []}"#, "$.items: 0 items, fewer than 1"),
        (
            #"{"name": "a", "count": 1, "note": null, "items": [{"kind": "box", "size": "huge"}]}"#,
            "$.items[0]: 0 of the oneOf alternatives match, not exactly one"
        ),
        (
            #"{"name": "a", "count": 1, "note": null, "items": [{"kind": "rope", "size": "small"}]}"#,
            "$.items[0]: 0 of the oneOf alternatives match, not exactly one"
        ),
        // The Swift enum coding this validator exists to catch.
        (
            #"{"name": "a", "count": 1, "note": null, "items": [{"box": {"_0": {"size": "small"}}}]}"#,
            "$.items[0]: 0 of the oneOf alternatives match, not exactly one"
        ),
        (
            #"{"name": "a", "count": 1, "note": null, "items": [{"kind": "box", "size": "small"}], "hashes": {"a": "00FF"}}"#,
            #"$.hashes.a: "00FF" does not match ^[0-9a-f]{4}$"#
        ),
        (#"["name"]"#, "$: expected object, found an array of 1"),
    ])
    func rejectsAWrongDocument(_ document: String, _ problem: String) throws {
        #expect(try problems(document, Self.report) == [problem])
    }

    @Test func oneOfRejectsADocumentThatMatchesTwice() throws {
        let schema = #"{"oneOf": [{"type": "integer"}, {"type": "number"}]}"#
        #expect(try problems("3", schema) == ["$: 2 of the oneOf alternatives match, not exactly one"])
        #expect(try problems("3.5", schema) == [])
    }

    @Test func anyOfNeedsOneMatch() throws {
        let schema = #"{"anyOf": [{"type": "string"}, {"const": 4}]}"#
        #expect(try problems("4", schema) == [])
        #expect(try problems(#""x""#, schema) == [])
        #expect(try problems("5", schema) == ["$: none of the anyOf alternatives match"])
    }

    @Test func everyProblemIsReported() throws {
        let document = #"{"name": 1, "count": 1, "note": null, "items": [{"kind": "box", "size": "small"}, 7]}"#
        #expect(
            try problems(document, Self.report) == [
                "$.items[1]: 0 of the oneOf alternatives match, not exactly one",
                "$.name: expected string, found 1",
            ])
    }

    @Test func falseSchemaAllowsNothing() throws {
        #expect(try problems("1", "false") == ["$: no value is allowed here"])
        #expect(try problems("1", "true") == [])
    }

    @Test func referencesToASiblingFileResolveThere() throws {
        let folder = try TemporaryDirectory.make()
        try ##"{"$ref": "part.schema.json#/$defs/pair"}"##.write(to: folder.appendingPathComponent("whole.schema.json"), atomically: true, encoding: .utf8)
        try ##"{"$defs": {"pair": {"type": "array", "items": {"$ref": "#/$defs/one"}}, "one": {"const": 1}}}"##
            .write(to: folder.appendingPathComponent("part.schema.json"), atomically: true, encoding: .utf8)
        let validator = try JSONSchemaValidator(file: "whole.schema.json", in: folder)
        #expect(try validator.problems(in: JSONValue(parsing: "[1, 1]")) == [])
        #expect(try validator.problems(in: JSONValue(parsing: "[1, 2]")) == ["$[1]: expected 1, found 2"])
    }

    @Test(arguments: [
        (#"{"type": "string", "format": "date-time"}"#, "schema: keyword format is not supported by this validator"),
        (##"{"$ref": "#/$defs/missing"}"##, "schema: $ref #/$defs/missing leads nowhere"),
        (#"{"type": 7}"#, "schema: type must be a name or a list of names"),
        (#"{"pattern": "("}"#, "schema: pattern ( is not a regular expression"),
    ])
    func unusableSchemasThrow(_ schema: String, _ message: String) throws {
        let error = try #require(throws: JSONSchemaValidator.SchemaError.self) { try problems(#""text""#, schema) }
        #expect(error.description == message)
    }

    @Test func aRepeatedKeyIsAProblem() throws {
        #expect(try problems(#"{"a": 1, "a": 2}"#, #"{"type": "object"}"#) == [#"$: the key "a" appears twice"#])
    }
}
