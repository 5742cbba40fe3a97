import CDModel
import Foundation

/// Settings that are not part of the model but change the tables.
public struct MappingOptions: Sendable, Equatable {
    /// The persistent-history tables to include (§11).
    public var history: HistoryOption
    /// Whether to include `Z_MODELCACHE` (absent from stores written before framework 640, §3;
    /// see ``firstModelCacheVersion``).
    public var includesModelCache: Bool
    /// How uniqueness constraints are written; see ``UniquenessStyle``.
    public var uniqueness: UniquenessStyle
    /// How indexed attributes and legacy compound indexes are written; see ``LegacyIndexStyle``.
    public var legacyIndexes: LegacyIndexStyle
    /// Whether R-tree tables come with the triggers that fill them (``rtreeTriggerVersions``).
    public var rtreeTriggers: Bool
    /// How the columns of one type are ordered; see ``ColumnOrderStyle``.
    public var columnOrder: ColumnOrderStyle
    /// Which of two colliding many-to-many key columns is numbered; see ``JoinKeyOrderStyle``.
    public var joinKeyOrder: JoinKeyOrderStyle

    /// The defaults describe a store written by a current framework.
    public init(
        history: HistoryOption = .asRegistered, includesModelCache: Bool = true,
        uniqueness: UniquenessStyle = .index, legacyIndexes: LegacyIndexStyle = .fetchIndexes,
        rtreeTriggers: Bool = false, columnOrder: ColumnOrderStyle = .byName,
        joinKeyOrder: JoinKeyOrderStyle = .entityHashTable
    ) {
        self.history = history
        self.includesModelCache = includesModelCache
        self.uniqueness = uniqueness
        self.legacyIndexes = legacyIndexes
        self.rtreeTriggers = rtreeTriggers
        self.columnOrder = columnOrder
        self.joinKeyOrder = joinKeyOrder
    }

    /// Everything the framework version that writes the store decides: the model cache, the
    /// uniqueness and legacy index styles, the R-tree triggers, the column order.
    public init(frameworkVersion: Int, history: HistoryOption = .asRegistered) {
        self.init(
            history: history, includesModelCache: frameworkVersion >= Self.firstModelCacheVersion,
            uniqueness: UniquenessStyle(frameworkVersion: frameworkVersion),
            legacyIndexes: LegacyIndexStyle(frameworkVersion: frameworkVersion),
            rtreeTriggers: Self.rtreeTriggerVersions.contains(frameworkVersion),
            columnOrder: ColumnOrderStyle(frameworkVersion: frameworkVersion),
            joinKeyOrder: JoinKeyOrderStyle(frameworkVersion: frameworkVersion))
    }

    /// The framework versions that fill an R-tree table by `_INSERT`, `_UPDATE` and `_DELETE`
    /// triggers: every Photos store of 977 (10.15.4) to 1347 (14.6) has them, the one of 1447
    /// (15.4.1) has the R-tree table without them. No R-tree is seen before 977; where between
    /// 1348 and 1446 the triggers went is **uncertain** (the last version seen with them is used).
    public static let rtreeTriggerVersions = 0...1347

    /// The first framework version that writes `Z_MODELCACHE`.
    ///
    /// Evidence (store-format.md §3): no cache in stores of 230, 241, 419, 481 (corpus) and 519
    /// (iOS 8.0); a cache in real stores of 640, 641 and 752 (reported, not in the corpus) and
    /// in every corpus store from 754 on. 640 is iOS 9.0 / OS X 10.11, the first release after
    /// 519 whose version is known, so the cache came with it or with an unseen build between
    /// 520 and 639 (**uncertain**); the lowest version seen with a cache is used.
    public static let firstModelCacheVersion = 640
}
