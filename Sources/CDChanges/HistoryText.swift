import CDBase
import Foundation

/// The text form of persistent history: per transaction a summary line (number, time, who,
/// what), then one line per change.
package enum HistoryText {
    /// Said once under any output that names updated properties.
    package static let bitLayoutNote =
        "Updated properties are decoded from ACHANGE.ZCOLUMNS: bit k, most significant first in each byte, is the k-th of the entity's to-one relationships, then attributes, each by name, then to-many relationships, whose order is unknown; the to-one positions fit every change in the corpus whose cause is known, the attribute order is inferred; --json keeps the raw bits."

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
        let fields: [(String, String?)] = [
            ("author", transaction.author), ("bundle", transaction.bundleID),
            ("process", transaction.processID), ("context", transaction.contextName),
        ]
        for (label, value) in fields {
            if let value { parts.append("\(label) \(value)") }
        }
        let counts = [
            plural(transaction.count(.insert), "insert"), plural(transaction.count(.update), "update"),
            plural(transaction.count(.delete), "delete"),
        ].joined(separator: ", ")
        return parts.joined(separator: "  ") + " — " + counts
    }

    /// `update  Note  x-coredata://…/Note/p3  title, body`.
    package static func line(_ change: HistoryChange) -> String {
        var text = "\(change.type.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  \(change.entity)  \(change.objectID)"
        if change.type == .update {
            if let names = change.updatedProperties {
                var parts = names
                if let toMany = change.updatedToMany {
                    parts.append("\(toMany.count) of the to-many \(toMany.among.joined(separator: ", ")) (which is uncertain)")
                }
                text += "  " + (parts.isEmpty ? "(no columns)" : parts.joined(separator: ", "))
            } else if let bits = change.updatedColumnBits {
                let reason =
                    change.modelPropertyCount.map {
                        "the mask does not fit the \($0) properties of \(change.entity) in the store's model; which properties it names is uncertain"
                    } ?? "no model to name them"
                text += "  bits " + bits.map(String.init).joined(separator: ", ") + " (\(reason))"
            }
        }
        if let tombstone = change.tombstone {
            text += "  tombstone {" + tombstone.keys.sorted().map { "\($0) = \(tombstone[$0] ?? "")" }.joined(separator: "; ") + "}"
        }
        return text
    }
}
