import CDDiff
import CDFetch
import CDServe
import CDStore
import Testing

/// A message that several error types give is worded once: serve's and diff's errors for an
/// unknown entity or object say exactly what the library's errors say.
@Suite struct ErrorWordingTests {
    static let entityCases: [(name: String, known: [String])] = [
        ("Cat", ["Car", "LuxuryCar"]), ("", []), ("Ünïcode \"quoted\"", ["A", "B", "C"]),
    ]

    @Test func unknownEntityIsWordedOnce() {
        for (name, known) in Self.entityCases {
            let library = StoreError.unknownEntity(name: name, known: known).message
            #expect(library.hasPrefix("unknown entity \"\(name)\"; entities: "))
            #expect(ServeError.unknownEntity(name: name, known: known).message == library)
            #expect(DiffError.unknownEntity(name: name, known: known).message == library)
        }
    }

    @Test func unknownObjectIsWordedOnce() {
        let library = FetchSQLError.noObject(entity: "Car", primaryKey: 42).message
        #expect(library == "Car has no object with Z_PK 42")
        #expect(ServeError.unknownObject(entity: "Car", primaryKey: 42).message == library)
    }

    @Test func unstoredRelationshipIsWordedOnce() {
        let library = StoreError.relationshipNotStored(entity: "Car", relationship: "owners").message
        #expect(library == "Car.owners: the store has no column or join table for this relationship")
        #expect(FetchSQLError.noRelationshipStorage(entity: "Car", relationship: "owners").message == library)
    }
}
