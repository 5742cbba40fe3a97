import CDModel
import Foundation

/// How Core Data orders the columns within one type group (§7.3).
///
/// From framework 419 on each entity's attributes come in name order, then its relationships'
/// keys in name order: bookmigration (419) has `ZAUTHORNAME, ZTITLE`, which the older order
/// reverses, and failedbankcd (481), wibosco-revised (866) and cdplus-samplemodel (1044) also
/// contradict the older order. Frameworks 230 and 241 (CoreDataBooks, Recipes) wrote them in
/// the enumeration order of the entity's attribute dictionary, then of its relationship
/// dictionary (``HashTableOrder``, names inserted in name order): `ZRECIPE` has
/// `ZPREPTIME, ZNAME, ZINSTRUCTIONS, ZOVERVIEW`, which neither name order (in any case), the
/// model file's order nor the order of the property hashes gives. That rule is inferred from
/// the four groups of two or more columns in those stores (`ZRECIPE`'s strings and keys,
/// `ZINGREDIENT`'s and `ZBOOK`'s strings; a random order fits all four once in 192) with the
/// 64-bit hash of a Mac: a store written by a 32-bit process (iPhone OS 3 or its simulator)
/// would follow the 32-bit hash, and none has been seen (**uncertain**). Which version between
/// 242 and 418 switched to name order is unknown; 419, the lowest seen with it, is used.
public enum ColumnOrderStyle: String, Sendable, Codable {
    /// Attributes, then relationships, each in name order (419 on).
    case byName
    /// Attributes, then relationships, each in the order of the entity's dictionary (230, 241).
    case hashTable

    /// The lowest framework version seen writing the columns of one type in name order.
    public static let firstByNameVersion = 419

    /// The order of a store written by `frameworkVersion` (`NSPersistenceFrameworkVersion`).
    public init(frameworkVersion: Int) {
        self = frameworkVersion < Self.firstByNameVersion ? .hashTable : .byName
    }
}
