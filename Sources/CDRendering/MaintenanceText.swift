import CDMaintenance

/// Human-readable text for the commands that write stores.
public enum MaintenanceText {
    /// `cdstore create`: what the new store holds.
    public static func created(_ store: CreatedStore) -> String {
        let identifiers = store.versionIdentifiers.isEmpty ? "none" : store.versionIdentifiers.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            Created \(store.path) (\(store.bytes) bytes)
              Store UUID:          \(store.storeUUID)
              Framework version:   \(store.frameworkVersion)
              Version identifiers: \(identifiers)
              Entities:            \(store.entities)
              Tables:              \(store.tables), indexes: \(store.indexes)
              Model cache:         \(store.modelCacheBytes.map { "\($0) bytes compressed" } ?? "none (framework before 754)")
            """
    }

    /// `cdstore create --import`: the store, then the objects imported per entity.
    public static func imported(_ outcome: ImportOutcome) -> String {
        let verdict: String
        if outcome.installed {
            verdict = created(outcome.store)
        } else if outcome.dryRun && !outcome.validation.hasProblems {
            verdict = "Dry run: \(outcome.store.path) would be created (\(outcome.store.bytes) bytes); nothing was written."
        } else {
            verdict = "Not created: \(outcome.store.path) failed validation; nothing was written."
        }
        let width = outcome.imported.map(\.entity.count).max() ?? 0
        let rows = outcome.imported.map { "    " + $0.entity.padding(toLength: width, withPad: " ", startingAt: 0) + "  \($0.objects)" }
        let noun = outcome.objects == 1 ? "object" : "objects"
        return ([verdict, "  Imported:            \(outcome.objects) \(noun)"] + rows).joined(separator: "\n")
    }
}
