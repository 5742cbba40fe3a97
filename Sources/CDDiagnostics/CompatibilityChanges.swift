import CDBase
import CDModel
import CDStore
import Foundation

/// One difference between the model that wrote a store and the model the app opens it with,
/// and whether lightweight migration can infer it (docs/format/model-format.md §6.1–6.2).
package struct CompatibilityChange: Sendable, Encodable, Equatable {
    /// What changed. The raw values are the JSON contract.
    package enum Kind: String, Sendable, Codable, CaseIterable {
        case entityAdded, entityRemoved, entityRenamed, entityChanged, hierarchiesMerged
        case attributeAdded, attributeRemoved, attributeRenamed
        case relationshipAdded, relationshipRemoved, relationshipRenamed
        case typeChanged, madeOptional, madeMandatory
        case toManyToToOne, toOneToToMany, destinationChanged, propertyChanged
    }

    /// The entity in the new model (the old name for a removed entity or property).
    package var entity: String
    @NullEncoded package var property: String?
    package var kind: Kind
    /// What differs, in words.
    package var detail: String
    /// Whether an inferred mapping model can carry the store across this change.
    package var inferable: Bool
    /// How to make the change migrate, or what it needs.
    package var fix: String
    /// The entity's name in the old model, whose rows the store holds (not encoded).
    var sourceEntity: String?
    /// A new non-optional property without a default: every existing row lacks a value, and the
    /// migrated store fails validation (model-format.md §6.2; not encoded).
    var leavesRowsEmpty = false
    /// The property's name in the old model (not encoded).
    var sourceProperty: String?
    /// An attribute made non-optional without a default: the rows where it is NULL fail
    /// validation after the migration (model-format.md §6.3 step 3; not encoded).
    var failsWhereNull = false

    package init(entity: String, property: String? = nil, kind: Kind, detail: String, inferable: Bool, fix: String) {
        self.entity = entity
        self.property = property
        self.kind = kind
        self.detail = detail
        self.inferable = inferable
        self.fix = fix
    }

    /// The encoded keys: the bookkeeping fields below the public ones stay out of the JSON, and
    /// `property` is always present, as `null` for entity-level changes.
    enum CodingKeys: String, CodingKey { case entity, property, kind, detail, inferable, fix }

}

/// Diffs two models the way an inferred mapping pairs them: entities and properties by renaming
/// identifier, defaulting to the name (model-format.md §6.2, first row). `compat` and `diff`
/// both report these changes, and `diff` pairs the rows of two stores with the same rule.
package enum ModelDiff {
    package static func changes(from old: ManagedObjectModel, to new: ManagedObjectModel) -> [CompatibilityChange] {
        var changes: [CompatibilityChange] = []
        let oldHashes = VersionHashes.entityHashes(of: old)
        let newHashes = VersionHashes.entityHashes(of: new)
        let oldByKey = Dictionary(old.entities.map { ($0.renamingIdentifier ?? $0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let duplicates = duplicateKeys(new.entities.map { $0.renamingIdentifier ?? $0.name })
        var paired: Set<String> = []
        for entity in new.entities {
            let key = entity.renamingIdentifier ?? entity.name
            if duplicates.contains(key) {
                changes.append(
                    CompatibilityChange(
                        entity: entity.name, kind: .entityRenamed,
                        detail: "renaming ID \"\(key)\" is used by several entities", inferable: false,
                        fix: "give each entity its own renaming ID"))
            }
            guard let source = oldByKey[key] else {
                changes.append(
                    CompatibilityChange(
                        entity: entity.name, kind: .entityAdded, detail: "new entity", inferable: true,
                        fix: "none needed: a new entity starts empty"))
                continue
            }
            paired.insert(source.name)
            if source.name != entity.name {
                changes.append(
                    CompatibilityChange(
                        entity: entity.name, kind: .entityRenamed, detail: "renamed from \(source.name)", inferable: true,
                        fix: "none needed: the renaming ID pairs it with \(source.name)"))
            }
            let before = changes.count
            changes += propertyChanges(entity: entity, source: source, old: old, new: new).map { change in
                var change = change
                change.sourceEntity = source.name
                return change
            }
            if changes.count == before, source.name == entity.name, oldHashes[source.name] != newHashes[entity.name] {
                changes.append(
                    CompatibilityChange(
                        entity: entity.name, kind: .entityChanged, detail: entityDifference(source, entity, oldHashes: oldHashes, newHashes: newHashes),
                        inferable: true, fix: "none needed"))
            }
        }
        changes += mergedHierarchies(old: old, new: new, sourceFor: { oldByKey[$0.renamingIdentifier ?? $0.name] })
        for entity in old.entities where !paired.contains(entity.name) {
            changes.append(
                CompatibilityChange(
                    entity: entity.name, kind: .entityRemoved, detail: "entity no longer in the model", inferable: true,
                    fix: "none needed, but its rows are dropped; to keep them as a renamed entity, set that entity's renaming ID to \(entity.name)"))
        }
        return changes
    }

    /// The entity of `old` whose rows `entity` of the new model takes over: the one with the
    /// same renaming identifier (else name), as ``changes(from:to:)`` pairs them.
    package static func sourceEntity(of entity: EntityDescription, in old: ManagedObjectModel) -> EntityDescription? {
        let key = entity.renamingIdentifier ?? entity.name
        return old.entities.first { ($0.renamingIdentifier ?? $0.name) == key }
    }

    /// The properties of `source` (in `old`) that the properties of `entity` (in `new`)
    /// continue, by the new property's name: same renaming identifier (else name) and the same
    /// kind, as ``propertyChanges`` pairs them.
    package static func sourceProperties(
        of entity: String, source: String, old: ManagedObjectModel,
        new: ManagedObjectModel
    ) -> [String: PropertyDescription] {
        let oldByKey = Dictionary(
            old.allProperties(of: source).filter(isHashed).map { ($0.common.renamingIdentifier ?? $0.name, $0) },
            uniquingKeysWith: { first, _ in first })
        var result: [String: PropertyDescription] = [:]
        for property in new.allProperties(of: entity).filter(isHashed) {
            if let before = oldByKey[property.common.renamingIdentifier ?? property.name], sameKind(before, property) {
                result[property.name] = before
            }
        }
        return result
    }

    /// Properties the new entity declares itself, against everything the old entity had (own or
    /// inherited), so that moving a property up or down a hierarchy is no change.
    static func propertyChanges(
        entity: EntityDescription, source: EntityDescription,
        old: ManagedObjectModel, new: ManagedObjectModel
    ) -> [CompatibilityChange] {
        var changes: [CompatibilityChange] = []
        let oldProperties = old.allProperties(of: source.name).filter(isHashed)
        let oldByKey = Dictionary(oldProperties.map { ($0.common.renamingIdentifier ?? $0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newProperties = new.allProperties(of: entity.name).filter(isHashed)
        let newKeys = Set(newProperties.map { $0.common.renamingIdentifier ?? $0.name })
        let own = Set(entity.properties.map(\.name))
        for key in duplicateKeys(newProperties.map { $0.common.renamingIdentifier ?? $0.name }).sorted() {
            changes.append(
                CompatibilityChange(
                    entity: entity.name, property: key, kind: .propertyChanged,
                    detail: "renaming ID \"\(key)\" is used by several properties", inferable: false,
                    fix: "give each property its own renaming ID"))
        }
        for property in newProperties where own.contains(property.name) {
            let key = property.common.renamingIdentifier ?? property.name
            guard let before = oldByKey[key], sameKind(before, property) else {
                changes.append(added(property, entity: entity.name))
                if let before = oldByKey[key] { changes.append(removed(before, entity: entity.name)) }
                continue
            }
            if before.name != property.name {
                let kind: CompatibilityChange.Kind = property.isAttribute ? .attributeRenamed : .relationshipRenamed
                changes.append(
                    CompatibilityChange(
                        entity: entity.name, property: property.name, kind: kind, detail: "renamed from \(before.name)",
                        inferable: true, fix: "none needed: the renaming ID pairs it with \(before.name)"))
            }
            changes += settingChanges(before, property, entity: entity.name, declaredBy: (source.name, entity.name))
        }
        for property in oldProperties
        where !newKeys.contains(property.common.renamingIdentifier ?? property.name)
            && source.properties.contains(where: { $0.name == property.name })
        {
            changes.append(removed(property, entity: entity.name))
        }
        return changes
    }

    static func added(_ property: PropertyDescription, entity: String) -> CompatibilityChange {
        let mandatory = isMandatory(property)
        let hasDefault: Bool
        if case .attribute(let attribute) = property { hasDefault = attribute.defaultValue != nil } else { hasDefault = false }
        let kind: CompatibilityChange.Kind = property.isAttribute ? .attributeAdded : .relationshipAdded
        let what = property.isAttribute ? "attribute" : "relationship"
        if mandatory && !hasDefault {
            var change = CompatibilityChange(
                entity: entity, property: property.name, kind: kind,
                detail: property.isAttribute ? "new non-optional attribute without a default value" : "new non-optional relationship",
                inferable: true,
                fix: property.isAttribute
                    ? "give \(property.name) a default value, or make it optional"
                    : "make \(property.name) optional, or fill it in a custom migration")
            change.leavesRowsEmpty = true
            return change
        }
        return CompatibilityChange(
            entity: entity, property: property.name, kind: kind,
            detail: mandatory ? "new non-optional \(what) with default \(defaultText(property))" : "new optional \(what)",
            inferable: true, fix: "none needed")
    }

    static func removed(_ property: PropertyDescription, entity: String) -> CompatibilityChange {
        CompatibilityChange(
            entity: entity, property: property.name, kind: property.isAttribute ? .attributeRemoved : .relationshipRemoved,
            detail: "no longer in the model", inferable: true,
            fix: "none needed, but its values are dropped; if it was renamed, set the new property's renaming ID to \(property.name)")
    }

    /// Changes of a paired property's hashed settings.
    static func settingChanges(
        _ before: PropertyDescription, _ after: PropertyDescription, entity: String,
        declaredBy names: (old: String, new: String)
    ) -> [CompatibilityChange] {
        var changes: [CompatibilityChange] = []
        func change(_ kind: CompatibilityChange.Kind, _ detail: String, inferable: Bool, fix: String) {
            changes.append(CompatibilityChange(entity: entity, property: after.name, kind: kind, detail: detail, inferable: inferable, fix: fix))
        }
        switch (before, after) {
        case (.attribute(let old), .attribute(let new)):
            if old.type != new.type {
                if typeChangeInferable(from: old.type, to: new.type) {
                    change(.typeChanged, "type \(old.type) → \(new.type)", inferable: true, fix: "none needed: numeric and Boolean types convert")
                } else {
                    change(
                        .typeChanged, "type \(old.type) → \(new.type): source and destination attribute types are incompatible",
                        inferable: false,
                        fix: "keep the old type, or add an attribute under a new name and convert the values in a mapping model")
                }
            }
        case (.relationship(let old), .relationship(let new)):
            if old.isToMany && !new.isToMany {
                change(
                    .toManyToToOne, "to-many → to-one: can not map from a to-many to a to-one relationship", inferable: false,
                    fix: "keep it to-many, or add a new to-one relationship and fill it in a mapping model with a custom policy")
            } else if !old.isToMany && new.isToMany {
                change(.toOneToToMany, "to-one → to-many", inferable: true, fix: "none needed")
            }
            if old.destinationEntity != new.destinationEntity {
                change(
                    .destinationChanged, "destination \(old.destinationEntity) → \(new.destinationEntity)", inferable: true,
                    fix: "none needed if the destinations are paired entities (renaming ID); otherwise write a mapping model")
            }
        default:
            break
        }
        if before.common.isOptional != after.common.isOptional {
            if after.common.isOptional {
                change(.madeOptional, "non-optional → optional", inferable: true, fix: "none needed")
            } else {
                let hasDefault: Bool
                if case .attribute(let attribute) = after { hasDefault = attribute.defaultValue != nil } else { hasDefault = false }
                change(
                    .madeMandatory, hasDefault ? "optional → non-optional, default \(defaultText(after))" : "optional → non-optional without a default value",
                    inferable: true,
                    fix: hasDefault
                        ? "none needed: empty values get the default" : "give \(after.name) a default value, or fill the empty values before migrating")
                if !hasDefault, after.isAttribute { changes[changes.count - 1].failsWhereNull = true }
            }
        }
        let hashBefore = VersionHashes.propertyHash(before, declaredBy: names.old)
        let hashAfter = VersionHashes.propertyHash(renamed(after, to: before.name), declaredBy: names.new)
        if changes.isEmpty, hashBefore != hashAfter {
            change(
                .propertyChanged,
                "a hashed setting changed (transient, indexed, counts, ordered, external storage, preserve-on-delete or version hash modifier)",
                inferable: true, fix: "none needed")
        }
        return changes.map { change in
            var change = change
            change.sourceProperty = before.name
            return change
        }
    }

    /// Numeric types among themselves and numeric ↔ Boolean convert (model-format.md §6.2).
    static func typeChangeInferable(from old: AttributeType, to new: AttributeType) -> Bool {
        let numeric: Set<AttributeType> = [.integer16, .integer32, .integer64, .decimal, .double, .float, .boolean]
        return numeric.contains(old) && numeric.contains(new)
    }

    static func isHashed(_ property: PropertyDescription) -> Bool {
        if case .fetched = property { return false }
        return true
    }

    static func sameKind(_ a: PropertyDescription, _ b: PropertyDescription) -> Bool {
        a.isAttribute == b.isAttribute
    }

    static func isMandatory(_ property: PropertyDescription) -> Bool {
        if property.isTransient { return false }
        if case .relationship(let relationship) = property { return !relationship.common.isOptional || relationship.minCount > 0 }
        return !property.common.isOptional
    }

    static func defaultText(_ property: PropertyDescription) -> String {
        if case .attribute(let attribute) = property, let value = attribute.defaultValue { return "\"\(value)\"" }
        return "none"
    }

    /// The property under another name, so its hash compares only the other settings.
    static func renamed(_ property: PropertyDescription, to name: String) -> PropertyDescription {
        switch property {
        case .attribute(var a): a.common.name = name; return .attribute(a)
        case .relationship(var r): r.common.name = name; return .relationship(r)
        case .fetched(var f): f.common.name = name; return .fetched(f)
        }
    }

    /// Entities that share a root in the new model but whose old counterparts had different
    /// roots: hierarchies cannot be merged (model-format.md §6.1, "Entities").
    static func mergedHierarchies(
        old: ManagedObjectModel, new: ManagedObjectModel,
        sourceFor: (EntityDescription) -> EntityDescription?
    ) -> [CompatibilityChange] {
        var oldRootByNewRoot: [String: (entity: String, root: String)] = [:]
        var changes: [CompatibilityChange] = []
        for entity in new.entities {
            guard let source = sourceFor(entity),
                let newRoot = new.rootEntity(of: entity.name)?.name,
                let oldRoot = old.rootEntity(of: source.name)?.name
            else { continue }
            guard let first = oldRootByNewRoot[newRoot] else {
                oldRootByNewRoot[newRoot] = (entity.name, oldRoot)
                continue
            }
            if first.root != oldRoot {
                changes.append(
                    CompatibilityChange(
                        entity: entity.name, kind: .hierarchiesMerged,
                        detail:
                            "now shares the root \(newRoot) with \(first.entity), but their old entities were in separate hierarchies (\(oldRoot), \(first.root))",
                        inferable: false,
                        fix: "keep the hierarchies separate, or write a mapping model that copies the rows"))
            }
        }
        return changes
    }

    /// The entity-level ingredients of the hash (model-format.md §5.7) that differ.
    static func entityDifference(
        _ old: EntityDescription, _ new: EntityDescription,
        oldHashes: [String: Data], newHashes: [String: Data]
    ) -> String {
        var parts: [String] = []
        if old.versionHashModifier != new.versionHashModifier { parts.append("version hash modifier changed") }
        if old.isAbstract != new.isAbstract { parts.append(new.isAbstract ? "now abstract" : "no longer abstract") }
        if old.parentName != new.parentName {
            parts.append("parent \(old.parentName ?? "none") → \(new.parentName ?? "none")")
        } else if let parent = new.parentName, oldHashes[parent] != newHashes[parent] {
            parts.append("inherits the changes of \(parent)")
        }
        if old.uniquenessConstraints != new.uniquenessConstraints { parts.append("uniqueness constraints changed") }
        return parts.isEmpty ? "the entity's hash changed" : parts.joined(separator: "; ")
    }

    static func duplicateKeys(_ keys: [String]) -> Set<String> {
        var seen: Set<String> = []
        var duplicates: Set<String> = []
        for key in keys where !seen.insert(key).inserted { duplicates.insert(key) }
        return duplicates
    }
}

extension PropertyDescription {
    var isAttribute: Bool { if case .attribute = self { return true } else { return false } }
}
