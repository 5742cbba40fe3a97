import CDBase
import CDModel
import CDStore
import Foundation

/// The store options an app passes to `addPersistentStore`, which decide the error it gets
/// (docs/format/model-format.md §6.1, §6.3).
package enum MigrationOptions: String, Sendable, Codable, CaseIterable {
    /// `NSMigratePersistentStoresAutomaticallyOption` and `NSInferMappingModelAutomaticallyOption`,
    /// as CDQ, MagicalRecord and RHManagedObject set them.
    case infer
    /// Automatic migration only: a mapping model must exist.
    case migrate
    /// Neither: any difference is error 134100.
    case none
}

/// The migration a store needs to reach the version the app opens it with, whatever the
/// options: with ``MigrationOptions`` it decides whether the store opens.
package enum MigrationNeed: String, Sendable, Codable, CaseIterable {
    /// The store's entity hashes are the version's: it opens as it is.
    case none
    /// Core Data can infer the mapping (`NSInferMappingModelAutomaticallyOption`).
    case lightweight
    /// A mapping model next to the model maps the store's version to this one.
    case mappingModel
    /// No migration opens it as things are: no version wrote the store (134130), the changes
    /// cannot be inferred (134190), or the migrated rows fail validation (134110).
    case impossible
}

/// Whether a model opens a store, and if not what the app gets and how to fix it.
package struct CompatibilityReport: Sendable, Encodable, Equatable {
    /// A mapping model found next to the model, and the versions it connects.
    package struct MappingLink: Sendable, Encodable, Equatable {
        package var path: String
        @NullEncoded package var sourceVersion: String?
        @NullEncoded package var destinationVersion: String?
        /// It maps the store's version to the version the app opens it with.
        package var connectsStoreToCurrent: Bool
    }

    package var store: String
    package var model: String
    package var options: MigrationOptions
    /// The version whose entity hashes equal the store's metadata, or nil.
    @NullEncoded package var matchedVersion: String?
    package var currentVersion: String
    /// Where the old model of `changes` comes from: a version name, `cache` (the store's
    /// Z_MODELCACHE) or nil when there is none.
    @NullEncoded package var oldModel: String?
    /// The store's hashes are the current version's: it opens without migration (kept for
    /// scripts written before `opens` and `migration`; it equals `migration == none`).
    package var compatible: Bool
    /// The app opens the store with `options`, after a migration if `migration` needs one.
    package var opens: Bool
    /// The migration the store needs, whatever the options.
    package var migration: MigrationNeed
    /// The Cocoa error code the app gets with `options`, or nil when the store opens (possibly
    /// after a migration).
    @NullEncoded package var expectedError: Int?
    /// Why, in one paragraph.
    package var reason: String
    package var changes: [CompatibilityChange]
    package var mappingModels: [MappingLink]

}

/// Compares a store with every version of a model (docs/format/model-format.md §6.3).
package enum Compatibility {
    /// Analyses the store at `storePath` against the model at `modelPath`. `versionName` is the
    /// version the app opens the store with (default: the current one). Reads the store read-only.
    package static func analyse(
        storePath: String, modelPath: String, versionName: String? = nil,
        options: MigrationOptions = .infer, trace: SQLTrace? = nil
    ) throws -> CompatibilityReport {
        let versions = try ModelSource.versions(at: modelPath, trace: trace)
        let current = try ModelSource.chooseVersion(versions, named: versionName, path: modelPath)
        return try analyse(
            snapshot: try StoreSnapshot(path: storePath, trace: trace), versions: versions, current: current,
            modelPath: modelPath, options: options)
    }

    /// The same on a snapshot already open (the console's), with the model's versions loaded.
    package static func analyse(
        snapshot: StoreSnapshot, versions: [ModelVersion], current: ModelVersion,
        modelPath: String, options: MigrationOptions = .infer
    ) throws -> CompatibilityReport {
        let store = try StoreFacts.read(snapshot)
        let modelURL = URL(fileURLWithPath: modelPath).standardizedFileURL
        // A store given as the model has no mapping models beside it that belong to it.
        let nearby = ModelFiles.canRead(modelURL) ? MigrationMappingModelReader.find(near: modelURL) : []
        let mappings = try nearby.map(MigrationMappingModelReader.read(at:))
        return analyse(
            store: store, versions: versions, current: current, mappings: mappings, options: options,
            storePath: snapshot.files.main.path, modelPath: modelURL.path)
    }

    /// The analysis proper, on facts already read.
    static func analyse(
        store: StoreFacts, versions: [ModelVersion], current: ModelVersion, mappings: [MigrationMappingModel],
        options: MigrationOptions, storePath: String, modelPath: String
    ) -> CompatibilityReport {
        // Versions can be identical (RestKit's VersionedModel 2 and 4): prefer the current one.
        let matches = versions.filter { VersionHashes.entityHashes(of: $0.model) == store.versionHashes }
        let matched = matches.first { $0.name == current.name } ?? matches.first
        let compatible = VersionHashes.entityHashes(of: current.model) == store.versionHashes
        let links = mappings.map { mapping in
            let source = mapping.sourceVersion(in: versions)
            let destination = mapping.destinationVersion(in: versions)
            return CompatibilityReport.MappingLink(
                path: mapping.path, sourceVersion: source, destinationVersion: destination,
                connectsStoreToCurrent: matched != nil && source == matched?.name && destination == current.name)
        }
        var report = CompatibilityReport(
            store: storePath, model: modelPath, options: options, matchedVersion: matched?.name,
            currentVersion: current.name, oldModel: nil, compatible: compatible, opens: true, migration: .none,
            expectedError: nil, reason: "", changes: [], mappingModels: links)
        if compatible {
            report.oldModel = current.name
            let others = matches.map(\.name).filter { $0 != current.name }
            // Identical hashes mean Core Data never migrates between those versions (§5.10 point 4).
            let same =
                others.isEmpty
                ? ""
                : " Version \(others.joined(separator: ", ")) has the same hashes, so Core Data cannot tell them apart: if the stored data must change between them, set a version hash modifier on the changed entity or property."
            report.reason = "The store's entity hashes equal those of version \(current.name): it opens without migration.\(same)"
            return report
        }
        let old: (name: String, model: ManagedObjectModel)? = matched.map { ($0.name, $0.model) } ?? store.cachedModel.map { ("cache", $0) }
        report.oldModel = old?.name
        if let old { report.changes = ModelDiff.changes(from: old.model, to: current.model) }
        let verdict = Verdict.decide(
            changes: report.changes, matched: matched?.name, current: current.name,
            identifiers: store.versionIdentifiers, hasOldModel: old != nil, mapping: links.first { $0.connectsStoreToCurrent }?.path,
            options: options, rows: store.rows(for:),
            nulls: { entity, attribute in old.flatMap { store.countNulls($0.model, entity, attribute) } })
        report.migration = verdict.migration
        report.expectedError = verdict.error
        report.opens = verdict.error == nil
        report.reason = verdict.reason
        return report
    }
}

/// What the analysis needs from the store: its metadata hashes, cached model and row counts.
struct StoreFacts {
    var versionHashes: [String: Data]
    var versionIdentifiers: [String]
    var cachedModel: ManagedObjectModel?
    /// Entity name → rows of that entity and its sub-entities.
    var rowCounts: [String: Int]

    /// Rows of an entity whose attribute is NULL, located with the given old model; nil when unknown.
    var countNulls: (ManagedObjectModel, String, String) -> Int? = { _, _, _ in nil }

    func rows(for entity: String) -> Int { rowCounts[entity] ?? 0 }

    static func read(_ snapshot: StoreSnapshot) throws -> StoreFacts {
        let path = snapshot.files.main.path
        let (metadata, cache) = try snapshot.read { db in
            (try StoreMetadata.read(db, path: path), try ModelCache.read(db, path: path))
        }
        let inspection = try StoreInspector.inspect(snapshot, counts: true)
        var counts: [String: Int] = [:]
        for entity in inspection.entities { counts[entity.name] = entity.rowsIncludingSubentities ?? 0 }
        return StoreFacts(
            versionHashes: metadata.versionHashes, versionIdentifiers: metadata.versionIdentifiers,
            cachedModel: cache?.model, rowCounts: counts,
            countNulls: { model, entity, attribute in
                (try? snapshot.countNulls(model: model, entity: entity, attribute: attribute)) ?? nil
            })
    }
}

/// The migration a store needs and the error an app gets, following model-format.md §6.2–6.3
/// and errors.md's codes.
struct Verdict {
    var migration: MigrationNeed
    var error: Int?
    var reason: String

    static func decide(
        changes: [CompatibilityChange], matched: String?, current: String,
        identifiers: [String], hasOldModel: Bool,
        mapping: String?, options: MigrationOptions, rows: (String) -> Int,
        nulls: (String, String) -> Int?
    ) -> Verdict {
        guard options == .none else {
            return withMigration(
                changes: changes, matched: matched, current: current, identifiers: identifiers,
                hasOldModel: hasOldModel, mapping: mapping, inferring: options == .infer, rows: rows, nulls: nulls)
        }
        // The migration the store needs is the same; say what the options would change.
        let migrating = withMigration(
            changes: changes, matched: matched, current: current, identifiers: identifiers,
            hasOldModel: hasOldModel, mapping: mapping, inferring: true, rows: rows, nulls: nulls)
        let withOptions: String
        if let error = migrating.error {
            withOptions = "The migration options alone would not help: with them the app gets \(error) (`--options infer` shows why)."
        } else if let mapping {
            withOptions = "With NSMigratePersistentStoresAutomaticallyOption it opens after migration with the mapping model \(mapping)."
        } else {
            withOptions = "With NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption it opens after lightweight migration."
        }
        return Verdict(
            migration: migrating.migration, error: 134100,
            reason:
                "The store was written by \(matched.map { "version \($0)" } ?? "a model no version matches"), not by \(current), and the app opens it without migration options: 134100. \(withOptions)"
        )
    }

    /// The verdict when the app passes NSMigratePersistentStoresAutomaticallyOption, and
    /// NSInferMappingModelAutomaticallyOption when `inferring`.
    private static func withMigration(
        changes: [CompatibilityChange], matched: String?, current: String,
        identifiers: [String], hasOldModel: Bool, mapping: String?, inferring: Bool,
        rows: (String) -> Int, nulls: (String, String) -> Int?
    ) -> Verdict {
        let without =
            "Without NSMigratePersistentStoresAutomaticallyOption the app gets 134100 (the model is incompatible with the one that created the store)."
        guard let matched else {
            let source =
                hasOldModel
                ? "The differences below are against the model cached in the store. Fix: add the version that wrote the store back to the model (`cdstore model STORE --format xcdatamodel` rebuilds it from the cache), or reset the store."
                : "The store has no model cache either, so the differences cannot be shown. Fix: add the version that wrote the store back to the model, or reset the store."
            let named = identifiers.filter { !$0.isEmpty }
            let stored = named.isEmpty ? "" : " The store names its model version \(named.map { "\"\($0)\"" }.joined(separator: ", "))."
            return Verdict(
                migration: .impossible, error: 134130,
                reason: "No version of the model has the store's entity hashes, so migration has no source model: 134130.\(stored) \(source) \(without)")
        }
        if let mapping {
            return Verdict(
                migration: .mappingModel, error: nil,
                reason:
                    "The store was written by version \(matched); the mapping model \(mapping) maps it to \(current), and automatic migration uses it. \(without)"
            )
        }
        let blocking = changes.first { !$0.inferable }
        let failing = blocking == nil ? validationFailure(changes: changes, rows: rows, nulls: nulls) : nil
        let blocked = blocking.map { change in
            "lightweight migration to \(current) cannot be inferred: \([change.entity, change.property].compactMap { $0 }.joined(separator: ".")): \(change.detail)"
        }
        let failed = failing.map { "the inferred migration to \(current) fails validation: \($0)" }
        if !inferring {
            let fix =
                (blocked ?? failed).map { "Fix: add a mapping model from \(matched) to \(current) (inference would not help: \($0))." }
                ?? "Fix: pass NSInferMappingModelAutomaticallyOption, or add a mapping model from \(matched) to \(current)."
            return Verdict(
                migration: (blocked ?? failed) == nil ? .lightweight : .impossible, error: 134140,
                reason: "The store was written by version \(matched); no mapping model maps \(matched) to \(current) and inference is off: 134140. \(fix)")
        }
        if let blocking, let blocked {
            return Verdict(
                migration: .impossible, error: 134190,
                reason:
                    "The store was written by version \(matched); \(blocked): 134190. Fix: \(blocking.fix), or add a mapping model from \(matched) to \(current). \(without)"
            )
        }
        if let failed {
            return Verdict(
                migration: .impossible, error: 134110,
                reason:
                    "The store was written by version \(matched); \(failed): 134110 (missing attribute values on mandatory destination attribute). \(without)")
        }
        return Verdict(
            migration: .lightweight, error: nil,
            reason:
                "The store was written by version \(matched); lightweight migration to \(current) can be inferred, so it opens when the app passes NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption (CDQ, MagicalRecord and RHManagedObject set both). \(without)"
        )
    }

    /// An attribute made non-optional without a default while rows lack it, or a new
    /// non-optional property without a default on an entity with rows: the migrated rows have no
    /// value and fail validation (errors.md §5.5, model-format.md §6.3 step 3).
    static func validationFailure(
        changes: [CompatibilityChange], rows: (String) -> Int,
        nulls: (String, String) -> Int?
    ) -> String? {
        for change in changes where change.failsWhereNull {
            let entity = change.sourceEntity ?? change.entity
            let property = change.sourceProperty ?? change.property ?? ""
            if let count = nulls(entity, property), count > 0 {
                return
                    "\(change.entity).\(change.property ?? "") is now non-optional without a default, and \(plural(count, "row")) of \(entity) have no \(property)"
            }
        }
        for change in changes where change.leavesRowsEmpty {
            let sourceEntity = change.sourceEntity ?? change.entity
            let count = rows(sourceEntity)
            if count > 0 {
                return
                    "\(change.entity).\(change.property ?? "") is new and non-optional\(change.kind == .attributeAdded ? " without a default" : ""), and \(sourceEntity) has \(plural(count, "row"))"
            }
        }
        return nil
    }
}
