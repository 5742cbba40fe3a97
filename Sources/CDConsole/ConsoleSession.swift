import CDFetch
import CDModel
import CDSession
import CDStore
import Foundation

/// The console's open store: a ``StoreSession`` whose model is read when it opens (completion and
/// every query need it at once, so a store without a readable model is refused at the start, not
/// at the first Tab). `.reload` and `.open` replace the whole session; the snapshot's private
/// copy, if it has one, is removed when the session is released.
package final class ConsoleSession {
    package let store: StoreSession
    package let runner: FetchRunner
    /// The SQL debug log of this snapshot; `.trace` changes its level.
    package let trace: SQLTrace

    package var storePath: String { store.storePath }
    /// The model given with `--model`, if any.
    package var modelPath: String? { store.modelPath }
    package var snapshot: StoreSnapshot { store.snapshot }
    package var reader: ObjectReader { runner.reader }
    package var model: ManagedObjectModel { runner.reader.model }

    /// Opens `storePath` read-only and reads its model; `traceLevel` 0 logs nothing; `asOf`
    /// reads the store as it stood after that commit of its `-wal`.
    package convenience init(storePath: String, modelPath: String?, traceLevel: Int, asOf: Int? = nil) throws {
        let trace = SQLTrace(level: traceLevel)
        try self.init(try StoreSession(storePath: storePath, modelPath: modelPath, trace: trace, asOf: asOf), trace: trace)
    }

    private init(_ store: StoreSession, trace: SQLTrace) throws {
        self.store = store
        self.trace = trace
        runner = try store.runner()
    }

    /// A new session on the same store and model: a fresh snapshot of what the app wrote since.
    package func reloaded() throws -> ConsoleSession {
        try ConsoleSession(try store.reloaded(), trace: trace)
    }
}
