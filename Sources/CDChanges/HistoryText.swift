import CDBase
import Foundation

/// The text form of persistent history: per transaction a summary line (number, time, who,
/// what), then one line per change.
package enum HistoryText {
    /// Said once under any output that names updated properties.
    package static let bitLayoutNote = "Updated properties are decoded from ACHANGE.ZCOLUMNS by a bit layout that is not confirmed (bit k = k-th property: attributes, to-one, then to-many relationships, each by name); --json keeps the raw bits."

    package static func render(_ transactions: [HistoryTransaction]) -> String {
        var lines: [String] = []
        for transaction in transactions {
            lines.append(summary(transaction))
            for change in transaction.changes { lines.append("  " + line(change)) }
        }
        let changes = transactions.reduce(0) { $0 + $1.changes.count }
        if !lines.isEmpty { lines.append("") }
        lines.append("\(plural(transactions.count, "transaction")), \(plural(changes, "change"))")
        if transactions.contains(where: { $0.changes.contains { $0.type == .update } }) { lines.append(bitLayoutNote) }
        return lines.joined(separator: "\n")
    }

    /// `Transaction 12  2023-05-01T10:22:33.123Z  author … — 1 insert, 2 updates, 0 deletes`.
    package static func summary(_ transaction: HistoryTransaction) -> String {
        var parts = ["Transaction \(transaction.id)", transaction.date ?? "no timestamp"]
        let fields: [(String, String?)] = [("author", transaction.author), ("bundle", transaction.bundleID),
                                           ("process", transaction.processID), ("context", transaction.contextName)]
        for (label, value) in fields {
            if let value { parts.append("\(label) \(value)") }
        }
        let counts = [plural(transaction.count(.insert), "insert"), plural(transaction.count(.update), "update"),
                      plural(transaction.count(.delete), "delete")].joined(separator: ", ")
        return parts.joined(separator: "  ") + " — " + counts
    }

    /// `update  Note  x-coredata://…/Note/p3  title, body`.
    package static func line(_ change: HistoryChange) -> String {
        var text = "\(change.type.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  \(change.entity)  \(change.objectID)"
        if change.type == .update {
            if let names = change.updatedProperties {
                text += "  " + (names.isEmpty ? "(no columns)" : names.joined(separator: ", "))
            } else if let bits = change.updatedColumnBits {
                text += "  columns " + bits.map(String.init).joined(separator: ", ") + " (the model differs from the one that wrote this change)"
            }
        }
        if let tombstone = change.tombstone {
            text += "  tombstone {" + tombstone.keys.sorted().map { "\($0) = \(tombstone[$0] ?? "")" }.joined(separator: "; ") + "}"
        }
        return text
    }
}
