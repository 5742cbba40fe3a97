import CDFetch
import CDModel
import CDStore
import Foundation

/// One open store in the console: the private snapshot, the model read from it once (or given
/// with `--model`), and the fetch runner every query goes through. `.reload` and `.open`
/// replace the whole session; the snapshot's copy is removed when the session is released.
package final class ConsoleSession {
    /// The store as the user named it.
    package let storePath: String
    /// The model given with `--model`, if any.
    package let modelPath: String?
    package let snapshot: StoreSnapshot
    package let runner: FetchRunner
    /// The SQL debug log of this snapshot; `.trace` changes its level.
    package let trace: SQLTrace

    package var reader: ObjectReader { runner.reader }
    package var model: ManagedObjectModel { runner.reader.model }

    /// Opens a private copy of `storePath` and reads its model; `traceLevel` 0 logs nothing.
    package init(storePath: String, modelPath: String?, traceLevel: Int) throws {
        self.storePath = storePath
        self.modelPath = modelPath
        let trace = SQLTrace(level: traceLevel)
        let snapshot = try StoreSnapshot(path: storePath, trace: trace)
        let chosenModel = try modelPath.map { try ModelSource.storeModel(at: $0, for: snapshot) }
        self.trace = trace
        self.snapshot = snapshot
        runner = FetchRunner(reader: try ObjectReader(snapshot: snapshot, model: chosenModel))
    }

    /// A new session on the same store and model: a fresh snapshot of what the app wrote since.
    package func reloaded() throws -> ConsoleSession {
        try ConsoleSession(storePath: storePath, modelPath: modelPath, traceLevel: trace.level)
    }

    /// Entity names in the model's order, for listings and completion.
    package var entityNames: [String] { model.entities.map(\.name) }
}
