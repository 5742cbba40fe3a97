import CDFetch
import CDPredicate
import CDStore
import CDTestSupport
import Foundation

/// Issue 23's example store, the store of its 2013 SQLDebug log: built with `cdstore create
/// --import` from `Tests/Fixtures/fetch/TwoManyToMany.xcdatamodel` and its seed, in the test's
/// temporary directory. Entity1 ↔ Entity2 through two many-to-many relationships (`e2a`/`e1a`,
/// `e2b`/`e1b`) and a to-one `partner`. Objects 1: e2b = {X}, partner X; 2: nothing; 3: e2a =
/// {X}, partner Y; 4: e2a = {Y}, e2b = {X}. Shared by ToManyPredicateTests and Issue23FetchTests.
final class TwoManyToManyStore {
    let reader: ObjectReader
    let runner: FetchRunner
    var storeUUID: String { reader.storeUUID }

    init() throws {
        let store = try TemporaryDirectory.make().appendingPathComponent("TwoManyToMany.sqlite").path
        let result = CommandRunner.runInProcess([
            "create", store,
            "--model", Golden.fixtures.appendingPathComponent("fetch/TwoManyToMany.xcdatamodel").path,
            "--import", Golden.fixtures.appendingPathComponent("fetch/two-many-to-many-seed.json").path,
        ])
        guard result.status == 0 else { throw CreateFailed(message: result.stderr) }
        reader = try ObjectReader(snapshot: try StoreSnapshot(path: store))
        runner = FetchRunner(reader: reader)
    }

    /// `cdstore create` refused to make the store; `message` is what it printed.
    struct CreateFailed: Error { let message: String }

    /// `Entity2` object `pk` as an object ID.
    func entity2(_ pk: Int) -> String { "x-coredata://\(storeUUID)/Entity2/p\(pk)" }

    /// A fetch of Entity1 with `predicate` (its `%@` replaced by `arguments`).
    func request(_ predicate: String, _ arguments: [String]) throws -> CDFetch.FetchRequest {
        CDFetch.FetchRequest(entity: "Entity1", predicate: try PredicateParser.parse(predicate, arguments: arguments), sortDescriptors: [])
    }

    /// The `Z_PK`s of the Entity1 objects the fetch gives, ascending.
    func primaryKeys(_ predicate: String, _ arguments: [String] = []) throws -> [Int64] {
        var keys: [Int64] = []
        try runner.objects(try request(predicate, arguments), section: { _ in }, object: { keys.append($0.id.pk) })
        return keys.sorted()
    }

    /// The SQL of the fetch.
    func sql(_ predicate: String, _ arguments: [String] = []) throws -> FetchStatement {
        try runner.statement(for: try request(predicate, arguments))
    }
}
