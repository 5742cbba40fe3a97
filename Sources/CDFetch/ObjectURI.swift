import CDBase
import CDMapping
import CDModel
import CDPredicate
import CDStore
import Foundation
import GRDB

/// An object ID, `x-coredata://<store UUID>/<Entity>/p<Z_PK>` (store-format.md §8).
struct ObjectURI {
    let entity: String
    let primaryKey: Int64

    init?(_ text: String) {
        guard text.hasPrefix("x-coredata://") else { return nil }
        let parts = text.dropFirst("x-coredata://".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, parts[2].hasPrefix("p"), let key = Int64(parts[2].dropFirst()), key > 0 else {
            return nil
        }
        entity = String(parts[1])
        primaryKey = key
    }
}
