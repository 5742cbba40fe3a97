import CDTestSupport
import Foundation
import GRDB
import Testing

/// Stores for the diff tests: private copies of corpus stores, changed with the real `sqlite3`
/// shell, and the command run in-process with the two paths replaced by `A` and `B` so golden
/// files do not depend on the temporary folders.
enum DiffFixtures {
    /// A copy of a corpus store with Core Data's triggers dropped (they call functions that only
    /// exist inside Core Data, so `sqlite3` could not write the tables they watch) and its `-wal`
    /// folded in, and a second copy of that: A and B, equal so far.
    static func pair(_ corpusPath: String) throws -> (a: URL, b: URL) {
        let a = try Corpus.copyStore(corpusPath)
        let drops = try DatabaseQueue(path: a.path).read { db in
            try String.fetchAll(db, sql: "SELECT 'DROP TRIGGER \"' || name || '\";' FROM sqlite_master WHERE type = 'trigger'")
        }
        try SQLiteShell.run(a, drops.joined(separator: "\n") + "\nPRAGMA wal_checkpoint(TRUNCATE);")
        let b = try TemporaryDirectory.make().appendingPathComponent(a.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: a.path + suffix) {
            try FileManager.default.copyItem(atPath: a.path + suffix, toPath: b.path + suffix)
        }
        return (a, b)
    }

    /// `cdstore diff A B arguments…` in-process, with the stores' paths shown as `A` and `B`.
    static func diff(_ a: URL, _ b: URL, _ arguments: [String] = []) -> Run {
        let result = CommandRunner.runInProcess(["diff", a.path, b.path] + arguments)
        func anonymous(_ text: String) -> String {
            text.replacingOccurrences(of: a.path, with: "A").replacingOccurrences(of: b.path, with: "B")
        }
        return Run(status: result.status, stdout: anonymous(result.stdout), stderr: anonymous(result.stderr))
    }

    /// A run of `diff`, its paths anonymised.
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Checks `actual` against the golden file `diff/<name>`.
    static func expectGolden(_ name: String, _ actual: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try Golden.expected("diff/" + name, actual: actual)
        #expect(expected != nil, "no golden file diff/\(name); run with CDSTORE_UPDATE_GOLDEN=1", sourceLocation: sourceLocation)
        if let expected { #expect(actual == expected, sourceLocation: sourceLocation) }
    }
}
