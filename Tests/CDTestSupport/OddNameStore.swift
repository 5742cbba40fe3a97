import Foundation

/// A store whose table and column names need quoting in SQL: every entity name holds a space,
/// a quote, brackets or a hyphen, and the property names non-ASCII letters, so Core Data's
/// derived names (`ZODD "CAR" X`, `ZGRÖSSE`, `Z_1TÄGS`) are not plain identifiers. Core Data's
/// model editor would not accept these names, but a store's model cache is untrusted input and
/// may hold any; cdstore must still read the right tables.
///
/// Made by `cdstore create --import` from `Tests/Fixtures/fetch/OddNames.xcdatamodel` and a seed
/// generated from `seed`: cars with an optional integer and string, a many-to-many to tags and an
/// ordered one-to-many to parts (with its inverse), so every kind of SQL the fetch writes
/// (columns, joins, join tables, `Z_FOK_` order, subqueries) names an odd table or column.
public enum OddNameStore {
    public static let car = "Odd \"Car\" x"
    public static let tag = "Tag-Ü"
    public static let part = "Part [1]"
    public static let model = Golden.fixtures.appendingPathComponent("fetch/OddNames.xcdatamodel")

    /// Creates the store in a new temporary folder (inside the test's scope) and returns it.
    public static func make(seed: UInt64, cars: Int = 40) throws -> URL {
        let folder = try TemporaryDirectory.make()
        let seedFile = folder.appendingPathComponent("seed.json")
        try JSONSerialization.data(withJSONObject: objects(seed: seed, cars: cars), options: [.sortedKeys]).write(to: seedFile)
        let store = folder.appendingPathComponent("Odd \"Names\".sqlite")
        let created = CommandRunner.runInProcess(["create", store.path, "--model", model.path, "--import", seedFile.path])
        guard created.status == 0 else { throw CreateFailed(message: created.stderr) }
        return store
    }

    /// `cdstore create` refused to make the store; `message` is what it printed.
    public struct CreateFailed: Error { public let message: String }

    /// The seed, in `create --import`'s format: objects by entity, related by `_id`.
    static func objects(seed: UInt64, cars: Int) -> [String: [[String: Any]]] {
        var generator = SeededGenerator(seed: seed)
        let tags: [[String: Any]] = (0..<6).map { ["_id": "t\($0)", "name": "tag \($0)"] }
        var parts: [[String: Any]] = []
        var carObjects: [[String: Any]] = []
        for index in 0..<cars {
            var object: [String: Any] = ["_id": "c\(index)"]
            if Int.random(in: 0..<5, using: &generator) > 0 { object["größe"] = Int.random(in: -3...9, using: &generator) }
            if Int.random(in: 0..<5, using: &generator) > 0 {
                object["plate"] = ["ab", "AB", "b'c", "\"q\"", "ü", ""][Int.random(in: 0..<6, using: &generator)] + "\(index % 3)"
            }
            let chosenTags = tags.indices.filter { _ in Int.random(in: 0..<3, using: &generator) == 0 }
            if !chosenTags.isEmpty { object["tägs"] = chosenTags.map { "t\($0)" } }
            let partCount = Int.random(in: 0...3, using: &generator)
            if partCount > 0 {
                let ids = (0..<partCount).map { "p\(index)-\($0)" }
                for id in ids { parts.append(["_id": id, "name": ["wheel", "door", "seat"][Int.random(in: 0..<3, using: &generator)]]) }
                object["pärts"] = ids.shuffled(using: &generator)
            }
            carObjects.append(object)
        }
        return [car: carObjects, tag: tags, part: parts]
    }
}
