import CDDiagnostics
import CDModel
import CDStore
import Foundation

/// What `cdstore create --import` did: the store, the objects written per entity, and the
/// validation of the filled store.
package struct ImportOutcome: Sendable, Codable, Equatable {
    /// The new store (its size after the import). With `dryRun` or validation problems it was
    /// not installed and `path` names where it would have been.
    package var store: CreatedStore
    /// Objects per entity, in `Z_ENT` order.
    package var imported: [ImportedEntity]
    /// All objects imported.
    package var objects: Int
    package var validation: ValidationReport
    package var dryRun: Bool
    /// Whether the store is now at `store.path`.
    package var installed: Bool
}

extension StoreCreator {
    /// Creates the store of `blueprint` at `path` filled with `input`.
    ///
    /// The objects go into the prepared store under its temporary name; the filled store is then
    /// validated as `cdstore validate` would (reference errors.md §1.1), and it is moved into
    /// place only when the import succeeded, validation found nothing and `dryRun` is false.
    /// In every other case, errors included, the temporary store is deleted: a half-filled or
    /// invalid store never appears under the user's name.
    package static func create(
        _ blueprint: StoreBlueprint, at path: String, importing input: ImportInput,
        dryRun: Bool = false, uuid: UUID = UUID()
    ) throws -> ImportOutcome {
        let prepared = try prepare(blueprint, for: path, uuid: uuid)
        do {
            let imported = try StoreImporter.importObjects(input, into: prepared.temporaryURL, blueprint: blueprint)
            var validation = try StoreValidator.validate(try StoreSnapshot(path: prepared.temporaryURL.path), model: blueprint.model)
            validation.store = prepared.destination.path
            var store = prepared.summary
            store.bytes = StoreFiles.size(of: prepared.temporaryURL) ?? store.bytes
            let install = !dryRun && !validation.hasProblems
            if install {
                try prepared.install()
            } else {
                prepared.discard()
            }
            return ImportOutcome(
                store: store, imported: imported, objects: imported.reduce(0) { $0 + $1.objects },
                validation: validation, dryRun: dryRun, installed: install)
        } catch {
            prepared.discard()
            throw error
        }
    }
}
