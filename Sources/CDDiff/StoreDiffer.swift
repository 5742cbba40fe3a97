import CDChanges
import CDDiagnostics
import CDMapping
import CDModel
import CDSession
import CDStore
import Foundation

/// Compares two stores: the models that wrote them, their schemas and metadata, and their
/// objects (``DataComparison``).
///
/// Both stores are opened as every front end opens a store (``StoreSession``), in place and
/// read-only, so either may be the
/// live store of a running app; a store that changes while it is read fails the comparison
/// with "changed while reading" rather than report a mix of two versions.
package enum StoreDiffer {
    /// Compares `pathA` with `pathB`. `modelPath` gives the model for stores without a model
    /// cache: each store is read with the version of it whose entity hashes match the store.
    /// `asOf` reads either store as it stood after a commit of its `-wal`: the same store
    /// twice, as of two commits, gives what the commits between them changed.
    package static func compare(
        _ pathA: String, _ pathB: String, modelPath: String? = nil,
        options: DiffOptions, trace: SQLTrace? = nil, asOf: (a: Int?, b: Int?) = (nil, nil)
    ) throws -> StoreDiffReport {
        try compare(
            StoreSession(storePath: pathA, modelPath: modelPath, trace: trace, asOf: asOf.a),
            StoreSession(storePath: pathB, modelPath: modelPath, trace: trace, asOf: asOf.b), options: options)
    }

    /// Compares the stores of two open sessions, as ``compare(_:_:modelPath:options:trace:asOf:)``
    /// does after opening them: `serve` passes sessions from its pools, so the comparison runs
    /// under the pools' query time limit.
    package static func compare(_ sessionA: StoreSession, _ sessionB: StoreSession, options: DiffOptions) throws -> StoreDiffReport {
        let (pathA, pathB) = (sessionA.storePath, sessionB.storePath)
        let (snapshotA, snapshotB) = (sessionA.snapshot, sessionB.snapshot)
        let readerA = try sessionA.reader()
        let readerB = try sessionB.reader()
        let pairing = EntityPairing(readerA: readerA, readerB: readerB)
        if options.parts != [.schema], !pairing.sharesAnEntity, !readerA.model.entities.isEmpty, !readerB.model.entities.isEmpty {
            throw DiffError.unrelatedModels(storeA: pathA, storeB: pathB)
        }
        var report = StoreDiffReport(storeA: pathA, storeB: pathB)
        if options.parts.contains(.model) {
            let hashesA = VersionHashes.entityHashes(of: readerA.model), hashesB = VersionHashes.entityHashes(of: readerB.model)
            report.model = ModelComparison(
                sameVersion: hashesA == hashesB, identifiersA: readerA.model.versionIdentifiers,
                identifiersB: readerB.model.versionIdentifiers,
                changes: ModelDiff.changes(from: readerA.model, to: readerB.model))
        }
        if options.parts.contains(.schema) {
            let (schemaA, factsA) = try facts(snapshotA)
            let (schemaB, factsB) = try facts(snapshotB)
            report.schema = SchemaChanges.compare(
                .init(schema: schemaA, mapping: readerA.mapping),
                .init(schema: schemaB, mapping: readerB.mapping))
            report.metadata = MetadataFacts.changes(factsA, factsB)
        }
        if options.parts.contains(.data) {
            report.data = try DataComparison(readerA: readerA, readerB: readerB, pairing: pairing, options: options).run()
        }
        return report
    }

    private static func facts(_ snapshot: StoreSnapshot) throws -> (StoreSchema, MetadataFacts) {
        let path = snapshot.files.main.path
        return try snapshot.read { db in
            (
                try StoreSchema.read(db),
                MetadataFacts(
                    metadata: try StoreMetadata.read(db, path: path), hasHistory: try HistoryReader.hasHistory(db),
                    cache: try ModelCache.read(db, path: path))
            )
        }
    }
}
