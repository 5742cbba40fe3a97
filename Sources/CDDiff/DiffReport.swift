import CDChanges
import CDDiagnostics
import CDStore
import Foundation

/// The parts of a comparison `--only` can choose.
package enum DiffPart: String, Sendable, CaseIterable {
    /// The models that wrote the two stores.
    case model
    /// Tables, columns, indexes and triggers, and the metadata.
    case schema
    /// The objects, entity by entity.
    case data
}

/// What to compare and how much to tell.
package struct DiffOptions: Sendable {
    /// Entities whose objects are compared, with their sub-entities; empty compares every entity.
    package var entities: [String] = []
    /// Business keys by entity name: objects are matched by these attributes instead of `Z_PK`.
    package var keys: [String: [String]] = [:]
    /// The parts compared; all of them by default.
    package var parts: Set<DiffPart> = Set(DiffPart.allCases)
    /// Objects described per entity after the counts (the counts are always exact).
    package var limit: Int = 20
    /// Whether inserted and deleted objects are described with all their values.
    package var values = false
    /// Only these objects are compared: `Z_PK`s by entity name (either store's name for it);
    /// an entity not listed has no changes. Nil compares every object. `wal --changes` passes
    /// the objects on the pages a commit wrote (``ChangedObjects``), the only ones it can have
    /// changed.
    package var objects: [String: Set<Int64>]?

    package init() {}
}

/// Everything that differs between store A and store B.
package struct StoreDiffReport: Sendable {
    /// The two stores as given.
    package var storeA: String
    package var storeB: String
    /// The model comparison; nil when `--only` left it out.
    package var model: ModelComparison?
    /// Schema differences; nil when left out.
    package var schema: [SchemaChange]?
    /// Metadata differences; nil when left out.
    package var metadata: [MetadataChange]?
    /// Object differences per concrete entity (only entities with differences); nil when left out.
    package var data: [EntityChanges]?

    /// Whether nothing compared differs.
    package var isEmpty: Bool {
        (model?.changes.isEmpty ?? true) && (model?.sameVersion ?? true)
            && (schema?.isEmpty ?? true) && (metadata?.isEmpty ?? true) && (data?.isEmpty ?? true)
    }
}

/// The models that wrote the two stores: the same version (equal entity hashes), or the
/// changes between them in `compat`'s words.
package struct ModelComparison: Sendable {
    /// Whether the entity version hashes of the two models are equal.
    package var sameVersion: Bool
    /// `NSStoreModelVersionIdentifiers` of each model.
    package var identifiersA: [String]
    package var identifiersB: [String]
    /// The changes from A's model to B's, as `compat` lists them.
    package var changes: [CompatibilityChange]
}

/// One table, column, index or trigger added, removed or changed from A to B.
package struct SchemaChange: Sendable, Equatable {
    /// What changed. The raw values are the JSON contract.
    package enum Kind: String, Sendable, CaseIterable {
        case tableAdded, tableRemoved, columnAdded, columnRemoved, columnTypeChanged
        case indexAdded, indexRemoved, indexChanged, triggerAdded, triggerRemoved, triggerChanged
    }

    package var kind: Kind
    package var table: String
    /// The column, index or trigger; nil for a table.
    package var name: String?
    /// What the object stands for in the model of the store that has it: an entity, or
    /// `Entity.property`; nil when the model does not explain it.
    package var modelName: String?
    /// The declared type or SQL in A (nil when added) and in B (nil when removed).
    package var old: String?
    package var new: String?
    /// Set when the model of the store that has the object does not explain it: a migration
    /// leftover or a table of the app's own.
    package var note: String?
}

/// One metadata entry that differs.
package struct MetadataChange: Sendable, Equatable {
    package var key: String
    /// The value in A and in B; nil where the store has none.
    package var old: String?
    package var new: String?
}

/// The differences in one concrete entity's objects.
package struct EntityChanges: Sendable {
    /// The entity, by its name in B's model (A's when B's model has no such entity).
    package var entity: String
    /// The entity's name in A's model when it was renamed.
    package var renamedFrom: String?
    /// The attributes matching objects, when `--key` gave some.
    package var key: [String]?
    package var deleted = 0
    package var inserted = 0
    package var updated = 0
    /// The first changes, at most `--limit`, in key (else `Z_PK`) order.
    package var changes: [ObjectChange] = []

    /// Every change counted.
    package var total: Int { deleted + inserted + updated }
    /// Whether `changes` lists fewer objects than changed.
    package var isTruncated: Bool { changes.count < total }
}

/// One object deleted, inserted or updated.
package struct ObjectChange: Sendable {
    package var type: ChangeType
    /// The object in A (deletes, updates) and in B (inserts, updates).
    package var old: ObjectID?
    package var new: ObjectID?
    /// The key values matching the object, as text, when matching by `--key`.
    package var keyValues: [String]?
    /// The whole object (`--values`): A's for a delete, B's for an insert.
    package var object: StoredObject?
    /// Updates: each changed property.
    package var properties: [PropertyDifference] = []
}

/// One property's values in A and in B. To-many relationships list the members added and
/// removed; an ordered one whose members stay but move says so.
package struct PropertyDifference: Sendable {
    package var name: String
    package var old: ObjectValue?
    package var new: ObjectValue?
    /// To-many relationships: members only in B, and only in A (A's IDs).
    package var added: [ObjectID] = []
    package var removed: [ObjectID] = []
    /// An ordered to-many whose common members are in another order.
    package var reordered = false
}
