import CDBase
import CDStore
import Foundation

/// What a pasted error dump says about one error: its code and every detail cdstore could read
/// from its userInfo. Every key is always present in JSON (`null` when the dump does not say).
package struct ErrorFinding: Sendable, Codable {
    @NullEncoded package var domain: String?
    @NullEncoded package var code: Int?
    /// How the code was found; null when it was not.
    @NullEncoded package var identifiedBy: Identification?
    /// The error's `localizedDescription` as quoted in the dump; `nil` for `"(null)"`.
    @NullEncoded package var message: String?
    /// The entity of the failing object, migration step or conflict.
    @NullEncoded package var entity: String?
    /// The property: `NSValidationErrorKey`, or `attribute` in a migration error.
    @NullEncoded package var key: String?
    /// `NSValidationErrorValue`, or the key's value in the failing object's printed data.
    @NullEncoded package var value: String?
    @NullEncoded package var object: ObjectReference?
    @NullEncoded package var reason: String?
    @NullEncoded package var failureReason: String?
    /// The store file, from `NSFilePath`, `URL`, `sourceURL` or an I/O error line.
    @NullEncoded package var storePath: String?
    @NullEncoded package var sourceURL: String?
    @NullEncoded package var destinationURL: String?
    @NullEncoded package var sqliteCode: Int?
    /// The text SQLite gave with its code (`'not an error'`, `'no such table: ZABSTRACTCOMMENT'`).
    @NullEncoded package var sqliteMessage: String?
    /// The store metadata a 134100 or 134130 carries.
    @NullEncoded package var metadata: DumpMetadata?
    /// Entities of the `sourceModel` a 134140 prints.
    package var sourceModelEntities: [String] = []
    /// The CloudKit rules a 134060 lists in `NSLocalizedFailureReason`.
    package var cloudKit: [CloudKitFinding] = []
    /// The `NSMergeConflict`s of a 133020.
    package var conflicts: [MergeConflict] = []
    /// `NSDetailedErrors` of a 1560.
    package var detailedErrors: [ErrorFinding] = []
    /// `NSUnderlyingError` and other errors nested in this one.
    package var underlyingErrors: [ErrorFinding] = []

    package init() {}
}

/// A managed object named in a dump: `x-coredata://<store UUID>/<Entity>/p<Z_PK>` for a saved
/// object, `x-coredata:///<Entity>/t<UUID>` for one never saved (rendering-and-cli.md §1.1).
package struct ObjectReference: Sendable, Codable {
    package var uri: String
    @NullEncoded package var storeUUID: String?
    package var entity: String
    /// `Z_PK`, for a permanent ID.
    @NullEncoded package var primaryKey: Int64?
    /// A temporary ID: the object was never saved, so no row exists for it.
    package var temporary: Bool
    /// The class in `<Class: 0x…>`, when the object's description is in the dump.
    @NullEncoded package var className: String?

    package init?(uri: String, className: String? = nil) {
        let prefix = "x-coredata://"
        guard uri.hasPrefix(prefix) else { return nil }
        let parts = uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, let last = parts.last, let kind = last.first, !parts[parts.count - 2].isEmpty else { return nil }
        self.uri = uri
        self.entity = parts[parts.count - 2]
        self.storeUUID = parts[0].isEmpty ? nil : parts[0]
        self.temporary = kind == "t"
        self.primaryKey = kind == "p" ? Int64(last.dropFirst()) : nil
        self.className = className
    }
}

/// The store metadata printed inside a 134100/134130 (`metadata = {…}`), docs/format/errors.md §5.1.
package struct DumpMetadata: Sendable, Codable {
    @NullEncoded package var frameworkVersion: Int?
    @NullEncoded package var storeType: String?
    @NullEncoded package var storeUUID: String?
    @NullEncoded package var hashesVersion: Int?
    @NullEncoded package var versionIdentifiers: [String]?
    /// Entity name → lowercase hex of its 32-byte version hash, for the hashes printed in full.
    package var versionHashes: [String: String] = [:]
    /// Entities whose hash the dump cut short: recent OS versions print `{length = 32, bytes =
    /// 0x… ... … }` (errors.md §5.3), so the hash has to come from the store itself.
    package var truncatedHashes: [String] = []
    /// What the cut-short hashes still show, by entity: only these bytes can be compared.
    package var visibleHashBytes: [String: VisibleHashBytes] = [:]
    /// Whether the dump holds every entity's hash in full: the whole `NSStoreModelVersionHashes`
    /// dictionary and no hash cut short.
    package var hashesComplete = false
    /// Whether the dump holds the whole dictionary; when the paste is cut inside it, entities
    /// may be missing and only the listed ones can be compared.
    package var listsEveryEntity = false

    package init() {}

    /// The visible bytes and the dictionary's completeness are working data for the cross-check,
    /// not part of the JSON contract.
    private enum CodingKeys: String, CodingKey {
        case frameworkVersion, storeType, storeUUID, hashesVersion, versionIdentifiers, versionHashes, truncatedHashes, hashesComplete
    }
}

/// The bytes a cut-short hash still shows: `{length = 32, bytes = 0x1d6a9dbb … 56a4f5f8 }` keeps
/// the first and the last few bytes, as lowercase hex.
package struct VisibleHashBytes: Sendable, Equatable {
    package var prefix: String
    package var suffix: String

    package init(prefix: String, suffix: String) {
        self.prefix = prefix
        self.suffix = suffix
    }

    /// Whether a full hash (lowercase hex) agrees with the visible bytes; nil when nothing is
    /// visible, so nothing can be told.
    package func matches(_ fullHex: String) -> Bool? {
        guard !prefix.isEmpty || !suffix.isEmpty else { return nil }
        return fullHex.hasPrefix(prefix) && fullHex.hasSuffix(suffix)
    }
}

/// One CloudKit model rule a 134060 reports, with the `Entity: property` items it lists.
package struct CloudKitFinding: Sendable, Codable, Equatable {
    /// cdstore's short name of the rule (the message wording varies by OS version).
    package var rule: String
    /// The header line as printed.
    package var header: String
    package var items: [String]
}

/// One `NSMergeConflict` of a 133020: the object and its `Z_OPT` versions (errors.md §5.10).
package struct MergeConflict: Sendable, Codable {
    package var objectID: String
    /// The version of the snapshot the context had.
    @NullEncoded package var oldVersion: Int?
    /// The row's version in the store when the save ran.
    @NullEncoded package var newVersion: Int?
}

extension ErrorFinding {
    /// How a dump's error code was found; the raw values are the JSON strings.
    package enum Identification: String, Sendable, Codable {
        /// Written in the dump.
        case code
        /// From an SQLite error line.
        case sqlite
        /// From a known message text, for dumps that carry no number (a localised one, say).
        case message
    }
}
