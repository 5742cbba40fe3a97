import CDModel
import Foundation

/// Decodes `ACHANGE.ZCOLUMNS`, the bitmask of an update's changed properties, and names the
/// `ZTOMBSTONE<n>` columns of a delete.
///
/// **The bit layout is not documented and only partly confirmed** (store-format.md §14 item 7).
/// What the corpus shows: the mask of an entity always has the same length, which equals
/// ceil(n / 8) bytes for n = the entity's properties (inherited and transient ones included) in
/// 78 % of the 1,229 distinct masks of the Photos, NoteStore and knowledgeC stores; bit k sits
/// in byte k / 8 at value 1 << (k % 8). The remaining masks have bits beyond n: those stores
/// migrated their model many times and keep history written under older models, which the
/// store's model cache no longer describes. Which property each bit stands for could not be
/// confirmed against a change whose content is known, so the names come from the most likely
/// order — bit k = the k-th property when attributes come first, then to-one relationships,
/// then to-many relationships, each group sorted by name — and every output says the names are
/// unverified and keeps the raw bits. That order makes the NoteStore masks read sensibly: an
/// ICNote pinned and unpinned again and again (27 changes with bit 16 alone, `isPinned`), a
/// note moved to another folder (bits 33 and 55, `modificationDate` and `folder`); with the
/// relationships in one group, bit 55 would be `cloudState`, which no edit changes.
///
/// Tombstones are better founded: in Photos 15.4.1, `ZTOMBSTONE<k>` of a delete holds the
/// k-th attribute marked "preserve after deletion", sorted by name, in every entity checked
/// (GenericAlbum: 0 `cloudDeleteState` = 0, 1 `cloudGUID` = NULL, 2 `uuid` = a UUID;
/// InternalResource: 0 `cloudDeleteAssetUUIDWithResourceType` = `<UUID>-@-0`, 1 `cloudDeleteState`).
package struct ChangedColumns: Sendable {
    /// Properties in bit order.
    package let properties: [String]
    /// Attributes kept after deletion, in tombstone-column order.
    package let tombstoneAttributes: [String]

    package init(model: ManagedObjectModel, entity: String) {
        let all = model.allProperties(of: entity)
        var attributes: [String] = []
        var toOne: [String] = []
        var toMany: [String] = []
        var preserved: [String] = []
        for property in all {
            switch property {
            case .attribute(let attribute):
                attributes.append(attribute.name)
                if attribute.preservesValueInHistoryOnDeletion { preserved.append(attribute.name) }
            case .relationship(let relationship):
                if relationship.isToMany { toMany.append(relationship.name) } else { toOne.append(relationship.name) }
            case .fetched:
                continue
            }
        }
        properties = attributes.sorted() + toOne.sorted() + toMany.sorted()
        tombstoneAttributes = preserved.sorted()
    }

    /// The set bits of `mask`, lowest first.
    package static func bits(_ mask: Data) -> [Int] {
        var result: [Int] = []
        for (index, byte) in mask.enumerated() {
            for bit in 0..<8 where byte & (1 << bit) != 0 { result.append(index * 8 + bit) }
        }
        return result
    }

    /// The property names of `mask`'s bits, or nil when the mask does not fit this entity
    /// (wrong length or a bit past its last property): it was written under another model.
    package func names(_ mask: Data) -> [String]? {
        guard mask.count == (properties.count + 7) / 8 else { return nil }
        var names: [String] = []
        for bit in Self.bits(mask) {
            guard bit < properties.count else { return nil }
            names.append(properties[bit])
        }
        return names
    }
}
