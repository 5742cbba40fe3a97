@testable import CDChanges
import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// `history` against independent SQL on every corpus store that keeps persistent history.
@Suite(.temporaryDirectories) struct HistoryTests {
    static let storesWithHistory = [
        "plaso-notestore-ios/NoteStore.sqlite", "plaso-knowledgec-1013/knowledgec-10.13.db",
        "cdplus-samplemodel2/SampleModel2_V1.sqlite", "cdplus-samplemodel2/SampleModel2_V2.sqlite",
        "osxphotos-photos-10.15.4/Photos.sqlite", "osxphotos-photos-10.16.0/Photos.sqlite",
        "osxphotos-photos-12.0.1/Photos.sqlite", "osxphotos-photos-13.0.0/Photos.sqlite",
        "osxphotos-photos-14.6.0/Photos.sqlite", "osxphotos-photos-15.4.1/Photos.sqlite",
        "osxphotos-vuindex-15.4.1/VUIndex.sqlite",
    ]

    /// Reads `store`'s history from a private copy, and runs `sql` on another copy.
    static func withCopy<T>(_ store: String, _ body: (HistoryReader, DatabaseQueue) throws -> T) throws -> T {
        let copy = try Corpus.copyStore(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let snapshot = try StoreSnapshot(path: copy.path)
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: snapshot.files.main.path, configuration: configuration)
        defer { try? queue.close() }
        return try body(try HistoryReader(snapshot: snapshot), queue)
    }

    @Test func theListIsEveryCorpusStoreWithHistory() throws {
        var found: [String] = []
        for store in Corpus.stores {
            let copy = try Corpus.copyStore(store)
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            if try StoreSnapshot(path: copy.path).read(HistoryReader.hasHistory) { found.append(store) }
        }
        #expect(found.sorted() == Self.storesWithHistory.sorted())
    }

    @Test(arguments: storesWithHistory)
    func countsPerTransactionAndChangeTypeMatchSQL(_ store: String) throws {
        try Self.withCopy(store) { reader, queue in
            let transactions = try reader.transactions()
            let (transactionCount, rows) = try queue.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTION") ?? 0,
                    try Row.fetchAll(db, sql: "SELECT ZTRANSACTIONID, ZCHANGETYPE, COUNT(*) FROM ACHANGE GROUP BY 1, 2")
                )
            }
            #expect(transactions.count == transactionCount)
            var expected: [String: Int] = [:]
            for row in rows {
                let type: Int = row[1]
                expected["\(row[0] as Int64)/\(["insert", "update", "delete"][type])"] = row[2]
            }
            var actual: [String: Int] = [:]
            for transaction in transactions {
                for type in ChangeType.allCases where transaction.count(type) > 0 {
                    actual["\(transaction.id)/\(type.rawValue)"] = transaction.count(type)
                }
            }
            #expect(actual == expected)
        }
    }

    @Test func interningAndTimestampsAreResolved() throws {
        try Self.withCopy("plaso-notestore-ios/NoteStore.sqlite") { reader, _ in
            let transaction = try #require(try reader.transactions(HistoryFilter(afterTransaction: 2)).first)
            #expect(transaction.id == 3)
            #expect(transaction.date == "2023-05-10T00:55:15.495Z")
            #expect(transaction.bundleID == "com.apple.mobilenotes")
            #expect(transaction.processID == "MobileNotes")
            #expect(transaction.contextName == "ViewContext")
            #expect(transaction.author == "8597")
        }
    }

    /// Updates whose cause is known (``ChangedColumns``): a server change token added to a
    /// NoteStore account and a note added to a folder set one bit among the to-many
    /// relationships, which the mask cannot tell apart; an `AssetDescription` inserted for a
    /// Photos asset sets its attributes' `assetDescription`, a to-one.
    @Test func updatedColumnsOfChangesWithAKnownCause() throws {
        func change(_ store: String, transaction: Int64, entity: String) throws -> HistoryChange {
            try Self.withCopy(store) { reader, _ in
                let changes = try reader.transactions(HistoryFilter(afterTransaction: transaction - 1, entity: entity)).first?.changes ?? []
                return try #require(changes.first { $0.type == .update })
            }
        }
        let account = try change("plaso-notestore-ios/NoteStore.sqlite", transaction: 5, entity: "ICAccount")
        #expect(account.updatedColumnBits == [49])
        #expect(account.updatedProperties == [])
        #expect(
            account.updatedToMany
                == ToManyBits(
                    count: 1,
                    among: [
                        "deviceMigrationStates", "folders", "hashtags", "legacyTombstones",
                        "notes", "ownerInverse", "serverChangeTokens",
                    ]))
        let folder = try change("plaso-notestore-ios/NoteStore.sqlite", transaction: 32, entity: "ICFolder")
        #expect(folder.updatedColumnBits == [40])
        #expect(folder.updatedToMany == ToManyBits(count: 1, among: ["children", "notes"]))
        #expect(HistoryText.line(folder).hasSuffix("  1 of the to-many children, notes (which is uncertain)"))
        let attributes = try change("osxphotos-photos-14.6.0/Photos.sqlite", transaction: 158, entity: "AdditionalAssetAttributes")
        #expect(attributes.updatedColumnBits == [1])
        #expect(attributes.updatedProperties == ["assetDescription"] && attributes.updatedToMany == nil)
    }

    @Test func tombstonesAreNamedByPreservedAttribute() throws {
        try Self.withCopy("osxphotos-photos-15.4.1/Photos.sqlite") { reader, queue in
            let deletes = try reader.transactions(HistoryFilter(entity: "Album")).flatMap(\.changes).filter { $0.type == .delete }
            let delete = try #require(deletes.first)
            let row = try #require(
                try queue.read { db in
                    try Row.fetchOne(db, sql: "SELECT ZTOMBSTONE0, ZTOMBSTONE2 FROM ACHANGE WHERE Z_PK = ?", arguments: [delete.id])
                })
            #expect(delete.tombstone?["cloudDeleteState"] == (row[0] as Int64?).map(String.init))
            #expect(delete.tombstone?["uuid"] == row[1])
            #expect(delete.tombstone?["uuid"]?.count == 36)
        }
    }

    @Test func filters() throws {
        try Self.withCopy("plaso-notestore-ios/NoteStore.sqlite") { reader, queue in
            let all = try reader.transactions()
            let byAuthor = try reader.transactions(HistoryFilter(author: "8597"))
            #expect(!byAuthor.isEmpty && byAuthor.count < all.count)
            #expect(byAuthor.allSatisfy { $0.author == "8597" })
            let since = try #require(all[40].timestamp)
            #expect(try reader.transactions(HistoryFilter(since: since)).map(\.id) == all.filter { ($0.timestamp ?? 0) >= since }.map(\.id))
            let notes = try reader.transactions(HistoryFilter(entity: "ICNote"))
            let noteChanges = try queue.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZENTITY = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'ICNote')")
            }
            #expect(notes.reduce(0) { $0 + $1.changes.count } == noteChanges)
            let unknown = #expect(throws: StoreError.self) { try reader.transactions(HistoryFilter(entity: "NoSuchEntity")) }
            guard case .unknownEntity(name: "NoSuchEntity", let known)? = unknown else { Issue.record("\(String(describing: unknown))"); return }
            #expect(known.contains("ICNote"))
        }
    }

    @Test func aStoreWithoutHistoryIsRefusedClearly() throws {
        let copy = try Corpus.copyStore("apple-recipes/Recipes.sqlite")
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let error = #expect(throws: StoreError.noPersistentHistory(path: copy.path)) { try HistoryReader(snapshot: StoreSnapshot(path: copy.path)) }
        #expect(error?.description.contains("keeps no persistent history") == true)
    }
}
