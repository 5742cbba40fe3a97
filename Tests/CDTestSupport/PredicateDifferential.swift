import CDBase
import CDFetch
import CDModel
import CDPredicate
import CDStore
import Foundation

/// The differential check of issue 23: generated predicates run through the real fetch path
/// (``FetchRunner``, what `cdstore query` calls) and through ``ObjectGraphEvaluator``'s
/// `coreDataSQL` mode over a ``LoadedGraph`` of the same store, compared as sets of object IDs.
/// It also checks that every difference between `coreDataSQL` and `nsPredicate` is explained by
/// a quirk the predicate contains, and two metamorphic relations of the fetch path: objects(P)
/// and objects(NOT P) are disjoint when P has no to-many join, and cover the entity when P
/// involves no nil and no to-many.
package enum PredicateDifferential {
    /// A corpus store copy, opened for fetching and loaded as an object graph.
    package final class Store {
        package let path: String
        package let runner: FetchRunner
        package let graph: LoadedGraph
        package let entities: [String]
        /// Seconds spent copying and loading the store.
        package let loadTime: Double

        init(path: String, runner: FetchRunner, graph: LoadedGraph, entities: [String], loadTime: Double) {
            self.path = path
            self.loadTime = loadTime
            self.runner = runner
            self.graph = graph
            self.entities = entities
        }
    }

    /// An object by entity and `Z_PK`, as both sides name it.
    package struct ObjectKey: Hashable, Comparable, CustomStringConvertible {
        package let entity: String
        package let primaryKey: Int64
        package var description: String { "\(entity)/p\(primaryKey)" }
        package static func < (a: Self, b: Self) -> Bool { (a.entity, a.primaryKey) < (b.entity, b.primaryKey) }
    }

    /// What a run found.
    package struct Report {
        package var cases = 0
        package var compared = 0
        package var notEvaluable: [String: Int] = [:]
        package var refused: [String: Int] = [:]
        /// Predicates containing each quirk (their two modes may differ).
        package var quirkPredicates: [PredicateQuirk: Int] = [:]
        /// Predicates without a quirk, whose two modes were compared.
        package var checkedWithoutQuirk = 0
        /// Failures, each with its reproduction.
        package var mismatches: [String] = []
        package var mismatchClasses: [String: (count: Int, example: String)] = [:]
        package var unexplainedDifferences: [String] = []
        package var metamorphicFailures: [String] = []
        package var generatorFailures: [String] = []
        package var stores: [String] = []
        /// Per store: seconds to load, seconds to run its predicates.
        package var timings: [(store: String, load: Double, run: Double)] = []
        /// Predicates that took over a second to check.
        package var slow: [String] = []

        package var failures: [String] { generatorFailures + mismatches + unexplainedDifferences + metamorphicFailures }

        /// One summary line, then the counts by mismatch class and the refusals.
        package var summary: String {
            var lines = [
                "predicate differential: \(cases) predicates on \(stores.count) stores, \(compared) compared, "
                    + "\(notEvaluable.values.reduce(0, +)) not evaluable by the oracle, \(refused.values.reduce(0, +)) refused by the fetch, "
                    + "\(mismatches.count) mismatches, \(unexplainedDifferences.count) unexplained coreDataSQL/nsPredicate differences, "
                    + "\(metamorphicFailures.count) metamorphic failures"
            ]
            for (shape, entry) in mismatchClasses.sorted(by: { $0.value.count > $1.value.count }) {
                lines.append("  mismatch class \(entry.count)×  \(shape)\n      e.g. \(entry.example)")
            }
            lines.append("  \(checkedWithoutQuirk) predicates without a quirk: coreDataSQL and nsPredicate compared")
            for (quirk, count) in quirkPredicates.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(count) predicates contain quirk \(quirk.rawValue)")
            }
            for (reason, count) in refused.sorted(by: { $0.value > $1.value }).prefix(12) {
                lines.append("  refused \(count)×: \(reason)")
            }
            for (reason, count) in notEvaluable.sorted(by: { $0.value > $1.value }).prefix(8) {
                lines.append("  not evaluable \(count)×: \(reason)")
            }
            for line in slow.prefix(10) { lines.append("  slow: " + line) }
            for timing in timings {
                lines.append("  time: " + String(format: "load %.2f s, run %.2f s  ", timing.load, timing.run) + timing.store)
            }
            return lines.joined(separator: "\n")
        }
    }

    /// Every corpus store with a usable model (its model cache) and at least one entity to fetch,
    /// copied and loaded. Must run inside a temporary-directory scope.
    package static func openStores(matching filter: String? = nil) -> [Store] {
        Corpus.stores.filter { filter.map($0.contains) ?? true }.compactMap { path in
            let start = Date()
            guard let copy = try? Corpus.copyStore(path) else { return nil }
            return try? openStore(copy, named: path, since: start)
        }
    }

    /// The store at `url` (a copy the test made), opened for fetching and loaded; `name` labels
    /// it in reports. Nil when it has no entity to fetch.
    package static func openStore(_ url: URL, named name: String, since start: Date = Date()) throws -> Store? {
        let reader = try ObjectReader(snapshot: try StoreSnapshot(path: url.path))
        let graph = try LoadedGraph(reader: reader)
        let entities = PredicateGenerator(graph: graph, seed: 1).fetchableEntities
        guard !entities.isEmpty else { return nil }
        return Store(
            path: name, runner: FetchRunner(reader: reader), graph: graph, entities: entities,
            loadTime: Date().timeIntervalSince(start))
    }

    /// Runs `cases` predicates spread evenly over `stores`, from `seed`.
    package static func run(_ stores: [Store], cases: Int, seed: UInt64) -> Report {
        var report = Report()
        report.stores = stores.map(\.path)
        guard !stores.isEmpty else { return report }
        for (index, store) in stores.enumerated() {
            let share = cases / stores.count + (index < cases % stores.count ? 1 : 0)
            var generator = PredicateGenerator(graph: store.graph, seed: seed ^ stableHash(store.path))
            let start = Date()
            for _ in 0..<share {
                let (entity, tree) = generator.next(from: store.entities)
                let started = Date()
                check(entity, tree, in: store, &report)
                let seconds = Date().timeIntervalSince(started)
                if seconds > 1 { report.slow.append(String(format: "%.1f s: ", seconds) + "\(store.path): \(entity) where \(tree)") }
            }
            report.timings.append((store.path, store.loadTime, Date().timeIntervalSince(start)))
        }
        return report
    }

    /// How many mismatches of a run are shrunk (`CDSTORE_FUZZ_SHRINK` overrides it); later ones
    /// are reported as generated.
    static let maximumShrunk = ProcessInfo.processInfo.environment["CDSTORE_FUZZ_SHRINK"].flatMap(Int.init) ?? 30

    /// FNV-1a, so each store's seed is the same in every process (Swift's `Hasher` is not).
    static func stableHash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    // MARK: One predicate

    private enum Outcome {
        case keys(Set<ObjectKey>)
        case notEvaluable(String)
        case refused(String)
    }

    private static func check(_ entity: String, _ tree: Predicate, in store: Store, _ report: inout Report) {
        report.cases += 1
        let text = tree.description
        let predicate: Predicate
        do {
            predicate = try PredicateParser.parse(text, checksPatterns: true)
        } catch {
            report.generatorFailures.append("\(store.path): \(entity) where \(text) does not parse: \(error)")
            return
        }
        let expected = oracle(entity, predicate, store, mode: .coreDataSQL)
        let got = fetch(entity, predicate, store)
        switch (expected, got) {
        case (.notEvaluable(let reason), _):
            report.notEvaluable[reason, default: 0] += 1
            return
        case (_, .refused(let reason)):
            report.refused[reason, default: 0] += 1
            return
        case (.keys(let expectedKeys), .keys(let gotKeys)):
            report.compared += 1
            if expectedKeys != gotKeys {
                // Shrinking costs up to 60 runs each way: the first mismatches of a run get it.
                let shrunk =
                    report.mismatches.count >= maximumShrunk
                    ? predicate
                    : shrink(predicate) { candidate in
                        if case .keys(let a) = oracle(entity, candidate, store, mode: .coreDataSQL),
                            case .keys(let b) = fetch(entity, candidate, store)
                        {
                            return a != b
                        }
                        return false
                    }
                let reproduction = reproduce(entity, original: predicate, shrunk: shrunk, store)
                report.mismatches.append(reproduction)
                let shape = shape(of: shrunk, entity: entity, store.graph)
                let example = "\(store.path): \(entity) where \(shrunk)"
                report.mismatchClasses[shape] = (
                    (report.mismatchClasses[shape]?.count ?? 0) + 1,
                    report.mismatchClasses[shape]?.example ?? example
                )
            }
            checkQuirks(entity, predicate, expectedKeys, store, &report)
            checkNegation(entity, predicate, gotKeys, expectedKeys, store, &report)
        default:
            return
        }
    }

    /// The oracle's answer: the objects of `entity` (sub-entities included) that match.
    private static func oracle(_ entity: String, _ predicate: Predicate, _ store: Store, mode: EvaluationMode) -> Outcome {
        let evaluator = ObjectGraphEvaluator(schema: store.graph, fetchedEntity: entity)
        var keys = Set<ObjectKey>()
        do {
            for object in store.graph.objects(ofKind: entity) where try evaluator.matches(predicate, object, mode: mode) {
                keys.insert(ObjectKey(entity: object.entityName, primaryKey: object.primaryKey))
            }
        } catch {
            return .notEvaluable(error.reason)
        }
        return .keys(keys)
    }

    /// The fetch path's answer, through `FetchRunner.objects` as `cdstore query` runs it.
    private static func fetch(_ entity: String, _ predicate: Predicate, _ store: Store) -> Outcome {
        var keys = Set<ObjectKey>()
        do {
            try store.runner.objects(FetchRequest(entity: entity, predicate: predicate), section: { _ in }) { object in
                keys.insert(ObjectKey(entity: object.id.entity, primaryKey: object.id.pk))
            }
        } catch {
            return .refused(String(((error as? any UserFacingError)?.message ?? "\(error)").prefix(160)))
        }
        return .keys(keys)
    }

    /// Every difference between the oracle's two modes must come from a quirk the predicate
    /// contains. A predicate with a quirk may differ, so only those without one are evaluated
    /// in `nsPredicate` mode (the costly part), and must give the same objects.
    private static func checkQuirks(
        _ entity: String, _ predicate: Predicate, _ sqlKeys: Set<ObjectKey>, _ store: Store,
        _ report: inout Report
    ) {
        let quirks = ObjectGraphEvaluator(schema: store.graph, fetchedEntity: entity).quirks(in: predicate)
        for quirk in quirks { report.quirkPredicates[quirk, default: 0] += 1 }
        guard quirks.isEmpty, case .keys(let nsKeys) = oracle(entity, predicate, store, mode: .nsPredicate) else { return }
        report.checkedWithoutQuirk += 1
        if nsKeys != sqlKeys {
            report.unexplainedDifferences.append(
                """
                \(store.path): \(entity) where \(predicate)
                  coreDataSQL \(sqlKeys.sorted()) ≠ nsPredicate \(nsKeys.sorted()), and the predicate has no quirk of the contract
                """)
        }
    }

    /// For P without a to-many join dimension: objects(P) ∩ objects(NOT P) = ∅, on the fetch path
    /// (and in the oracle, for every fourth predicate: a check of the oracle itself); and, when P
    /// involves no nil and no to-many, objects(P) ∪ objects(NOT P) = the entity.
    private static func checkNegation(
        _ entity: String, _ predicate: Predicate, _ positive: Set<ObjectKey>,
        _ oraclePositive: Set<ObjectKey>, _ store: Store, _ report: inout Report
    ) {
        // With a join dimension, P and NOT P can both hold for one object (one member matches,
        // another does not): the contract's rows make them complementary row by row only.
        guard !hasJoinDimension(predicate, entity: entity, variables: [:], store.graph) else { return }
        let negated = Predicate.not(predicate)
        guard case .keys(let negative) = fetch(entity, negated, store) else { return }
        let both = positive.intersection(negative)
        if !both.isEmpty {
            report.metamorphicFailures.append(
                """
                \(store.path): \(entity) where \(predicate)
                  the fetch returns \(both.sorted().prefix(10)) for the predicate and for its negation
                """)
        }
        if report.cases % 4 == 0, case .keys(let oracleNegative) = oracle(entity, negated, store, mode: .coreDataSQL),
            !oraclePositive.isDisjoint(with: oracleNegative)
        {
            report.metamorphicFailures.append(
                """
                \(store.path): \(entity) where \(predicate)
                  the oracle returns \(oraclePositive.intersection(oracleNegative).sorted().prefix(10)) for the predicate and for its negation
                """)
        }
        guard involvesNoNilAndNoToMany(predicate, entity: entity, store.graph) else { return }
        let all = Set(store.graph.objects(ofKind: entity).map { ObjectKey(entity: $0.entityName, primaryKey: $0.primaryKey) })
        let missing = all.subtracting(positive.union(negative))
        if !missing.isEmpty {
            report.metamorphicFailures.append(
                """
                \(store.path): \(entity) where \(predicate)
                  involves no nil and no to-many, yet \(missing.sorted().prefix(10)) are in neither its result nor its negation's
                """)
        }
    }

    /// Whether a comparison of `predicate` (outside SUBQUERYs) is a to-many join dimension: a
    /// to-many key path quantified by ANY, NONE or nothing.
    private static func hasJoinDimension(
        _ predicate: Predicate, entity: String, variables: [String: String],
        _ graph: LoadedGraph
    ) -> Bool {
        func crossesToMany(_ expression: Expression) -> Bool {
            var current: String?
            var components: [KeyPathComponent] = []
            switch expression {
            case .keyPath(let path): current = entity; components = path
            default: return false
            }
            for component in components {
                guard case .key(let key) = component, let owner = current else { return false }
                switch graph.propertyKind(key, ofEntity: owner) {
                case .toMany?: return true
                case .toOne(let destination)?: current = destination
                default: current = nil
                }
            }
            return false
        }
        switch predicate {
        case .constant, .opaque: return false
        case .not(let operand): return hasJoinDimension(operand, entity: entity, variables: variables, graph)
        case .and(let operands), .or(let operands):
            return operands.contains { hasJoinDimension($0, entity: entity, variables: variables, graph) }
        case .comparison(let comparison):
            return comparison.quantifier != .all && (crossesToMany(comparison.left) || crossesToMany(comparison.right))
        }
    }

    /// Whether every key path of `predicate` is one attribute or to-one of `entity` that no
    /// object has nil, with no nil constant, aggregate, SUBQUERY or to-many anywhere.
    private static func involvesNoNilAndNoToMany(_ predicate: Predicate, entity: String, _ graph: LoadedGraph) -> Bool {
        let objects = graph.objects(ofKind: entity)
        func expressionOK(_ expression: Expression) -> Bool {
            switch expression {
            case .constant(let value): return value != .null
            case .evaluatedObject: return true
            case .aggregate(let items): return items.allSatisfy(expressionOK)
            case .keyPath(let components):
                guard components.count == 1, case .key(let key) = components[0] else { return false }
                switch graph.propertyKind(key, ofEntity: entity) {
                case .attribute?: return objects.allSatisfy { ($0.attributes[key] ?? .null) != .null }
                case .toOne?: return objects.allSatisfy { ($0.toOne[key] ?? nil) != nil }
                default: return false
                }
            default: return false
            }
        }
        switch predicate {
        case .constant: return true
        case .not(let operand): return involvesNoNilAndNoToMany(operand, entity: entity, graph)
        case .and(let operands), .or(let operands):
            return operands.allSatisfy { involvesNoNilAndNoToMany($0, entity: entity, graph) }
        case .comparison(let comparison):
            return comparison.quantifier == .direct && expressionOK(comparison.left) && expressionOK(comparison.right)
        case .opaque: return false
        }
    }

    // MARK: Reproductions

    /// The smallest predicate reached by removing or simplifying subterms of `predicate` while
    /// `fails` still holds (greedy, at most 60 tries).
    private static func shrink(_ predicate: Predicate, fails: (Predicate) -> Bool) -> Predicate {
        var current = predicate
        var tries = 0
        var improved = true
        while improved && tries < 60 {
            improved = false
            for candidate in simplifications(of: current) {
                tries += 1
                if fails(candidate) {
                    current = candidate
                    improved = true
                    break
                }
                if tries >= 60 { break }
            }
        }
        return current
    }

    /// Smaller or simpler predicates than `predicate`, most drastic first.
    private static func simplifications(of predicate: Predicate) -> [Predicate] {
        switch predicate {
        case .and(let operands), .or(let operands):
            let rebuild: ([Predicate]) -> Predicate = { parts in
                if parts.count == 1 { return parts[0] }
                if case .and = predicate { return .and(parts) }
                return .or(parts)
            }
            var result = operands
            for index in operands.indices {
                var fewer = operands
                fewer.remove(at: index)
                result.append(rebuild(fewer))
            }
            for index in operands.indices {
                for simpler in simplifications(of: operands[index]) {
                    var changed = operands
                    changed[index] = simpler
                    result.append(rebuild(changed))
                }
            }
            return result
        case .not(let operand):
            return [operand] + simplifications(of: operand).map { .not($0) }
        case .comparison(let comparison):
            var result: [Predicate] = []
            if comparison.quantifier == .any {
                var direct = comparison
                direct.quantifier = .direct
                result.append(.comparison(direct))
            }
            if !comparison.options.isEmpty {
                var plain = comparison
                plain.options = []
                result.append(.comparison(plain))
            }
            if case .aggregate(let items) = comparison.right, items.count > 1, comparison.op == .in {
                var shorter = comparison
                shorter.right = .aggregate([items[0]])
                result.append(.comparison(shorter))
            }
            if case .path(.subquery(let collection, let variable, let inner), let components) = comparison.left {
                for simpler in simplifications(of: inner) {
                    var changed = comparison
                    changed.left = .path(.subquery(collection: collection, variable: variable, predicate: simpler), components)
                    result.append(.comparison(changed))
                }
            }
            return result
        default:
            return []
        }
    }

    private static func reproduce(_ entity: String, original: Predicate, shrunk: Predicate, _ store: Store) -> String {
        var expected = Set<ObjectKey>(), got = Set<ObjectKey>()
        if case .keys(let keys) = oracle(entity, shrunk, store, mode: .coreDataSQL) { expected = keys }
        if case .keys(let keys) = fetch(entity, shrunk, store) { got = keys }
        let sql = (try? store.runner.statement(for: FetchRequest(entity: entity, predicate: shrunk)).text) ?? "(no statement)"
        func list(_ keys: Set<ObjectKey>) -> String {
            let sorted = keys.sorted()
            return "\(keys.count) " + (sorted.prefix(12).map(\.description) + (sorted.count > 12 ? ["…"] : [])).joined(separator: ", ")
        }
        return """
            MISMATCH in \(store.path)
              cdstore query <copy of \(store.path)> '\(entity) where \(shrunk)'
              (shrunk from: \(original))
              expected (coreDataSQL oracle): \(list(expected))
              got (fetch path):              \(list(got))
              missing: \(list(expected.subtracting(got)))   extra: \(list(got.subtracting(expected)))
              SQL: \(sql.replacingOccurrences(of: "\n", with: "\n       "))
            """
    }

    /// The predicate's shape with names abstracted (attr, to1, many, constants by kind), to
    /// group mismatches into classes.
    private static func shape(of predicate: Predicate, entity: String, _ graph: LoadedGraph) -> String {
        func path(_ components: [KeyPathComponent], from start: String?) -> String {
            var entity = start
            return components.map { component -> String in
                switch component {
                case .collectionOperator(let op): return "@" + op.rawValue
                case .key(let key):
                    guard let current = entity else { return "attr" }
                    switch graph.propertyKind(key, ofEntity: current) {
                    case .toOne(let destination)?: entity = destination; return "to1"
                    case .toMany(let destination)?: entity = destination; return "many"
                    default: entity = nil; return "attr"
                    }
                }
            }.joined(separator: ".")
        }
        func expression(_ value: Expression, variables: [String: String]) -> String {
            switch value {
            case .constant(.null): return "nil"
            case .constant(.string(let text)): return text.hasPrefix("x-coredata://") ? "<uri>" : "\"s\""
            case .constant(.date): return "<date>"
            case .constant: return "n"
            case .evaluatedObject: return "SELF"
            case .keyPath(let components): return path(components, from: entity)
            case .variable(let name): return "$" + name
            case .path(.variable(let name), let components): return "$\(name)." + path(components, from: variables[name])
            case .path(.subquery(let collection, let variable, let inner), _):
                var destination: String?
                if case .keyPath(let components) = collection, case .key(let key)? = components.last {
                    if case .toMany(let d)? = graph.propertyKind(key, ofEntity: entity) { destination = d }
                }
                var innerVariables = variables
                innerVariables[variable] = destination
                return "SUBQUERY(\(expression(collection, variables: variables)), $\(variable), \(shapeText(inner, innerVariables))).@count"
            case .aggregate(let items): return "{" + items.map { expression($0, variables: variables) }.joined(separator: ",") + "}"
            default: return "\(value)"
            }
        }
        func shapeText(_ predicate: Predicate, _ variables: [String: String]) -> String {
            switch predicate {
            case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
            case .not(let operand): return "NOT (\(shapeText(operand, variables)))"
            case .and(let operands): return "(" + operands.map { shapeText($0, variables) }.joined(separator: " AND ") + ")"
            case .or(let operands): return "(" + operands.map { shapeText($0, variables) }.joined(separator: " OR ") + ")"
            case .comparison(let c):
                let quantifier = c.quantifier == .direct ? "" : c.quantifier.rawValue + " "
                let options = c.options.isEmpty ? "" : "[opt]"
                return "\(quantifier)\(expression(c.left, variables: variables)) \(c.op.rawValue)\(options) \(expression(c.right, variables: variables))"
            case .opaque(let text): return text
            }
        }
        return shapeText(predicate, [:])
    }
}
