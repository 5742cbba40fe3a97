import Foundation

extension TraceAnalyzer.ShapeStatistics {
    /// Whether the statement filters rows of `t0` on something other than its key.
    package var whereClauseFilters: Bool {
        guard let condition = shape.whereClause else { return false }
        return condition.contains("t0.") && condition != "t0.Z_PK = ?"
    }
}
