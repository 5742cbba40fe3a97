import CDModel
import CDPredicate

/// What a query asks of a store, whichever syntax it was written in (an NSPredicate with
/// `--entity`/`--where`, `Entity where …`, or a CDQ chain): the equivalent of an
/// `NSFetchRequest`, which ``FetchSQL`` turns into Core Data's SQL.
package struct FetchRequest: Sendable, Equatable {
    /// The entity fetched; its sub-entities are included, as Core Data includes them.
    package var entity: String
    package var predicate: CDPredicate.Predicate?
    package var sortDescriptors: [CDModel.SortDescriptor]
    package var limit: Int?
    package var offset: Int?
    package var result: FetchResultKind
    /// CDQ's `last`: the final `limit` objects of the sorted result rather than the first ones.
    /// Like CDQ, cdstore counts first and turns this into an offset.
    package var takesLast: Bool
    /// `NSFetchRequest.includesSubentities`: false fetches only objects whose entity is `entity`
    /// itself (`dump` without ENTITY fetches each entity so, as it prints each object once).
    package var includesSubentities: Bool
    /// Keyset pagination (``KeysetPage``): `Z_PK` breaks ties after the sort descriptors, and a
    /// page with a position starts after it. Nil for every command: Core Data's SQL has neither.
    package var keyset: KeysetPage? = nil
    /// Binary and transformable values longer than this many bytes are not read: the object
    /// fetch selects NULL and the value's `length()` instead (no overflow page is read), and
    /// the object gets ``ObjectValue/largeValue(bytes:)``. Nil for every command (their SQL is
    /// Core Data's); `serve`'s pages set it.
    package var largeValueLimit: Int? = nil

    package init(
        entity: String, predicate: CDPredicate.Predicate? = nil, sortDescriptors: [CDModel.SortDescriptor] = [],
        limit: Int? = nil, offset: Int? = nil, result: FetchResultKind = .objects, takesLast: Bool = false,
        includesSubentities: Bool = true
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.offset = offset
        self.result = result
        self.takesLast = takesLast
        self.includesSubentities = includesSubentities
    }
}

extension SortComparison {
    /// The collation the selector emits in `ORDER BY` (sqldebug.md §5, "Sort descriptors");
    /// `nil`: SQLite's binary order.
    package var collation: String? {
        switch self {
        case .compare: return nil
        case .caseInsensitiveCompare: return "NSCollateNoCase"
        case .localizedCompare: return "NSCollateLocaleSensitive"
        case .localizedCaseInsensitiveCompare: return "NSCollateLocaleSensitiveNoCase"
        case .localizedStandardCompare: return "NSCollateFinderlike"
        case .numericCaseInsensitiveCompare: return "NSCollateNumericallyNoCase"
        }
    }
}

/// What a fetch returns: objects (`NSManagedObjectResultType`), a count (`NSCountResultType`),
/// distinct values of some key paths, or one aggregate over the matching objects.
package enum FetchResultKind: Sendable, Equatable {
    case objects
    case count
    /// `returnsDistinctResults` with `propertiesToFetch` (RHManagedObject's `distinctValues`).
    case distinct([String])
    /// An `NSExpression` function over a key path: `sum:`, `average:`, `min:`, `max:`, `count:`.
    case aggregate(AggregateFunction, keyPath: String)
}

/// The aggregate functions of `NSExpression(forFunction:)` that Core Data runs in SQL.
package enum AggregateFunction: String, Sendable, Equatable, CaseIterable {
    case sum, average, min, max, count
}

extension SortDescriptor {
    /// `KEY` with modifiers after colons, as every command writes a sort descriptor (`--sort`):
    /// `desc`/`asc`, and one comparison: `nocase` (`caseInsensitiveCompare:`), `numeric`
    /// (numeric, case-insensitive), `localized` (`localizedCompare:`), `localizednocase`
    /// (`localizedCaseInsensitiveCompare:`), `standard` (`localizedStandardCompare:`).
    package init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { $0.lowercased() }
        guard let key = text.split(separator: ":").first, !key.isEmpty else { return nil }
        self.init(key: String(key))
        for modifier in parts.dropFirst() {
            switch modifier {
            case "asc", "ascending": ascending = true
            case "desc", "descending": ascending = false
            case "nocase": comparison = .caseInsensitiveCompare
            case "numeric": comparison = .numericCaseInsensitiveCompare
            case "localized": comparison = .localizedCompare
            case "localizednocase": comparison = .localizedCaseInsensitiveCompare
            case "standard": comparison = .localizedStandardCompare
            default: return nil
            }
        }
    }
}

extension FetchResultKind {
    /// `sum:KEY`, `avg:KEY` (or `average:`), `min:KEY`, `max:KEY`, `count:KEY`.
    package init?(aggregate text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        let function: AggregateFunction
        switch parts[0].lowercased() {
        case "sum": function = .sum
        case "avg", "average": function = .average
        case "min": function = .min
        case "max": function = .max
        case "count": function = .count
        default: return nil
        }
        self = .aggregate(function, keyPath: parts[1])
    }
}
