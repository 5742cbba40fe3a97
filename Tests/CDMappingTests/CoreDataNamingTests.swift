@testable import CDMapping
import Testing

/// The naming rule on the names real stores hold, as store-format.md §7.1, §7.6 and §11 quote them.
@Suite struct CoreDataNamingTests {
    @Test func entityTablesAndColumns() {
        #expect(CoreDataNaming.entityTable(root: "ICCloudSyncingObject") == "ZICCLOUDSYNCINGOBJECT")
        #expect(
            CoreDataNaming.column(property: "_DKApplicationActivityMetadataKey__isEligibleForPrediction")
                == "Z_DKAPPLICATIONACTIVITYMETADATAKEY__ISELIGIBLEFORPREDICTION")
        #expect(CoreDataNaming.frameworkTable(root: "TRANSACTIONSTRING") == "ATRANSACTIONSTRING")
    }

    @Test func relationshipColumns() {
        #expect(CoreDataNaming.toOneEntityType(destination: 2, stem: "CLOUDSYNCINGOBJECT") == "Z2_CLOUDSYNCINGOBJECT")
        #expect(CoreDataNaming.toManyKeyWithoutInverse(sourceEntity: 4, relationship: "transcripts") == "Z4TRANSCRIPTS")
        // netusage: `ZHASAPP INTEGER, Z_FOK_HASAPP INTEGER`.
        #expect(CoreDataNaming.orderColumn(stem: "HASAPP") == "Z_FOK_HASAPP")
    }

    /// Accounts3: `Z_1OWNINGACCOUNTTYPES ( Z_1ACCESSKEYS, Z_4OWNINGACCOUNTTYPES )`.
    @Test func joinTables() {
        #expect(CoreDataNaming.joinName(entity: 1, relationship: "owningAccountTypes") == "Z_1OWNINGACCOUNTTYPES")
        #expect(CoreDataNaming.joinName(entity: 4, stem: CoreDataNaming.stem("owningAccountTypes")) == "Z_4OWNINGACCOUNTTYPES")
        // Photos: `Z_26ASSETS (Z_26ALBUMS, Z_34ASSETS, Z_FOK_34ASSETS)`.
        #expect(CoreDataNaming.joinOrderColumn(entity: 34, stem: CoreDataNaming.stem("assets")) == "Z_FOK_34ASSETS")
        #expect(CoreDataNaming.isJoinTableName("Z_1OWNINGACCOUNTTYPES"))
        #expect(!CoreDataNaming.isJoinTableName("Z_PRIMARYKEY"))
        #expect(!CoreDataNaming.isJoinTableName("Z_12"))
        #expect(!CoreDataNaming.isJoinTableName("ZPOST"))
    }
}
