import CDModel
import Foundation

/// How Core Data writes an attribute marked "indexed" and a legacy compound index
/// (`<compoundIndexes>`, `NSCompoundIndexes`) of an entity that declares no fetch indexes.
///
/// Up to framework 754 (photosgraph 10.12.6 in the corpus, and real stores of one app) they
/// are plain indexes: `ZNOTE_ZTITLE_INDEX ON ZNOTE (ZTITLE)` and, for a compound index, the
/// table and the columns joined by `_` without `_INDEX`: `ZNOTE_ZISARCHIVED_ZMODIFIEDDATE`.
/// From 865 on (the same app's later stores) both are fetch indexes named after the entity
/// and the properties: `Z_Note_title ON ZNOTE (ZTITLE COLLATE BINARY ASC)`. No store written
/// between 755 and 864 by a model without fetch indexes has been seen, so the switch lies
/// somewhere there (**uncertain**): the corpus stores of 847 (wibosco) have no indexes and those
/// of 851 (knowledgeC 10.13) a model that declares fetch indexes, which then replace the legacy
/// flags in every framework version. 865, the lowest version seen with the new form, is used.
public enum LegacyIndexStyle: String, Sendable, Codable {
    case plainIndexes
    case fetchIndexes

    /// The first framework version seen writing legacy indexes as fetch indexes.
    public static let firstFetchIndexVersion = 865

    /// The style of a store written by `frameworkVersion` (`NSPersistenceFrameworkVersion`).
    public init(frameworkVersion: Int) {
        self = frameworkVersion < Self.firstFetchIndexVersion ? .plainIndexes : .fetchIndexes
    }
}
