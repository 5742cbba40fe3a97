import CDTestSupport
import Foundation
import Testing

/// The private copy (`$TMPDIR/cdstore-<pid>-<UUID>/`) is removed on every way out, and copies
/// left by dead processes are removed at start-up. Each test gives the child its own TMPDIR.
///
/// Stores are read in place unless a `-journal` lies beside them, so these tests put an empty
/// one there: it sends cdstore down the private-copy path, the one that can leave files behind.
@Suite(.temporaryDirectories) struct PrivateCopyTests {
    /// A `cdstore` child with its own temporary directory and its output on a pipe.
    struct Child {
        let process = Process()
        let output = Pipe()
        let temporary: URL

        init(_ arguments: [String]) throws {
            temporary = try TemporaryDirectory.make()
            guard let executable = CommandRunner.executable else { throw CocoaError(.fileNoSuchFile) }
            process.executableURL = executable
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { _, new in new }
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// The private copies in the child's TMPDIR.
        var copies: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).filter { $0.hasPrefix("cdstore-") }
        }

        /// Waits (up to 20 s) until the child has made its private copy.
        func waitForCopy() {
            let deadline = Date().addingTimeInterval(20)
            while copies.isEmpty, process.isRunning, Date() < deadline { usleep(20_000) }
        }
    }

    static let largeStore = "osxphotos-photos-15.4.1/Photos.sqlite"

    /// A copy of the corpus store `path` with an empty `-journal` beside it, so cdstore reads it
    /// from a private copy.
    static func storeReadFromACopy(_ path: String) throws -> URL {
        let copy = try Corpus.copyStore(path)
        try Data().write(to: URL(fileURLWithPath: copy.path + "-journal"))
        return copy
    }

    @Test func closedPipeExits141WithoutACopy() throws {
        let copy = try Self.storeReadFromACopy(Self.largeStore)
        let child = try Child(["dump", copy.path])
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let chunk = child.output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first += chunk
        }
        try child.output.fileHandleForReading.close()
        child.process.waitUntilExit()
        #expect(first.starts(with: Data("-[ RECORD 1".utf8)))
        #expect(child.process.terminationReason == .exit && child.process.terminationStatus == 141)
        #expect(child.copies.isEmpty)
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func signalExitsWithoutACopy(_ signal: Int32, _ status: Int32) throws {
        let copy = try Self.storeReadFromACopy(Self.largeStore)
        // Nobody reads the output: the child blocks on a full pipe, in the middle of its work.
        let child = try Child(["dump", copy.path])
        child.waitForCopy()
        #expect(child.copies.count == 1)
        usleep(200_000)
        kill(child.process.processIdentifier, signal)
        child.process.waitUntilExit()
        #expect(child.process.terminationReason == .exit && child.process.terminationStatus == status)
        #expect(child.copies.isEmpty)
    }

    @Test func normalExitAndErrorsLeaveNoCopy() throws {
        let copy = try Self.storeReadFromACopy("cdplus-samplemodel3/SampleModel3_V1.sqlite")
        for arguments in [["inspect", copy.path], ["dump", copy.path, "NoSuchEntity"]] {
            let child = try Child(arguments)
            _ = child.output.fileHandleForReading.readDataToEndOfFile()
            child.process.waitUntilExit()
            #expect(child.copies.isEmpty, "\(arguments)")
        }
    }

    @Test func staleCopiesOfDeadProcessesAreRemoved() throws {
        let temporary = try TemporaryDirectory.make()
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/sh")
        finished.arguments = ["-c", "exit 0"]
        try finished.run()
        finished.waitUntilExit()
        let stale = temporary.appendingPathComponent("cdstore-\(finished.processIdentifier)-\(UUID().uuidString)")
        let live = temporary.appendingPathComponent("cdstore-\(getpid())-\(UUID().uuidString)")
        let foreign = temporary.appendingPathComponent("cdstore-notes")
        for folder in [stale, live, foreign] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: folder.appendingPathComponent("store.sqlite"))
        }
        let copy = try Corpus.copyStore("cdplus-samplemodel3/SampleModel3_V1.sqlite")
        let result = try CommandRunner.run(["inspect", copy.path], environment: ["TMPDIR": temporary.path])
        #expect(result.status == 0)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: live.appendingPathComponent("store.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: foreign.appendingPathComponent("store.sqlite").path))
    }
}
