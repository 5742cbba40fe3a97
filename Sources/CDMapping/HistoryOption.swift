import CDModel
import Foundation

/// Whether to include the persistent-history tables, which the model does not say (§11).
public enum HistoryOption: Sendable, Equatable {
    /// As the history entities (16001–16003) in the registry's `Z_PRIMARYKEY` say; none
    /// without a registry. Core Data may create the tables before it registers the entities
    /// (VUIndex has empty history tables and no such rows), so a store's schema is better.
    case asRegistered
    case none
    case layout(HistoryLayout)
}
