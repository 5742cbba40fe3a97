@testable import CDTrace
import CDTestSupport
import Foundation
import Testing

/// Logs generated from known statement sequences (seeded): the report's counts, times, rows,
/// fault storms, large fetches, count-then-fetch pairs and saves must be exactly what the
/// generator put in. The generator writes each statement from its canonical text with random
/// spacing, literal or bound values and a random capture form per line, and keeps its own
/// tallies; it never calls the code under test.
@Suite struct GeneratedLogTests {
    /// What the generator put into a log.
    struct Truth {
        var shapes: [String: (count: Int, seconds: Double, rows: Int)] = [:]
        var storms: [String: (runs: Int, statements: Int, longest: Int)] = [:]
        var largeFetches: [String: Int] = [:]
        var countThenFetch: [String: Int] = [:]
        var transactions = 0
        var rolledBack = 0
        var retried = 0
        var writes: [String: TraceAnalyzer.Writes] = [:]
    }

    struct Generator {
        var random: SeededGenerator
        var lines: [String] = []
        var truth = Truth()
        var object = 0

        init(seed: UInt64) { random = SeededGenerator(seed: seed) }

        /// A time with four decimals, as logged, and its value.
        mutating func time() -> (text: String, value: Double) {
            let tenThousandths = Int.random(in: 0...60, using: &random)
            return (String(format: "%.4f", Double(tenThousandths) / 10_000), Double(tenThousandths) / 10_000)
        }

        /// The canonical text with random extra spaces, as real logs have them.
        mutating func respace(_ canonical: String) -> String {
            var text = ""
            for character in canonical {
                text.append(character)
                if character == " " && Int.random(in: 0..<6, using: &random) == 0 { text.append(" ") }
                if character == "(" && Int.random(in: 0..<3, using: &random) == 0 { text.append(" ") }
            }
            return text + (Bool.random(using: &random) ? " " : "")
        }

        mutating func wrap(_ category: String, _ message: String) -> String {
            let line = "CoreData: \(category): \(message)"
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return "2014-07-30 11:45:15.647 My App[65858:2586192] \(line)"
            case 1:
                return
                    "2024-01-10 11:14:38.831786-0800 0x724d65  Debug  0x0  18248  14  App: (CoreData) [com.apple.coredata:\(category)] \(category): \(message)"
            case 2: return "2026-08-17 16:32:00.001 Df App[4242:714e3fa] [com.apple.coredata:\(category)] \(line)"
            case 3:
                let escaped = line.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                return #"{"subsystem":"com.apple.coredata","category":""# + category + #"","eventMessage":""# + escaped + #""}"#
            default: return line
            }
        }

        mutating func emit(_ category: String, _ message: String) {
            lines.append(wrap(category, message))
            if Int.random(in: 0..<8, using: &random) == 0 { lines.append("2024-05-31 10:00:00.123 App[1:2] the app's own output") }
        }

        /// A fetch: `canonical` is what the report must group it under; `value` a literal for `?`.
        mutating func fetch(_ canonical: String, rows: Int, literal: String? = nil) {
            var sql = respace(canonical)
            if let literal, Bool.random(using: &random) { sql = sql.replacingOccurrences(of: "?", with: literal) }
            emit("sql", sql)
            if literal != nil, Bool.random(using: &random) { emit("details", "SQLite bind[0] = 7") }
            emit("annotation", "sql connection fetch time: \(time().text)s")
            let total = time()
            emit("annotation", "total fetch execution time: \(total.text)s for \(rows) rows.")
            truth.shapes[canonical, default: (0, 0, 0)].count += 1
            truth.shapes[canonical]!.seconds += total.value
            truth.shapes[canonical]!.rows += rows
            if rows >= 1_000, !canonical.contains("LIMIT") { truth.largeFetches[canonical, default: 0] += 1 }
        }

        mutating func count(_ canonical: String) {
            emit("sql", respace(canonical))
            let total = time()
            emit("annotation", "total count request execution time: \(total.text)s for count of \(Int.random(in: 0...99, using: &random)).")
            truth.shapes[canonical, default: (0, 0, 0)].count += 1
            truth.shapes[canonical]!.seconds += total.value
        }

        mutating func plain(_ canonical: String, timed: Bool = false) {
            emit("sql", canonical)
            var seconds = 0.0
            if timed {
                let total = time()
                emit("annotation", "sql execution time: \(total.text)s")
                seconds = total.value
            }
            truth.shapes[canonical, default: (0, 0, 0)].count += 1
            truth.shapes[canonical]!.seconds += seconds
        }

        static func fetchSQL(_ table: Int) -> String { "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZNAME, t0.ZA\(table) FROM ZT\(table) t0 WHERE t0.ZA\(table) > ?" }
        static func otherCountSQL(_ table: Int) -> String { "SELECT COUNT(*) FROM ZT\(table) t0 WHERE t0.ZB\(table) = ?" }
        static func pairCountSQL(_ table: Int) -> String { "SELECT COUNT(*) FROM ZT\(table) t0 WHERE t0.ZA\(table) > ?" }
        static func faultSQL(_ relationship: Int) -> String {
            "SELECT 0, t0.Z_PK FROM Z_\(relationship)TAGS t1 JOIN ZTAG t0 ON t0.Z_PK = t1.Z_9TAGS WHERE t1.Z_\(relationship)ITEMS = ?"
        }
        static func objectSQL(_ table: Int) -> String { "SELECT t0.Z_ENT, t0.Z_PK, t0.Z_OPT, t0.ZX FROM ZO\(table) t0 WHERE t0.Z_PK = ?" }

        mutating func faultRun() {
            let relationship = Int.random(in: 1...3, using: &random)
            let length = Int.random(in: 1...25, using: &random)
            let objectFaults = Bool.random(using: &random)
            let key = objectFaults ? Self.objectSQL(relationship) : "Item\(relationship).rel\(relationship)"
            for _ in 0..<length {
                object += 1
                let canonical = objectFaults ? Self.objectSQL(relationship) : Self.faultSQL(relationship)
                fetch(canonical, rows: objectFaults ? 1 : Int.random(in: 0...3, using: &random))
                if objectFaults {
                    if Bool.random(using: &random) {
                        emit("annotation", "fault fulfilled from database for : 0xd0000000001\(object) <x-coredata://S/Object\(relationship)/p\(object)>")
                    }
                } else {
                    emit(
                        "annotation",
                        "to-many relationship fault \"rel\(relationship)\" for objectID 0xa7 <x-coredata://S/Item\(relationship)/p\(object)> fulfilled from database.  Got 0 rows"
                    )
                }
            }
            if length >= TraceAnalyzer.stormThreshold {
                truth.storms[key, default: (0, 0, 0)].runs += 1
                truth.storms[key]!.statements += length
                truth.storms[key]!.longest = max(truth.storms[key]!.longest, length)
            }
            // A statement of another kind ends the run, as in an app.
            fetch(Self.fetchSQL(9), rows: 2, literal: "3")
        }

        mutating func save(retry: Bool) {
            let table = "ZT\(Int.random(in: 1...3, using: &random))"
            var writes = TraceAnalyzer.Writes()
            plain("BEGIN EXCLUSIVE")
            let guarded = "UPDATE \(table) SET ZNAME = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?"
            if retry {
                plain(guarded, timed: true)
                plain("ROLLBACK")
                truth.rolledBack += 1
                truth.retried += 1
                plain("BEGIN EXCLUSIVE")
            }
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    plain("INSERT INTO \(table)(Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, ?, ?)", timed: true)
                    writes.inserts += 1
                case 1:
                    plain(guarded, timed: true)
                    writes.updates += 1
                default:
                    plain("DELETE FROM \(table) WHERE Z_PK = ? AND Z_OPT = ?", timed: true)
                    writes.deletes += 1
                }
            }
            plain("COMMIT")
            truth.transactions += 1
            truth.writes[table, default: .init()].inserts += writes.inserts
            truth.writes[table, default: .init()].updates += writes.updates
            truth.writes[table, default: .init()].deletes += writes.deletes
        }

        mutating func generate(events: Int) {
            for _ in 0..<events {
                let table = Int.random(in: 1...3, using: &random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0...2: fetch(Self.fetchSQL(table), rows: Int.random(in: 0...40, using: &random), literal: "5")
                case 3: fetch(Self.fetchSQL(table), rows: Int.random(in: 1_000...3_000, using: &random))
                case 4: count(Self.otherCountSQL(table))
                case 5:
                    count(Self.pairCountSQL(table))
                    fetch(Self.fetchSQL(table), rows: Int.random(in: 0...40, using: &random))
                    truth.countThenFetch[Self.fetchSQL(table), default: 0] += 1
                case 6, 7: faultRun()
                case 8: save(retry: false)
                default: save(retry: Bool.random(using: &random))
                }
            }
        }
    }

    @Test(arguments: 1...20)
    func reportMatchesTheGeneration(_ seed: Int) throws {
        var generator = Generator(seed: UInt64(seed))
        generator.generate(events: 150)
        let truth = generator.truth
        let data = Data((generator.lines.joined(separator: "\n") + "\n").utf8)
        let analyzer = TraceAnalyzer()
        let lines = TraceReader.read(LogLineReader(source: .data(data)), into: analyzer)
        #expect(lines == generator.lines.count)
        let report = Self.report(analyzer, lines: lines)

        #expect(Set(report.shapes.map(\.sql)) == Set(truth.shapes.keys), "seed \(seed)")
        for shape in report.shapes {
            guard let expected = truth.shapes[shape.sql] else { continue }
            #expect(shape.count == expected.count, "seed \(seed): \(shape.sql)")
            #expect(abs(shape.totalSeconds - expected.seconds) < 1e-9, "seed \(seed): \(shape.sql)")
            #expect(shape.rows == expected.rows, "seed \(seed): \(shape.sql)")
        }
        let storms = report.findings.filter { $0.kind == "faultStorm" }
        #expect(storms.count == truth.storms.count, "seed \(seed)")
        for finding in storms {
            let key = finding.relationship.map { "\(finding.entity ?? "?").\($0)" } ?? finding.sql ?? ""
            let expected = try #require(truth.storms[key], "seed \(seed): unexpected storm \(key)")
            #expect(finding.count == expected.statements, "seed \(seed): \(key)")
            #expect(
                finding.summary.contains("in \(expected.runs) run") && finding.summary.contains("(longest \(expected.longest))"),
                "seed \(seed): \(finding.summary)")
        }
        let large = report.findings.filter { $0.kind == "largeFetch" }
        #expect(Dictionary(uniqueKeysWithValues: large.map { ($0.sql ?? "", $0.count) }) == truth.largeFetches, "seed \(seed)")
        let pairs = report.findings.filter { $0.kind == "countThenFetch" }
        #expect(Dictionary(uniqueKeysWithValues: pairs.map { ($0.sql ?? "", $0.count) }) == truth.countThenFetch, "seed \(seed)")
        #expect(report.saves.transactions == truth.transactions)
        #expect(report.saves.rolledBack == truth.rolledBack)
        #expect(report.saves.retried == truth.retried)
        #expect(
            Dictionary(
                uniqueKeysWithValues: report.saves.entities.map {
                    ($0.entity, TraceAnalyzer.Writes(inserts: $0.inserts, updates: $0.updates, deletes: $0.deletes))
                })
                == truth.writes, "seed \(seed)")
        #expect(report.findings.filter { !["faultStorm", "largeFetch", "countThenFetch", "optimisticLockingRetry"].contains($0.kind) }.isEmpty, "seed \(seed)")
    }

    /// The fast path (statements numbered by a ``StatementInterner`` on the reading thread,
    /// shapes found by number) gives exactly the report of reading each line on its own, with
    /// every statement shaped from its text.
    @Test(arguments: 1...10)
    func numberedStatementsGiveTheSameReport(_ seed: Int) throws {
        var generator = Generator(seed: UInt64(seed) + 100)
        generator.generate(events: 300)
        let data = Data((generator.lines.joined(separator: "\n") + "\n").utf8)
        let fast = TraceAnalyzer()
        let lines = TraceReader.read(LogLineReader(source: .data(data)), into: fast)
        let plain = Self.analyzedLineByLine(generator.lines)
        #expect(fast.statements == plain.statements && fast.records == plain.records, "seed \(seed)")
        #expect(Self.report(fast, lines: lines) == Self.report(plain, lines: lines), "seed \(seed)")
    }

    /// Colour codes (`-com.apple.CoreData.SyntaxColoredLogging`) in some chunks of a long log
    /// only: the reader skips looking for them in the chunks without any, and still gives the
    /// report of reading each line on its own.
    @Test(arguments: 1...3)
    func colourCodesInSomeChunksOnly(_ seed: Int) throws {
        var generator = Generator(seed: UInt64(seed) + 200)
        generator.generate(events: 3000)
        let lines = generator.lines.enumerated().map { index, line in
            index > generator.lines.count / 2 && index % 5 == 0
                ? line.replacingOccurrences(of: "CoreData: ", with: "\u{1B}[32mCoreData: \u{1B}[0m") : line
        }
        let data = Data((lines.joined(separator: "\n") + "\n").utf8)
        #expect(data.count > 4 << 16, "seed \(seed): \(data.count) bytes, not several chunks")
        #expect(lines.contains { $0.contains("\u{1B}") }, "seed \(seed)")
        let fast = TraceAnalyzer()
        let lineCount = TraceReader.read(LogLineReader(source: .data(data)), into: fast)
        let plain = Self.analyzedLineByLine(lines)
        #expect(fast.statements == plain.statements && fast.records == plain.records && fast.statements > 0, "seed \(seed)")
        #expect(Self.report(fast, lines: lineCount) == Self.report(plain, lines: lineCount), "seed \(seed)")
    }

    /// The slow, obvious reading the fast paths are checked against: each line parsed on its own,
    /// a line that is no record continuing the statement before it.
    static func analyzedLineByLine(_ lines: [String]) -> TraceAnalyzer {
        let plain = TraceAnalyzer()
        for line in lines {
            var text = line
            text.withUTF8 { bytes in
                if LogRecordParser.withRecord(in: bytes, { plain.consume($0, $1) }) == nil, plain.acceptsContinuation {
                    _ = plain.continueStatement(line)
                }
            }
        }
        plain.finish()
        return plain
    }

    /// The whole report of `analyzer`, every shape listed.
    static func report(_ analyzer: TraceAnalyzer, lines: Int) -> TraceReport {
        TraceReport.build(from: analyzer, lines: lines, names: nil, namesKind: "none", namesFrom: nil, snapshot: nil, top: .max)
    }
}
