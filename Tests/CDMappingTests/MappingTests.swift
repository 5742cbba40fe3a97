@testable import CDMapping
import CDModel
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// What a mapping test needs from one corpus store, read from a private copy.
struct MappedStore {
    let model: ManagedObjectModel
    let registry: EntityRegistry
    let schema: StoreSchema
    let frameworkVersion: Int?
    /// Every `sqlite_master.sql` text, in `sqlite_master` order.
    let statements: [String]

    /// `nil` for stores without a model cache (framework before 754).
    static func load(_ store: String) throws -> MappedStore? {
        let copy = try Corpus.copyStore(store)
        let snapshot = try StoreSnapshot(path: copy.path)
        return try snapshot.read { db in
            guard let cache = try ModelCache.read(db, path: copy.path) else { return nil }
            return MappedStore(
                model: cache.model, registry: try EntityRegistry.read(db), schema: try StoreSchema.read(db),
                frameworkVersion: try StoreMetadata.read(db, path: copy.path).frameworkVersion,
                statements: try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"))
        }
    }

    static func require(_ store: String) throws -> MappedStore {
        try #require(try load(store), "\(store) has no model cache")
    }

    /// Rules only: the registry's numbers and the framework version's rules, no schema.
    var predicted: StoreMapping {
        StoreMapping.predict(
            model: model, registry: registry,
            options: frameworkVersion.map { MappingOptions(frameworkVersion: $0) } ?? MappingOptions())
    }

    var resolved: StoreMapping { StoreMapping.resolve(model: model, registry: registry, schema: schema) }
}

/// Differences a store is known to have that no rule explains; everything else must match.
private let knownFailures: [String: Set<String>] = [
    // ZGENERICASSET holds GenericAsset and its sub-entity Asset, but this store has no Z_ENT
    // index on it, though every other table with sub-entities in the corpus has one. A
    // migration that introduced the sub-entity probably did not add it.
    "osxphotos-photos-10.15.4/Photos.sqlite": ["missingIndex ZGENERICASSET_Z_ENT_INDEX"]
]

/// Which corpus stores each corpus-wide mapping test covers, read once while the run is planned.
enum MappingCorpus {
    /// What decides the tests a store with a model cache takes part in.
    struct Facts {
        /// A migration reshaped the store (``StoreSchema/showsMigrationHistory``).
        let migrated: Bool
        /// `sqlite_master` lists the entity tables first, as a fresh store of a framework after
        /// 754 does: a migration lists the bookkeeping tables first and the entity tables in
        /// another order, and framework 754 creates the `Z_ENT` index before the key indexes.
        let createdInFreshOrder: Bool
    }

    /// Every store with a model cache.
    static let facts: [String: Facts] = Corpus.facts { store in
        try MappedStore.load(store).map { mapped in
            Facts(
                migrated: mapped.schema.showsMigrationHistory,
                createdInFreshOrder: mapped.statements.first?.hasPrefix("CREATE TABLE Z_PRIMARYKEY") == false
                    && (mapped.frameworkVersion ?? 0) > 754)
        }
    }
    static let cached = facts.keys.sorted()
    static let migrated = facts.filter { $0.value.migrated }.keys.sorted()
    static let unmigrated = facts.filter { !$0.value.migrated }.keys.sorted()
    static let unmigratedInFreshOrder = facts.filter { !$0.value.migrated && $0.value.createdInFreshOrder }.keys.sorted()
}

@Suite(.temporaryDirectories, .tags(.corpusWide)) struct MappingCorpusWideTests {
    /// The tests below cover exactly these numbers of stores, so a corpus change or a store that
    /// stops loading cannot make them pass by covering fewer.
    @Test func casesCoverTheExpectedStores() {
        #expect(MappingCorpus.cached.count == 31)
        #expect(MappingCorpus.migrated.count == 6)
        #expect(MappingCorpus.unmigrated.count == 25)
        #expect(MappingCorpus.unmigratedInFreshOrder.count == 22)
    }

    /// Every store with a model cache: the mapping resolved from the cache and `Z_PRIMARYKEY`
    /// has exactly the store's Core Data tables, columns (names, order, types) and indexes.
    @Test(arguments: MappingCorpus.cached)
    func resolvedMappingMatchesStore(_ store: String) throws {
        let mapped = try MappedStore.require(store)
        let comparison = mapped.resolved.compare(with: mapped.schema)
        let failures = Set(comparison.failures.map { "\($0.kind) \($0.name ?? $0.table)" })
        #expect(failures == knownFailures[store] ?? [], "\(comparison.failures.map { "\($0.detail): \($0.expected ?? "") | \($0.actual ?? "")" })")
        if !mapped.schema.showsMigrationHistory {
            #expect(comparison.matchesExactly, "\(comparison.differences.filter { $0.severity != .foreign })")
        }
    }

    /// Stores no migration reshaped match the prediction alone, statement text included.
    @Test(arguments: MappingCorpus.unmigrated)
    func predictionAloneMatchesUnmigratedStores(_ store: String) throws {
        let mapped = try MappedStore.require(store)
        let comparison = mapped.predicted.compare(with: mapped.schema)
        #expect(comparison.matchesExactly, "\(comparison.differences.filter { $0.severity != .foreign })")
    }

    /// In migrated stores, every column-order difference of the prediction is explained by the
    /// store's history, never silently accepted.
    @Test(arguments: MappingCorpus.migrated)
    func migratedOrderDifferencesAreExplained(_ store: String) throws {
        let mapped = try MappedStore.require(store)
        let orders = mapped.predicted.compare(with: mapped.schema).differences.filter { $0.kind == .columnOrder }
        #expect(orders.allSatisfy { $0.severity == .explained }, "\(orders.filter { $0.severity != .explained })")
    }

    /// For a store no migration touched, the CREATE statements are `sqlite_master`'s, text for
    /// text (triggers and objects the model does not create aside).
    @Test(arguments: MappingCorpus.unmigrated)
    func createStatementsReproduceUnmigratedStores(_ store: String) throws {
        let mapped = try MappedStore.require(store)
        let ours = mapped.resolved.createStatements
        #expect(Set(ours).isSubset(of: Set(mapped.statements)), "\(Set(ours).subtracting(mapped.statements))")
    }

    /// For an unmigrated store laid out as a fresh one (``MappingCorpus/Facts/createdInFreshOrder``),
    /// the CREATE statements also come in `sqlite_master`'s order.
    @Test(arguments: MappingCorpus.unmigratedInFreshOrder)
    func createStatementsFollowTheOrderOfFreshStores(_ store: String) throws {
        let mapped = try MappedStore.require(store)
        let ours = mapped.resolved.createStatements
        #expect(mapped.statements.filter(ours.contains) == ours)
    }

    /// Every R-tree table of the corpus (Photos from 10.15 on, from the location attribute
    /// `boundedByRect`) is in the resolved mapping with the store's statement; SQLite's own
    /// `_node`, `_parent` and `_rowid` tables stay outside.
    @Test(arguments: MappingCorpus.cached)
    func rtreeTablesAreMapped(_ store: String) throws {
        let mapped = try MappedStore.require(store)
        let rtrees = mapped.schema.tables.filter { $0.sql?.hasPrefix("CREATE VIRTUAL TABLE") == true && $0.name.hasPrefix("Z_RT_") }
        let ours = mapped.resolved.tables.filter { $0.kind == .rtree }
        #expect(ours.map(\.createStatement) == rtrees.compactMap(\.sql))
        #expect(ours.isEmpty == !store.hasPrefix("osxphotos-photos-"))
        let storeTriggers = mapped.schema.triggers.filter { $0.name.hasPrefix("Z_RT_") }.compactMap(\.sql)
        #expect(ours.flatMap(\.triggers) == storeTriggers)
        if let version = mapped.frameworkVersion {
            #expect(mapped.predicted.tables.filter { $0.kind == .rtree }.flatMap(\.triggers) == storeTriggers, "\(version)")
        }
    }

    /// §4: numbering the model's entities without `Z_PRIMARYKEY` gives its numbers.
    @Test(arguments: MappingCorpus.cached)
    func computedNumbersEqualPrimaryKeyTable(_ store: String) throws {
        let mapped = try MappedStore.require(store)
        let fromRegistry = Dictionary(uniqueKeysWithValues: mapped.predicted.entities.map { ($0.name, $0.number) })
        #expect(StoreMapping.computedEntityNumbers(for: mapped.model) == fromRegistry)
        #expect(StoreMapping.predict(model: mapped.model).entities.map(\.number) == mapped.predicted.entities.map(\.number))
    }
}

@Suite(.temporaryDirectories) struct MappingRuleTests {
    /// §7.6: an ordered to-many with a to-one inverse orders the rows in the destination table
    /// with `Z_FOK_` after the key; a leaf destination gets no `Z<n>_` companion.
    @Test func orderedToManyAddsOrderColumnAfterKey() throws {
        let mapping = try MappedStore.require("plaso-netusage/netusage.sqlite").resolved
        let table = try #require(mapping.table(named: "ZAPPTYPICALUSAGE"))
        let names = table.columns.map(\.name)
        #expect(names[3...6] == ["ZINTERVALTYPE", "ZHASAPP", "Z_FOK_HASAPP", "ZFIRSTTIMESTAMP"])
        #expect(table.column(named: "Z_FOK_HASAPP")?.role == .toOneOrder)
        #expect(mapping.columns(forProperty: "hasApp", ofEntity: "AppTypicalUsage").map(\.name) == ["ZHASAPP", "Z_FOK_HASAPP"])
        #expect(
            table.createStatement.hasPrefix(
                "CREATE TABLE ZAPPTYPICALUSAGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZINTERVALTYPE INTEGER, ZHASAPP INTEGER, Z_FOK_HASAPP INTEGER, ZFIRSTTIMESTAMP TIMESTAMP, ZTIMESTAMP TIMESTAMP, ZWIFIIN FLOAT,"
            ))
        #expect(mapping.entityNumber(of: "Process") == 15 && mapping.entityNumber(of: "App") == 16)
        #expect(mapping.table(forEntity: "App")?.name == "ZPROCESS")
        #expect(mapping.entityNumbers(includingSubentitiesOf: "Process") == [15, 16])
    }

    /// §7.6: a to-one whose destination has sub-entities gets `Z<destZ_ENT>_<NAME>`.
    @Test func entityTypeCompanionColumns() throws {
        let netusage = try MappedStore.require("plaso-netusage/netusage.sqlite").resolved
        #expect(netusage.columns(forProperty: "hasProcess", ofEntity: "LiveUsage").map(\.name) == ["ZHASPROCESS", "Z15_HASPROCESS"])
        #expect(netusage.table(named: "ZLIVEUSAGE")?.column(named: "Z15_HASPROCESS")?.role == .toOneEntityType)
        let notes = try MappedStore.require("plaso-notestore-ios/NoteStore.sqlite").resolved
        #expect(
            notes.columns(forProperty: "cloudSyncingObject", ofEntity: "ICCloudState").map(\.name)
                == ["ZCLOUDSYNCINGOBJECT", "Z2_CLOUDSYNCINGOBJECT"])
        let books = try MappedStore.require("cdplus-samplemodel2/SampleModel2_V1.sqlite").resolved
        #expect(books.columns(forProperty: "book", ofEntity: "Page").map(\.name) == ["ZBOOK", "Z1_BOOK"])
        let knowledge = try MappedStore.require("plaso-knowledgec-1013/knowledgec-10.13.db").resolved
        #expect(knowledge.columns(forProperty: "object", ofEntity: "CustomMetadata").map(\.name) == ["ZOBJECT", "Z8_OBJECT"])
    }

    /// §7.6: Accounts3 AccessOptionsKey(1).owningAccountTypes ↔ AccountType(4).accessKeys.
    @Test func manyToManyJoinTable() throws {
        let mapping = try MappedStore.require("plaso-accounts3/Accounts3.sqlite").resolved
        let join = try #require(mapping.table(named: "Z_1OWNINGACCOUNTTYPES"))
        #expect(join.kind == .manyToMany)
        #expect(join.columns.map(\.name) == ["Z_1ACCESSKEYS", "Z_4OWNINGACCOUNTTYPES"])
        #expect(
            join.createStatement
                == "CREATE TABLE Z_1OWNINGACCOUNTTYPES ( Z_1ACCESSKEYS INTEGER, Z_4OWNINGACCOUNTTYPES INTEGER, PRIMARY KEY (Z_1ACCESSKEYS, Z_4OWNINGACCOUNTTYPES) )"
        )
        #expect(
            join.indexes.map(\.createStatement) == [
                "CREATE INDEX Z_1OWNINGACCOUNTTYPES_Z_4OWNINGACCOUNTTYPES_INDEX ON Z_1OWNINGACCOUNTTYPES (Z_4OWNINGACCOUNTTYPES, Z_1ACCESSKEYS)"
            ])
        let owning = try #require(mapping.joinTable(forRelationship: "owningAccountTypes", ofEntity: "AccessOptionsKey"))
        #expect(
            owning
                == JoinTableLookup(
                    table: "Z_1OWNINGACCOUNTTYPES", sourceColumn: "Z_1ACCESSKEYS",
                    destinationColumn: "Z_4OWNINGACCOUNTTYPES", orderColumn: nil))
        let keys = try #require(mapping.joinTable(forRelationship: "accessKeys", ofEntity: "AccountType"))
        #expect(keys.sourceColumn == "Z_4OWNINGACCOUNTTYPES" && keys.destinationColumn == "Z_1ACCESSKEYS")
        #expect(mapping.columns(forProperty: "accessKeys", ofEntity: "AccountType").isEmpty)
        #expect(
            mapping.tables.filter { $0.kind == .manyToMany }.map(\.name)
                == [
                    "Z_1OWNINGACCOUNTTYPES", "Z_2ENABLEDDATACLASSES", "Z_2PROVISIONEDDATACLASSES",
                    "Z_4SUPPORTEDDATACLASSES", "Z_4SYNCABLEDATACLASSES",
                ])
    }

    /// §7.6: the key column's number is the declared destination, a sub-entity here (Event is
    /// 10 in macOS 10.13 and 11 in 10.14, stored in ZOBJECT).
    @Test func joinColumnsUseTheDeclaredDestination() throws {
        let old = try MappedStore.require("plaso-knowledgec-1013/knowledgec-10.13.db").resolved
        #expect(old.table(named: "Z_4EVENT")?.columns.map(\.name) == ["Z_4CUSTOMMETADATA", "Z_10EVENT"])
        let new = try MappedStore.require("plaso-knowledgec-1014/knowledgec-10.14.db").resolved
        #expect(new.table(named: "Z_4EVENT")?.columns.map(\.name) == ["Z_4CUSTOMMETADATA", "Z_11EVENT"])
        #expect(new.table(forEntity: "Event")?.name == "ZOBJECT")
    }

    /// §7.2: `account` declared by six sub-entities of ICCloudSyncingObject is numbered in
    /// `Z_ENT` order.
    @Test func collisionSuffixesFollowEntityNumbers() throws {
        let mapping = try MappedStore.require("plaso-notestore-ios/NoteStore.sqlite").resolved
        let owners = ["ICAccountData", "ICDeviceMigrationState", "ICHashtag", "ICLegacyTombstone", "ICNote", "ICFolder"]
        #expect(
            owners.map { mapping.column(forProperty: "account", ofEntity: $0)?.name }
                == ["ZACCOUNT", "ZACCOUNT1", "ZACCOUNT2", "ZACCOUNT3", "ZACCOUNT4", "ZACCOUNT5"])
        #expect(owners.map { mapping.entityNumber(of: $0) } == [3, 6, 7, 9, 11, 14])
        let dates = ["ICAttachment", "ICHashtag", "ICInlineAttachment", "ICNote"]
        #expect(
            dates.map { mapping.column(forProperty: "creationDate", ofEntity: $0)?.name }
                == ["ZCREATIONDATE", "ZCREATIONDATE1", "ZCREATIONDATE2", "ZCREATIONDATE3"])
        // An inherited property resolves to its declaring entity's column.
        #expect(mapping.column(forProperty: "identifier", ofEntity: "ICNote")?.name == "ZIDENTIFIER")
        #expect(mapping.resolutions.contains { $0.rule == .collisionSuffix && $0.held == true })
        #expect(mapping.table(named: "ZICCLOUDSYNCINGOBJECT")?.indexes.contains { $0.name == "ZICCLOUDSYNCINGOBJECT_ZACCOUNT5_INDEX" } == true)
    }

    /// §7.6: Photos' ordered many-to-many Album.assets has a third column `Z_FOK_<m>ASSETS`.
    @Test func orderedManyToManyHasOrderColumn() throws {
        let mapping = try MappedStore.require("osxphotos-photos-10.15.4/Photos.sqlite").predicted
        let join = try #require(mapping.table(named: "Z_26ASSETS"))
        #expect(join.columns.map(\.name) == ["Z_26ALBUMS", "Z_34ASSETS", "Z_FOK_34ASSETS"])
        #expect(
            join.createStatement
                == "CREATE TABLE Z_26ASSETS ( Z_26ALBUMS INTEGER, Z_34ASSETS INTEGER, Z_FOK_34ASSETS INTEGER, PRIMARY KEY (Z_26ALBUMS, Z_34ASSETS) )")
        let lookup = try #require(mapping.joinTable(forRelationship: "assets", ofEntity: "Album"))
        #expect(lookup.orderColumn == "Z_FOK_34ASSETS" && lookup.sourceColumn == "Z_26ALBUMS")
    }

    /// Migrations keep join-table names chosen under earlier entity numbers: after Asset became
    /// entity 3, Album(26).assets still names `Z_26ASSETS`. Resolution adopts the store's name.
    @Test func joinTableNamesFollowTheStore() throws {
        let mapped = try MappedStore.require("osxphotos-photos-10.16.0/Photos.sqlite")
        #expect(mapped.predicted.table(named: "Z_26ASSETS") == nil)
        let resolved = mapped.resolved
        #expect(resolved.table(named: "Z_26ASSETS")?.columns.map(\.name) == ["Z_26ALBUMS", "Z_3ASSETS", "Z_FOK_3ASSETS"])
        #expect(resolved.joinTable(forRelationship: "albums", ofEntity: "Asset")?.table == "Z_26ASSETS")
        #expect(resolved.resolutions.contains { $0.rule == .joinTableNaming && $0.held == false && $0.detail.contains("Z_26ASSETS") })
        // A self-inverse relationship pairs its column with REFLEXIVE.
        let reflexive = try #require(resolved.table(named: "Z_44MERGECANDIDATES"))
        #expect(reflexive.columns.map(\.name) == ["Z_44MERGECANDIDATES", "REFLEXIVE"])
        #expect(reflexive.indexes.map(\.name) == ["Z_44MERGECANDIDATES_REFLEXIVE_INDEX"])
        // Two many-to-manys named representativeAssets with destination Asset: the one of the
        // entity whose name sorts later is numbered.
        #expect(
            mapped.predicted.table(named: "Z_3SUGGESTIONSBEINGREPRESENTATIVEASSETS")?.columns.map(\.name)
                == ["Z_3REPRESENTATIVEASSETS1", "Z_55SUGGESTIONSBEINGREPRESENTATIVEASSETS"])
    }

    /// Photos 15.4.1 (framework 1447) swapped those suffixes: from 1447 the model's entity
    /// dictionary orders them (``JoinKeyOrderStyle``), and Suggestion comes before Memory there.
    @Test func joinColumnSuffixesOf1447FollowTheEntityDictionary() throws {
        let mapped = try MappedStore.require("osxphotos-photos-15.4.1/Photos.sqlite")
        for mapping in [mapped.predicted, mapped.resolved] {
            #expect(mapping.table(named: "Z_3MEMORIESBEINGREPRESENTATIVEASSETS")?.columns.first?.name == "Z_3REPRESENTATIVEASSETS1")
            #expect(mapping.table(named: "Z_3SUGGESTIONSBEINGREPRESENTATIVEASSETS")?.columns.first?.name == "Z_3REPRESENTATIVEASSETS")
        }
        #expect(
            mapped.resolved.resolutions.contains {
                $0.rule == .joinTableNaming && $0.held == true
                    && $0.table == "Z_3MEMORIESBEINGREPRESENTATIVEASSETS" && $0.detail.hasSuffix("uncertain")
            })
    }

    /// §7.6: a to-many without inverse keeps `Z<sourceZ_ENT><REL>` in the destination table.
    @Test func toManyWithoutInverseKeepsHiddenKey() throws {
        let mapping = try MappedStore.require("osxphotos-photos-13.0.0/Photos.sqlite").resolved
        let column = try #require(mapping.column(forProperty: "libraryScopeAssetContributors", ofEntity: "Asset"))
        #expect(column.name == "Z3LIBRARYSCOPEASSETCONTRIBUTORS" && column.role == .toManyKeyWithoutInverse)
        let table = try #require(mapping.table(named: "ZASSETCONTRIBUTOR"))
        #expect(
            table.createStatement
                == "CREATE TABLE ZASSETCONTRIBUTOR ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARTICIPANT INTEGER, Z3LIBRARYSCOPEASSETCONTRIBUTORS INTEGER )"
        )
        #expect(table.indexes.map(\.name).contains("ZASSETCONTRIBUTOR_Z3LIBRARYSCOPEASSETCONTRIBUTORS_INDEX"))
    }

    /// §7.3, §7.4, §7.7, §7.8: CoreDataPlus SampleModel2 verbatim.
    @Test func inheritanceDerivedAttributesAndUniqueness() throws {
        let mapping = try MappedStore.require("cdplus-samplemodel2/SampleModel2_V1.sqlite").resolved
        let book = try #require(mapping.table(named: "ZBOOK"))
        #expect(book.entities == ["Book", "GraphicNovel"])
        #expect(
            book.createStatement
                == "CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPAGESCOUNT INTEGER, ZAUTHOR INTEGER, ZISBLACKANDWHITE INTEGER, ZPUBLISHEDAT TIMESTAMP, ZPRICE DECIMAL, ZTITLE VARCHAR, ZUNIQUEID BLOB, ZCOVER BLOB )"
        )
        #expect(
            book.indexes.map(\.createStatement) == [
                "CREATE INDEX ZBOOK_ZAUTHOR_INDEX ON ZBOOK (ZAUTHOR)",
                "CREATE INDEX ZBOOK_Z_ENT_INDEX ON ZBOOK (Z_ENT)",
                "CREATE UNIQUE INDEX Z_Book_UNIQUE_uniqueID ON ZBOOK (ZUNIQUEID COLLATE BINARY ASC)",
            ])
        // Derived attributes have a column; fetched properties have none.
        #expect(mapping.column(forProperty: "pagesCount", ofEntity: "Book")?.name == "ZPAGESCOUNT")
        #expect(mapping.columns(forProperty: "feedbacks", ofEntity: "Author").isEmpty)
        // A sub-entity's constraint is named after it but indexes the root table.
        let writer = try #require(mapping.table(named: "ZWRITER"))
        #expect(writer.indexes.last?.createStatement == "CREATE UNIQUE INDEX Z_Author_UNIQUE_alias ON ZWRITER (ZALIAS COLLATE BINARY ASC)")
    }

    @Test func uniquenessAndFetchIndexes() throws {
        let mapping = try MappedStore.require("cdplus-samplemodel/SampleModel_V2.sqlite").resolved
        let statements = mapping.tables.flatMap(\.indexes).map(\.createStatement)
        #expect(
            statements.contains(
                "CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)"))
        #expect(statements.contains("CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)"))
        // LuxuryCar is row 3 of Z_PRIMARYKEY under its old name ExpensiveSportCar.
        #expect(mapping.entityNumber(of: "LuxuryCar") == 3)
        #expect(mapping.resolutions.contains { $0.rule == .renamedEntity })
    }

    /// Partial indexes (`WHERE`) and descending elements, VUIndex verbatim.
    @Test func partialAndDescendingFetchIndexes() throws {
        let mapping = try MappedStore.require("osxphotos-vuindex-15.4.1/VUIndex.sqlite").resolved
        let statements = Set(mapping.tables.flatMap(\.indexes).map(\.createStatement))
        #expect(
            statements.contains(
                "CREATE INDEX Z_VUIndexMapping_hasMatchOnlyLabels ON ZVUINDEXMAPPING (ZDENSITY COLLATE BINARY ASC) WHERE (ZDENSITY = -1 AND ZLABEL <> -1)"))
        #expect(statements.contains("CREATE INDEX Z_VUIndexMapping_byDiversity ON ZVUINDEXMAPPING (ZDIVERSITY COLLATE BINARY DESC)"))
        #expect(
            statements.contains(
                "CREATE INDEX Z_VUIndexObservation_quantizerIdentifiers ON ZVUINDEXOBSERVATION (ZTYPE COLLATE BINARY ASC, ZISPRIMARY COLLATE BINARY ASC, ZIDENTIFIER COLLATE BINARY ASC) WHERE ZEMBEDDING IS NOT NULL"
            ))
    }

    /// Fetch-index elements that index `SELF` use `Z_PK` (Photos `forFavoritesAlbum`).
    @Test func expressionElementsIndexKeys() throws {
        let mapping = try MappedStore.require("osxphotos-photos-14.6.0/Photos.sqlite").resolved
        let index = try #require(mapping.table(named: "ZASSET")?.indexes.first { $0.name == "Z_Asset_forFavoritesAlbum" })
        #expect(index.columns.prefix(4) == ["ZFAVORITE", "ZDATECREATED", "ZADDEDDATE", "Z_PK"])
        #expect(index.whereClause == "ZFAVORITE = 1")
    }

    /// §11: knowledgeC 10.13 (framework 851) has the legacy history layout, three tombstones,
    /// and writes a one-property uniqueness constraint on the column.
    @Test func legacyHistoryAndColumnUniqueness() throws {
        let mapping = try MappedStore.require("plaso-knowledgec-1013/knowledgec-10.13.db").resolved
        #expect(
            mapping.table(named: "ATRANSACTION")?.createStatement
                == "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )"
        )
        #expect(mapping.table(named: "ATRANSACTIONSTRING") == nil)
        #expect(mapping.table(named: "ACHANGE")?.columns.suffix(3).map(\.name) == ["ZTOMBSTONE0", "ZTOMBSTONE1", "ZTOMBSTONE2"])
        #expect(mapping.table(named: "ZSTRUCTUREDMETADATA")?.column(named: "ZMETADATAHASH")?.unique == true)
        #expect(mapping.resolutions.contains { $0.rule == .uniquenessStyle })
    }

    @Test func currentHistoryLayout() throws {
        let mapping = try MappedStore.require("cdplus-samplemodel2/SampleModel2_V1.sqlite").resolved
        #expect(mapping.tables.filter { $0.kind == .history }.map(\.name) == ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
        #expect(
            mapping.table(named: "ATRANSACTIONSTRING")?.indexes.map(\.createStatement)
                == ["CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)"])
        #expect(
            mapping.table(named: "Z_PRIMARYKEY")?.createStatement
                == "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        #expect(
            mapping.table(named: "Z_METADATA")?.createStatement
                == "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
    }

    /// §7.3 verbatim example.
    @Test func postTableText() throws {
        let mapping = try MappedStore.require("wibosco-migration/CoreDataMigration_Example_3.sqlite").resolved
        let post = try #require(mapping.table(named: "ZPOST"))
        let actual = try MappedStore.require("wibosco-migration/CoreDataMigration_Example_3.sqlite").schema.table(named: "ZPOST")
        #expect(post.createStatement == actual?.sql)
        #expect(post.createStatement.hasPrefix("CREATE TABLE ZPOST ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, "))
    }

    /// Transient properties have no column.
    @Test func transientRelationshipsHaveNoColumn() throws {
        let mapping = try MappedStore.require("plaso-netusage/netusage.sqlite").resolved
        #expect(mapping.columns(forProperty: "hintedBy", ofEntity: "LiveUsage").isEmpty)
        #expect(mapping.table(named: "ZLIVEUSAGE")?.column(named: "ZHINTEDBY") == nil)
    }
}

@Suite(.temporaryDirectories) struct SchemaComparisonTests {
    private func accounts() throws -> (StoreMapping, StoreSchema) {
        let mapped = try MappedStore.require("plaso-accounts3/Accounts3.sqlite")
        return (mapped.resolved, mapped.schema)
    }

    /// Photos' ordered album↔asset join table carries two more indexes, named `RADAR_…` after
    /// the app's bug numbers; no other ordered many-to-many table has them, so they are the
    /// app's; the R-tree triggers are the mapping's own.
    @Test func photosOwnIndexesAndRTreeTriggers() throws {
        let mapped = try MappedStore.require("osxphotos-photos-14.6.0/Photos.sqlite")
        let differences = mapped.resolved.compare(with: mapped.schema).differences
        let radar = differences.filter { $0.name?.hasPrefix("RADAR_") == true }
        #expect(radar.map(\.name) == ["RADAR_22158684_INDEX", "RADAR_10322662_INDEX"])
        #expect(radar.allSatisfy { $0.severity == .foreign && $0.detail.hasPrefix("the app's own index") })
        #expect(!differences.contains { $0.kind == .trigger && $0.name?.hasPrefix("Z_RT_") == true })
    }

    @Test func foreignObjectsAreReportedNotFailed() throws {
        let (mapping, schema) = try accounts()
        var changed = schema
        changed.tables.append(.init(name: "APPSETTINGS", sql: "CREATE TABLE APPSETTINGS (KEY TEXT, VALUE TEXT)", columns: []))
        changed.tables.append(.init(name: "Z_RT_Account_box", sql: "CREATE VIRTUAL TABLE Z_RT_Account_box USING RTREE (Z_PK INTEGER PRIMARY KEY)", columns: []))
        changed.indexes.append(.init(name: "APP_ACCOUNT_INDEX", table: "ZACCOUNT", sql: "CREATE INDEX APP_ACCOUNT_INDEX ON ZACCOUNT (ZUSERNAME)"))
        let comparison = mapping.compare(with: changed)
        #expect(comparison.matchesExactly)
        #expect(comparison.differences.count == 3)
        #expect(comparison.differences.allSatisfy { $0.severity == .foreign })
    }

    @Test func coreDataDifferencesFail() throws {
        let (mapping, schema) = try accounts()
        var changed = schema
        changed.tables.append(.init(name: "ZGHOST", sql: "CREATE TABLE ZGHOST ( Z_PK INTEGER PRIMARY KEY )", columns: []))
        changed.indexes.removeAll { $0.name == "ZACCOUNT_ZACCOUNTTYPE_INDEX" }
        let account = try #require(changed.tables.firstIndex { $0.name == "ZACCOUNT" })
        changed.tables[account].columns[3].type = "VARCHAR"
        changed.tables[account].columns.append(.init(name: "ZEXTRA", type: "BLOB"))
        let failures = mapping.compare(with: changed).failures
        #expect(Set(failures.map(\.kind)) == [.extraTable, .missingIndex, .columnType, .extraColumn])
        let missing = try #require(failures.first { $0.kind == .missingIndex })
        #expect(missing.expected == "CREATE INDEX ZACCOUNT_ZACCOUNTTYPE_INDEX ON ZACCOUNT (ZACCOUNTTYPE)")
    }

    @Test func columnOrderAndAppendedColumns() throws {
        let table = StoreSchema.Table(
            name: "ZEXTENDEDATTRIBUTES",
            sql: "CREATE TABLE ZEXTENDEDATTRIBUTES ( Z_PK INTEGER PRIMARY KEY, ZA INTEGER, ZLENSMODEL VARCHAR , ZSLUSHVERSION INTEGER, ZFPS FLOAT)",
            columns: [])
        #expect(table.appendedColumns == ["ZSLUSHVERSION", "ZFPS"])
        #expect(!table.wasRenamed)
        #expect(StoreSchema.Table(name: "Z_3X", sql: "CREATE TABLE \"Z_3X\" ( Z_3A INTEGER )", columns: []).wasRenamed)
    }
}

@Suite(.temporaryDirectories) struct MappingFormatTests {
    /// The `cdstore model --sql --json` contract: every key present, `null` when not applicable.
    @Test func jsonContract() throws {
        let mapping = try MappedStore.require("plaso-accounts3/Accounts3.sqlite").resolved
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(mapping)) as? [String: Any])
        let tables = try #require(object["tables"] as? [[String: Any]])
        let account = try #require(tables.first { $0["name"] as? String == "ZACCOUNT" })
        #expect(Set(account.keys) == ["name", "kind", "entities", "columns", "primaryKey", "indexes", "alternatives", "triggers", "sql"])
        let columns = try #require(account["columns"] as? [[String: Any]])
        #expect(
            columns.allSatisfy {
                Set($0.keys) == ["name", "type", "role", "unique", "entity", "property", "destination", "renamedFrom"]
            })
        #expect(columns[0]["name"] as? String == "Z_PK" && columns[0]["entity"] is NSNull)
        let indexes = try #require(account["indexes"] as? [[String: Any]])
        #expect(
            indexes.allSatisfy {
                Set($0.keys) == ["name", "table", "kind", "unique", "columns", "order", "where", "entity", "sql"]
            })
        #expect(indexes.first?["sql"] as? String == "CREATE INDEX ZACCOUNT_ZACCOUNTTYPE_INDEX ON ZACCOUNT (ZACCOUNTTYPE)")
        let decoded = try JSONDecoder().decode(StoreMapping.self, from: encoder.encode(mapping))
        #expect(decoded == mapping)
    }

    @Test func partialIndexPredicates() {
        let column = { (name: String) -> String? in name == "missing" ? nil : "Z" + name.uppercased() }
        #expect(PartialIndexSQL.translate("favorite == 1", column: column) == "ZFAVORITE = 1")
        #expect(PartialIndexSQL.translate("embedding != nil", column: column) == "ZEMBEDDING IS NOT NULL")
        #expect(PartialIndexSQL.translate("data == nil", column: column) == "ZDATA IS NULL")
        #expect(PartialIndexSQL.translate("packedBadgeAttributes > 1", column: column) == "ZPACKEDBADGEATTRIBUTES > 1")
        #expect(
            PartialIndexSQL.translate("cloudLocalState == 2 OR cloudLocalState == 4", column: column)
                == "(ZCLOUDLOCALSTATE = 2 OR ZCLOUDLOCALSTATE = 4)")
        #expect(
            PartialIndexSQL.translate("faceCrop == nil AND duration == 0 AND manual == 0 AND (centerX != 0 OR bodyCenterX == 0)", column: column)
                == "(ZFACECROP IS NULL AND ZDURATION = 0 AND ZMANUAL = 0 AND (ZCENTERX <> 0 OR ZBODYCENTERX = 0))")
        #expect(PartialIndexSQL.translate("name == \"it's\"", column: column) == "ZNAME = 'it''s'")
        #expect(PartialIndexSQL.translate("missing == 1", column: column) == nil)
        #expect(PartialIndexSQL.translate("a.b == 1 AND", column: column) == nil)
    }

    /// Without a store, entity numbers come from the observed order and a note says so.
    @Test func predictionWithoutStoreSaysNumbersAreComputed() throws {
        let mapped = try MappedStore.require("plaso-netusage/netusage.sqlite")
        let mapping = StoreMapping.predict(model: mapped.model)
        #expect(mapping.entityNumber(of: "NetworkAttachment") == 12 && mapping.entityNumber(of: "NWActivityFragment") == 13)
        #expect(mapping.resolutions.contains { $0.rule == .entityNumbering && $0.held == nil })
        #expect(mapping.tables.filter { $0.kind == .history }.isEmpty)
        #expect(
            StoreMapping.predict(model: mapped.model, options: MappingOptions(history: .layout(.current)))
                .tables.filter { $0.kind == .history }.map(\.name) == ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
    }
}
