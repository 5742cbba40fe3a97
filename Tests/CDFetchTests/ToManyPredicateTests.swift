import CDFetch
import CDPredicate
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// The shapes of issue 23 on the store of its 2013 SQLDebug log (``TwoManyToManyStore``). Every
/// answer is stated here from the objects, not read back from cdstore. (The issue's three
/// fetches, against the oracle too, are Issue23FetchTests, on the same store.)
@Suite(.temporaryDirectories) struct ToManyPredicateTests {
    static let x = 1
    static let y = 2

    @Test func theOrIsTheTwoOuterJoinsOfTheLog() throws {
        let store = try TwoManyToManyStore()
        let x = store.entity2(Self.x)
        let statement = try store.sql("ANY e2a == %@ OR ANY e2b == %@", [x, x])
        // The 2013 log of this fetch (issue 23), columns aside.
        #expect(
            statement.sql.hasSuffix(
                " FROM ZENTITY1 t0 LEFT OUTER JOIN Z_1E2A t1 ON t0.Z_PK = t1.Z_1E1A LEFT OUTER JOIN Z_1E2B t3 ON t0.Z_PK = t3.Z_1E1B WHERE ( t1.Z_2E2A = ? OR  t3.Z_2E2B = ?)"
            ))
        #expect(statement.sql.hasPrefix("SELECT DISTINCT 0, t0.Z_PK, t0.Z_OPT, "))
        // An object is bound as its Z_PK, as Core Data binds it.
        #expect(statement.arguments == [Int64(Self.x).databaseValue, Int64(Self.x).databaseValue])
    }

    @Test func objectsInEveryPosition() throws {
        let store = try TwoManyToManyStore()
        let (x, y) = (store.entity2(Self.x), store.entity2(Self.y))
        #expect(try store.primaryKeys("%@ IN e2b", [x]) == [1, 4])
        #expect(try store.primaryKeys("%@ IN e2a", [y]) == [4])
        #expect(try store.primaryKeys("ANY e2a IN {%@, %@}", [x, y]) == [3, 4])
        #expect(try store.primaryKeys("partner == %@", [x]) == [1])
        #expect(try store.primaryKeys("%@ == partner", [y]) == [3])
        #expect(try store.primaryKeys("partner IN {%@, %@}", [x, y]) == [1, 3])
        // nil partner: SQL's UNKNOWN, as Core Data's `<>` (quirk nilComparison).
        #expect(try store.primaryKeys("partner != %@", [x]) == [3])
        #expect(try store.primaryKeys("NONE e2b == %@", [x]) == [])
        #expect(try store.primaryKeys("SELF == %@", ["x-coredata://\(store.storeUUID)/Entity1/p2"]) == [2])
        #expect(try store.primaryKeys("SUBQUERY(e2b, $m, $m == %@).@count == 1", [x]) == [1, 4])
    }

    @Test func wrongObjectsAreRefusedNotCompared() throws {
        let store = try TwoManyToManyStore()
        #expect(
            throws: FetchSQLError.objectOfOtherEntity(uri: "x-coredata://\(store.storeUUID)/Entity1/p1", entity: "Entity1", destination: "Entity2")
        ) {
            try store.sql("ANY e2b == %@", ["x-coredata://\(store.storeUUID)/Entity1/p1"])
        }
        #expect(
            throws: FetchSQLError.notAnObjectID(text: "X", destination: "Entity2")
        ) {
            try store.sql("partner == %@", ["X"])
        }
        #expect(throws: FetchSQLError.inNeedsListOrToMany) {
            try store.sql("%@ IN name", ["one"])
        }
        #expect(
            FetchSQLError.objectOfOtherEntity(uri: "x-coredata://U/Entity1/p1", entity: "Entity1", destination: "Entity2").message
                == "x-coredata://U/Entity1/p1 is an object of entity Entity1, but the comparison takes entity Entity2 (or a sub-entity of it), so it could never match"
        )
        #expect(
            FetchSQLError.notAnObjectID(text: "X", destination: "Entity2").message
                == "\"X\" is not an object ID: compare with the ID of an object of entity Entity2 (x-coredata://<store UUID>/Entity2/p<N>) or with nil"
        )
    }

    @Test func toOneKeyPathsThroughNil() throws {
        let store = try TwoManyToManyStore()
        // Objects 2 and 4 have no partner: the key path reads nil, as in NSPredicate.
        #expect(try store.primaryKeys("partner.name == nil") == [2, 4])
        #expect(try store.primaryKeys("partner.name == nil OR name == 'one'") == [1, 2, 4])
        #expect(try store.primaryKeys("partner.name == 'X' OR name == 'two'") == [1, 2])
        // Under NOT and `!=`, nil is UNKNOWN (Core Data's SQL; quirk nilComparison).
        #expect(try store.primaryKeys("NOT (partner.name == 'X')") == [3])
        #expect(try store.primaryKeys("partner.name != 'X'") == [3])
        let statement = try store.sql("partner.name == 'X'")
        #expect(statement.sql.contains(" FROM ZENTITY1 t0 JOIN ZENTITY2 t1 ON t0.ZPARTNER = t1.Z_PK WHERE  t1.ZNAME = ?"))
        #expect(try store.sql("partner.name == nil").sql.contains(" LEFT OUTER JOIN ZENTITY2 t1 ON t0.ZPARTNER = t1.Z_PK WHERE  t1.ZNAME IS NULL"))
    }

    @Test func subqueryCountsMembersNotJoinRows() throws {
        let store = try TwoManyToManyStore()
        // Member X of object 3's e2a has e1b = {1, 4}: two join rows, one member.
        #expect(try store.primaryKeys("SUBQUERY(e2a, $m, ANY $m.e1b.name BEGINSWITH 'o' OR ANY $m.e1b.name BEGINSWITH 'f').@count == 1") == [3])
        #expect(try store.primaryKeys("SUBQUERY(e2a, $m, ANY $m.e1b.name != 'zzz').@count == 1") == [3])
        #expect(try store.sql("SUBQUERY(e2a, $m, ANY $m.e1b.name != 'zzz').@count == 1").sql.contains("(SELECT COUNT(DISTINCT t2.Z_PK) FROM "))
    }
}
