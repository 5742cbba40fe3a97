import CDPredicate
import CDTestSupport
import Foundation
import Testing

/// `ObjectGraphEvaluator`, the oracle of the differential fetch tests, on small object graphs
/// built here: each expectation is worked out by hand from the contract
/// (`docs/format/predicate-semantics.md`) or from NSPredicate's documented behaviour.
@Suite struct ObjectGraphEvaluatorTests {
    /// An object of the test graph.
    final class Node: GraphObject {
        let entityName: String
        let primaryKey: Int64
        var attributes: [String: GraphValue] = [:]
        var toOne: [String: Node?] = [:]
        var toMany: [String: [Node]] = [:]
        let schema: Schema

        init(_ entity: String, _ key: Int64, _ schema: Schema, _ attributes: [String: GraphValue] = [:]) {
            entityName = entity
            primaryKey = key
            self.schema = schema
            self.attributes = attributes
        }

        func property(named name: String) -> GraphProperty<Node>? {
            switch schema.propertyKind(name, ofEntity: entityName) {
            case .attribute?: return .attribute(attributes[name] ?? .null)
            case .toOne(let destination)?: return .toOne(toOne[name] ?? nil, destination: destination)
            case .toMany(let destination)?: return .toMany(toMany[name] ?? [], destination: destination)
            case nil: return nil
            }
        }
    }

    struct Schema: GraphSchema {
        var parents: [String: String] = [:]
        var properties: [String: [String: GraphPropertyKind]]

        func isEntity(_ entity: String, kindOf ancestor: String) -> Bool {
            var current: String? = entity
            while let name = current {
                if name == ancestor { return true }
                current = parents[name]
            }
            return false
        }

        func propertyKind(_ name: String, ofEntity entity: String) -> GraphPropertyKind? {
            var current: String? = entity
            while let owner = current {
                if let kind = properties[owner]?[name] { return kind }
                current = parents[owner]
            }
            return nil
        }
    }

    /// Issue 23's store: Entity1 ↔ Entity2 through `e2a`/`e1a` and `e2b`/`e1b`; objects 1:
    /// e2b = {X}; 2: nothing; 3: e2a = {X}; 4: e2a = {Y}, e2b = {X}.
    struct Issue23 {
        static let schema = Schema(properties: [
            "Entity1": ["name": .attribute, "e2a": .toMany(destination: "Entity2"), "e2b": .toMany(destination: "Entity2")],
            "Entity2": ["name": .attribute, "e1a": .toMany(destination: "Entity1"), "e1b": .toMany(destination: "Entity1")],
        ])
        var schema: Schema { Self.schema }
        let objects: [Node]
        let x: String = "x-coredata://U/Entity2/p1"

        init() {
            let schema = Self.schema
            let x = Node("Entity2", 1, schema, ["name": .string("X")])
            let y = Node("Entity2", 2, schema, ["name": .string("Y")])
            let objects = (1...4).map { Node("Entity1", Int64($0), schema) }
            objects[0].toMany["e2b"] = [x]
            objects[2].toMany["e2a"] = [x]
            objects[3].toMany["e2a"] = [y]
            objects[3].toMany["e2b"] = [x]
            objects[3].attributes["name"] = .string("four")
            self.objects = objects
        }

        /// `format` with every `%@` standing for object X.
        func parse(_ format: String) throws -> CDPredicate.Predicate {
            try PredicateParser.parse(format, arguments: Array(repeating: x, count: format.components(separatedBy: "%@").count - 1))
        }

        func keys(_ format: String, _ mode: EvaluationMode) throws -> [Int64] {
            let predicate = try parse(format)
            let evaluator = ObjectGraphEvaluator(schema: schema, fetchedEntity: "Entity1")
            return try objects.filter { try evaluator.matches(predicate, $0, mode: mode) }.map(\.primaryKey)
        }
    }

    @Test func issue23TableGivesCoreDatasAnswers() throws {
        let store = Issue23()
        #expect(try store.keys("ANY e2a == %@ OR ANY e2b == %@", .coreDataSQL) == [1, 3, 4])
        #expect(try store.keys("ANY e2a == %@ OR ANY e2b == %@", .nsPredicate) == [1, 3, 4])
        #expect(try store.keys("e2a.@count == 0 OR ANY e2b == %@", .coreDataSQL) == [1, 2, 4])
        #expect(try store.keys("e2a.@count == 0 OR ANY e2b == %@", .nsPredicate) == [1, 2, 4])
        // NOT over a join: objects 2 and 3 have only the NULL row, where the comparison is UNKNOWN.
        #expect(try store.keys("NOT (ANY e2b == %@)", .coreDataSQL) == [])
        #expect(try store.keys("NOT (ANY e2b == %@)", .nsPredicate) == [2, 3])
        #expect(try store.keys("%@ IN e2b", .coreDataSQL) == [1, 4])
        #expect(try store.keys("%@ IN e2a OR %@ IN e2b", .coreDataSQL) == [1, 3, 4])
    }

    @Test func innerJoinsDropObjectsWithoutMembersOnlyUnderAnd() throws {
        let store = Issue23()
        // INNER: object 2 has no e2a, so no row at all, even for a comparison with nil.
        #expect(try store.keys("ANY e2a == nil", .coreDataSQL) == [])
        // OUTER under OR: the NULL member satisfies == nil (quirk nullMemberUnderOr).
        #expect(try store.keys("ANY e2a == nil OR FALSEPREDICATE", .coreDataSQL) == [1, 2])
        #expect(try store.keys("ANY e2a == nil OR FALSEPREDICATE", .nsPredicate) == [])
        // NONE: some row (or the NULL row) where the comparison is not TRUE, NOT UNKNOWN excluded.
        #expect(try store.keys("NONE e2b == %@", .coreDataSQL) == [])
        #expect(try store.keys("NONE e2b == %@", .nsPredicate) == [2, 3])
        #expect(try store.keys("NONE e2a != nil", .coreDataSQL) == [1, 2])
        #expect(try store.keys("NONE e2a.name == 'Y'", .coreDataSQL) == [3])
        #expect(try store.keys("NONE e2a.name == 'Y'", .nsPredicate) == [1, 2, 3])
        // ALL: TRUE for no members.
        #expect(try store.keys("ALL e2a.name == 'X'", .coreDataSQL) == [1, 2, 3])
        // Two comparisons of one relationship are two join dimensions.
        #expect(try store.keys("ANY e2a.name == 'X' AND ANY e2a.name == 'Y'", .coreDataSQL) == [])
        #expect(try store.keys("ANY e2b.name == 'X' AND ANY e2a.name == 'Y'", .coreDataSQL) == [4])
    }

    @Test func nilIsUnknownInSQLAndFalseOrTrueInNSPredicate() throws {
        let schema = Schema(properties: [
            "Item": ["count": .attribute, "title": .attribute, "owner": .toOne(destination: "Owner")],
            "Owner": ["name": .attribute],
        ])
        let owner = Node("Owner", 7, schema, ["name": .string("Ann")])
        let items = [
            Node("Item", 1, schema, ["count": .integer(5), "title": .string("a")]),
            Node("Item", 2, schema, ["count": .null, "title": .null]),
            Node("Item", 3, schema, ["count": .integer(2), "title": .string("Straße")]),
        ]
        items[0].toOne["owner"] = owner
        let evaluator = ObjectGraphEvaluator(schema: schema, fetchedEntity: "Item")
        func keys(_ format: String, _ mode: EvaluationMode = .coreDataSQL) throws -> [Int64] {
            let predicate = try PredicateParser.parse(format)
            return try items.filter { try evaluator.matches(predicate, $0, mode: mode) }.map(\.primaryKey)
        }
        #expect(try keys("count != 5") == [3])
        #expect(try keys("count != 5", .nsPredicate) == [2, 3])
        #expect(try keys("NOT (count == 5)") == [3])
        #expect(try keys("NOT (count == 5)", .nsPredicate) == [2, 3])
        #expect(try keys("count == nil") == [2])
        #expect(try keys("count IN {2, nil}") == [3])
        #expect(try keys("count BETWEEN {2, 5}") == [1, 3])
        // A to-one through nil is NULL (S2).
        #expect(try keys("owner.name == nil") == [2, 3])
        #expect(try keys("owner.name != 'Ann'") == [])
        #expect(try keys("owner.name != 'Ann'", .nsPredicate) == [2, 3])
        #expect(try keys("owner == %@".replacingOccurrences(of: "%@", with: "'x-coredata://U/Owner/p7'")) == [1])
        // An object ID of another entity never matches (S6).
        #expect(try keys("owner == 'x-coredata://U/Item/p7'") == [])
        #expect(try keys("SELF == 'x-coredata://U/Item/p3'") == [3])
        #expect(try keys("SELF IN {'x-coredata://U/Item/p3', 'x-coredata://U/Item/p1'}") == [1, 3])
        // Strings: exact bytes without options; StringMatching with them.
        #expect(try keys("title ==[c] 'A'") == [1])
        #expect(try keys("title == 'A'") == [])
        #expect(try keys("title BEGINSWITH[cd] 'STRA'") == [3])
        #expect(try keys("title < 'b'") == [1, 3])
        #expect(try keys("title LIKE '?'") == [1])
    }

    @Test func aggregatesAndSubqueries() throws {
        let schema = Schema(properties: [
            "Book": ["pages": .toMany(destination: "Page")],
            "Page": ["number": .attribute, "tags": .toMany(destination: "Tag")],
            "Tag": ["name": .attribute],
        ])
        let red = Node("Tag", 1, schema, ["name": .string("red")])
        let blue = Node("Tag", 2, schema, ["name": .string("blue")])
        let pages = [
            Node("Page", 1, schema, ["number": .integer(1)]), Node("Page", 2, schema, ["number": .integer(4)]),
            Node("Page", 3, schema, ["number": .null]),
        ]
        pages[0].toMany["tags"] = [red, blue]
        pages[1].toMany["tags"] = [red]
        let books = [Node("Book", 1, schema), Node("Book", 2, schema), Node("Book", 3, schema)]
        books[0].toMany["pages"] = [pages[0], pages[1]]
        books[1].toMany["pages"] = [pages[2]]
        let evaluator = ObjectGraphEvaluator(schema: schema, fetchedEntity: "Book")
        func keys(_ format: String, _ mode: EvaluationMode = .coreDataSQL) throws -> [Int64] {
            let predicate = try PredicateParser.parse(format)
            return try books.filter { try evaluator.matches(predicate, $0, mode: mode) }.map(\.primaryKey)
        }
        #expect(try keys("pages.@count == 0") == [3])
        #expect(try keys("pages.@sum.number == 0") == [2, 3])
        #expect(try keys("pages.@avg.number == 2.5") == [1])
        // @avg of no values: NULL in SQL, 0 for NSPredicate (quirk emptyAggregate).
        #expect(try keys("pages.@avg.number == 0") == [])
        #expect(try keys("pages.@avg.number == 0", .nsPredicate) == [2, 3])
        #expect(try keys("pages.@max.number >= 4") == [1])
        #expect(try keys("pages.@min.number == nil") == [2, 3])
        // Members counted once, however many of their rows match (S5).
        #expect(try keys("SUBQUERY(pages, $p, ANY $p.tags.name IN {'red', 'blue'}).@count == 2") == [1])
        #expect(try keys("SUBQUERY(pages, $p, $p.number > 1).@count == 1") == [1])
        #expect(try keys("SUBQUERY(pages, $p, NOT ($p.number > 1)).@count == 1") == [1])
        #expect(try keys("SUBQUERY(pages, $p, NOT ($p.number > 1)).@count == 1", .nsPredicate) == [1, 2])
    }

    @Test func quirksNameEveryShapeThatCanDiffer() throws {
        let store = Issue23()
        let evaluator = ObjectGraphEvaluator(schema: store.schema, fetchedEntity: "Entity1")
        func quirks(_ format: String) throws -> Set<PredicateQuirk> {
            evaluator.quirks(in: try store.parse(format))
        }
        #expect(try quirks("ANY e2a == %@ AND name == 'a'") == [])
        #expect(try quirks("NOT (ANY e2b == %@)") == [.nilComparison, .toManyJoinUnderNot, .nullMemberUnderOr])
        #expect(try quirks("ANY e2a.name == nil OR name == 'a'") == [.nullMemberUnderOr])
        #expect(try quirks("name != 'a'") == [.nilComparison])
        #expect(try quirks("NOT name != nil") == [])
        #expect(try quirks("NOT name > nil") == [.nilComparison])
        #expect(try quirks("name > nil") == [])
        #expect(try quirks("e2a.@avg.name > 1") == [.emptyAggregate])
        #expect(try quirks("SUBQUERY(e2a, $m, NONE $m.e1b.name == 'a').@count == 0").contains(.toManyJoinUnderNot))
    }

    @Test func shapesOutsideTheContractAreRefused() throws {
        let store = Issue23()
        let evaluator = ObjectGraphEvaluator(schema: store.schema, fetchedEntity: "Entity1")
        for format in [
            "e2a == %@", "ANY name == 'a'", "nonexistent == 1", "name < 5", "name CONTAINS[n] 'a'",
            "name MATCHES '('", "e2a.@sum == 1", "SUBQUERY(e2a, $m, name == 'a').@count == 0",
        ] {
            let predicate = try store.parse(format)
            #expect(throws: NotEvaluable.self, "\(format)") {
                try evaluator.matches(predicate, store.objects[3], mode: .coreDataSQL)
            }
        }
    }
}
