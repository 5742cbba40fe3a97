import ArgumentParser
import CDFetch
import CDModel
import CDPredicate

/// The parts of a fetch request that `dump`, `query` and `sql` take in the same words and the
/// same syntax: `--where` with its `--arg` values, `--sort` (CDModel's one ``SortDescriptor``, as
/// ``SortDescriptor/init(parsing:)`` reads it), `--limit` and `--offset`. Declared once.
struct FetchRequestOptions: ParsableArguments {
    @Option(name: .customLong("where"), help: ArgumentHelp("An NSPredicate the objects must match.", valueName: "predicate"))
    var predicate: String?

    @Option(name: .long, help: ArgumentHelp("A value for the next %@ or %K placeholder; repeatable.", valueName: "value"))
    var arg: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Sort by a key path; repeatable. Modifiers: desc, nocase, numeric, localized, standard.", valueName: "key[:desc][:nocase]"))
    var sort: [String] = []

    @Option(name: .long, parsing: .unconditional, help: "Return at most this many objects per entity.")
    var limit: Int?

    @Option(name: .long, parsing: .unconditional, help: "Skip this many objects per entity first.")
    var offset: Int?

    func validate() throws {
        try requireNotNegative(limit, option: "--limit")
        try requireNotNegative(offset, option: "--offset")
        for key in sort where CDModel.SortDescriptor(parsing: key) == nil {
            throw ValidationError("--sort takes KEY with :desc, :nocase, :numeric, :localized or :standard after it, not \"\(key)\"")
        }
    }

    /// Whether `--where`, `--sort`, `--limit` or `--offset` was given (`--arg` alone may fill the
    /// placeholders of a query expression or of `sql --raw`).
    var describesARequest: Bool {
        predicate != nil || !sort.isEmpty || limit != nil || offset != nil
    }

    var sortDescriptors: [CDModel.SortDescriptor] {
        sort.compactMap(CDModel.SortDescriptor.init(parsing:))
    }

    /// `--arg` without `--where` has nothing to fill (where no query expression takes it).
    func requirePredicateForArguments() throws {
        if predicate == nil && !arg.isEmpty { throw ValidationError("--arg fills the placeholders of --where") }
    }

    /// `--where` with its `--arg` values filled in; nil without `--where`.
    func parsedPredicate() throws -> CDPredicate.Predicate? {
        try requirePredicateForArguments()
        return try predicate.map { try PredicateParser.parse($0, arguments: arg, checksPatterns: true) }
    }

    /// The request for `entity` with these options (`includesSubentities` as
    /// ``FetchRequest/includesSubentities``).
    func request(entity: String, includesSubentities: Bool = true) throws -> FetchRequest {
        FetchRequest(
            entity: entity, predicate: try parsedPredicate(), sortDescriptors: sortDescriptors, limit: limit, offset: offset,
            includesSubentities: includesSubentities)
    }
}

/// Refuses a negative `--limit` or `--offset` (a usage error, exit 64). The options parse their
/// value unconditionally so that `--limit -1` reaches this check instead of reading as an option.
func requireNotNegative(_ value: Int?, option: String) throws {
    if let value, value < 0 { throw ValidationError("\(option) must be 0 or more, not \(value)") }
}
