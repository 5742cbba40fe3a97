import CDModel
import Foundation

/// Decodes `ACHANGE.ZCOLUMNS`, the bitmask of an update's changed properties, and names the
/// `ZTOMBSTONE<n>` columns of a delete.
///
/// The layout is not documented (store-format.md §14 item 7). What the corpus shows:
///
/// - The mask of an entity is ceil(n / 8) bytes for its n properties (inherited and transient
///   ones included) whenever the history was written under the store's current model.
/// - Bits are taken **most significant first** within each byte: position k is byte k / 8,
///   value `0x80 >> (k % 8)`. Read that way, a bit past the last property is rare (6 of 769
///   fitting masks in Photos 10.16, none in knowledgeC 10.13); read least significant first, as
///   cdstore did before, 86 of those 769 and 13 of knowledgeC's 28 have one.
/// - Position k is the k-th of the entity's **to-one relationships, then attributes, then
///   to-many relationships**, to-ones and attributes each by name. Checked against every
///   update whose cause can be seen: an object inserted with a to-one to X (and never updated
///   afterwards) in the same transaction as an update of X, whose inverse must have changed.
///   The same goes for an object updated last in the transaction that inserted the object its
///   to-one points to. All 59 such changes of a to-one in the Photos stores, in masks that fit
///   the store's model, are named so (for example `AdditionalAssetAttributes` 0x40 in byte 0
///   when an `AssetDescription` is inserted: position 1, `assetDescription`, after `asset`).
///   The rule used before (least significant first; attributes, to-one, then to-many) names 1
///   of the 59, the reading of issue 23 (most significant first, all properties by name) 7. The
///   attributes' order has no such direct check; it is the order under which bits that change
///   together name properties that belong together (`centerX`, `centerY` and `size` of a
///   `DetectedFace`; `dateCreated`, `timezoneName` and `timezoneOffset` of `ExtendedAttributes`;
///   `compactUTI` and `utiConformanceHint` of an `InternalResource`).
/// - Every to-many inverse checked (22 changes in Photos and NoteStore) sets a bit among the
///   positions after the attributes, but only 2 (Photos `Folder.childCollections`) at its place
///   by name (`ICFolder` sets the first of `children, notes` when a note is added; `Person` the
///   fourth of 13 when a `UserFeedback` is), and no order
///   tried (by name, by inverse or destination name, reversed, Core Foundation's dictionary
///   order, the model cache's order) places them all. So a bit in that range is reported as one
///   of the entity's to-many relationships, named only when the entity has one.
///
/// This reading also explains the SwiftData store of issue 23 (framework 1345): `Item`
/// {craftingRecipe (to-one), name} 0x80 is `craftingRecipe`; `CraftingRecipe` {producedItem,
/// producedItemCount, requiredComponents (its only to-many)} 0x20 is `requiredComponents`.
///
/// Tombstones are better founded: in Photos 15.4.1, `ZTOMBSTONE<k>` of a delete holds the
/// k-th attribute marked "preserve after deletion", sorted by name, in every entity checked
/// (GenericAlbum: 0 `cloudDeleteState` = 0, 1 `cloudGUID` = NULL, 2 `uuid` = a UUID;
/// InternalResource: 0 `cloudDeleteAssetUUIDWithResourceType` = `<UUID>-@-0`, 1 `cloudDeleteState`).
package struct ChangedColumns: Sendable {
    /// The entity's to-one relationships by name: the first positions of the mask.
    package let toOne: [String]
    /// The entity's attributes by name: the positions after the to-ones.
    package let attributes: [String]
    /// The entity's to-many relationships by name. Their positions come last; which position
    /// is which relationship is not known.
    package let toMany: [String]
    /// Attributes kept after deletion, in tombstone-column order.
    package let tombstoneAttributes: [String]

    /// What a mask that fits the entity says.
    package struct Decoded: Sendable, Equatable {
        /// The properties whose bits are set and can be named: to-ones, attributes, and to-many
        /// relationships when their bits leave no doubt (the entity has one, or all are set).
        package var names: [String]
        /// How many to-many bits are set that cannot be told apart, and the to-many
        /// relationships they stand for some of; nil when there are none.
        package var toMany: ToManyBits?
    }

    package init(model: ManagedObjectModel, entity: String) {
        var attributes: [String] = []
        var toOne: [String] = []
        var toMany: [String] = []
        var preserved: [String] = []
        for property in model.allProperties(of: entity) {
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
        self.toOne = toOne.sorted()
        self.attributes = attributes.sorted()
        self.toMany = toMany.sorted()
        tombstoneAttributes = preserved.sorted()
    }

    /// How many properties the mask covers.
    package var count: Int { toOne.count + attributes.count + toMany.count }

    /// The set positions of `mask`, most significant bit of each byte first, lowest first.
    package static func bits(_ mask: Data) -> [Int] {
        var result: [Int] = []
        for (index, byte) in mask.enumerated() {
            for bit in 0..<8 where byte & (0x80 >> bit) != 0 { result.append(index * 8 + bit) }
        }
        return result
    }

    /// The changed properties `mask` names, or nil when it does not fit this entity (another
    /// length, or a bit past its last property): which properties its bits stand for is then
    /// unknown, most likely because another model version wrote it.
    package func decode(_ mask: Data) -> Decoded? {
        guard mask.count == (count + 7) / 8 else { return nil }
        let positions = Self.bits(mask)
        guard positions.allSatisfy({ $0 < count }) else { return nil }
        let named = toOne + attributes
        var decoded = Decoded(names: positions.filter { $0 < named.count }.map { named[$0] }, toMany: nil)
        let toManyBits = positions.filter { $0 >= named.count }.count
        if toManyBits == toMany.count {
            decoded.names += toMany
        } else if toManyBits > 0 {
            decoded.toMany = ToManyBits(count: toManyBits, among: toMany)
        }
        return decoded
    }
}

/// Some of an entity's to-many relationships changed, but the mask does not say which.
package struct ToManyBits: Sendable, Codable, Equatable {
    /// How many of them changed.
    package var count: Int
    /// The entity's to-many relationships, by name.
    package var among: [String]
}
