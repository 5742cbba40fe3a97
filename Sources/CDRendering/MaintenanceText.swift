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
}
