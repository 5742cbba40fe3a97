import CDModel
import CDPredicate
import Foundation

/// Seeded random fetch predicates for one store, built from its model and drawn from its real
/// values (plus nil and values near them): every attribute type, every operator and `[c]`,
/// `[d]`, `[cd]` (non-ASCII text too), ANY/ALL/NONE and implicit ANY, to-one key paths (through
/// nil too), to-many and many-to-many relationships, `@count`/`@sum`/`@avg`/`@min`/`@max`,
/// SUBQUERY, IN lists, `%@ IN rel` and `ANY rel == <object URI>` with real object IDs, BETWEEN,
/// dates, `SELF == <object>`, and AND/OR/NOT nested to depth 3.
///
/// A predicate's text (`description`) is what a user passes to `cdstore query E --where '…'`:
/// an object argument is its URI as a quoted string, which is how an `--arg` value arrives.
package struct PredicateGenerator {
    package let graph: LoadedGraph
    private var random: SeededGenerator
    /// To-many comparisons that are joins (not ALL, aggregates or SUBQUERY) still allowed in
    /// the predicate being built: each is one more dimension of the cross product Core Data's
    /// SQL (and the fetch) goes through, so three over relationships of a hundred members
    /// already make a million rows per object.
    private var joinBudget = 0
    /// The most join dimensions in one predicate.
    package static let maximumJoins = 2
    private let samples = SampleCache()

    /// Entities a fetch is generated for: those with 1 to this many objects (sub-entities included).
    package static let maximumFetchedObjects = 3_000

    package init(graph: LoadedGraph, seed: UInt64) {
        self.graph = graph
        random = SeededGenerator(seed: seed)
    }

    /// The entities worth fetching, sub-entities and abstract parents included, by name.
    package var fetchableEntities: [String] {
        graph.model.entities.map(\.name).filter { name in
            let count = graph.objects(ofKind: name).count
            return count > 0 && count <= Self.maximumFetchedObjects && graph.kinds[name] != nil
        }.sorted()
    }

    /// A fetch of one of `entities` with a random predicate.
    package mutating func next(from entities: [String]) -> (entity: String, predicate: CDPredicate.Predicate) {
        let entity = pick(entities)
        joinBudget = Self.maximumJoins
        return (entity, predicate(Context(entity: entity, root: nil, depth: 0), depth: Int.random(in: 0...3, using: &random)))
    }

    // MARK: Structure

    /// Where key paths start: the fetched entity (`root` nil) or a SUBQUERY variable.
    private struct Context {
        var entity: String
        var root: String?
        var depth: Int
    }

    private mutating func predicate(_ context: Context, depth: Int) -> Predicate {
        guard depth > 0, chance(0.7) else { return comparison(context) }
        switch Int.random(in: 0..<5, using: &random) {
        case 0, 1: return .and((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(context, depth: depth - 1) })
        case 2, 3: return .or((0..<Int.random(in: 2...3, using: &random)).map { _ in predicate(context, depth: depth - 1) })
        default: return .not(predicate(context, depth: depth - 1))
        }
    }

    private mutating func comparison(_ context: Context) -> Predicate {
        let kinds = graph.kinds[context.entity] ?? [:]
        let attributes = kinds.keys.filter { kinds[$0] == .attribute }.sorted()
        let toOnes = kinds.keys.filter { if case .toOne = kinds[$0] { return true } else { return false } }.sorted()
        let toManys = kinds.keys.filter { if case .toMany = kinds[$0] { return true } else { return false } }.sorted()
        var choices: [(Double, Int)] = [(0.3, 0)]
        if !attributes.isEmpty { choices.append((4, 1)) }
        if !toOnes.isEmpty { choices.append((3, 2)) }
        if !toManys.isEmpty { choices += [(4, 3), (1.5, 4)] }
        if !toManys.isEmpty && context.depth < 2 { choices.append((1, 5)) }
        if context.root == nil { choices.append((0.7, 6)) }
        switch weighted(choices) {
        case 1:
            let attribute = pick(attributes)
            return attributeComparison(path(context, [attribute]), entity: context.entity, attribute: attribute)
        case 2:
            return toOneComparison(context, pick(toOnes))
        case 3:
            return toManyComparison(context, pick(toManys))
        case 4:
            return aggregateComparison(context, pick(toManys))
        case 5:
            return subqueryComparison(context, pick(toManys))
        case 6:
            return selfComparison(context.entity)
        default:
            return .constant(chance(0.5))
        }
    }

    private func path(_ context: Context, _ keys: [String]) -> Expression {
        let components = keys.map { KeyPathComponent.key($0) }
        if let root = context.root { return components.isEmpty ? .variable(root) : .path(.variable(root), components) }
        return components.isEmpty ? .evaluatedObject : .keyPath(components)
    }

    private func destination(_ entity: String, _ key: String) -> String? {
        switch graph.kinds[entity]?[key] {
        case .toOne(let destination)?, .toMany(let destination)?: return destination
        default: return nil
        }
    }

    private func attributes(of entity: String) -> [String] {
        (graph.kinds[entity] ?? [:]).filter { $0.value == .attribute }.keys.sorted()
    }

    private func toOnes(of entity: String) -> [String] {
        (graph.kinds[entity] ?? [:]).filter { if case .toOne = $0.value { return true } else { return false } }.keys.sorted()
    }

    private func toManys(of entity: String) -> [String] {
        (graph.kinds[entity] ?? [:]).filter { if case .toMany = $0.value { return true } else { return false } }.keys.sorted()
    }

    // MARK: Shapes

    /// `to1 == nil`, `to1 == <URI>`, `to1.attr op v`, `to1.to1.attr op v`.
    private mutating func toOneComparison(_ context: Context, _ relationship: String) -> Predicate {
        guard let target = destination(context.entity, relationship) else { return .constant(true) }
        let here = path(context, [relationship])
        let targetAttributes = attributes(of: target)
        if targetAttributes.isEmpty || chance(0.3) {
            if chance(0.4) {
                return .comparison(Comparison(here, chance(0.5) ? .equal : .notEqual, .constant(.null)))
            }
            let uri = objectURI(destination: target, related: graph.objects(ofKind: context.entity).compactMap { $0.toOne[relationship] ?? nil })
            return .comparison(Comparison(here, chance(0.75) || !uri.ownEntity ? .equal : .notEqual, .constant(.string(uri.text))))
        }
        let nextToOnes = toOnes(of: target)
        if !nextToOnes.isEmpty && chance(0.3) {
            let second = pick(nextToOnes)
            if let last = destination(target, second), !attributes(of: last).isEmpty {
                let attribute = pick(attributes(of: last))
                return attributeComparison(path(context, [relationship, second, attribute]), entity: last, attribute: attribute)
            }
        }
        let attribute = pick(targetAttributes)
        return attributeComparison(path(context, [relationship, attribute]), entity: target, attribute: attribute)
    }

    /// `[ANY|NONE|ALL] rel.attr op v`, `rel.to1.attr op v`, `ANY rel == <URI>`, `<URI> IN rel`.
    private mutating func toManyComparison(_ context: Context, _ relationship: String) -> Predicate {
        guard let member = destination(context.entity, relationship) else { return .constant(true) }
        var quantifier = pick([ComparisonQuantifier.direct, .direct, .any, .any, .none, .all])
        let joins = joinBudget > 0
        if !joins { quantifier = .all }
        if quantifier != .all { joinBudget -= 1 }
        let memberAttributes = attributes(of: member)
        let related = graph.objects(ofKind: context.entity).flatMap { $0.toMany[relationship] ?? [] }
        if memberAttributes.isEmpty || chance(0.25) {
            let here = path(context, [relationship])
            if joins && chance(0.3) {
                let uri = objectURI(destination: member, related: related)
                return .comparison(Comparison(.constant(.string(uri.text)), .in, here))
            }
            let objectQuantifier = joins ? pick([ComparisonQuantifier.any, .any, .none, .all]) : .all
            if chance(0.25) {
                return .comparison(Comparison(here, chance(0.5) ? .equal : .notEqual, .constant(.null), quantifier: objectQuantifier))
            }
            let uri = objectURI(destination: member, related: related)
            let op: ComparisonOperator = chance(0.7) || !uri.ownEntity ? .equal : .notEqual
            return .comparison(Comparison(here, op, .constant(.string(uri.text)), quantifier: objectQuantifier))
        }
        let memberToOnes = toOnes(of: member)
        if !memberToOnes.isEmpty && chance(0.2) {
            let step = pick(memberToOnes)
            if let last = destination(member, step), !attributes(of: last).isEmpty {
                let attribute = pick(attributes(of: last))
                return attributeComparison(
                    path(context, [relationship, step, attribute]), entity: last, attribute: attribute,
                    quantifier: quantifier)
            }
        }
        let attribute = pick(memberAttributes)
        return attributeComparison(path(context, [relationship, attribute]), entity: member, attribute: attribute, quantifier: quantifier)
    }

    /// `rel.@count op n`, `rel.@sum.attr op v`, `@avg`, `@min`, `@max`.
    private mutating func aggregateComparison(_ context: Context, _ relationship: String) -> Predicate {
        guard let member = destination(context.entity, relationship) else { return .constant(true) }
        let numeric = attributes(of: member).filter { attribute in
            let type = graph.attributeTypes[member]?[attribute]
            return type.map { $0.isInteger || $0 == .double || $0 == .float || $0 == .decimal || $0 == .date } ?? false
        }
        let op = pick([ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .between])
        if numeric.isEmpty || chance(0.4) {
            let counts = graph.objects(ofKind: context.entity).map { Int64($0.toMany[relationship]?.count ?? 0) }
            let n = pick(counts.isEmpty ? [0] : counts) + pick([0, 0, 1, -1])
            let right: Expression =
                op == .between
                ? .aggregate([.constant(.integer(n)), .constant(.integer(n + Int64.random(in: 0...3, using: &random)))])
                : .constant(.integer(n))
            return .comparison(
                Comparison(
                    Expression.keyPath([.key(relationship), .collectionOperator(.count)])
                        .rooted(at: context.root), op, right))
        }
        let attribute = pick(numeric)
        let function = pick([CollectionOperator.sum, .avg, .min, .max])
        let left = Expression.keyPath([.key(relationship), .collectionOperator(function), .key(attribute)])
            .rooted(at: context.root)
        let base = numericConstant(entity: member, attribute: attribute, function: function)
        let right: Expression = op == .between ? .aggregate([.constant(base), .constant(nudge(base, up: true))]) : .constant(base)
        return .comparison(Comparison(left, op, right))
    }

    /// `SUBQUERY(rel, $x, P).@count op n`, P rooted at `$x`.
    private mutating func subqueryComparison(_ context: Context, _ relationship: String) -> Predicate {
        guard let member = destination(context.entity, relationship) else { return .constant(true) }
        let variable = context.depth == 0 ? "m" : "n"
        let inner = predicate(Context(entity: member, root: variable, depth: context.depth + 1), depth: Int.random(in: 0...1, using: &random))
        let subquery = Expression.subquery(collection: path(context, [relationship]), variable: variable, predicate: inner)
        let n = Int64(pick([0, 0, 1, 1, 2]))
        let op = pick([ComparisonOperator.equal, .notEqual, .greater, .greaterOrEqual, .less])
        return .comparison(Comparison(.path(subquery, [.collectionOperator(.count)]), op, .constant(.integer(n))))
    }

    /// `SELF == <URI>`, `SELF != <URI>`, `SELF IN {<URI>, …}`.
    private mutating func selfComparison(_ entity: String) -> Predicate {
        let objects = graph.objects(ofKind: entity)
        if chance(0.3) {
            let uris = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                Expression.constant(.string(objectURI(destination: entity, related: objects).text))
            }
            return .comparison(Comparison(.evaluatedObject, .in, .aggregate(uris)))
        }
        let uri = objectURI(destination: entity, related: objects)
        return .comparison(Comparison(.evaluatedObject, chance(0.8) || !uri.ownEntity ? .equal : .notEqual, .constant(.string(uri.text))))
    }

    /// An object ID's URI for a relationship to `destination`: mostly one of `related` (objects
    /// really reached), else any object of the destination, a missing key, or, rarely, an
    /// object of another entity (`ownEntity` false), which never matches.
    private mutating func objectURI(destination: String, related: [LoadedObject]) -> (text: String, ownEntity: Bool) {
        let roll = Double.random(in: 0..<1, using: &random)
        if roll < 0.65, !related.isEmpty { return (graph.uri(of: pick(related)), true) }
        let candidates = graph.objects(ofKind: destination)
        if roll < 0.88, !candidates.isEmpty { return (graph.uri(of: pick(candidates)), true) }
        if roll < 0.95 { return ("x-coredata://\(graph.storeUUID)/\(destination)/p\(Int.random(in: 900_000...999_999, using: &random))", true) }
        let others = graph.model.entities.map(\.name).filter { !graph.isEntity($0, kindOf: destination) && !graph.objects(ofKind: $0).isEmpty }
        guard !others.isEmpty, let other = graph.objects(ofKind: pick(others)).randomElement(using: &random) else {
            return ("x-coredata://\(graph.storeUUID)/\(destination)/p999999", true)
        }
        return (graph.uri(of: other), false)
    }

    // MARK: Attribute comparisons

    private mutating func attributeComparison(
        _ left: Expression, entity: String, attribute: String,
        quantifier: ComparisonQuantifier = .direct
    ) -> Predicate {
        let type = graph.attributeTypes[entity]?[attribute] ?? .undefined
        let values = samples.values(graph, entity: entity, attribute: attribute)
        if chance(0.1) || values.isEmpty {
            let op: ComparisonOperator = chance(0.9) ? pick([.equal, .notEqual]) : pick([.less, .greater])
            return .comparison(Comparison(left, op, .constant(.null), quantifier: quantifier))
        }
        let value = pick(values)
        switch value {
        case .string(let text):
            return stringComparison(left, text, values: values, quantifier: quantifier)
        case .uuid(let uuid):
            let op: ComparisonOperator = pick([.equal, .equal, .notEqual, .in])
            let other = chance(0.8) ? uuid : randomUUID()
            let right: Expression =
                op == .in
                ? .aggregate([.constant(.string(other.uuidString)), .constant(.string(randomUUID().uuidString))])
                : .constant(.string(other.uuidString))
            return .comparison(Comparison(left, op, right, quantifier: quantifier))
        case .opaque:
            return .comparison(Comparison(left, chance(0.5) ? .equal : .notEqual, .constant(.null), quantifier: quantifier))
        default:
            let constant = Self.constant(value, type: type)
            let op = pick([ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .between, .in])
            let near = chance(0.3) ? nudge(constant, up: chance(0.5)) : constant
            switch op {
            case .between:
                let other = Self.constant(pick(values), type: type)
                return .comparison(
                    Comparison(
                        left, .between, .aggregate([.constant(near), .constant(other)].sorted(by: Self.lower)),
                        quantifier: quantifier))
            case .in:
                let list = [near] + (0..<Int.random(in: 0...2, using: &random)).map { _ in Self.constant(pick(values), type: type) }
                return .comparison(Comparison(left, .in, .aggregate(list.map { .constant($0) }), quantifier: quantifier))
            default:
                return .comparison(
                    Comparison(
                        left, op, .constant(type == .boolean && chance(0.5) ? .bool(near == .integer(1)) : near),
                        quantifier: quantifier))
            }
        }
    }

    private static func lower(_ a: Expression, _ b: Expression) -> Bool {
        guard case .constant(let x) = a, case .constant(let y) = b else { return false }
        return number(x) < number(y)
    }

    private static func number(_ value: Value) -> Double {
        switch value {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        case .date(let d): return d.timeIntervalSinceReferenceDate
        case .bool(let b): return b ? 1 : 0
        default: return 0
        }
    }

    private static func constant(_ value: GraphValue, type: AttributeType) -> Value {
        switch value {
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .date(let d): return .date(Date(timeIntervalSinceReferenceDate: d))
        case .string(let s): return .string(s)
        case .uuid(let u): return .string(u.uuidString)
        case .null, .opaque: return .null
        }
    }

    /// A value next to `value`: ±1 for integers, ±0.5 for doubles, ±1 s or ±1 h for dates.
    private mutating func nudge(_ value: Value, up: Bool) -> Value {
        let sign: Double = up ? 1 : -1
        switch value {
        case .integer(let i): return .integer(up ? i &+ 1 : i &- 1)
        case .double(let d): return .double(d + sign * 0.5)
        case .date(let d): return .date(d.addingTimeInterval(sign * (chance(0.5) ? 1 : 3600)))
        default: return value
        }
    }

    /// A constant for an aggregate of `attribute`: a real value, or a count for `@count`.
    private mutating func numericConstant(entity: String, attribute: String, function: CollectionOperator) -> Value {
        let values = samples.values(graph, entity: entity, attribute: attribute)
        guard !values.isEmpty else { return .integer(0) }
        let type = graph.attributeTypes[entity]?[attribute] ?? .undefined
        var constant = Self.constant(pick(values), type: type)
        if function == .sum || function == .avg, case .integer(let i) = constant, chance(0.5) { constant = .integer(i &* 2) }
        return chance(0.3) ? nudge(constant, up: chance(0.5)) : constant
    }

    /// Non-ASCII and case/diacritic variants that exercise `[c]`, `[d]` and `[cd]`.
    private static let unicodeSamples = [
        "é", "É", "e\u{301}", "ü", "Ü", "straße", "STRASSE", "ﬁ", "İ", "ı", "ß", "Å", "å",
        "日本", "😀", "ñ", "Ñ", "ø", "œ", "",
    ]

    private mutating func stringComparison(
        _ left: Expression, _ text: String, values: [GraphValue],
        quantifier: ComparisonQuantifier
    ) -> Predicate {
        let op = pick([
            ComparisonOperator.equal, .equal, .notEqual, .beginsWith, .endsWith, .contains, .contains, .like,
            .matches, .in, .less, .greater, .lessOrEqual, .greaterOrEqual,
        ])
        var options: ComparisonOptions = []
        if [.equal, .notEqual, .beginsWith, .endsWith, .contains, .like, .matches].contains(op) {
            options = pick([ComparisonOptions(), [], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]])
        }
        let characters = Array(text)
        var constant: String
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1: constant = text
        case 2: constant = String(characters.prefix(Int.random(in: 0...characters.count, using: &random)))
        case 3: constant = String(characters.suffix(Int.random(in: 0...characters.count, using: &random)))
        case 4: constant = chance(0.5) ? text.uppercased() : text.lowercased()
        case 5: constant = Self.accented(text)
        case 6: constant = pick(Self.unicodeSamples)
        default:
            let start = Int.random(in: 0...characters.count, using: &random)
            let end = Int.random(in: start...characters.count, using: &random)
            constant = String(characters[start..<end])
        }
        switch op {
        case .like:
            var pattern = constant.map { "*?\\".contains($0) ? "?" : String($0) }
            if !pattern.isEmpty && chance(0.5) { pattern[Int.random(in: 0..<pattern.count, using: &random)] = "?" }
            constant = (chance(0.5) ? "*" : "") + pattern.joined() + (chance(0.5) ? "*" : "")
        case .matches:
            constant = (chance(0.5) ? ".*" : "") + NSRegularExpression.escapedPattern(for: constant) + (chance(0.7) ? ".*" : "")
        case .in:
            let list =
                [constant]
                + (0..<Int.random(in: 0...2, using: &random)).compactMap { _ -> String? in
                    if case .string(let other) = pick(values) { return other }
                    return nil
                }
            return .comparison(Comparison(left, .in, .aggregate(list.map { .constant(.string($0)) }), quantifier: quantifier))
        default:
            break
        }
        return .comparison(Comparison(left, op, .constant(.string(constant)), options: options, quantifier: quantifier))
    }

    /// `text` with some letters given accents (a→á, e→é, …) for `[d]`.
    private static func accented(_ text: String) -> String {
        let accents: [Character: Character] = [
            "a": "á", "e": "é", "i": "í", "o": "ö", "u": "ü", "n": "ñ", "c": "ç",
            "A": "Á", "E": "É", "O": "Ö", "U": "Ü",
        ]
        return String(text.map { accents[$0] ?? $0 })
    }

    // MARK: Random helpers

    /// A UUID from the seeded generator, so a seed always gives the same predicates.
    private mutating func randomUUID() -> UUID {
        let high = random.next(), low = random.next()
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> ($0 * 8)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> ($0 * 8)) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    private mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    private mutating func pick<T>(_ items: [T]) -> T {
        items[Int.random(in: 0..<items.count, using: &random)]
    }

    private mutating func weighted(_ choices: [(Double, Int)]) -> Int {
        let total = choices.reduce(0) { $0 + $1.0 }
        var roll = Double.random(in: 0..<total, using: &random)
        for (weight, choice) in choices {
            if roll < weight { return choice }
            roll -= weight
        }
        return choices[choices.count - 1].1
    }
}

extension Expression {
    /// A key path from SELF (`variable` nil) or from `$variable`.
    fileprivate func rooted(at variable: String?) -> Expression {
        guard let variable, case .keyPath(let components) = self else { return self }
        return .path(.variable(variable), components)
    }
}

/// Distinct non-nil values of each attribute (at most 40, in a fixed order), drawn once.
private final class SampleCache {
    private var cache: [String: [GraphValue]] = [:]

    func values(_ graph: LoadedGraph, entity: String, attribute: String) -> [GraphValue] {
        let key = entity + "." + attribute
        if let cached = cache[key] { return cached }
        var seen: [GraphValue] = []
        for object in graph.objects(ofKind: entity) {
            guard let value = object.attributes[attribute], value != .null, !seen.contains(value) else { continue }
            seen.append(value)
            if seen.count == 40 { break }
        }
        cache[key] = seen
        return seen
    }
}
