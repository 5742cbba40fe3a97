import CDPredicate

extension ObjectGraphEvaluator {
    /// The quirks of the contract whose shape `predicate` contains: where its `coreDataSQL` and
    /// `nsPredicate` answers may differ. A predicate without any has the same answer both ways.
    ///
    /// - `nilComparison`: a comparison that is negated (under NOT, `!=`, NONE) or quantified by
    ///   ALL, other than `== nil` and `!= nil`: NULL makes it UNKNOWN in SQL and true or false in
    ///   NSPredicate (`NOT age > nil` matches nothing in SQL, every object in NSPredicate).
    /// - `toManyJoinUnderNot`: a to-many comparison under NOT, or NONE.
    /// - `nullMemberUnderOr`: a to-many comparison that is an OUTER join (under OR or NOT, or NONE).
    /// - `emptyAggregate`: `@avg`, `@min` or `@max`.
    package func quirks(in predicate: CDPredicate.Predicate) -> Set<PredicateQuirk> {
        var found = Set<PredicateQuirk>()
        collectQuirks(predicate, negated: false, outer: false, variables: [:], into: &found)
        return found
    }

    private func collectQuirks(
        _ predicate: Predicate, negated: Bool, outer: Bool, variables: [String: String],
        into found: inout Set<PredicateQuirk>
    ) {
        switch predicate {
        case .constant, .opaque:
            return
        case .not(let operand):
            collectQuirks(operand, negated: true, outer: true, variables: variables, into: &found)
        case .and(let operands):
            for operand in operands { collectQuirks(operand, negated: negated, outer: outer, variables: variables, into: &found) }
        case .or(let operands):
            for operand in operands { collectQuirks(operand, negated: negated, outer: true, variables: variables, into: &found) }
        case .comparison(let comparison):
            let left = shape(of: comparison.left, variables: variables, into: &found)
            let right = shape(of: comparison.right, variables: variables, into: &found)
            // Only == nil and != nil become IS NULL / IS NOT NULL; `age > nil` is UNKNOWN in SQL.
            let testsNil =
                (comparison.op == .equal || comparison.op == .notEqual)
                && (comparison.right == .constant(.null) || comparison.left == .constant(.null))
            let quantified = comparison.quantifier == .none || comparison.quantifier == .all
            if !testsNil && (negated || comparison.op == .notEqual || quantified) {
                found.insert(.nilComparison)
            }
            if left || right {
                switch comparison.quantifier {
                case .all:
                    found.insert(.nilComparison)
                case .none:
                    found.insert(.toManyJoinUnderNot)
                    found.insert(.nullMemberUnderOr)
                case .any, .direct:
                    if negated { found.insert(.toManyJoinUnderNot) }
                    if outer { found.insert(.nullMemberUnderOr) }
                }
            }
        }
    }

    /// Whether an expression is a to-many key path (outside aggregates), noting aggregates'
    /// quirks and those inside SUBQUERYs on the way.
    private func shape(
        of expression: Expression, variables: [String: String],
        into found: inout Set<PredicateQuirk>
    ) -> Bool {
        var entity: String?
        var components: [KeyPathComponent] = []
        switch expression {
        case .keyPath(let path):
            entity = fetchedEntity
            components = path
        case .path(.variable(let name), let path):
            entity = variables[name]
            components = path
        case .path(.subquery(let collection, let variable, let inner), _):
            var destination: String?
            if case .keyPath(let path) = collection { destination = destinationEntity(path, from: fetchedEntity) }
            if case .path(.variable(let name), let path) = collection, let start = variables[name] {
                destination = destinationEntity(path, from: start)
            }
            var innerVariables = variables
            innerVariables[variable] = destination
            collectQuirks(inner, negated: false, outer: false, variables: innerVariables, into: &found)
            return false
        default:
            return false
        }
        var toMany = false
        for component in components {
            switch component {
            case .collectionOperator(let op):
                if op == .avg || op == .min || op == .max { found.insert(.emptyAggregate) }
                return false
            case .key(let key):
                guard let current = entity, let kind = schema.propertyKind(key, ofEntity: current) else {
                    entity = nil
                    continue
                }
                switch kind {
                case .attribute: entity = nil
                case .toOne(let destination): entity = destination
                case .toMany(let destination):
                    toMany = true
                    entity = destination
                }
            }
        }
        return toMany
    }

    /// The entity a key path of relationships leads to.
    private func destinationEntity(_ path: [KeyPathComponent], from start: String) -> String? {
        var entity: String? = start
        for case .key(let key) in path {
            guard let current = entity else { return nil }
            switch schema.propertyKind(key, ofEntity: current) {
            case .toOne(let destination)?, .toMany(let destination)?: entity = destination
            default: return nil
            }
        }
        return entity
    }
}
