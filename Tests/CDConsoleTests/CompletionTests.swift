import CDConsole
import CDModel
import CDTestSupport
import Foundation
import Testing

/// The completion engine on its own: a pure function of the line, the cursor and the model.
@Suite struct CompletionTests {
    /// The Articles sample's model (Article ->author-> Author ->>articles), read once.
    static let model: ManagedObjectModel? = try? TemporaryDirectory.withScope {
        let copy = try TemporaryDirectory.make().appendingPathComponent("Articles.sqlite")
        try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/Articles.sqlite"), to: copy)
        return try ConsoleSession(storePath: copy.path, modelPath: nil, traceLevel: 0).model
    }

    static func complete(_ line: String, listing: [String: [String]] = [:]) throws -> Completion {
        let model = try #require(Self.model)
        return CompletionEngine.complete(line: line, cursor: line.count, model: model, listDirectory: { listing[$0] ?? [] })
    }

    @Test func entityNames() throws {
        #expect(try Self.complete("Art") == Completion(start: 0, candidates: ["Article"]))
        #expect(try Self.complete("A").candidates == ["Article", "Author"])
        #expect(try Self.complete("  Au") == Completion(start: 2, candidates: ["Author"]))
    }

    @Test func methodsAfterADot() throws {
        let completion = try Self.complete("Article.so")
        #expect(completion == Completion(start: 8, candidates: ["sort_by"]))
        #expect(try Self.complete("Article.where(:title).").candidates.contains("contains"))
        #expect(try Self.complete("Article.where(:title).eq('x').").candidates.contains("sort_by"))
        #expect(try Self.complete("Article.where(:title).eq('x').").candidates.contains("eq") == false)
    }

    @Test func attributesAfterWhere() throws {
        #expect(try Self.complete("Article.where(:") == Completion(start: 15, candidates: ["author", "body", "published_at", "title"]))
        #expect(try Self.complete("Article.where(:ti") == Completion(start: 15, candidates: ["title"]))
        #expect(try Self.complete("Article.sort_by(:pub").candidates == ["published_at"])
        #expect(try Self.complete("Author.sum('na").candidates == ["name"])
    }

    @Test func keyPathsThroughRelationships() throws {
        #expect(try Self.complete("Article.where(:\"author.na") == Completion(start: 16, candidates: ["author.name"]))
        #expect(try Self.complete("Article where author.na") == Completion(start: 14, candidates: ["author.name"]))
        #expect(try Self.complete("Author where articles.ti").candidates == ["articles.title"])
        #expect(try Self.complete("Article where nope.x").candidates.isEmpty)
    }

    @Test func insidePredicates() throws {
        #expect(try Self.complete("Article.where(\"title BEGINSWITH 'x' AND bo").candidates == ["body"])
        #expect(try Self.complete("Article where title == 'x' AND au").candidates == ["author"])
        #expect(try Self.complete("Article sort by ti").candidates == ["title"])
        #expect(try Self.complete("Article ").candidates == ["limit", "offset", "sort by", "where"])
    }

    @Test func objectIDs() throws {
        #expect(try Self.complete("Author/p1.ar") == Completion(start: 10, candidates: ["articles"]))
        #expect(try Self.complete("x-coredata://F0843FEE/Article/p1.").candidates == ["author"])
    }

    @Test func dotCommands() throws {
        #expect(try Self.complete(".sch") == Completion(start: 0, candidates: [".schema"], terminator: " "))
        let candidates = try Self.complete(".e").candidates
        #expect(candidates == [".echo", ".entities", ".exit", ".explain"], "\(candidates)")
        #expect(try Self.complete(".schema Au") == Completion(start: 8, candidates: ["Author"]))
        #expect(try Self.complete(".format j").candidates == ["json"])
        #expect(try Self.complete(".timer o").candidates == ["off", "on"])
        #expect(try Self.complete(".sql Article.where(:ti").candidates == ["title"])
        #expect(try Self.complete(".template Author \"{na").candidates == ["name"])
        #expect(try Self.complete(".template Author \"{na").terminator == "}")
    }

    @Test func filePaths() throws {
        let listing = [".": ["Stores/", "notes.txt", ".hidden"], "Stores/": ["A.sqlite", "B.sqlite"]]
        #expect(try Self.complete(".open St", listing: listing).candidates == ["Stores/"])
        #expect(try Self.complete(".open Stores/", listing: listing).candidates == ["Stores/A.sqlite", "Stores/B.sqlite"])
        #expect(try Self.complete(".output ", listing: listing).candidates == ["Stores/", "notes.txt", "stdout"])
        #expect(try Self.complete(".compat no", listing: listing).candidates == ["notes.txt"])
    }

    @Test func commonPrefix() {
        #expect(Completion(start: 0, candidates: ["published_at", "publisher"]).commonPrefix == "publishe")
    }
}
