@testable import CDMapping
import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Many-to-many relationships of one name with one destination: their key columns
/// `Z_<m><REL>` collide in two join tables and Core Data numbers one of them (§7.6).
enum JoinKeyCollisions {
    /// The relationships (`Entity.relationship`) that share each colliding column, found from the
    /// model alone, independently of ``MappingBuilder``: every non-transient to-many whose
    /// inverse is a to-many, grouped by destination and upper-cased name.
    static func groups(in model: ManagedObjectModel) -> [[String]] {
        var groups: [String: [String]] = [:]
        for entity in model.entities {
            for relationship in entity.relationships where relationship.isToMany && !relationship.common.isTransient {
                guard let inverseName = relationship.inverseName else { continue }
                let inverse = model.allProperties(of: relationship.inverseEntity ?? relationship.destinationEntity).contains {
                    if case .relationship(let candidate) = $0 { return candidate.name == inverseName && candidate.isToMany }
                    return false
                }
                guard inverse else { continue }
                groups[relationship.destinationEntity + "." + relationship.name.uppercased(), default: []]
                    .append(entity.name + "." + relationship.name)
            }
        }
        return groups.keys.sorted().compactMap { groups[$0] }.filter { $0.count > 1 }.map { $0.sorted() }
    }

    /// The key column of `sharer` (`Entity.relationship`) in `mapping`.
    static func column(of sharer: String, in mapping: StoreMapping) -> String? {
        let parts = sharer.split(separator: ".").map(String.init)
        return mapping.joinTable(forRelationship: parts[1], ofEntity: parts[0])?.destinationColumn
    }

    /// Every model file of the corpus (source bundles, stand-alone `.xcdatamodel`s, compiled
    /// `.momd`s and stand-alone `.mom`s), found by walking the corpus.
    static let modelFiles: [String] = {
        let bundles = Corpus.files(endingWith: ".xcdatamodeld") + Corpus.files(endingWith: ".momd")
        let loose = Corpus.files(endingWith: ".xcdatamodel") + Corpus.files(endingWith: ".mom")
        return (bundles + loose.filter { file in !bundles.contains { file.hasPrefix($0 + "/") } }).sorted()
    }()
}

@Suite(.temporaryDirectories, .tags(.corpusWide)) struct JoinKeyCollisionTests {
    /// Every collision in a corpus store, predicted from the store's cached model, its
    /// `Z_PRIMARYKEY` and its framework version, against the key columns the store has: all
    /// seven are numbered as predicted (``JoinKeyOrderStyle``), each still with an uncertain
    /// note (the rule rests on one migrated library), and the resolved mapping follows the store.
    @Test func everyCorpusStoreCollisionAgainstTheStore() throws {
        var outcomes: [String] = []
        for store in MappingCorpus.cached {
            let mapped = try MappedStore.require(store)
            let predicted = mapped.predicted
            let resolved = mapped.resolved
            for group in JoinKeyCollisions.groups(in: mapped.model) {
                let ours = group.map { JoinKeyCollisions.column(of: $0, in: predicted) ?? "?" }
                let stores = group.map { JoinKeyCollisions.column(of: $0, in: resolved) ?? "?" }
                // The resolved names are the store's: each sits in a store table of that name.
                for (sharer, name) in zip(group, stores) {
                    let parts = sharer.split(separator: ".").map(String.init)
                    let table = try #require(resolved.joinTable(forRelationship: parts[1], ofEntity: parts[0])?.table)
                    #expect(mapped.schema.table(named: table)?.columns.map(\.name).contains(name) == true, "\(store) \(sharer)")
                }
                let note = predicted.resolutions.first { $0.rule == .joinTableNaming && $0.detail.contains(ours[0] + " (" + group[0]) }
                #expect(note?.held == nil && note?.detail.hasSuffix("uncertain") == true, "\(store) \(group)")
                let verdict = resolved.resolutions.first { $0.rule == .joinTableNaming && $0.table == note?.table }?.held
                #expect(verdict == (ours == stores), "\(store) \(group)")
                let entry = zip(group, stores).map { "\($0.0)=\($0.1)" }.joined(separator: " ")
                outcomes.append("\(store): \(entry)" + (ours == stores ? "" : " (predicted \(ours.joined(separator: " ")))"))
            }
        }
        #expect(
            outcomes == [
                "osxphotos-photos-10.15.4/Photos.sqlite: Memory.representativeAssets=Z_34REPRESENTATIVEASSETS Suggestion.representativeAssets=Z_34REPRESENTATIVEASSETS1",
                "osxphotos-photos-10.16.0/Photos.sqlite: Memory.representativeAssets=Z_3REPRESENTATIVEASSETS Suggestion.representativeAssets=Z_3REPRESENTATIVEASSETS1",
                "osxphotos-photos-12.0.1/Photos.sqlite: Memory.representativeAssets=Z_3REPRESENTATIVEASSETS Suggestion.representativeAssets=Z_3REPRESENTATIVEASSETS1",
                "osxphotos-photos-13.0.0/Photos.sqlite: Memory.representativeAssets=Z_3REPRESENTATIVEASSETS Suggestion.representativeAssets=Z_3REPRESENTATIVEASSETS1",
                "osxphotos-photos-14.6.0/Photos.sqlite: Memory.representativeAssets=Z_3REPRESENTATIVEASSETS Suggestion.representativeAssets=Z_3REPRESENTATIVEASSETS1",
                "osxphotos-photos-15.4.1/Photos.sqlite: GenericAlbum.keyAssets=Z_3KEYASSETS Suggestion.keyAssets=Z_3KEYASSETS1",
                "osxphotos-photos-15.4.1/Photos.sqlite: Memory.representativeAssets=Z_3REPRESENTATIVEASSETS1 Suggestion.representativeAssets=Z_3REPRESENTATIVEASSETS",
            ])
    }

    /// Where the prediction holds, the join tables' DDL is the store's, column for column.
    @Test func collidingJoinTablesMatchTheStoreWherePredicted() throws {
        for store in ["osxphotos-photos-10.15.4/Photos.sqlite", "osxphotos-photos-14.6.0/Photos.sqlite"] {
            let mapped = try MappedStore.require(store)
            let suggestion = try #require(mapped.predicted.joinTable(forRelationship: "representativeAssets", ofEntity: "Suggestion"))
            let ours = try #require(mapped.predicted.table(named: suggestion.table))
            let theirs = try #require(mapped.schema.table(named: suggestion.table)?.sql)
            #expect(theirs.replacingOccurrences(of: "\"", with: "") == ours.createStatement)
        }
    }

    /// Every corpus model file with a collision gets the uncertain note from a prediction
    /// without a store; only bookmigration's Model2 has one (its store is of Model1). A current
    /// framework orders by the entity dictionary (3 buckets: User probes from slot 2 to 0,
    /// before Book 1 and Author 2), so User.books keeps the plain name.
    @Test func everyCorpusModelWithACollisionIsMarkedUncertain() throws {
        var found: [String] = []
        for file in JoinKeyCollisions.modelFiles {
            for version in try ModelFiles.versions(at: Corpus.url(file)) {
                let mapping = StoreMapping.predict(model: version.model)
                for group in JoinKeyCollisions.groups(in: version.model) {
                    let columns = group.map { JoinKeyCollisions.column(of: $0, in: mapping) ?? "?" }
                    #expect(
                        mapping.resolutions.contains {
                            $0.rule == .joinTableNaming && $0.held == nil
                                && $0.detail.contains(columns[0] + " (" + group[0]) && $0.detail.hasSuffix("uncertain")
                        })
                    found.append("\(file) \(version.name): " + zip(group, columns).map { "\($0.0)=\($0.1)" }.joined(separator: " "))
                }
            }
        }
        #expect(JoinKeyCollisions.modelFiles.count == 25)
        #expect(found == ["bookmigration/Model.xcdatamodeld Model2: Author.books=Z_2BOOKS1 User.books=Z_2BOOKS"])
    }

    /// The framework version picks the order: before 1447 the declaring entities' names
    /// (Author before User), from 1447 the entity dictionary (User before Author).
    @Test func frameworkVersionPicksTheOrder() throws {
        let version = try #require(
            try ModelFiles.versions(at: Corpus.url("bookmigration/Model.xcdatamodeld")).first { $0.name == "Model2" })
        func columns(_ framework: Int) -> [String?] {
            let mapping = StoreMapping.predict(model: version.model, options: MappingOptions(frameworkVersion: framework))
            return ["Author.books", "User.books"].map { JoinKeyCollisions.column(of: $0, in: mapping) }
        }
        #expect(columns(1347) == ["Z_2BOOKS", "Z_2BOOKS1"])
        #expect(columns(1446) == ["Z_2BOOKS", "Z_2BOOKS1"])
        #expect(columns(1447) == ["Z_2BOOKS1", "Z_2BOOKS"])
        #expect(columns(1522) == ["Z_2BOOKS1", "Z_2BOOKS"])
    }
}
