import CDBase
import CDArchive
import CDTestSupport
import Foundation
import GRDB
import Testing

/// Mutates copies of real stores the way a damaged disk, a bad copy or a buggy writer would, and
/// runs the reading commands on them: none may crash. Every outcome must be an exit status of 0,
/// 1 or 2, and status 2 must come with one non-empty `cdstore: error:` line.
///
/// Seeded, so a failure is reproducible: `CDSTORE_FUZZ_SEED` picks the seed (random otherwise,
/// and printed), `CDSTORE_FUZZ_CASES` the number of cases. `scripts/fuzz.sh N` runs this test
/// for N cases and keeps the stores that crashed cdstore.
@Suite(.temporaryDirectories) struct StoreMutationFuzzTests {
    /// The stores mutated, with the model `compat` compares them to when the corpus has one.
    static let stores: [(path: String, model: String?)] = [
        ("cdplus-samplemodel3/SampleModel3_V1.sqlite", "cdplus-samplemodel3/SampleModel3.xcdatamodeld"),
        ("cdplus-samplemodel2/SampleModel2_V1.sqlite", nil),
        ("osxphotos-clscontactcache-10.15.4/CLSContactCache.sqlite", nil),
        ("osxphotos-photosgraph-10.12.6/photosgraph.graphdb", nil),
    ]

    @Test func mutatedStoresNeverCrash() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["CDSTORE_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        let cases = environment["CDSTORE_FUZZ_CASES"].flatMap(Int.init) ?? 24
        let keep = environment["CDSTORE_FUZZ_KEEP"].map { URL(fileURLWithPath: $0, isDirectory: true) }
        print("store mutation fuzz: seed \(seed), \(cases) cases")
        var random = SplitMix64(seed: seed)
        for index in 0..<cases {
            let store = Self.stores[index % Self.stores.count]
            let copy = try Corpus.copyStore(store.path)
            let mutation = try StoreMutator.mutate(copy, random: &random)
            var commands = [
                ["inspect", copy.path], ["dump", copy.path, "--format", "json"], ["dump", copy.path],
                ["validate", copy.path], ["model", copy.path, "--sql"],
            ]
            if let model = store.model { commands.append(["compat", copy.path, "--model", Corpus.url(model).path]) }
            for arguments in commands {
                let result = try CommandRunner.run(arguments)
                let errorLines = result.stderr.split(separator: "\n")
                let acceptable =
                    [0, 1].contains(result.status)
                    || (result.status == 2 && errorLines.count == 1 && errorLines[0].hasPrefix("cdstore: error: ") && errorLines[0].count > 16)
                if !acceptable {
                    let kept = try keep.map { try Self.keepStore(copy, in: $0, seed: seed, index: index) }
                    print(
                        "store mutation fuzz: CRASH seed \(seed) case \(index) (\(mutation)): status \(result.status)"
                            + " — reproduce: cdstore \(arguments.dropFirst().isEmpty ? arguments[0] : ([arguments[0], kept?.path ?? copy.path] + arguments.dropFirst(2)).joined(separator: " "))"
                    )
                }
                #expect(
                    acceptable,
                    "seed \(seed) case \(index) \(mutation): cdstore \(arguments.joined(separator: " ")) → \(result.status): \(result.stderr.prefix(300))")
            }
            try? FileManager.default.removeItem(at: copy.deletingLastPathComponent())
        }
    }

    /// Moves the mutated store where `scripts/fuzz.sh` keeps crashing cases.
    static func keepStore(_ copy: URL, in folder: URL, seed: UInt64, index: Int) throws -> URL {
        let target = folder.appendingPathComponent("seed\(seed)-case\(index)", isDirectory: true)
        if !FileManager.default.fileExists(atPath: target.path) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: copy.deletingLastPathComponent(), to: target)
        }
        return target.appendingPathComponent(copy.lastPathComponent)
    }
}

/// A small seeded generator (SplitMix64), so a seed replays the same mutations everywhere.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The mutations: damaged metadata and model cache, wrong SQLite types and out-of-range numbers
/// in Core Data's columns, dropped or renamed tables, random pages and WAL frames.
enum StoreMutator {
    /// SQL literals of every storage class, and numbers no column should hold.
    static let hostileValues = [
        "'x'", "''", "x'00ff'", "1.5", "-1", "0", "NULL", "1099511627776", "-1099511627776",
        "9223372036854775807", "-9223372036854775808", "'12'", "x''",
    ]

    /// Applies one mutation chosen by `random` and describes it.
    static func mutate(_ store: URL, random: inout SplitMix64) throws -> String {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return try filePages(store, random: &random)
        case 1: return try walFrames(store, random: &random)
        default: return try sql(store, random: &random)
        }
    }

    private static func sql(_ store: URL, random: inout SplitMix64) throws -> String {
        let database = try DatabaseQueue(path: store.path)
        defer { try? database.close() }
        var description = ""
        try database.write { db in
            for trigger in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'") {
                try db.execute(sql: "DROP TRIGGER \(trigger.quotedSQLIdentifier)")
            }
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' ORDER BY name")
            // A store without the table a mutation needs (no model cache, say) is left as it is.
            let statement = (try? statement(db, tables: tables, random: &random)) ?? "SELECT 1"
            description = statement.count > 160 ? String(statement.prefix(160)) + "…" : statement
            // A mutation SQLite refuses (text into Z_PK, say) leaves the store as it was.
            try? db.execute(sql: statement)
        }
        return description
    }

    private static func statement(_ db: Database, tables: [String], random: inout SplitMix64) throws -> String {
        let value = hostileValues.randomElement(using: &random) ?? "NULL"
        let statement: String
        switch Int.random(in: 0..<8, using: &random) {
        case 0:
            statement =
                "UPDATE Z_PRIMARYKEY SET \(["Z_ENT", "Z_SUPER", "Z_MAX", "Z_NAME"].randomElement(using: &random) ?? "Z_MAX") = \(value)"
                + " WHERE rowid IN \(try rows(db, "Z_PRIMARYKEY", count: 1, random: &random))"
        case 1:
            statement = "UPDATE Z_METADATA SET Z_PLIST = \(literal(damaged(try blob(db, "SELECT Z_PLIST FROM Z_METADATA"), random: &random)))"
        case 2:
            statement = "UPDATE Z_MODELCACHE SET Z_CONTENT = \(literal(damaged(try blob(db, "SELECT Z_CONTENT FROM Z_MODELCACHE"), random: &random)))"
        case 3:
            let archive = try RawInflate.inflate(try blob(db, "SELECT Z_CONTENT FROM Z_MODELCACHE"))
            // A valid deflate stream of a damaged archive: the archive reader must cope.
            let deflated = try RawDeflate.deflate(Data(damaged(archive, random: &random)))
            statement = "UPDATE Z_MODELCACHE SET Z_CONTENT = \(literal([UInt8](deflated)))"
        case 4:
            let table = tables.randomElement(using: &random) ?? "Z_PRIMARYKEY"
            statement =
                Bool.random(using: &random)
                ? "DROP TABLE \(table.quotedSQLIdentifier)"
                : "ALTER TABLE \(table.quotedSQLIdentifier) RENAME TO \("X" + table)"
        default:
            let entityTables = tables.filter { !["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains($0) }
            let table = entityTables.randomElement(using: &random) ?? "Z_PRIMARYKEY"
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedSQLIdentifier))").compactMap { $0["name"] as String? }
            let column = columns.randomElement(using: &random) ?? "Z_ENT"
            statement =
                "UPDATE \(table.quotedSQLIdentifier) SET \(column.quotedSQLIdentifier) = \(value)"
                + " WHERE rowid IN \(try rows(db, table, count: 3, random: &random))"
        }
        return statement
    }

    /// A subquery for `count` rows of `table` from an offset the seed picks (not SQLite's
    /// `random()`, which the seed does not govern).
    private static func rows(_ db: Database, _ table: String, count: Int, random: inout SplitMix64) throws -> String {
        let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedSQLIdentifier)") ?? 0
        let offset = total > 0 ? Int.random(in: 0..<total, using: &random) : 0
        return "(SELECT rowid FROM \(table.quotedSQLIdentifier) ORDER BY rowid LIMIT \(count) OFFSET \(offset))"
    }

    /// Overwrites up to three bytes of a random page of the main file.
    private static func filePages(_ store: URL, random: inout SplitMix64) throws -> String {
        try scribble(on: store, skipping: 0, random: &random)
    }

    /// Overwrites bytes in the `-wal` file's frames, when there is one.
    private static func walFrames(_ store: URL, random: inout SplitMix64) throws -> String {
        let wal = URL(fileURLWithPath: store.path + "-wal")
        guard (StoreFilesSize.of(wal) ?? 0) > 32 else { return try filePages(store, random: &random) }
        return try scribble(on: wal, skipping: 32, random: &random)
    }

    private static func scribble(on file: URL, skipping header: Int, random: inout SplitMix64) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: file))
        guard bytes.count > header else { return "nothing to scribble on" }
        var changed: [Int] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let offset = Int.random(in: header..<bytes.count, using: &random)
            bytes[offset] = UInt8.random(in: 0...255, using: &random)
            changed.append(offset)
        }
        try Data(bytes).write(to: file)
        return "\(file.lastPathComponent): bytes at \(changed.map(String.init).joined(separator: ", "))"
    }

    private static func blob(_ db: Database, _ sql: String) throws -> Data {
        try Data.fetchOne(db, sql: sql) ?? Data()
    }

    /// `data` with a few bytes changed, or cut short.
    private static func damaged(_ data: Data, random: inout SplitMix64) -> [UInt8] {
        var bytes = [UInt8](data)
        if bytes.isEmpty { return [0] }
        if Int.random(in: 0..<4, using: &random) == 0 {
            bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
        } else {
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
        }
        return bytes
    }

    /// A SQL blob literal.
    private static func literal(_ bytes: [UInt8]) -> String {
        "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'"
    }
}

/// The size of a file, or nil when it does not exist.
enum StoreFilesSize {
    static func of(_ url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size].flatMap { ($0 as? NSNumber)?.intValue }
    }
}
