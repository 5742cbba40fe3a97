import CDFetch
import CDPredicate
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Issue 23's example store (``TwoManyToManyStore``) and the issue's three fetches with Core
/// Data's answers: first from the oracle over the store's object graph, then from the fetch path.
@Suite(.temporaryDirectories) struct Issue23FetchTests {
    final class Fixture {
        let store: TwoManyToManyStore
        let graph: LoadedGraph
        /// Entity1's Z_PK by its object number in the issue (its `name`).
        let entity1: [String: Int64]
        let x: String

        init() throws {
            store = try TwoManyToManyStore()
            graph = try LoadedGraph(reader: store.reader)
            entity1 = Dictionary(
                uniqueKeysWithValues: graph.objects(ofKind: "Entity1").compactMap { object in
                    if case .string(let name)? = object.attributes["name"] { return (name, object.primaryKey) }
                    return nil
                })
            guard let objectX = graph.objects(ofKind: "Entity2").first(where: { $0.attributes["name"] == .string("X") }) else {
                throw SetupFailure(reason: "no object X")
            }
            x = graph.uri(of: objectX)
        }

        /// The issue's object numbers (1–4) of the Entity1 objects in `keys`.
        func numbers(_ keys: some Sequence<Int64>) -> [Int] {
            let names = ["one": 1, "two": 2, "three": 3, "four": 4]
            return keys.compactMap { key in entity1.first { $0.value == key }.flatMap { names[$0.key] } }.sorted()
        }

        func oracle(_ format: String, _ mode: EvaluationMode) throws -> [Int] {
            let predicate = try PredicateParser.parse(format, arguments: Array(repeating: x, count: format.components(separatedBy: "%@").count - 1))
            let evaluator = ObjectGraphEvaluator(schema: graph, fetchedEntity: "Entity1")
            return numbers(try graph.objects(ofKind: "Entity1").filter { try evaluator.matches(predicate, $0, mode: mode) }.map(\.primaryKey))
        }

        func fetched(_ format: String) throws -> [Int] {
            numbers(try store.primaryKeys(format, Array(repeating: x, count: format.components(separatedBy: "%@").count - 1)))
        }
    }

    /// (fetch, Core Data's objects, NSPredicate's objects), from the issue's table.
    static let table: [(String, [Int], [Int])] = [
        ("ANY e2a == %@ OR ANY e2b == %@", [1, 3, 4], [1, 3, 4]),
        ("e2a.@count == 0 OR ANY e2b == %@", [1, 2, 4], [1, 2, 4]),
        // "never 1 or 4": through Core Data's LEFT OUTER JOIN, objects 2 and 3 have one NULL row,
        // where the comparison is UNKNOWN, and NOT UNKNOWN is not TRUE.
        ("NOT (ANY e2b == %@)", [], [2, 3]),
    ]

    @Test func theStoreHoldsTheIssuesObjects() throws {
        let store = try Fixture()
        #expect(store.numbers(store.entity1.values) == [1, 2, 3, 4])
        let e2a = store.graph.objects(ofKind: "Entity1").filter { !($0.toMany["e2a"] ?? []).isEmpty }.map(\.primaryKey)
        let e2b = store.graph.objects(ofKind: "Entity1").filter { !($0.toMany["e2b"] ?? []).isEmpty }.map(\.primaryKey)
        #expect(store.numbers(e2a) == [3, 4])
        #expect(store.numbers(e2b) == [1, 4])
    }

    @Test(arguments: table.indices) func oracleGivesCoreDatasAnswer(_ row: Int) throws {
        let store = try Fixture()
        let (format, coreData, nsPredicate) = Self.table[row]
        #expect(try store.oracle(format, .coreDataSQL) == coreData, "\(format)")
        #expect(try store.oracle(format, .nsPredicate) == nsPredicate, "\(format)")
    }

    @Test(arguments: table.indices) func fetchGivesCoreDatasAnswer(_ row: Int) throws {
        let store = try Fixture()
        let (format, coreData, _) = Self.table[row]
        #expect(try store.fetched(format) == coreData, "\(format)")
    }
}

/// The Issue 23 store could not be made.
private struct SetupFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
