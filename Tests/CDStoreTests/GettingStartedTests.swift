import CDModel
import CDPredicate
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// The steps of the DocC article `Sources/CDStore/CDStore.docc/GettingStarted.md`, with the public
/// API only (no `@testable`), on a real store: every call the article shows exists and answers
/// what a plain SQL count of the same store says.
@Suite(.temporaryDirectories) struct GettingStartedTests {
    static let store = "cdplus-samplemodel/SampleModel_V2.sqlite"

    @Test func theArticlesStepsWorkOnARealStore() throws {
        let copy = try Corpus.copyStore(Self.store)
        let snapshot = try StoreSnapshot(path: copy.path)
        #expect(snapshot.files.existingFiles.contains { $0.url.lastPathComponent == "SampleModel_V2.sqlite" })

        let path = snapshot.files.main.path
        let metadata = try snapshot.read { db in try StoreMetadata.read(db, path: path) }
        let cache = try #require(try snapshot.read { db in try ModelCache.read(db, path: path) })
        #expect(VersionHashes.entityHashes(of: cache.model) == metadata.versionHashes)
        #expect(cache.model.entities.contains { $0.name == "Person" && $0.attributes.contains { $0.name == "firstName" } })

        let predicate = try PredicateParser.parse("firstName BEGINSWITH[c] 'b'")
        guard case .comparison(let comparison) = predicate, case .keyPath(let keyPath) = comparison.left, keyPath.count == 1,
            case .key(let key) = keyPath[0], comparison.op == .beginsWith, case .constant(.string(let prefix)) = comparison.right
        else {
            Issue.record("the article's predicate did not parse to one BEGINSWITH comparison: \(predicate)")
            return
        }
        #expect(comparison.options.contains(.caseInsensitive))

        let reader = try ObjectReader(snapshot: snapshot)
        var matches: [StoredObject] = []
        try reader.read(ObjectQuery(entity: "Person"), section: { _ in }) { object in
            guard case .string(let name)? = object.value(key) else { return }
            if name.lowercased().hasPrefix(prefix.lowercased()) { matches.append(object) }
        }
        let expected = try DatabaseQueue(path: copy.path).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZPERSON WHERE lower(ZFIRSTNAME) LIKE 'b%'") ?? -1
        }
        #expect(matches.count == expected && expected > 0)
        for object in matches {
            #expect(object.id.uri.hasPrefix("x-coredata://\(metadata.storeUUID ?? "?")/Person/p"))
            #expect(object.values.contains { $0.name == "firstName" && $0.value.text()?.lowercased().hasPrefix("b") == true })
        }
    }
}
