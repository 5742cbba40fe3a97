import CDModel
import Foundation

/// How Core Data writes a uniqueness constraint.
///
/// Framework 851 (macOS 10.13 knowledgeC) declares a one-property constraint on the column:
/// `ZMETADATAHASH VARCHAR UNIQUE`. Framework 866 (10.14) and later create
/// `Z_<Entity>_UNIQUE_<p>` indexes instead. Where between the two the switch happened, and how
/// the old style writes a constraint of several properties, is **uncertain**; such constraints
/// stay indexes.
public enum UniquenessStyle: String, Sendable, Codable {
    case index
    case columnConstraint

    /// The style of a store written by `frameworkVersion` (`NSPersistenceFrameworkVersion`).
    public init(frameworkVersion: Int) {
        self = frameworkVersion < 866 ? .columnConstraint : .index
    }
}
