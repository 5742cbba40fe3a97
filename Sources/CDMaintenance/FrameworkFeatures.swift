import CDMapping
import CDStore

/// What a given Core Data build writes into a new store, by `NSPersistenceFrameworkVersion`.
///
/// The thresholds are the first versions seen with each feature in real stores
/// (docs/format/store-format.md §3, §5, §5.2); where the exact first version is uncertain, the
/// lowest version observed with the feature is used.
package struct FrameworkFeatures: Sendable, Equatable {
    /// The version written when the user names none: the newest build seen in real stores.
    package static let defaultVersion = 1522

    package let version: Int

    package init(version: Int) {
        self.version = version
    }

    /// `Z_MODELCACHE` exists from framework 640 on (§3; absent up to 519, first version
    /// uncertain; see ``MappingOptions/firstModelCacheVersion``).
    package var writesModelCache: Bool { version >= MappingOptions.firstModelCacheVersion }
    /// `NSStoreModelVersionHashesDigest` from 973 on (§5; absent at 866).
    package var writesHashesDigest: Bool { version >= 973 }
    /// `NSStoreModelVersionChecksumKey` from 1344 on (§5; absent at 1244, first version uncertain).
    package var writesChecksum: Bool { version >= 1344 }
    /// Each table's indexes right after the table, as up to 481; all tables first from 754 on
    /// (where between the two the order changed is uncertain).
    package var createsIndexesAfterEachTable: Bool { version < 754 }
    /// One-property uniqueness constraints as column constraints (851) or indexes (866 on).
    package var uniqueness: UniquenessStyle { UniquenessStyle(frameworkVersion: version) }
    /// The tables, columns and indexes options of this version (model cache, uniqueness and
    /// legacy index styles), without persistent history.
    package var mappingOptions: MappingOptions { MappingOptions(frameworkVersion: version, history: .none) }
}
