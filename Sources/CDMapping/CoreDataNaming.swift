/// How Core Data derives table and column names from model names: `Z`, an entity number where
/// the name needs one, and the model name upper-cased (store-format.md §7.1, §7.6, §11).
///
/// Every place that derives such a name calls this one type, so the rule cannot drift between
/// the mapping, the inspector and the registry. The names come out without collision numbers;
/// the mapping adds those per table (§7.2), which is why commands that need a real column look
/// it up in a ``StoreMapping`` rather than derive it.
package enum CoreDataNaming {
    /// A model name as it appears inside table and column names: upper-cased, underscores and
    /// other characters kept (`_DKApplicationActivityMetadataKey__isEligibleForPrediction` →
    /// `_DKAPPLICATIONACTIVITYMETADATAKEY__ISELIGIBLEFORPREDICTION`, §7.1).
    package static func stem(_ name: String) -> String {
        name.uppercased()
    }

    /// `Z<ROOT>`: the table of an entity hierarchy, named by its root entity (§7.1).
    package static func entityTable(root: String) -> String {
        "Z" + stem(root)
    }

    /// `Z<NAME>`: the column of an attribute or of a to-one's key, before any collision number
    /// (§7.1, §7.2).
    package static func column(property: String) -> String {
        "Z" + stem(property)
    }

    /// `A<NAME>`: the table of a framework entity in a reserved `Z_ENT` range, named by its
    /// root (`ACHANGE`, `ATRANSACTION`, CloudKit's `ANSCK…`; §11, §12).
    package static func frameworkTable(root: String) -> String {
        "A" + stem(root)
    }

    /// `Z<n><NAME>`: the hidden key column, in the destination table, of a to-many without
    /// inverse declared by entity `n` (§7.6).
    package static func toManyKeyWithoutInverse(sourceEntity number: Int, relationship: String) -> String {
        "Z\(number)" + stem(relationship)
    }

    /// `Z_<n><STEM>`: a many-to-many join table (n declares the relationship naming it) or a
    /// join-table key column (n is the destination of the relationship naming it), §7.6. `stem`
    /// is ``stem(_:)`` of the relationship, with a collision number where two clash.
    package static func joinName(entity number: Int, stem: String) -> String {
        "Z_\(number)" + stem
    }

    /// ``joinName(entity:stem:)`` of `relationship`'s own name, without a collision number.
    package static func joinName(entity number: Int, relationship: String) -> String {
        joinName(entity: number, stem: stem(relationship))
    }

    /// `Z<n>_<STEM>`: a to-one's entity-type companion column, n the destination's `Z_ENT`,
    /// `stem` the key column's name without its `Z` (§7.6).
    package static func toOneEntityType(destination number: Int, stem: String) -> String {
        "Z\(number)_" + stem
    }

    /// `Z_FOK_<STEM>`: the ordering column of an ordered to-many, beside a to-one's key
    /// (`stem` is the key's name without its `Z`) or in a join table (`stem` is the key's
    /// name without its `Z_`), §7.6.
    package static func orderColumn(stem: String) -> String {
        "Z_FOK_" + stem
    }

    /// `Z_FOK_<m><STEM>`: the ordering column of a join-table key ``joinName(entity:stem:)``.
    package static func joinOrderColumn(entity number: Int, stem: String) -> String {
        orderColumn(stem: "\(number)" + stem)
    }

    /// Whether `table` has the form of a many-to-many join table, `Z_<n><NAME>` (§7.6).
    package static func isJoinTableName(_ table: String) -> Bool {
        guard table.hasPrefix("Z_") else { return false }
        let rest = table.dropFirst(2)
        return rest.first?.isNumber == true && rest.contains { !$0.isNumber }
    }
}
