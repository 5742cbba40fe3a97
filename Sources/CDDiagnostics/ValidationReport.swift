import CDBase
import CDStore
import Foundation

/// What `cdstore validate` found: Core Data's validation errors row by row, and the store's
/// integrity problems. Its JSON form is the `validate --json` contract: every key always present.
package struct ValidationReport: Sendable, Codable, Equatable {
    package var store: String
    /// Objects checked, over every entity.
    package var objects: Int
    /// One entry per invalid object: the error itself, or a 1560 holding several in `errors`.
    package var errors: [ValidationFailure]
    package var integrity: [IntegrityProblem]
    /// Rules the model states that cdstore cannot evaluate (validation predicates over other
    /// key paths, say), so a clean report does not claim more than was checked.
    package var notChecked: [String]

    package init(
        store: String, objects: Int = 0, errors: [ValidationFailure] = [], integrity: [IntegrityProblem] = [],
        notChecked: [String] = []
    ) {
        self.store = store
        self.objects = objects
        self.errors = errors
        self.integrity = integrity
        self.notChecked = notChecked
    }

    /// Whether anything is wrong (the command's exit status 1).
    package var hasProblems: Bool { !errors.isEmpty || !integrity.isEmpty }
}

/// A validation error as Core Data would raise it on save: its code, the entity, the key, the
/// object's URI, the offending value and Core Data's message. Code 1560 wraps several errors of
/// one object in `errors`, as `NSDetailedErrors` does (errors.md §1.1, §5.8).
package struct ValidationFailure: Sendable, Codable, Equatable {
    package var code: Int
    package var entity: String
    /// The property, or nil for a 1560 wrapper.
    @NullEncoded package var key: String?
    package var object: String
    /// The stored value as text (nil for NULL, and for a 1560 wrapper).
    @NullEncoded package var value: String?
    package var message: String
    package var errors: [ValidationFailure]

    package init(
        code: Int, entity: String, key: String?, object: String, value: String?, message: String,
        errors: [ValidationFailure] = []
    ) {
        self.code = code
        self.entity = entity
        self.key = key
        self.object = object
        self.value = value
        self.message = message
        self.errors = errors
    }

}

/// A problem with the store itself rather than with one object's values.
package struct IntegrityProblem: Sendable, Codable, Equatable {
    /// What kind of problem, a stable word for scripts.
    package enum Kind: String, Sendable, Codable, CaseIterable {
        /// A to-one foreign key holds a Z_PK with no row in the destination table.
        case danglingToOne
        /// A many-to-many join-table row holds a Z_PK with no row.
        case danglingJoinRow
        /// Rows whose Z_ENT is not an entity of their table.
        case unknownEntity
        /// Rows of an abstract entity (Core Data never creates them).
        case abstractEntity
        /// Z_PRIMARYKEY.Z_MAX below the largest Z_PK: the next insert would reuse a key.
        case primaryKeyBelowMaximum
        /// An external-data reference whose file is missing from `_EXTERNAL_DATA`.
        case missingExternalFile
        /// A file in `_EXTERNAL_DATA` that no row refers to.
        case orphanedExternalFile
        /// NSStoreModelVersionHashesDigest does not match the entity hashes.
        case digestMismatch
        /// NSStoreModelVersionChecksumKey does not match the entity hashes.
        case checksumMismatch
        /// The model cache hashes differently from the metadata.
        case modelCacheMismatch
        /// SQLite's `PRAGMA integrity_check` reported a problem.
        case sqlite
        /// Text, a blob or a fraction where Core Data stores an integer (`Z_ENT`, `Z_MAX`, a key).
        case wrongType
        /// An integer out of the range its column allows (an entity number of 2^40, say).
        case outOfRange
        /// The model cache (`Z_MODELCACHE`) is present but cannot be decoded.
        case unreadableModelCache
    }

    package var kind: Kind
    /// The entity concerned, when there is one.
    @NullEncoded package var entity: String?
    /// The property or table concerned, when there is one.
    @NullEncoded package var key: String?
    /// How many rows or files.
    package var count: Int
    /// The first offenders: object URIs, file names or SQLite's messages.
    package var examples: [String]
    package var message: String

    package init(kind: Kind, entity: String? = nil, key: String? = nil, count: Int, examples: [String] = [], message: String) {
        self.kind = kind
        self.entity = entity
        self.key = key
        self.count = count
        self.examples = examples
        self.message = message
    }

}
