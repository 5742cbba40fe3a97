import CDBase
import CDMapping
import CDModel
import CDPredicate
import CDStore
import Foundation
import GRDB

/// Sort orderings and the selected values of value fetches.
extension SQLBuilder {
    /// ` ORDER BY t0.ZNAME COLLATE NSCollateNoCase DESC, …` (empty without sort descriptors).
    /// A selector Core Data's SQLite store does not sort with is refused, as the store refuses it.
    func orderBy(_ descriptors: [CDModel.SortDescriptor], scope: Scope) throws(FetchSQLError) -> String {
        guard !descriptors.isEmpty else { return "" }
        var terms: [String] = []
        for descriptor in descriptors {
            guard let comparison = descriptor.comparison else {
                throw .unsupportedSortSelector(key: descriptor.key, selector: descriptor.selector ?? "")
            }
            let (column, _) = try valueColumn(descriptor.key, scope: scope, purpose: "sorting", outer: true)
            terms.append(column + (comparison.collation.map { " COLLATE " + $0 } ?? "") + (descriptor.ascending ? "" : " DESC"))
        }
        return " ORDER BY " + terms.joined(separator: ", ")
    }

    /// The member key counted by `count:` over a to-many key path, its members joined with a
    /// `LEFT OUTER JOIN` so objects without members still count as rows (logged); nil when
    /// `keyPath` does not end at a to-many relationship.
    func toManyCountColumn(_ keyPath: String, scope: Scope) throws(FetchSQLError) -> String? {
        let components = keyPath.split(separator: ".").map { KeyPathComponent.key(String($0)) }
        guard !components.isEmpty, case .toMany(let owner, let relationship, let rest) = try resolve(components, from: scope),
            rest.isEmpty
        else { return nil }
        let path = try memberPath(of: relationship, owner: owner, needsMembers: false)
        for table in path.tables {
            joins.append(Join(table: table.name, alias: table.alias, on: table.on ?? path.correlation, isOuter: true))
        }
        return path.countColumn
    }

    /// The column of an attribute or to-one key path (`author.name`), for sorting, distinct
    /// values and aggregates.
    func valueColumn(_ keyPath: String, scope: Scope, purpose: String, outer: Bool = false) throws(FetchSQLError) -> (String, AttributeDescription?) {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map { KeyPathComponent.key(String($0)) }
        guard !keyPath.isEmpty, !components.contains(.key("")) else { throw .needsKeyPath(purpose: purpose, keyPath: keyPath) }
        switch try resolve(components, from: scope, outer: outer) {
        case .attribute(let column, let attribute): return (column, attribute)
        case .toOne(let column, _): return (column, nil)
        case .toMany(let owner, let relationship, _):
            throw .toManyValueKey(purpose: purpose, entity: owner.entity, relationship: relationship.name)
        }
    }
}
