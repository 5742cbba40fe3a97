import CDStore
import Foundation

/// What a pasted error dump says about one error: its code and every detail cdstore could read
/// from its userInfo. Every key is always present in JSON (`null` when the dump does not say).
public struct ErrorFinding: Sendable, Codable {
    @NullEncoded public var domain: String?
    @NullEncoded public var code: Int?
    /// How the code was found: `code` (written in the dump), `sqlite` (an SQLite error line) or
    /// `message` (a known message text, for dumps that carry no number, such as a localised one).
    @NullEncoded public var identifiedBy: String?
    /// The error's `localizedDescription` as quoted in the dump; `nil` for `"(null)"`.
    @NullEncoded public var message: String?
    /// The entity of the failing object, migration step or conflict.
    @NullEncoded public var entity: String?
    /// The property: `NSValidationErrorKey`, or `attribute` in a migration error.
    @NullEncoded public var key: String?
    /// `NSValidationErrorValue`, or the key's value in the failing object's printed data.
    @NullEncoded public var value: String?
    @NullEncoded public var object: ObjectReference?
    @NullEncoded public var reason: String?
    @NullEncoded public var failureReason: String?
    /// The store file, from `NSFilePath`, `URL`, `sourceURL` or an I/O error line.
    @NullEncoded public var storePath: String?
    @NullEncoded public var sourceURL: String?
    @NullEncoded public var destinationURL: String?
    @NullEncoded public var sqliteCode: Int?
    /// The text SQLite gave with its code (`'not an error'`, `'no such table: ZABSTRACTCOMMENT'`).
    @NullEncoded public var sqliteMessage: String?
    /// The store metadata a 134100 or 134130 carries.
    @NullEncoded public var metadata: DumpMetadata?
    /// Entities of the `sourceModel` a 134140 prints.
    public var sourceModelEntities: [String] = []
    /// The CloudKit rules a 134060 lists in `NSLocalizedFailureReason`.
    public var cloudKit: [CloudKitFinding] = []
    /// The `NSMergeConflict`s of a 133020.
    public var conflicts: [MergeConflict] = []
    /// `NSDetailedErrors` of a 1560.
    public var detailedErrors: [ErrorFinding] = []
    /// `NSUnderlyingError` and other errors nested in this one.
    public var underlyingErrors: [ErrorFinding] = []

    public init() {}
}

/// A managed object named in a dump: `x-coredata://<store UUID>/<Entity>/p<Z_PK>` for a saved
/// object, `x-coredata:///<Entity>/t<UUID>` for one never saved (rendering-and-cli.md §1.1).
public struct ObjectReference: Sendable, Codable {
    public var uri: String
    @NullEncoded public var storeUUID: String?
    public var entity: String
    /// `Z_PK`, for a permanent ID.
    @NullEncoded public var primaryKey: Int64?
    /// A temporary ID: the object was never saved, so no row exists for it.
    public var temporary: Bool
    /// The class in `<Class: 0x…>`, when the object's description is in the dump.
    @NullEncoded public var className: String?

    public init?(uri: String, className: String? = nil) {
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

/// The store metadata printed inside a 134100/134130 (`metadata = {…}`), reference/errors.md §5.1.
public struct DumpMetadata: Sendable, Codable {
    @NullEncoded public var frameworkVersion: Int?
    @NullEncoded public var storeType: String?
    @NullEncoded public var storeUUID: String?
    @NullEncoded public var hashesVersion: Int?
    @NullEncoded public var versionIdentifiers: [String]?
    /// Entity name → lowercase hex of its 32-byte version hash, for the hashes printed in full.
    public var versionHashes: [String: String] = [:]
    /// Entities whose hash the dump cut short: recent OS versions print `{length = 32, bytes =
    /// 0x… ... … }` (errors.md §5.3), so the hash has to come from the store itself.
    public var truncatedHashes: [String] = []
    /// What the cut-short hashes still show, by entity: only these bytes can be compared.
    public var visibleHashBytes: [String: VisibleHashBytes] = [:]
    /// Whether the dump holds every entity's hash in full: the whole `NSStoreModelVersionHashes`
    /// dictionary and no hash cut short.
    public var hashesComplete = false
    /// Whether the dump holds the whole dictionary; when the paste is cut inside it, entities
    /// may be missing and only the listed ones can be compared.
    public var listsEveryEntity = false

    public init() {}

    /// The visible bytes and the dictionary's completeness are working data for the cross-check,
    /// not part of the JSON contract.
    private enum CodingKeys: String, CodingKey {
        case frameworkVersion, storeType, storeUUID, hashesVersion, versionIdentifiers, versionHashes, truncatedHashes, hashesComplete
    }
}

/// The bytes a cut-short hash still shows: `{length = 32, bytes = 0x1d6a9dbb … 56a4f5f8 }` keeps
/// the first and the last few bytes, as lowercase hex.
public struct VisibleHashBytes: Sendable, Equatable {
    public var prefix: String
    public var suffix: String

    public init(prefix: String, suffix: String) {
        self.prefix = prefix
        self.suffix = suffix
    }

    /// Whether a full hash (lowercase hex) agrees with the visible bytes; nil when nothing is
    /// visible, so nothing can be told.
    public func matches(_ fullHex: String) -> Bool? {
        guard !prefix.isEmpty || !suffix.isEmpty else { return nil }
        return fullHex.hasPrefix(prefix) && fullHex.hasSuffix(suffix)
    }
}

/// One CloudKit model rule a 134060 reports, with the `Entity: property` items it lists.
public struct CloudKitFinding: Sendable, Codable, Equatable {
    /// cdstore's short name of the rule (the message wording varies by OS version).
    public var rule: String
    /// The header line as printed.
    public var header: String
    public var items: [String]
}

/// One `NSMergeConflict` of a 133020: the object and its `Z_OPT` versions (errors.md §5.10).
public struct MergeConflict: Sendable, Codable {
    public var objectID: String
    /// The version of the snapshot the context had.
    @NullEncoded public var oldVersion: Int?
    /// The row's version in the store when the save ran.
    @NullEncoded public var newVersion: Int?
}
