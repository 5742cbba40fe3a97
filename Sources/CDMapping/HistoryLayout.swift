import CDModel
import Foundation

/// Which persistent-history tables a store has (§11).
public enum HistoryLayout: String, Sendable, Codable {
    /// macOS 10.13 (framework 851): `ACHANGE` and `ATRANSACTION` without the `…TS` columns.
    case legacy
    /// Framework 1044 and later: adds `ATRANSACTIONSTRING` and the interned-string keys.
    case current
}
