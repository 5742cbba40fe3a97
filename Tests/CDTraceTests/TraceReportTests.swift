@testable import CDTrace
import CDTestSupport
import Foundation
import Testing

/// `cdstore trace` on logs made of the real excerpts of docs/format/sqldebug.md §8 (each fixture's
/// first line cites its blocks), one log per finding kind, against exact golden reports.
@Suite(.temporaryDirectories) struct TraceReportTests {
    static let folder = Golden.fixtures.appendingPathComponent("trace", isDirectory: true)

    static func log(_ name: String) -> String { folder.appendingPathComponent(name + ".log").path }

    /// Runs `trace` on the fixture and compares its report with `trace/<name>.txt` (or `.json`).
    static func check(
        _ name: String, _ extra: [String] = [], json: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let result = CommandRunner.runInProcess(["trace", log(name)] + extra + (json ? ["--json"] : []))
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        let golden =
            "trace/\(name)\(extra.isEmpty ? "" : "-" + extra.joined(separator: "-").filter { $0.isLetter || $0.isNumber || $0 == "-" })\(json ? ".json" : ".txt")"
        let expected = try Golden.expected(golden, actual: result.stdout)
        #expect(result.stdout == expected, "\(golden)", sourceLocation: sourceLocation)
        return result.stdout
    }

    @Test(arguments: [
        "excerpt-01-large-fetch", "excerpt-02-03-04", "excerpt-05-06-saves", "excerpt-07-to-16",
        "excerpt-19-plan", "excerpt-28-reformatted", "storm-relationship", "storm-objects",
        "batches-at-once", "count-then-fetch", "keys-only", "optimistic-locking",
    ])
    func goldenReport(_ name: String) throws {
        _ = try Self.check(name)
    }

    @Test func jsonReport() throws {
        _ = try Self.check("storm-relationship", json: true)
        _ = try Self.check("excerpt-05-06-saves", json: true)
    }

    /// Each finding kind, with the numbers the fixture was built with.
    @Test func everyFindingKind() throws {
        func findings(_ name: String) throws -> [TraceReport.Finding] {
            let result = CommandRunner.runInProcess(["trace", Self.log(name), "--json"])
            return try JSONDecoder().decode(TraceReport.self, from: Data(result.stdout.utf8)).findings
        }
        let storm = try #require(try findings("storm-relationship").first)
        #expect(storm.kind == "faultStorm" && storm.entity == "Item" && storm.relationship == "tags" && storm.count == 12)
        #expect(storm.fix.contains("relationshipKeyPathsForPrefetching = [\"tags\"]"))
        let objects = try #require(try findings("storm-objects").first)
        #expect(objects.kind == "faultStorm" && objects.relationship == nil && objects.count == 12)
        #expect(objects.fix.contains("returnsObjectsAsFaults = false"))
        #expect(try findings("excerpt-01-large-fetch").map(\.kind) == ["largeFetch"])
        #expect(try findings("excerpt-01-large-fetch").first?.summary.contains("688,187 rows") == true)
        let batches = try #require(try findings("batches-at-once").first)
        #expect(batches.kind == "batchesLoadedAtOnce" && batches.summary.contains("13 batches"))
        #expect(try findings("count-then-fetch").map(\.kind) == ["countThenFetch"])
        #expect(try findings("keys-only").map(\.kind) == ["keysOnlyFetch"])
        let retry = try #require(try findings("optimistic-locking").first)
        #expect(retry.kind == "optimisticLockingRetry" && retry.count == 1)
    }

    /// The save of §8 block 6: the key allocation's transaction is not a save; the insert's is.
    @Test func savesPerTransaction() throws {
        let result = CommandRunner.runInProcess(["trace", Self.log("excerpt-05-06-saves"), "--json"])
        let saves = try JSONDecoder().decode(TraceReport.self, from: Data(result.stdout.utf8)).saves
        #expect(saves.transactions == 1)
        #expect(saves.entities == [TraceReport.EntityWrites(entity: "ZBUDGETCATEGORY", inserts: 1, updates: 0, deletes: 0)])
    }

    @Test func noCoreDataLinesIsAClearError() throws {
        let result = CommandRunner.runInProcess(["trace", Self.log("no-core-data")])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first == "cdstore: error: \(Self.log("no-core-data")) has no Core Data SQL debug lines (3 lines read): nothing to report")
        let empty = CommandRunner.runInProcess(["trace", "-"])
        #expect(empty.status == 2 && empty.stderr.hasPrefix("cdstore: error: standard input has no Core Data SQL debug lines (0 lines read)"))
        let missing = CommandRunner.runInProcess(["trace", "/nonexistent/app.log"])
        #expect(missing.status == 2 && missing.stderr.hasPrefix("cdstore: error: cannot read the log /nonexistent/app.log: "))
        let negative = CommandRunner.runInProcess(["trace", "-", "--top", "-1"])
        #expect(negative.status == 64)
    }

    /// A capture cut off in the middle of its last line still counts that statement.
    @Test func truncatedLastLine() throws {
        let text = try String(contentsOfFile: Self.log("excerpt-02-03-04"), encoding: .utf8)
        let cut = text + "2014-07-31 15:29:05.001 WordList[73416:2971038] CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZWORD FROM ZWORD t0 WHE"
        let whole = CommandRunner.runInProcess(["trace", "-", "--json"], stdin: Data(text.utf8))
        let truncated = CommandRunner.runInProcess(["trace", "-", "--json"], stdin: Data(cut.utf8))
        let before = try JSONDecoder().decode(TraceReport.self, from: Data(whole.stdout.utf8))
        let after = try JSONDecoder().decode(TraceReport.self, from: Data(truncated.stdout.utf8))
        #expect(after.input.statements == before.input.statements + 1)
        #expect(after.input.lines == before.input.lines + 1)
        #expect(after.shapes.contains { $0.sql == "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZWORD FROM ZWORD t0 WHE" })
    }

    /// The same log in every capture form gives the same report (input line counts aside).
    @Test func everyCaptureFormGivesTheSameReport() throws {
        let text = try String(contentsOfFile: Self.log("storm-relationship"), encoding: .utf8)
        let lines = text.split(separator: "\n").dropFirst().map(String.init)
        func rewrap(_ form: Int, _ line: String) -> String {
            let message = line.trimmingCharacters(in: .whitespaces)
            guard message.hasPrefix("CoreData: ") else { return line }
            let payload = String(message.dropFirst("CoreData: ".count))
            let category = String(payload.prefix { $0 != ":" })
            let body = String(payload.dropFirst(category.count + 2))
            switch form {
            case 0: return "2014-07-30 11:45:15.647 My App[65858:2586192] \(message)"
            case 1: return "2026-09-06 01:44:20.057410+0000 App[5231:22116] [\(category)] \(message)"
            case 2:
                return "2024-01-10 11:14:38.831786-0800 0x724d65  Debug  0x0  18248  14  App: (CoreData) [com.apple.coredata:\(category)] \(category): \(body)"
            case 3: return "2022-08-25 15:22:01.008417+0100 localhost App[1766]: [com.apple.coredata:\(category)] \(message)"
            case 4: return "2026-08-17 16:32:00.001 Df App[4242:714e3fa] [com.apple.coredata:\(category)] \(message)"
            case 5:
                let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                return #"{"subsystem":"com.apple.coredata","category":""# + category + #"","eventMessage":""# + escaped + #""}"#
            default: return "\u{1B}[1m\(message)\u{1B}[0m"
            }
        }
        let plain = CommandRunner.runInProcess(["trace", "-", "--json"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        let expected = try JSONDecoder().decode(TraceReport.self, from: Data(plain.stdout.utf8))
        #expect(expected.findings.count == 1)
        for form in 0...6 {
            var wrapped = ["Filtering the log data using \"subsystem == \\\"com.apple.coredata\\\"\""]
            wrapped += lines.map { rewrap(form, $0) }
            let result = CommandRunner.runInProcess(["trace", "-", "--json"], stdin: Data((wrapped.joined(separator: "\n") + "\n").utf8))
            var report = try JSONDecoder().decode(TraceReport.self, from: Data(result.stdout.utf8))
            #expect(report.input.lines == expected.input.lines + 1, "form \(form)")
            report.input.lines = expected.input.lines
            #expect(report == expected, "form \(form)")
        }
    }
}
