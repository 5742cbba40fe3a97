import CDBase
import CDMapping
import CDModel
import CDStore
import Foundation
import GRDB

/// What `explain --store/--model` found when it checked a dump against real files.
package struct CrossCheck: Sendable, Codable {
    @NullEncoded package var store: String?
    /// The store's `Z_UUID`.
    @NullEncoded package var storeUUID: String?
    /// Whether the dump's store UUID (from an object URI or the metadata) is this store's.
    @NullEncoded package var uuidMatches: Bool?
    @NullEncoded package var model: String?
    /// One check per validation error of the dump.
    package var rows: [RowCheck] = []
    @NullEncoded package var hashes: HashCheck?
    /// Every object ID the dump names (validation errors, merge conflicts, faults), looked up.
    package var objects: [ObjectCheck] = []
    /// The findings as sentences, in the order they were made.
    package var notes: [String] = []

    package init() {}
}

/// A validation error checked against the store's rows and the model.
package struct RowCheck: Sendable, Codable {
    package var entity: String
    package var key: String
    /// The object URI the dump names.
    @NullEncoded package var object: String?
    /// Whether the row of a permanent object ID exists (`null` for temporary IDs).
    @NullEncoded package var objectFound: Bool?
    /// Whether that row holds NULL for the key.
    @NullEncoded package var objectValueIsNull: Bool?
    /// Object URIs of rows of the entity (and its sub-entities) whose key is NULL, at most
    /// ``CrossChecker/rowLimit``.
    package var nullRows: [String] = []
    @NullEncoded package var nullRowCount: Int?
    /// Whether the model marks the property optional.
    @NullEncoded package var optionalInModel: Bool?
}

/// An object ID of the dump looked up in the store by its entity's `Z_ENT` and its `Z_PK`.
package struct ObjectCheck: Sendable, Codable {
    package var uri: String
    /// What the lookup found.
    package var verdict: Verdict
    /// The row's `Z_OPT`, the version counter a merge conflict compares (errors.md §5.10).
    @NullEncoded package var version: Int?

    /// What the store says about an object ID; the raw values are the JSON strings.
    package enum Verdict: String, Sendable, Codable {
        /// The row exists.
        case exists
        /// No row, but the key is at or below the entity's `Z_MAX`, so it was allocated.
        case deleted
        /// No row, and the key is above `Z_MAX`.
        case neverAllocated = "never allocated"
        /// A temporary ID: the object was never saved.
        case temporary
        /// The entity is not in `Z_PRIMARYKEY`, or its table cannot be read.
        case unknownEntity = "unknown entity"
        /// The URI's store UUID is not this store's.
        case otherStore = "other store"
    }
}

/// The version hashes of a 134100/134130 dump compared with a store and a model.
package struct HashCheck: Sendable, Codable {
    /// Whether the dump's hashes equal the store's metadata hashes: true only when every hash
    /// was compared in full, false when any differs (in full or in its visible bytes), null
    /// when nothing was compared or only the visible bytes of cut-short hashes agree.
    @NullEncoded package var dumpMatchesStore: Bool?
    /// How far the comparison went, or null without one.
    @NullEncoded package var comparison: Comparison?
    /// Entities whose hash differs between the dump and the store, or that only one of them has.
    package var differingEntities: [String] = []
    package var versions: [VersionMatch] = []
    /// The model version whose hashes equal the store's (the version that wrote it).
    @NullEncoded package var storeWrittenBy: String?
    /// The model version whose hashes equal the dump's.
    @NullEncoded package var dumpWrittenBy: String?

    /// How far a hash comparison could go; the raw values are the JSON strings.
    package enum Comparison: String, Sendable, Codable {
        /// Every hash was compared in full.
        case full
        /// Some hashes are cut short, and their visible bytes agree.
        case visibleBytes
        /// A cut-short hash shows no bytes.
        case cannotTell
    }
}

/// How one model version's entity hashes compare with the dump's and the store's.
package struct VersionMatch: Sendable, Codable {
    package var name: String
    package var current: Bool
    @NullEncoded package var matchesDump: Bool?
    @NullEncoded package var matchesStore: Bool?
    /// Entities whose hash differs from the store's (or the dump's, without a store).
    package var differingEntities: [String] = []
}

/// Checks a parsed dump against a store and a model, never writing to either (the store is
/// read through a read-only ``StoreSnapshot``).
package enum CrossChecker {
    /// Rows listed per validation error.
    package static let rowLimit = 20

    package static func check(_ finding: ErrorFinding, storePath: String?, modelPath: String?) throws -> CrossCheck {
        try check(finding, snapshot: storePath.map { try StoreSnapshot(path: $0) }, storePath: storePath, modelPath: modelPath)
    }

    /// Checks `finding` against an open `snapshot` of the store at `storePath` (`serve` passes
    /// its pooled session's, so the check runs under the query time limit).
    package static func check(_ finding: ErrorFinding, snapshot: StoreSnapshot?, storePath: String?, modelPath: String?) throws -> CrossCheck {
        var result = CrossCheck()
        result.store = storePath
        result.model = modelPath
        let versions = try modelPath.map { try ModelSource.versions(at: $0) } ?? []
        var storeHashes: [String: Data]?
        if let snapshot {
            let metadata = try snapshot.read { db in try StoreMetadata.read(db, path: snapshot.files.main.path) }
            result.storeUUID = metadata.storeUUID
            storeHashes = metadata.versionHashes
            let dumpUUID =
                finding.object?.storeUUID ?? finding.metadata?.storeUUID
                ?? finding.detailedErrors.lazy.compactMap { $0.object?.storeUUID }.first
            if let dumpUUID, let uuid = metadata.storeUUID {
                result.uuidMatches = dumpUUID.caseInsensitiveCompare(uuid) == .orderedSame
                result.notes.append(
                    result.uuidMatches == true
                        ? "The dump's store UUID \(dumpUUID) is this store's."
                        : "The dump's store UUID \(dumpUUID) is not this store's (\(uuid)): the dump comes from another copy or install.")
            }
        }
        if finding.metadata != nil || storeHashes != nil && [134_100, 134_130].contains(finding.code ?? 0) {
            result.hashes = compareHashes(dump: finding.metadata, store: storeHashes, versions: versions, notes: &result.notes)
        }
        if let snapshot {
            result.objects = try checkObjects(
                objectReferences(in: finding), conflicts: finding.conflicts, snapshot: snapshot,
                storeUUID: result.storeUUID, notes: &result.notes)
        }
        let validations = validationErrors(in: finding)
        if !validations.isEmpty {
            let model = try versions.isEmpty ? nil : modelForRows(versions: versions, storeHashes: storeHashes)
            var reader: ObjectReader?
            if let snapshot {
                do {
                    reader = try ObjectReader(snapshot: snapshot, model: model)
                } catch let error as StoreError {
                    result.notes.append("Rows not checked: \(error.description).")
                }
            }
            for validation in validations {
                guard let entity = validation.entity, let key = validation.key else { continue }
                result.rows.append(
                    try checkRows(
                        entity: entity, key: key, object: validation.object, reader: reader,
                        model: reader?.model ?? model, notes: &result.notes))
            }
        }
        return result
    }

    /// The validation errors of a dump: the finding itself or the detailed errors of a 1560.
    static func validationErrors(in finding: ErrorFinding) -> [ErrorFinding] {
        let own = (1550..<1700).contains(finding.code ?? 0) && finding.code != 1560 ? [finding] : []
        return own + finding.detailedErrors.flatMap(validationErrors(in:))
    }

    /// The object IDs a finding names, its nested errors' included, each once.
    static func objectReferences(in finding: ErrorFinding) -> [ObjectReference] {
        var seen: Set<String> = []
        let all =
            [finding.object].compactMap { $0 } + finding.conflicts.compactMap { ObjectReference(uri: $0.objectID) }
            + (finding.detailedErrors + finding.underlyingErrors).flatMap(objectReferences(in:))
        return all.filter { seen.insert($0.uri).inserted }
    }

    static func checkObjects(
        _ objects: [ObjectReference], conflicts: [MergeConflict], snapshot: StoreSnapshot,
        storeUUID: String?, notes: inout [String]
    ) throws -> [ObjectCheck] {
        guard !objects.isEmpty else { return [] }
        let registry = try snapshot.read { db in try EntityRegistry.read(db) }
        var checks: [ObjectCheck] = []
        for object in objects.prefix(rowLimit) {
            var check = ObjectCheck(uri: object.uri, verdict: .temporary)
            defer { checks.append(check) }
            if object.temporary { continue }
            if let uuid = object.storeUUID, let storeUUID, uuid.caseInsensitiveCompare(storeUUID) != .orderedSame {
                check.verdict = .otherStore
                continue
            }
            guard let entity = registry.entity(named: object.entity), let pk = object.primaryKey else {
                check.verdict = .unknownEntity
                notes.append("\(object.uri): the store has no entity \(object.entity).")
                continue
            }
            let root = registry.root(of: entity)
            let version: Int?
            do {
                version = try snapshot.read { db in
                    try Int.fetchOne(
                        db, sql: "SELECT Z_OPT FROM \(registry.tableName(for: entity).quotedSQLIdentifier) WHERE Z_PK = ? AND Z_ENT = ?",
                        arguments: [pk, entity.ent])
                }
            } catch let error as StoreError {
                check.verdict = .unknownEntity
                notes.append("\(object.uri): cannot read the table of \(object.entity) (\(error.description)).")
                continue
            }
            check.version = version
            check.verdict = version != nil ? .exists : pk <= Int64(root.max) ? .deleted : .neverAllocated
            switch check.verdict {
            case .exists:
                var note = "\(object.uri): the row exists (Z_OPT \(version ?? 0))"
                if let conflict = conflicts.first(where: { $0.objectID == object.uri }), let newVersion = conflict.newVersion {
                    note += version == newVersion ? ", as in the conflict's newVersion" : "; the conflict saw \(newVersion), so it changed again since"
                }
                notes.append(note + ".")
            case .deleted:
                notes.append("\(object.uri): no row, but Z_PK \(pk) is at or below Z_MAX \(root.max): the object was deleted.")
            default:
                notes.append("\(object.uri): Z_PK \(pk) is above Z_MAX \(root.max): this store never had that object.")
            }
        }
        return checks
    }

    static func modelForRows(versions: [ModelVersion], storeHashes: [String: Data]?) throws -> ManagedObjectModel {
        if let storeHashes, let match = versions.first(where: { VersionHashes.entityHashes(of: $0.model) == storeHashes }) {
            return match.model
        }
        return try ModelSource.chooseVersion(versions, named: nil, path: "the model").model
    }

    static func checkRows(
        entity: String, key: String, object: ObjectReference?, reader: ObjectReader?,
        model: ManagedObjectModel?, notes: inout [String]
    ) throws -> RowCheck {
        var check = RowCheck(entity: entity, key: key, object: object?.uri)
        if let model {
            if model.entity(named: entity) == nil {
                notes.append("The model has no entity \(entity).")
            } else if let property = model.allProperties(of: entity).first(where: { $0.name == key }) {
                check.optionalInModel = property.common.isOptional
                notes.append(
                    property.common.isOptional
                        ? "The model marks \(entity).\(key) optional: the app ran with another model version."
                        : "The model marks \(entity).\(key) required, which is why a nil value fails.")
            } else {
                notes.append("The model's \(entity) has no property \(key).")
            }
        }
        guard let reader else { return check }
        let mapping = reader.mapping
        guard let table = mapping.table(forEntity: entity), let column = mapping.column(forProperty: key, ofEntity: entity),
            column.role != .toManyKeyWithoutInverse
        else {
            notes.append("The store has no column for \(entity).\(key), so its rows cannot be checked for NULL.")
            return check
        }
        let ents = mapping.entityNumbers(includingSubentitiesOf: entity)
        let placeholders = ents.map { _ in "?" }.joined(separator: ", ")
        let names = Dictionary(mapping.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        let tableName = table.name.quotedSQLIdentifier, columnName = column.name.quotedSQLIdentifier
        try reader.snapshot.read { db in
            if let object, let pk = object.primaryKey, !object.temporary {
                let row = try Row.fetchOne(
                    db, sql: "SELECT \(columnName) IS NULL FROM \(tableName) WHERE Z_PK = ? AND Z_ENT IN (\(placeholders))",
                    arguments: StatementArguments([pk] + ents.map { Int64($0) }))
                check.objectFound = row != nil
                check.objectValueIsNull = row.map { ($0[0] as Int64? ?? 0) != 0 }
            }
            check.nullRowCount = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM \(tableName) WHERE Z_ENT IN (\(placeholders)) AND \(columnName) IS NULL",
                arguments: StatementArguments(ents))
            let rows = try Row.fetchAll(
                db, sql: "SELECT Z_PK, Z_ENT FROM \(tableName) WHERE Z_ENT IN (\(placeholders)) AND \(columnName) IS NULL ORDER BY Z_PK LIMIT \(rowLimit)",
                arguments: StatementArguments(ents))
            // Rows whose Z_PK or Z_ENT is not an integer have no object ID to show.
            check.nullRows = rows.compactMap { row in
                guard let pk = StoredInteger(row, 0).value, let ent = StoredInteger(row, 1).value(in: EntityRegistry.entityNumbers) else { return nil }
                return ObjectID(storeUUID: reader.storeUUID, entity: names[ent] ?? entity, ent: ent, pk: pk).uri
            }
        }
        if let object {
            if object.temporary {
                notes.append("\(object.uri) is a temporary ID: the object was never saved, so the store has no row for it.")
            } else if check.objectFound == false {
                notes.append("\(object.uri): the store has no \(entity) row with Z_PK \(object.primaryKey.map(String.init) ?? "?").")
            } else if check.objectValueIsNull == true {
                notes.append("\(object.uri): the row exists and its \(key) is NULL.")
            } else if check.objectFound == true {
                notes.append("\(object.uri): the row exists and its \(key) is not NULL in the store (the unsaved change set it to nil).")
            }
        }
        let count = check.nullRowCount ?? 0
        notes.append(
            count == 0
                ? "No saved \(entity) row has a NULL \(key)."
                : "\(count) saved \(entity) \(noun("row has", count: count, "rows have")) a NULL \(key)"
                    + (check.nullRows.isEmpty ? "." : ": \(check.nullRows.joined(separator: ", "))\(count > check.nullRows.count ? ", …" : "")."))
        return check
    }

    /// Whether the dump's hash of `entity` agrees with `other` (lowercase hex): compared in full,
    /// or by its visible bytes when the dump cut it short; nil when a cut-short hash shows nothing.
    private static func hashAgrees(dump: DumpMetadata, entity: String, with other: String?) -> Bool? {
        guard let other else { return false }
        guard dump.truncatedHashes.contains(entity) else { return dump.versionHashes[entity] == other }
        return dump.visibleHashBytes[entity]?.matches(other)
    }

    static func compareHashes(dump: DumpMetadata?, store: [String: Data]?, versions: [ModelVersion], notes: inout [String]) -> HashCheck {
        var check = HashCheck()
        let dumpHashes = dump?.versionHashes ?? [:]
        let storeHex = store?.mapValues(\.hexString)
        if let dump, !dump.listsEveryEntity, !dumpHashes.isEmpty || !dump.truncatedHashes.isEmpty {
            notes.append("The paste is cut inside the entity hashes, so only the entities it lists are compared.")
        }
        if let storeHex, let dump, !dumpHashes.isEmpty || !dump.truncatedHashes.isEmpty {
            let listed = Set(dumpHashes.keys).union(dump.truncatedHashes)
            let names = dump.listsEveryEntity ? listed.union(storeHex.keys) : listed
            let verdicts = Dictionary(uniqueKeysWithValues: names.map { ($0, Self.hashAgrees(dump: dump, entity: $0, with: storeHex[$0])) })
            check.differingEntities = verdicts.filter { $0.value == false }.keys.sorted()
            let unknown = verdicts.filter { $0.value == nil }.keys.sorted()
            if !check.differingEntities.isEmpty {
                check.dumpMatchesStore = false
                check.comparison = dump.truncatedHashes.isEmpty ? .full : .visibleBytes
                notes.append(
                    "The dump's entity hashes differ from this store's for \(check.differingEntities.joined(separator: ", ")): the dump comes from another copy of the store, or the store was migrated since."
                )
            } else if !unknown.isEmpty {
                check.comparison = .cannotTell
                notes.append(
                    "The dump cuts the hashes of \(unknown.joined(separator: ", ")) to nothing visible, so cdstore cannot tell whether they are this store's.")
            } else if !dump.truncatedHashes.isEmpty {
                check.comparison = .visibleBytes
                notes.append(
                    "The dump's entity hashes match this store's as far as visible: \(dump.truncatedHashes.count) of them are cut short and only their visible bytes were compared (\(plural(names.count, "entity", "entities")))."
                )
            } else {
                check.dumpMatchesStore = true
                check.comparison = .full
                notes.append("The dump's entity hashes are this store's (\(plural(names.count, "entity", "entities"))).")
            }
        }
        for version in versions {
            let hashes = VersionHashes.entityHashes(of: version.model).mapValues(\.hexString)
            var match = VersionMatch(name: version.name, current: version.current)
            if !dumpHashes.isEmpty, let dump {
                let listed = Set(dumpHashes.keys).union(dump.truncatedHashes)
                let comparable = dump.listsEveryEntity ? listed.union(hashes.keys) : listed
                match.matchesDump = comparable.allSatisfy { Self.hashAgrees(dump: dump, entity: $0, with: hashes[$0]) != false }
            }
            if let storeHex {
                match.matchesStore = hashes == storeHex
                match.differingEntities = Set(hashes.keys).union(storeHex.keys).filter { hashes[$0] != storeHex[$0] }.sorted()
            } else if let dump, !dumpHashes.isEmpty {
                let names = dump.listsEveryEntity ? Set(hashes.keys).union(dumpHashes.keys) : Set(dumpHashes.keys)
                match.differingEntities = names.filter { hashes[$0] != dumpHashes[$0] }.sorted()
            }
            check.versions.append(match)
        }
        check.storeWrittenBy = check.versions.first { $0.matchesStore == true }?.name
        check.dumpWrittenBy = check.versions.first { $0.matchesDump == true }?.name
        if !versions.isEmpty {
            if let name = check.storeWrittenBy {
                notes.append("Model version \"\(name)\" has the store's hashes: it wrote the store.")
            }
            if let name = check.dumpWrittenBy, name != check.storeWrittenBy {
                notes.append("Model version \"\(name)\" has the dump's hashes" + (storeHex == nil ? ": it wrote the store." : "."))
            }
            if let name = check.storeWrittenBy ?? check.dumpWrittenBy {
                if let current = check.versions.first(where: \.current), current.name != name {
                    notes.append(
                        "The current version \"\(current.name)\" differs in \(current.differingEntities.joined(separator: ", ")); opening the store with it needs a migration from \"\(name)\"."
                    )
                }
            } else if check.versions.contains(where: { $0.matchesStore != nil || $0.matchesDump != nil }) {
                notes.append("No version of the model has the store's hashes: the version that wrote it is missing (error 134130 on migration).")
            } else {
                notes.append("The dump's hashes are cut short and no store was given, so the model versions cannot be compared: pass --store.")
            }
        }
        return check
    }
}
