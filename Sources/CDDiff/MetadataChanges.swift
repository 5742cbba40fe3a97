import CDArchive
import CDBase
import CDStore
import Foundation

/// The metadata of a store that `diff` compares (docs/format/store-format.md §5): the store's
/// identity, the framework and model versions, the entity hashes, and whether the store keeps
/// persistent history and a model cache.
struct MetadataFacts {
    var entries: [(key: String, value: String?)]

    init(metadata: StoreMetadata, hasHistory: Bool, cache: ModelCache?) {
        var entries: [(String, String?)] = [
            ("NSStoreUUID", metadata.storeUUID),
            ("NSPersistenceFrameworkVersion", metadata.frameworkVersion.map(String.init)),
            ("NSPersistenceMaximumFrameworkVersion", metadata.maximumFrameworkVersion.map(String.init)),
            (
                "NSStoreModelVersionIdentifiers",
                metadata.plist?["NSStoreModelVersionIdentifiers"] == nil
                    ? nil : "(" + metadata.versionIdentifiers.joined(separator: ", ") + ")"
            ),
            ("NSStoreModelVersionHashesVersion", metadata.hashesVersion.map(String.init)),
            ("NSStoreModelVersionHashesDigest", metadata.hashesDigest),
            ("NSStoreModelVersionChecksumKey", metadata.checksum),
        ]
        for (entity, hash) in metadata.versionHashes.sorted(by: { $0.key < $1.key }) {
            entries.append(("NSStoreModelVersionHashes." + entity, hash.base64EncodedString()))
        }
        for entry in metadata.otherEntries {
            entries.append((entry.key, Self.text(entry.value)))
        }
        entries.append(("persistent history", hasHistory ? "kept (ATRANSACTION, ACHANGE)" : nil))
        entries.append(("model cache", cache.map { "\(plural($0.model.entities.count, "entity", "entities")), \(plural($0.inflatedSize, "byte"))" }))
        self.entries = entries
    }

    /// The entries whose values differ, in A's order, then those only B has.
    static func changes(_ a: MetadataFacts, _ b: MetadataFacts) -> [MetadataChange] {
        let valuesB = Dictionary(b.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let keysA = Set(a.entries.map(\.key))
        var changes: [MetadataChange] = []
        for (key, value) in a.entries {
            let other = valuesB[key] ?? nil
            if value != other { changes.append(MetadataChange(key: key, old: value, new: other)) }
        }
        for (key, value) in b.entries where !keysA.contains(key) && value != nil {
            changes.append(MetadataChange(key: key, old: nil, new: value))
        }
        return changes
    }

    /// A metadata value in one line: scalars as they are, data by size, collections by count.
    private static func text(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .real(let r): return ValueText.number(r)
        case .boolean(let b): return b ? "YES" : "NO"
        case .date(let t): return ValueText.coreDataDate(t)
        case .data(let d): return d.count <= 32 ? "<\(d.map { String(format: "%02x", $0) }.joined())>" : plural(d.count, "byte")
        case .array(let items): return "(" + items.map(text).joined(separator: ", ") + ")"
        case .dictionary(let entries): return "{" + entries.map { "\($0.key) = \(text($0.value))" }.joined(separator: "; ") + "}"
        case .uid(let uid): return "UID \(uid)"
        }
    }
}
