import CDModel
import Foundation

/// The order in which Core Data gives many-to-many key columns their names (§7.6): two
/// relationships of one name to one destination m both want `Z_<m><REL>`; the first in this order
/// keeps it, the next gets `Z_<m><REL>1`.
///
/// Evidence, every such collision seen (the six Photos stores of the corpus, each with the model
/// in its cache, and a store of framework 1344 of the Wire app, model `zmessaging2.105.0`):
///
/// | store (framework) | `Z_<m><REL>` | plain | numbered | entity names | entity dictionary |
/// |---|---|---|---|---|---|
/// | Photos 10.15.4 to 14.6 (977 to 1347, 5 stores) | `REPRESENTATIVEASSETS` | Memory | Suggestion | fits | fits 10.15.4 only |
/// | Photos 15.4.1 (1447) | `KEYASSETS` | GenericAlbum | Suggestion | fits | fits |
/// | Photos 15.4.1 (1447) | `REPRESENTATIVEASSETS` | Suggestion | Memory | no | fits |
/// | Wire (1344) | `Z_24USERS` | Reaction | SystemMessage | fits | fits |
///
/// "Entity names" is the byte order of the declaring entities' names; "entity dictionary" is
/// the enumeration order of a Core Foundation dictionary of the model's entity names
/// (``HashTableOrder``, names inserted in name order: 127 buckets for Photos' 54 to 71
/// entities, where Suggestion's slot 76 comes before Memory's 77 and GenericAlbum's 49 before
/// both; 41 for Wire's 25, Reaction 5 before SystemMessage 17). `Z_ENT` order fails the last
/// two rows, and every other order tried fails some row: of table names, of the inverse
/// names, of the destination's property dictionary (read from the archived model and from
/// the store's oldest index names), of the key columns' or table names' hashes, "relationships
/// unchanged since the source model first", the source store's names, the order in which a
/// migration rebuilds tables.
///
/// The six Photos stores are **one library** (store UUID FE941CCE-3AF4-4243-907C-C2233C09008D),
/// created by framework 969 in 2019 and migrated in place (`NSSQLiteInPlaceMigrationManager`)
/// by 973, 977, 1042, 1138, 1244, 1347 and 1447. Its join tables keep their `sqlite_master`
/// rowids through every step, yet at 1447 the two `REPRESENTATIVEASSETS` columns swapped names
/// (a column rename in place: the 1447 migrator named them anew), and `Z_3KEYASSETS`, new at
/// 1447, was named then. Two readings fit all eight rows: (a) entity-name order up to 1347 and
/// dictionary order from 1447; (b) dictionary order for every new store, with migrations up to
/// 1347 keeping the suffixes a store had. They differ only for stores *created* by 1347 or
/// earlier, of which the corpus has none with a collision; a store created on macOS 14 and one
/// on macOS 15 from a model such as Book.items / Event.items ↔ Item (names: Book plain;
/// dictionary: Event plain) would settle it. Reading (a) is followed, so both readings agree
/// from 1447 on; which version between 1348 and 1446 changed is unknown (the lowest seen with
/// dictionary order is used), and every collision keeps an **uncertain** note.
public enum JoinKeyOrderStyle: String, Sendable, Codable {
    /// The declaring entities in name order (before 1447).
    case entityName
    /// The declaring entities in the order of the model's entity dictionary (1447 on).
    case entityHashTable

    /// The lowest framework version seen naming colliding key columns in dictionary order.
    public static let firstHashTableVersion = 1447

    /// The order of a store written by `frameworkVersion` (`NSPersistenceFrameworkVersion`).
    public init(frameworkVersion: Int) {
        self = frameworkVersion < Self.firstHashTableVersion ? .entityName : .entityHashTable
    }

    /// `names` (entity names) in this order.
    func ordered(_ names: [String]) -> [String] {
        let byName = names.sorted()
        switch self {
        case .entityName: return byName
        case .entityHashTable: return HashTableOrder.enumerationOrder(of: byName) ?? byName
        }
    }
}
