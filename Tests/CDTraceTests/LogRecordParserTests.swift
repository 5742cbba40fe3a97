@testable import CDTrace
import CDTestSupport
import Foundation
import Testing

/// Every capture form of docs/format/web-ui-and-logs.md §4 and the pasted forms of
/// docs/format/sqldebug.md §2 give the same record; other lines give none.
@Suite struct LogRecordParserTests {
    /// The statement of sqldebug.md §8 block 3 (WordList, NSLog era).
    static let statement = "SELECT COUNT(DISTINCT t0.Z_PK) FROM ZWORD t0 JOIN ZWORDCATEGORY t1 ON t0.ZWORDCATEGORY = t1.Z_PK WHERE  t1.ZFIRSTLETTER = ?"

    static let wrapped: [(form: String, line: String)] = [
        ("plain", "CoreData: sql: \(statement)"),
        ("A: NSLog prefix (sqldebug.md §8 block 3)", "2014-07-30 11:45:15.647 WordList[65858:2586192] CoreData: sql: \(statement)"),
        ("A: process name with spaces", "2024-05-31 10:00:00.123 My App 27[123:4567] CoreData: sql: \(statement)"),
        ("B: os_log echo with category", "2026-09-06 01:44:20.057410+0000 App[5231:22116] [sql] CoreData: sql: \(statement)"),
        (
            "D: log show default, no CoreData prefix",
            "2024-01-10 11:14:38.831786-0800 0x724d65  Debug  0x0  18248  14  App: (CoreData) [com.apple.coredata:sql] sql: \(statement)"
        ),
        (
            "D: log show default, category only",
            "2024-01-10 11:14:38.831786-0800 0x724d65  Debug  0x0  18248  14  App: (CoreData) [com.apple.coredata:sql] \(statement)"
        ),
        (
            "D: log show default, with CoreData prefix",
            "2024-01-10 11:14:38.831786-0800 0x724d65  Debug  0x0  18248  14  App: (CoreData) [com.apple.coredata:sql] CoreData: sql: \(statement)"
        ),
        ("E: syslog style", "2022-08-25 15:22:01.008417+0100 localhost App[1766]: [com.apple.coredata:sql] CoreData: sql: \(statement)"),
        ("F: compact style", "2026-08-17 16:32:00.001 Df App[4242:714e3fa] [com.apple.coredata:sql] CoreData: sql: \(statement)"),
        (
            "G: ndjson",
            #"{"timestamp":"2026-03-27 02:01:31.878112-0700","messageType":"Debug","eventType":"logEvent","subsystem":"com.apple.coredata","category":"sql","eventMessage":"CoreData: sql: "#
                + statement + #"","processID":42}"#
        ),
        ("G: ndjson, message without prefix", #"{"subsystem":"com.apple.coredata","category":"sql","eventMessage":""# + statement + #""}"#),
        ("pasted without prefix", "sql: \(statement)"),
        ("pasted, cut prefix (sqldebug.md §8 block 6)", "ata: sql: \(statement)"),
        ("pasted, cut prefix (sqldebug.md §8 block 14)", " oreData: sql: \(statement)"),
        ("pasted in a comment", "    // CoreData: sql: \(statement)"),
        ("ANSI colour", "\u{1B}[32mCoreData: sql: \u{1B}[0m\(statement)"),
    ]

    @Test(arguments: wrapped.indices)
    func everyFormGivesTheStatement(_ index: Int) {
        let (form, line) = Self.wrapped[index]
        #expect(LogRecordParser.parse(line) == LogRecord(category: .sql, message: Self.statement), "\(form)")
    }

    @Test func categoriesAndAnnotations() {
        #expect(
            LogRecordParser.parse("2014-07-31 15:29:04.797 WordList[73416:2971038] CoreData: details: SQLite bind[0] = \"s\"")
                == LogRecord(category: .details, message: "SQLite bind[0] = \"s\""))
        #expect(
            LogRecordParser.parse(" CoreData: annotation: total count request execution time: 0.0002s for count of 190.")
                == LogRecord(category: .annotation, message: "total count request execution time: 0.0002s for count of 190."))
        #expect(
            LogRecordParser.parse("CoreData: annotation: sql connection fetch time: \u{1B}[31m0.0001s\u{1B}[0m")
                == LogRecord(category: .annotation, message: "sql connection fetch time: 0.0001s"))
    }

    @Test func otherLinesAreNotRecords() {
        for line in [
            "", "Filtering the log data using \"subsystem == \\\"com.apple.coredata\\\"\"",
            "Timestamp               Ty Process[PID:TID]",
            "2024-05-31 10:00:00.123 App[123:4567] Loaded 12 items",
            "Type: Debug | Timestamp: 2026-02-10 12:32:48.912971+11:00 | Process: App | Library: CoreData | TID: 0x16fc80",
            "cdstore: sql: SELECT Z_UUID, Z_PLIST FROM Z_METADATA",
            "    \"<NSManagedObject: 0x6000> (entity: Book; id: 0x1 <x-coredata://A/Book/p1>; data: {\"",
            #"{"subsystem":"com.apple.network","category":"sql","eventMessage":"sql: SELECT 1"}"#,
            "{not json",
        ] {
            #expect(LogRecordParser.parse(line) == nil, "\(line)")
        }
    }

    /// Random bytes and cut lines never crash the parser.
    @Test func randomLinesNeverCrash() {
        var generator = SeededGenerator(seed: 26)
        let pieces = ["CoreData: ", "sql: ", "annotation: ", "[com.apple.coredata:", "]", "{", "\"eventMessage\":", "\u{1B}[", "ata: ", " ", "SELECT"]
        for _ in 0..<2_000 {
            var line = ""
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                line +=
                    Bool.random(using: &generator)
                    ? pieces.randomElement(using: &generator)! : String(UnicodeScalar(UInt8.random(in: 0...127, using: &generator)))
            }
            _ = LogRecordParser.parse(line)
        }
    }
}
