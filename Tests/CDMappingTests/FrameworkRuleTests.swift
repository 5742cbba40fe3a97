import CDArchive
@testable import CDMapping
import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Mapping rules that depend on the framework version or that the model file cannot settle,
/// checked on small models written for the purpose.
@Suite struct FrameworkRuleTests {
    private func model(_ entities: String) throws -> ManagedObjectModel {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="11759" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            \(entities)
            </model>
            """
        return try XMLModelReader.model(fromXML: Data(xml.utf8))
    }

    private var notes: ManagedObjectModel {
        get throws {
            try model(
                """
                <entity name="Note" representedClassName="Note" syncable="YES">
                    <attribute name="isArchived" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                    <attribute name="modifiedDate" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                    <attribute name="title" optional="YES" attributeType="String" indexed="YES"/>
                    <compoundIndexes>
                        <compoundIndex>
                            <index value="isArchived"/>
                            <index value="modifiedDate"/>
                        </compoundIndex>
                    </compoundIndexes>
                </entity>
                """)
        }
    }

    private func indexStatements(_ model: ManagedObjectModel, frameworkVersion: Int) -> [String] {
        let mapping = StoreMapping.predict(model: model, options: MappingOptions(frameworkVersion: frameworkVersion))
        return mapping.tables.flatMap(\.indexes).map(\.createStatement)
    }

    /// Up to 754 plain indexes (a compound one without `_INDEX`); from 865 fetch indexes.
    @Test func legacyIndexesFollowTheFrameworkVersion() throws {
        let model = try notes
        let plain = [
            "CREATE INDEX ZNOTE_ZTITLE_INDEX ON ZNOTE (ZTITLE)",
            "CREATE INDEX ZNOTE_ZISARCHIVED_ZMODIFIEDDATE ON ZNOTE (ZISARCHIVED, ZMODIFIEDDATE)",
        ]
        let fetch = [
            "CREATE INDEX Z_Note_title ON ZNOTE (ZTITLE COLLATE BINARY ASC)",
            "CREATE INDEX Z_Note_isArchived_modifiedDate ON ZNOTE (ZISARCHIVED COLLATE BINARY ASC, ZMODIFIEDDATE COLLATE BINARY ASC)",
        ]
        #expect(indexStatements(model, frameworkVersion: 754) == plain)
        #expect(indexStatements(model, frameworkVersion: LegacyIndexStyle.firstFetchIndexVersion - 1) == plain)
        #expect(indexStatements(model, frameworkVersion: LegacyIndexStyle.firstFetchIndexVersion) == fetch)
        #expect(indexStatements(model, frameworkVersion: 1522) == fetch)
    }

    /// An entity with fetch indexes gets only those: the legacy flags beside them make nothing
    /// (knowledgeC 851 and 866 have both in their caches).
    @Test func fetchIndexesReplaceLegacyFlags() throws {
        let model = try model(
            """
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String" indexed="YES"/>
                <fetchIndex name="byTitle">
                    <fetchIndexElement property="title" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            """)
        for version in [754, 1522] {
            #expect(indexStatements(model, frameworkVersion: version) == ["CREATE INDEX Z_Note_byTitle ON ZNOTE (ZTITLE COLLATE BINARY ASC)"])
        }
    }

    /// A resolved mapping takes the style the store shows.
    @Test func resolutionFollowsTheStoresIndexStyle() throws {
        let model = try notes
        let old = StoreMapping.predict(model: model, options: MappingOptions(frameworkVersion: 754, history: .none))
        let schema = StoreSchema(
            tables: old.tables.map {
                StoreSchema.Table(name: $0.name, sql: $0.createStatement, columns: $0.columns.map { StoreSchema.Column(name: $0.name, type: $0.type) })
            },
            indexes: old.tables.flatMap(\.indexes).map { StoreSchema.Index(name: $0.name, table: $0.table, sql: $0.createStatement) },
            triggers: [])
        let resolved = StoreMapping.resolve(model: model, registry: nil, schema: schema)
        #expect(resolved.compare(with: schema).matchesExactly)
        #expect(resolved.resolutions.contains { $0.rule == .legacyIndexStyle })
    }

    /// The columns of one type: before 419 in the order of the entity's attribute dictionary,
    /// then of its relationship dictionary; from 419 in name order. The expected old order is
    /// the one of `ZRECIPE` in the Recipes store (framework 241, corpus apple-recipes).
    @Test func columnOrderWithinATypeFollowsTheFrameworkVersion() throws {
        let model = try model(
            """
            <entity name="Recipe" syncable="YES">
                <attribute name="instructions" optional="YES" attributeType="String"/>
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="overview" optional="YES" attributeType="String"/>
                <attribute name="prepTime" optional="YES" attributeType="String"/>
                <attribute name="thumbnailImage" optional="YES" attributeType="Transformable"/>
                <relationship name="image" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="Recipe"/>
                <relationship name="type" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Recipe"/>
            </entity>
            """)
        func columns(_ frameworkVersion: Int) -> [String] {
            StoreMapping.predict(model: model, options: MappingOptions(frameworkVersion: frameworkVersion))
                .table(named: "ZRECIPE")?.columns.map(\.name) ?? []
        }
        let stem = ["Z_PK", "Z_ENT", "Z_OPT", "ZIMAGE", "ZTYPE"]
        #expect(columns(241) == stem + ["ZPREPTIME", "ZNAME", "ZINSTRUCTIONS", "ZOVERVIEW", "ZTHUMBNAILIMAGE"])
        #expect(columns(ColumnOrderStyle.firstByNameVersion - 1) == columns(241))
        #expect(columns(ColumnOrderStyle.firstByNameVersion) == stem + ["ZINSTRUCTIONS", "ZNAME", "ZOVERVIEW", "ZPREPTIME", "ZTHUMBNAILIMAGE"])
        let old = StoreMapping.predict(model: model, options: MappingOptions(frameworkVersion: 241))
        #expect(old.resolutions.contains { $0.rule == .columnOrder && $0.held == nil && $0.detail.contains("uncertain") })
        #expect(MappingText.render(old).contains("-- columnOrder: columns of one type in the order of the entity's attribute"))
    }

    /// The dictionary order rests on Core Foundation's string hash and table, checked on the
    /// Xcode 3 model files of the corpus saved by a 64-bit Xcode: each archived dictionary lists
    /// its keys in enumeration order, which the hash alone decides when no two keys share a
    /// bucket (with a collision it also depends on the unknown insertion order).
    @Test func dictionaryOrderOfThe64BitModelFiles() throws {
        let files = [
            "apple-recipes/DesktopRecipes/Recipes.xcdatamodel/elements",
            "recipes-migration/Recipes.xcdatamodeld/Recipes.xcdatamodel/elements",
            "recipes-migration/Recipes.xcdatamodeld/Recipes 2.xcdatamodel/elements",
        ]
        var checked: Set<[String]> = []
        for file in files {
            let archive = try PropertyList.decode(Data(contentsOf: Corpus.url(file)))
            let objects = archive["$objects"]?.arrayValue ?? []
            for object in objects {
                guard let uids = object["NS.keys"]?.arrayValue, uids.count > 1 else { continue }
                let keys = uids.compactMap { uid -> String? in
                    guard case .uid(let index) = uid, objects.indices.contains(index) else { return nil }
                    return objects[index].stringValue
                }
                let buckets = try #require(HashTableOrder.bucketCount(forKeys: keys.count))
                guard keys.count == uids.count,
                    Set(keys.map { HashTableOrder.stringHash($0) % UInt64(buckets) }).count == keys.count
                else { continue }
                #expect(HashTableOrder.enumerationOrder(of: keys.sorted()) == keys, "\(file): \(keys)")
                checked.insert(keys)
            }
        }
        #expect(checked.map(\.count).sorted() == [2, 2, 2, 5, 8, 9])
    }

    /// Two many-to-many relationships of one name on different entities: the tables keep the
    /// plain name, and only the key columns, whose full names collide, are numbered.
    @Test func joinTableNamesAreNumberedOnlyOnAFullCollision() throws {
        let model = try model(
            """
            <entity name="Message" syncable="YES">
                <relationship name="users" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="messages" inverseEntity="User"/>
            </entity>
            <entity name="Reaction" syncable="YES">
                <relationship name="users" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="reactions" inverseEntity="User"/>
            </entity>
            <entity name="User" syncable="YES">
                <relationship name="messages" toMany="YES" deletionRule="Nullify" destinationEntity="Message" inverseName="users" inverseEntity="Message"/>
                <relationship name="reactions" toMany="YES" deletionRule="Nullify" destinationEntity="Reaction" inverseName="users" inverseEntity="Reaction"/>
            </entity>
            """)
        let mapping = StoreMapping.predict(model: model)
        let joins = mapping.tables.filter { $0.kind == .manyToMany }
        #expect(joins.map(\.name) == ["Z_1USERS", "Z_2USERS"])
        #expect(joins.map { $0.columns.map(\.name) } == [["Z_1MESSAGES", "Z_3USERS"], ["Z_2REACTIONS", "Z_3USERS1"]])
    }

    /// The store of issue 23 (framework 1344): SystemMessage, a sub-entity of Message numbered
    /// 16, and Reaction (20) each have a many-to-many `users` to User (24). Core Data numbered
    /// SystemMessage's column, so before 1447 the order is the entities' names, not their
    /// `Z_ENT`s; the note says the rule is uncertain, in the mapping and in `model --sql`.
    @Test func joinKeyColumnsAreNumberedInEntityNameOrder() throws {
        let model = try model(
            """
            <entity name="Message" isAbstract="YES" syncable="YES"/>
            <entity name="Reaction" syncable="YES">
                <relationship name="users" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="reactions" inverseEntity="User"/>
            </entity>
            <entity name="SystemMessage" parentEntity="Message" syncable="YES">
                <relationship name="users" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="systemMessages" inverseEntity="User"/>
            </entity>
            <entity name="User" syncable="YES">
                <relationship name="reactions" toMany="YES" deletionRule="Nullify" destinationEntity="Reaction" inverseName="users" inverseEntity="Reaction"/>
                <relationship name="systemMessages" toMany="YES" deletionRule="Nullify" destinationEntity="SystemMessage" inverseName="users" inverseEntity="SystemMessage"/>
            </entity>
            """)
        let mapping = StoreMapping.predict(model: model, options: MappingOptions(frameworkVersion: 1344))
        #expect(mapping.entities.map { "\($0.number) \($0.name)" } == ["1 Message", "2 SystemMessage", "3 Reaction", "4 User"])
        let joins = mapping.tables.filter { $0.kind == .manyToMany }
        #expect(
            joins.map(\.createStatement) == [
                "CREATE TABLE Z_2USERS ( Z_2SYSTEMMESSAGES INTEGER, Z_4USERS1 INTEGER, PRIMARY KEY (Z_2SYSTEMMESSAGES, Z_4USERS1) )",
                "CREATE TABLE Z_3USERS ( Z_3REACTIONS INTEGER, Z_4USERS INTEGER, PRIMARY KEY (Z_3REACTIONS, Z_4USERS) )",
            ])
        let note = try #require(mapping.resolutions.first { $0.rule == .joinTableNaming })
        #expect(note.held == nil && note.table == "Z_2USERS")
        #expect(
            note.detail.hasPrefix("Z_4USERS (Reaction.users, in Z_3USERS), Z_4USERS1 (SystemMessage.users, in Z_2USERS): ")
                && note.detail.hasSuffix("uncertain"))
        #expect(MappingText.render(mapping).contains("-- joinTableNaming (Z_2USERS): Z_4USERS (Reaction.users, in Z_3USERS)"))
    }

    /// Two relationships of one entity that are each other's inverse: either may name the
    /// table, so the other candidate is listed in the JSON and the text.
    @Test func reflexivePairListsBothCandidates() throws {
        let model = try model(
            """
            <entity name="Client" syncable="YES">
                <relationship name="trustedByClients" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="trustedClients" inverseEntity="Client"/>
                <relationship name="trustedClients" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="trustedByClients" inverseEntity="Client"/>
            </entity>
            """)
        let mapping = StoreMapping.predict(model: model)
        let join = try #require(mapping.tables.first { $0.kind == .manyToMany })
        #expect([join.name] + join.alternatives.map(\.name) == ["Z_1TRUSTEDBYCLIENTS", "Z_1TRUSTEDCLIENTS"])
        #expect(join.alternatives.first?.columns.map(\.name) == ["Z_1TRUSTEDBYCLIENTS", "Z_1TRUSTEDCLIENTS"])
        #expect(mapping.resolutions.contains { $0.rule == .joinTableNaming && $0.held == nil && $0.table == join.name })
        let text = MappingText.render(mapping)
        #expect(text.contains("-- instead of Z_1TRUSTEDBYCLIENTS, Core Data may create:\n--   CREATE TABLE Z_1TRUSTEDCLIENTS ("))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(mapping)) as? [String: Any]
        let tables = try #require(json?["tables"] as? [[String: Any]])
        let encoded = try #require(tables.first { $0["name"] as? String == join.name }?["alternatives"] as? [[String: Any]])
        #expect(encoded.first?["name"] as? String == "Z_1TRUSTEDCLIENTS")

        // A store that holds the other candidate settles it.
        let other = try #require(join.alternatives.first)
        let schemaTables = mapping.tables.map { $0.name == join.name ? other : $0 }
        let schema = StoreSchema(
            tables: schemaTables.map {
                StoreSchema.Table(name: $0.name, sql: $0.createStatement, columns: $0.columns.map { StoreSchema.Column(name: $0.name, type: $0.type) })
            },
            indexes: schemaTables.flatMap(\.indexes).map { StoreSchema.Index(name: $0.name, table: $0.table, sql: $0.createStatement) },
            triggers: [])
        let resolved = StoreMapping.resolve(model: model, registry: nil, schema: schema)
        #expect(resolved.tables.filter { $0.kind == .manyToMany }.map(\.name) == ["Z_1TRUSTEDCLIENTS"])
        #expect(resolved.tables.allSatisfy { $0.alternatives.isEmpty })
        #expect(resolved.compare(with: schema).matchesExactly)
    }

    /// An R-tree fetch index in XML becomes a `Z_RT_` virtual table with bounds per element.
    @Test func rtreeFetchIndexFromXML() throws {
        let model = try model(
            """
            <entity name="Place" syncable="YES">
                <attribute name="latitude" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="longitude" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <fetchIndex name="byLocation">
                    <fetchIndexElement property="latitude" type="rtree" order="ascending"/>
                    <fetchIndexElement property="longitude" type="rtree" order="ascending"/>
                </fetchIndex>
            </entity>
            """)
        #expect(model.entity(named: "Place")?.fetchIndexes.first?.isRTree == true)
        let mapping = StoreMapping.predict(model: model)
        let rtree = try #require(mapping.tables.first { $0.kind == .rtree })
        #expect(
            rtree.createStatement
                == "CREATE VIRTUAL TABLE Z_RT_Place_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN FLOAT, ZLATITUDE_MAX FLOAT, ZLONGITUDE_MIN FLOAT, ZLONGITUDE_MAX FLOAT)"
        )
        #expect(mapping.tables.flatMap(\.indexes).isEmpty)
        #expect(mapping.createStatements.contains(rtree.createStatement))
    }
}
