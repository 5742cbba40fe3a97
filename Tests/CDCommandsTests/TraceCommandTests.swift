import CDTestSupport
import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `cdstore trace --follow` as a user runs it: the built executable reading a pipe that stays
/// open (`log stream | cdstore trace - --follow`) or a file that grows, printing each finding
/// before the log ends.
@Suite(.temporaryDirectories) struct TraceFollowTests {
    /// The fault storm of Tests/Fixtures/trace/storm-relationship.log, then one more fetch and
    /// a second statement after it: a run ends when the statement after it is complete.
    static let storm: String = {
        let url = Golden.fixtures.appendingPathComponent("trace/storm-relationship.log")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text + """
            CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZTIMESTAMP FROM ZITEM t0
            CoreData: annotation: sql connection fetch time: 0.0002s
            CoreData: annotation: total fetch execution time: 0.0004s for 190 rows.
            CoreData: sql: SELECT COUNT(*) FROM ZITEM

            """
    }()

    /// Reads `handle` until `marker` appears or 20 seconds pass.
    static func readOutput(_ handle: FileHandle, until marker: String) -> String {
        var text = ""
        let deadline = Date(timeIntervalSinceNow: 20)
        let descriptor = handle.fileDescriptor
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !text.contains(marker), Date() < deadline {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                text += String(decoding: buffer[0..<count], as: UTF8.self)
            } else {
                usleep(20_000)
            }
        }
        _ = fcntl(descriptor, F_SETFL, flags)
        return text
    }

    @Test func followsAPipe() throws {
        let executable = try #require(CommandRunner.executable)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["trace", "-", "--follow"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(Self.storm.utf8))
        // The finding arrives while the pipe is still open.
        let early = Self.readOutput(output.fileHandleForReading, until: "\n")
        #expect(early.hasPrefix("fault storm: Item.tags, 12 faults in a row: Item.tags"), "\(early)")
        #expect(!early.contains("Statements by total time"))
        try input.fileHandleForWriting.close()
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(rest.contains("Findings (1)\n  fault storm: Item.tags faulted one object at a time: 12 statements in 1 run"))
    }

    @Test func followsAGrowingFileUntilInterrupted() throws {
        let executable = try #require(CommandRunner.executable)
        let log = try TemporaryDirectory.make().appendingPathComponent("app.log")
        try Data().write(to: log)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["trace", log.path, "--follow"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let writer = try FileHandle(forWritingTo: log)
        writer.seekToEndOfFile()
        writer.write(Data(Self.storm.utf8))
        try writer.close()
        let early = Self.readOutput(output.fileHandleForReading, until: "\n")
        #expect(early.hasPrefix("fault storm: Item.tags"), "\(early)")
        process.interrupt()
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(rest.contains("Statements by total time"))
    }
}
