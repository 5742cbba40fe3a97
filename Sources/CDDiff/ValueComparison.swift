import CDStore

/// Whether two decoded values of the two stores are the same value, for properties whose
/// stored forms differ (another type in the other model version, or another SQLite storage
/// class). Numbers compare by value across the numeric types, as a migration converts them.
enum ValueComparison {
    static func same(_ old: ObjectValue, _ new: ObjectValue) -> Bool {
        if let a = number(old), let b = number(new) { return a == b }
        return old == new
    }

    private static func number(_ value: ObjectValue) -> Double? {
        switch value {
        case .integer(let i): Double(i)
        case .boolean(let b): b ? 1 : 0
        case .decimal(let d), .double(let d): d
        default: nil
        }
    }
}
