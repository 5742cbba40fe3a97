@testable import CDTrace
import CDModel
import CDSession
import CDStore
import CDTestSupport
import Foundation
import Testing

/// `trace` on the logs cdstore's own `--sql-debug 1`–`4` writes for corpus stores, and the
/// model's names checked on corpus stores with inheritance (CoreDataPlus's Car → SportCar →
/// ExpensiveSportCar) and many-to-many join tables (Accounts3).
@Suite(.temporaryDirectories) struct CorpusLogTests {
    static let cars = "cdplus-samplemodel/SampleModel_V1.sqlite"
    static let accounts = "plaso-accounts3/Accounts3.sqlite"

    static func report(_ arguments: [String], stdin: String) throws -> TraceReport {
        let result = CommandRunner.runInProcess(["trace", "-", "--json", "--top", "100"] + arguments, stdin: Data(stdin.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(TraceReport.self, from: Data(result.stdout.utf8))
    }

    /// The SQL debug log of `query` on `store` at `level`.
    static func log(_ store: URL, _ query: [String], level: Int) -> String {
        let result = CommandRunner.runInProcess(["query", store.path] + query + ["--format", "ndjson", "--sql-debug", "\(level)"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stderr
    }

    /// At every level: the store comes from the log's own `Connecting to` line, every fetch is
    /// one statement of its shape with the rows the query printed, in the model's names.
    @Test(arguments: 1...4)
    func cdstoresOwnLogAtEachLevel(_ level: Int) throws {
        let store = try Corpus.copyStore(Self.cars)
        let queries: [([String], String, Int)] = [
            // Level 1 does not log the fetch's entity, only its table (the hierarchy's root's).
            (["SportCar where maker == 'BMW'"], "\(level == 1 ? "Car" : "SportCar") where ((Car.entity >= ? AND Car.entity <= ?) AND Car.maker = ?)", 2),
            (["Person where cars.@count > 1"], "Person where (SELECT COUNT(Car.objectID) FROM Car t1 WHERE (Person.objectID = Car.owner)) > ?", -1),
            (["Car where owner.lastName == 'x'", "--count"], "count of Car where Person.lastName = ?", -1),
        ]
        var text = ""
        var rows: [Int] = []
        for (query, _, _) in queries {
            text += Self.log(store, query, level: level)
            let output = CommandRunner.runInProcess(["query", store.path] + query + ["--format", "ndjson"]).stdout
            rows.append(output.split(separator: "\n").count)
        }
        let report = try Self.report([], stdin: text)
        #expect(report.input.names == "store")
        #expect(report.input.namesFrom == store.path)
        #expect(report.input.loggedStore == store.path)
        // Core Data's opening statements for each query, then its fetch: every `sql:` line.
        #expect(report.input.statements == text.split(separator: "\n").filter { $0.hasPrefix("CoreData: sql: ") }.count)
        #expect(report.input.statements == queries.count * 8 + queries.count)
        for (index, (_, readable, _)) in queries.enumerated() {
            let shape = try #require(report.shapes.first { $0.readable == readable }, "level \(level): \(readable) in \(report.shapes.compactMap(\.readable))")
            #expect(shape.count == 1)
            if shape.kind != "count" { #expect(shape.rows == rows[index], "level \(level): \(readable)") }
        }
        if level >= 2 {
            #expect(report.shapes.first { $0.readable?.hasPrefix("SportCar") == true }?.entity == "SportCar")
        }
    }

    /// A filtered fetch on an attribute without an index: the store's plan (run read-only) and,
    /// at level 4, the logged plan both show the scan, named in the model's terms.
    @Test func tableScanFromTheStoreAndFromTheLog() throws {
        let store = try Corpus.copyStore(Self.accounts)
        let before = try Checksums.of(directory: store.deletingLastPathComponent())
        let query = ["Account where username == 'nobody@example.com'"]
        for level in [1, 4] {
            let report = try Self.report(["--store", store.path], stdin: Self.log(store, query, level: level))
            let scan = try #require(report.findings.first { $0.kind == "tableScan" }, "level \(level)")
            #expect(scan.entity == "Account")
            #expect(scan.summary.hasPrefix("Account filtered on username reads every row of ZACCOUNT (the \(level == 4 ? "logged" : "store's") plan: SCAN"))
            #expect(scan.fix == "add a fetch index on Account (username) in the model: Xcode's model editor, Account, Indexes")
            #expect(scan.readable == "Account where Account.username = ?")
        }
        // An indexed key is no scan.
        let indexed = try Self.report(["--store", store.path], stdin: Self.log(store, ["Account where accountType.identifier == 'x'"], level: 1))
        #expect(!indexed.findings.contains { $0.kind == "tableScan" && $0.summary.contains("accountType") })
        #expect(try Checksums.of(directory: store.deletingLastPathComponent()) == before)
    }

    /// Every entity's table names the entity's root (the model, walked independently of the
    /// mapping); every to-many with a to-one inverse and every many-to-many, fetched the way
    /// Core Data fires its fault (docs/format/sqldebug.md §5), is named as that relationship.
    @Test(arguments: [cars, accounts, "cdplus-samplemodel2/SampleModel2_V1.sqlite", "plaso-notestore-ios/NoteStore.sqlite"])
    func namesOnCorpusStores(_ path: String) throws {
        let store = try Corpus.copyStore(path)
        let session = try StoreSession(storePath: store.path, modelPath: nil)
        let layout = try #require(try session.cachedModelAndMapping())
        let names = TraceNames(mapping: layout.mapping, model: layout.model)
        let model = try #require(names.model)
        func root(_ name: String) -> String {
            var current = name
            while let parent = model.entity(named: current)?.parentName { current = parent }
            return current
        }
        var checkedManyToMany = 0
        var checkedToMany = 0
        for entity in model.entities {
            let table = try #require(names.mapping.table(forEntity: entity.name))
            #expect(names.entity(ofTable: table.name) == root(entity.name), "\(path): \(entity.name)")
            for relationship in entity.relationships where relationship.isToMany {
                guard let inverseName = relationship.inverseName,
                    let inverse = model.entity(named: relationship.destinationEntity)?.relationships.first(where: { $0.name == inverseName }),
                    let destinationTable = names.mapping.table(forEntity: relationship.destinationEntity)
                else { continue }
                let sql: String
                if inverse.isToMany {
                    let join = try #require(names.mapping.joinTable(forRelationship: relationship.name, ofEntity: entity.name))
                    sql =
                        "SELECT 0, t0.Z_PK FROM \(join.table) t1 JOIN \(destinationTable.name) t0 ON t0.Z_PK = t1.\(join.destinationColumn) WHERE t1.\(join.sourceColumn) = ?"
                    #expect(
                        names.relationships(ofJoinTable: join.table).contains("\(entity.name).\(relationship.name)")
                            || names.relationships(ofJoinTable: join.table).contains("\(relationship.destinationEntity).\(inverseName)"))
                    checkedManyToMany += 1
                } else {
                    let key = try #require(names.mapping.column(forProperty: inverseName, ofEntity: relationship.destinationEntity))
                    sql = "SELECT 0, t0.Z_PK, t0.Z_OPT FROM \(destinationTable.name) t0 WHERE  t0.\(key.name) = ?"
                    checkedToMany += 1
                }
                let named = names.faultedRelationship(keyFetch: StatementShape(sql: sql))
                #expect(named?.relationship == relationship.name, "\(path): \(entity.name).\(relationship.name) from \(sql)")
                #expect(named.map { root($0.entity) == root(entity.name) } == true, "\(path): \(entity.name).\(relationship.name) from \(sql)")
            }
        }
        #expect(checkedToMany + checkedManyToMany > 0)
        if path == Self.accounts { #expect(checkedManyToMany >= 8) }
    }

    /// A store without a model cache (framework 241): its names need `--model`, its plans
    /// still come from the store.
    @Test func storeWithoutModelCache() throws {
        let store = try Corpus.copyStore("apple-recipes/Recipes.sqlite")
        let model = Corpus.url("apple-recipes/Recipes.xcdatamodel").path
        let log = CommandRunner.runInProcess(["query", store.path, "Recipe where name == 'Pizza'", "--model", model, "--sql-debug", "1"])
        #expect(log.status == 0, "\(log.stderr)")
        let refused = CommandRunner.runInProcess(["trace", "-", "--store", store.path], stdin: Data(log.stderr.utf8))
        #expect(refused.status == 2)
        #expect(
            refused.stderr.hasPrefix(
                "cdstore: error: \(store.path) has no model cache (Z_MODELCACHE, written before framework 754): pass the app's model with --model as well"))
        let report = try Self.report(["--store", store.path, "--model", model], stdin: log.stderr)
        #expect(report.input.names == "model" && report.input.plansFromStore)
        #expect(report.shapes.contains { $0.readable == "Recipe where Recipe.name = ?" })
    }

    /// A storm of to-many faults at level 1 (no annotation names them): the store's mapping
    /// names the relationship from the key the statements filter on.
    @Test func stormNamedFromTheStore() throws {
        let store = try Corpus.copyStore(Self.cars)
        var lines = [
            "CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZFIRSTNAME FROM ZPERSON t0",
            "CoreData: annotation: sql connection fetch time: 0.0001s",
            "CoreData: annotation: total fetch execution time: 0.0002s for 15 rows.",
        ]
        for _ in 0..<15 {
            lines += [
                "CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZMAKER FROM ZCAR t0 WHERE  t0.ZOWNER = ?",
                "CoreData: annotation: sql connection fetch time: 0.0001s",
                "CoreData: annotation: total fetch execution time: 0.0001s for 3 rows.",
            ]
        }
        let report = try Self.report(["--store", store.path], stdin: lines.joined(separator: "\n"))
        let storm = try #require(report.findings.first { $0.kind == "faultStorm" })
        #expect(storm.entity == "Person" && storm.relationship == "cars" && storm.count == 15)
        #expect(storm.readable == "Car where Car.owner = ?")
        let unnamed = try Self.report([], stdin: lines.joined(separator: "\n"))
        #expect(!unnamed.findings.contains { $0.kind == "faultStorm" })
    }
}
