import CDPredicate
import CDTestSupport
import Foundation
import Testing

/// Issue 23's differential suite: 2,000 seeded predicates generated from the real values of
/// every corpus store with a model cache, each fetched through `FetchRunner` (as `cdstore
/// query` fetches) and evaluated by the independent oracle (`ObjectGraphEvaluator`,
/// `coreDataSQL` mode), compared as sets of object IDs. Every mismatch is printed shrunk, with
/// its store, entity, expected and fetched IDs and SQL. Differences between the oracle's
/// `coreDataSQL` and `nsPredicate` modes must each come from a named quirk of the contract,
/// and, for P without a to-many join, NOT P must be disjoint from P (and cover the entity when
/// P has no nil and no to-many).
@Suite(.temporaryDirectories, .tags(.corpusWide)) struct PredicateDifferentialCorpusWideTests {
    static let seed: UInt64 = 23
    static let cases = 2_000

    @Test func generatedPredicatesReturnTheOraclesObjects() {
        let stores = PredicateDifferential.openStores()
        #expect(stores.count == PredicateDifferentialCorpusWideTests.expectedStores, "stores: \(stores.map(\.path))")
        // The same seed gives the same predicates.
        for store in stores {
            var first = PredicateGenerator(graph: store.graph, seed: Self.seed)
            var second = PredicateGenerator(graph: store.graph, seed: Self.seed)
            let a = (0..<20).map { _ in "\(first.next(from: store.entities))" }
            let b = (0..<20).map { _ in "\(second.next(from: store.entities))" }
            #expect(a == b, "\(store.path)")
        }
        let report = PredicateDifferential.run(stores, cases: Self.cases, seed: Self.seed)
        for failure in report.failures { print(failure) }
        print(report.summary)
        #expect(report.cases == Self.cases)
        #expect(report.generatorFailures.isEmpty)
        // The oracle and the fetch must both answer for most predicates, or the test says little.
        #expect(report.compared * 10 >= report.cases * 8, "only \(report.compared) of \(report.cases) compared")
        for failure in report.failures { Issue.record(Comment(rawValue: failure)) }
    }

    /// Corpus stores with a model cache and an entity of 1 to 3,000 objects.
    static let expectedStores = 27
}

/// `scripts/fuzz-predicates.sh N [SEED]`: the same comparison over any number of predicates,
/// run only when `CDSTORE_FUZZ_PREDICATES` is set (the seed from `CDSTORE_FUZZ_SEED`; only the
/// stores whose corpus path contains `CDSTORE_FUZZ_STORES`, when it is set).
@Suite(.temporaryDirectories, .tags(.slow)) struct PredicateDifferentialFuzzSlowTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test(.enabled(if: environment["CDSTORE_FUZZ_PREDICATES"] != nil))
    func fuzzPredicates() {
        let cases = Self.environment["CDSTORE_FUZZ_PREDICATES"].flatMap(Int.init) ?? 0
        let seed = Self.environment["CDSTORE_FUZZ_SEED"].flatMap(UInt64.init) ?? 23
        let stores = PredicateDifferential.openStores(matching: Self.environment["CDSTORE_FUZZ_STORES"])
        let report = PredicateDifferential.run(stores, cases: cases, seed: seed)
        for failure in report.failures { print(failure) }
        print(report.summary.replacingOccurrences(of: "predicate differential:", with: "predicate fuzz (seed \(seed)):"))
        for failure in report.failures { Issue.record(Comment(rawValue: failure)) }
    }
}
