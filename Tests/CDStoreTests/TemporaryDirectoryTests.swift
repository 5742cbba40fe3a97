import CDStore
import CDTestSupport
import Foundation
import GRDB
import Testing

/// The tests' temporary folders (``TemporaryDirectory``): what a test makes is removed when it
/// ends, and the tool's own private copies go under the process' root. That the whole run leaves
/// the root empty is checked at exit, when every test has finished.
///
/// These tests look only at folders they made themselves and at settings of this process, never
/// at the root's listing, which other tests running in parallel change at any moment.
@Suite struct TemporaryDirectoryTests {
    static let store = "cdplus-samplemodel2/SampleModel2_V1.sqlite"

    #if canImport(Darwin)
        static let temporaryDirectoryFollowsTMPDIR = false
    #else
        static let temporaryDirectoryFollowsTMPDIR = true
    #endif

    @Test func foldersGoWhenTheScopeEnds() throws {
        let made = try TemporaryDirectory.withScope {
            [try TemporaryDirectory.make(), try Corpus.copyStore(Self.store).deletingLastPathComponent()]
        }
        #expect(made.allSatisfy { $0.path.hasPrefix(TemporaryDirectory.root.path + "/") })
        #expect(made.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
    }

    @Test func foldersGoWhenTheTestThrows() throws {
        struct Failure: Error {}
        var made: URL?
        #expect(throws: Failure.self) {
            try TemporaryDirectory.withScope {
                made = try TemporaryDirectory.make()
                throw Failure()
            }
        }
        let folder = try #require(made)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    /// This suite has no `.temporaryDirectories` trait, so nothing would remove the folder.
    @Test func aFolderOutsideAScopeIsRefused() {
        #expect(throws: (any Error).self) { try TemporaryDirectory.make() }
    }

    /// The private copy a ``StoreSnapshot`` reads is under the root while it is open, and gone
    /// once the snapshot is released. Foundation on Apple platforms takes the temporary directory
    /// from `confstr`, not from `TMPDIR`, so there the copies stay in the user's temporary
    /// directory, which the tool cleans up itself.
    @Test(.enabled(if: Self.temporaryDirectoryFollowsTMPDIR))
    func theToolsPrivateCopiesGoUnderTheRoot() throws {
        try TemporaryDirectory.withScope {
            let copy = try Corpus.copyStore(Self.store)
            // A `-journal` beside the store is what makes cdstore read a private copy.
            try Data().write(to: URL(fileURLWithPath: copy.path + "-journal"))
            var snapshot: StoreSnapshot? = try StoreSnapshot(path: copy.path)
            #expect(snapshot?.readsInPlace == false)
            let privateCopy = URL(fileURLWithPath: try #require(snapshot?.database.path)).deletingLastPathComponent()
            #expect(privateCopy.deletingLastPathComponent().standardizedFileURL == TemporaryDirectory.root.standardizedFileURL)
            #expect(FileManager.default.fileExists(atPath: privateCopy.path))
            snapshot = nil
            #expect(!FileManager.default.fileExists(atPath: privateCopy.path))
        }
    }

    /// Commands the tests start inherit `TMPDIR`, so their private copies go under the root too.
    @Test func startedProcessesUseTheRoot() throws {
        _ = TemporaryDirectory.root
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let environment = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(environment.split(separator: "\n").contains("TMPDIR=\(TemporaryDirectory.root.path)"))
    }
}
