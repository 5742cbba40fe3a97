import CDModel
import Foundation

/// Where a column sorts (§7.3): by group; within the integer group, each entity's own columns
/// (`Z_ENT` order), then hidden to-many keys, then `Z_FOK_` order columns (both observed in
/// Photos); then attributes before relationships, by `rank` (0 in name order, the place in the
/// entity's dictionary with ``ColumnOrderStyle/hashTable``), then by name. A relationship's
/// `Z<n>_` companion follows its key (`part` 1).
struct ColumnSortKey: Comparable {
    enum Block: Int { case own, hiddenKeys, orderColumns }

    var group: ColumnGroup
    var block = Block.own
    /// `Z_ENT` of the declaring entity.
    var entity: Int
    /// 0 for attributes, 1 for relationships.
    var kind: Int
    var rank = 0
    var name: String
    var part = 0

    static func < (lhs: ColumnSortKey, rhs: ColumnSortKey) -> Bool {
        let (left, right) = (
            (lhs.group, lhs.block.rawValue, lhs.entity, lhs.kind, lhs.rank),
            (rhs.group, rhs.block.rawValue, rhs.entity, rhs.kind, rhs.rank)
        )
        return left != right ? left < right : (lhs.name, lhs.part) < (rhs.name, rhs.part)
    }
}
