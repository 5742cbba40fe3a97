import ArgumentParser
import CDBase
import CDPredicate
import CDChanges
import CDMaintenance
import CDSession
import CDStore
import Foundation

struct HistoryCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the persistent history: who changed which objects, when.",
        discussion: """
            Lists every transaction of ATRANSACTION with its time (ISO 8601, UTC), author, bundle \
            ID, process ID and context name, and its changes from ACHANGE: insert, update or \
            delete, entity and object ID, for updates the changed properties, for deletes the \
            values kept as tombstones. The store must have been opened with \
            NSPersistentHistoryTrackingKey. The ZCOLUMNS layout is not documented: bit k, most \
            significant first in each byte, is read as the k-th of the entity's to-one \
            relationships, then attributes, each by name, then to-many relationships, whose order \
            is unknown, so their bits are named only when they leave no doubt. A mask that does \
            not fit the store's model is shown as bit numbers, its mapping uncertain. The text \
            output says so and --json keeps the raw bits.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only transactions after this transaction number, or at or after this date (2024-05-31, 2024-05-31T12:00:00Z).", valueName: "date|transaction"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Only transactions with exactly this author.", valueName: "text"))
    var author: String?

    @Option(name: .long, help: ArgumentHelp("Only changes of this entity (and its sub-entities).", valueName: "name"), completion: ShellCompletion.entityName)
    var entity: String?

    @Flag(name: .long, help: "Print one JSON object per transaction, one per line.")
    var json = false

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var colorOptions: ColorOptions

    func run() throws {
        var filter = HistoryFilter(author: author, entity: entity)
        if let since {
            if let number = Int64(since) {
                filter.afterTransaction = number
            } else if let date = CoreDataDate(iso8601: since) {
                filter.since = date.secondsSince2001
            } else {
                throw ValidationError("--since \(since): not a transaction number or an ISO 8601 date (2024-05-31, 2024-05-31T12:00:00Z)")
            }
        }
        let transactions = try StoreSession(storePath: store, modelPath: nil, asOf: asOf.commit).history(filter)
        if json {
            Output.write(try transactions.map(JSONLines.line).joined())
        } else {
            Output.report(HistoryText.render(transactions))
        }
    }
}

/// JSON lines: one compact object per line, keys sorted, so `jq -c` and `grep` work on them.
enum JSONLines {
    static func line<T: Encodable>(_ value: T) throws -> String { try ReportJSON.compact(value) + "\n" }
}
