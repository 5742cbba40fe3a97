import ArgumentParser
import CDFetch
import CDPredicate
import CDRendering
import CDSession
import CDStore

struct QueryCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run a fetch written as an NSPredicate or a CDQ chain and print its results.",
        discussion: """
            The fetch runs as the SQL Core Data would run for it (see `cdstore sql` and --sql-debug). \
            Objects print in the dump formats; --count, --distinct and --aggregate print values.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @OptionGroup var fetch: FetchOptions

    @OptionGroup var output: ObjectOutputOptions

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        try fetch.requireTarget()
    }

    func run() throws {
        let request = try fetch.fetchRequest()
        let session = try StoreSession(storePath: store, modelPath: fetch.modelOptions.model, trace: sqlDebug.trace, asOf: fetch.asOf.commit)
        guard request.result != .objects else {
            let runner = try session.runner()
            try runner.reader.checkIncludes(Set(output.include), entities: [request.entity])
            let printer = output.makePrinter()
            try runner.objects(
                request, includes: Set(output.include), countsToMany: output.countsToMany,
                describe: DumpCommand.describe, section: printer.section, object: printer.object)
            try printer.finish()
            return
        }
        var rows = output.valueRenderer(names: [])
        let printed = BufferedOutput(to: CommandIO.current.output)
        try session.values(
            request,
            names: { names in
                rows = output.valueRenderer(names: names)
                try printed.write(rows.header())
            }, row: { values in try printed.write(rows.row(values)) })
        try printed.write(rows.footer())
        try printed.flush()
    }
}

/// The fetch options `query` and `sql` share: an expression (a CDQ chain or `Entity where …`),
/// or `--entity` with the ``FetchRequestOptions`` (`--where`, `--sort`, `--limit`, `--offset`,
/// which `dump` takes too); `--count`, `--distinct` and `--aggregate` choose the result of either.
struct FetchOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp("A CDQ chain, or Entity [where PREDICATE] [sort by KEY [desc]] [limit N] [offset N].", valueName: "expression"),
        completion: ShellCompletion.entityName)
    var expression: String?

    @Option(name: .long, help: ArgumentHelp("The entity to fetch (with its sub-entities).", valueName: "entity"), completion: ShellCompletion.entityName)
    var entity: String?

    @OptionGroup var requestOptions: FetchRequestOptions

    @Flag(name: .long, help: "Print the number of matching objects.")
    var count = false

    @Option(name: .long, help: ArgumentHelp("Print the distinct values of this attribute; repeatable.", valueName: "attribute"))
    var distinct: [String] = []

    @Option(name: .long, help: ArgumentHelp("Print sum, avg, min, max or count of an attribute.", valueName: "function:attribute"))
    var aggregate: String?

    @OptionGroup var modelOptions: ModelOptions

    @OptionGroup var asOf: AsOfOptions

    /// Whether any option that describes a fetch was given (`sql --raw` takes none of them).
    var describesAFetch: Bool {
        expression != nil || entity != nil || requestOptions.describesARequest || count || !distinct.isEmpty || aggregate != nil
    }

    func validate() throws {
        if expression != nil && (entity != nil || requestOptions.describesARequest) {
            throw ValidationError(
                "write the entity, predicate, sort, limit and offset in the expression, or use --entity, --where, --sort, --limit and --offset instead of it")
        }
        if [count, !distinct.isEmpty, aggregate != nil].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --count, --distinct and --aggregate")
        }
        if let aggregate, FetchResultKind(aggregate: aggregate) == nil {
            throw ValidationError("--aggregate takes sum:KEY, avg:KEY, min:KEY, max:KEY or count:KEY, not \"\(aggregate)\"")
        }
    }

    /// A fetch needs an expression or an entity.
    func requireTarget() throws {
        if expression == nil && entity == nil {
            throw ValidationError("give a query expression (a CDQ chain or \"Entity where …\") or --entity")
        }
    }

    func fetchRequest() throws -> FetchRequest {
        var request: FetchRequest
        if let expression {
            request = try QueryExpression.parse(expression, arguments: requestOptions.arg)
        } else {
            request = try requestOptions.request(entity: entity ?? "")
        }
        var chosen: FetchResultKind?
        if count { chosen = .count }
        if !distinct.isEmpty { chosen = .distinct(distinct) }
        if let kind = aggregate.flatMap(FetchResultKind.init(aggregate:)) { chosen = kind }
        if let chosen {
            guard request.result == .objects else {
                throw ValidationError("the expression already asks for a \(request.result.name); drop --count, --distinct or --aggregate")
            }
            request.result = chosen
        }
        return request
    }
}

extension FetchResultKind {
    /// What the result is, for messages.
    var name: String {
        switch self {
        case .objects: return "list of objects"
        case .count: return "count"
        case .distinct: return "list of distinct values"
        case .aggregate(let function, _): return "\(function.rawValue)"
        }
    }
}
