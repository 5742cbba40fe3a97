@testable import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Every model the corpus holds, in every form: source and compiled bundles and files, ruby-xcdm
/// schemas, and the models cached in stores (read from copies).
enum CorpusModels {
    /// Model files and bundles, relative to the corpus root. Versions inside a bundle are also
    /// listed on their own: duplicates cost nothing, since pictures are checked once per text.
    static let files: [String] = [".xcdatamodeld", ".xcdatamodel", ".momd", ".mom", ".rb"]
        .flatMap { Corpus.files(endingWith: $0) }.sorted()

    /// Every version of every model file, by "path: version name", and the files that did not
    /// load, with why.
    static let fileVersions: (versions: [(source: String, version: ModelVersion)], failures: [String]) = {
        var versions: [(String, ModelVersion)] = [], failures: [String] = []
        for path in files {
            do {
                versions += try ModelFiles.versions(at: Corpus.url(path)).map { ("\(path): \($0.name)", $0) }
            } catch {
                failures.append("\(path): \(error)")
            }
        }
        return (versions, failures)
    }()

    /// The model cached in each store that has one (read from a private copy).
    static let cachedVersions: [(source: String, version: ModelVersion)] =
        Corpus.facts { store in try ModelSource.cachedVersion(at: Corpus.copyStore(store).path).first }
        .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }

    static var all: [(source: String, version: ModelVersion)] { fileVersions.versions + cachedVersions }
}

@Suite(.temporaryDirectories) struct ModelDiagramCorpusTests {
    static let dotExecutable = ["/usr/bin/dot", "/usr/local/bin/dot", "/opt/homebrew/bin/dot"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `dot -Tsvg` on `text`; returns the exit status, the SVG and what dot wrote to stderr.
    static func renderSVG(_ text: String) throws -> (status: Int32, svg: String, errors: String) {
        let folder = try TemporaryDirectory.make()
        let input = folder.appendingPathComponent("model.dot"), output = folder.appendingPathComponent("model.svg")
        try text.write(to: input, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(dotExecutable, "Graphviz's dot is needed (Debian: graphviz)"))
        process.arguments = ["-Tsvg", "-o", output.path, input.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let svg = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return (process.terminationStatus, svg, message)
    }

    /// The numbers of sources, so that a corpus change or a loader that stops working cannot
    /// shrink the test below unnoticed.
    @Test func everySourceKindIsCovered() {
        let files = CorpusModels.files
        #expect(files.filter { $0.hasSuffix(".xcdatamodeld") }.count == 13)
        #expect(files.filter { $0.hasSuffix(".momd") }.count == 4)
        #expect(files.filter { $0.hasSuffix(".rb") }.count == 3)
        #expect(CorpusModels.fileVersions.failures.isEmpty, "\(CorpusModels.fileVersions.failures)")
        #expect(CorpusModels.fileVersions.versions.count == 85)
        #expect(CorpusModels.cachedVersions.count == 31)
    }

    /// Graphviz renders the DOT of every corpus model without an error or a warning, and draws
    /// a node for every entity.
    @Test func dotOfEveryCorpusModelRenders() throws {
        var checked = Set<String>()
        for (source, version) in CorpusModels.all {
            let text = ModelDiagram.dot(version)
            guard checked.insert(text).inserted else { continue }
            let result = try Self.renderSVG(text)
            #expect(result.status == 0 && result.errors.isEmpty, "\(source): \(result.errors)")
            let titles = Set(result.svg.components(separatedBy: "<title>").dropFirst().compactMap { $0.components(separatedBy: "</title>").first })
            for entity in version.model.entities {
                #expect(titles.contains(ModelDiagram.html(entity.name)), "\(source): no node for \(entity.name)")
            }
        }
        #expect(checked.count >= 60)
    }

    /// The Mermaid text of every corpus model, read back: every entity, every relationship once
    /// (an inverse pair on one line), every parent.
    @Test func mermaidOfEveryCorpusModelReadsBack() throws {
        for (source, version) in CorpusModels.all {
            try MermaidDiagram.check(ModelDiagram.mermaid(version), against: version.model, source: source)
        }
    }
}

@Suite(.temporaryDirectories) struct ModelDiagramTests {
    /// A model whose names are hostile to both languages: quotes, a trailing backslash, markup,
    /// braces, a Mermaid keyword, an entity called like a generated Mermaid ID.
    static let oddModel: ManagedObjectModel = {
        func attribute(_ name: String, _ type: AttributeType, optional: Bool = false) -> PropertyDescription {
            .attribute(AttributeDescription(common: PropertyCommon(name: name, isOptional: optional), type: type))
        }
        func relationship(
            _ name: String, to destination: String, inverse: String?, toMany: Bool = false,
            ordered: Bool = false, rule: DeleteRule = .nullify
        ) -> PropertyDescription {
            .relationship(
                RelationshipDescription(
                    common: PropertyCommon(name: name, isOptional: true), destinationEntity: destination,
                    inverseName: inverse, inverseEntity: inverse == nil ? nil : destination,
                    maxCount: toMany ? 0 : 1, deleteRule: rule, isOrdered: ordered))
        }
        return ManagedObjectModel(entities: [
            EntityDescription(
                name: "Say \"hi\"\\", isAbstract: true,
                properties: [
                    attribute("a<b>&c", .string, optional: true),
                    attribute("{x}", .integer16),
                    relationship("items", to: "class", inverse: "owner", toMany: true, ordered: true, rule: .cascade),
                ]),
            EntityDescription(
                name: "class", parentName: "entity_1",
                properties: [
                    relationship("owner", to: "Say \"hi\"\\", inverse: "items"),
                    relationship("#1; (x)", to: "class", inverse: nil),
                ]),
            EntityDescription(name: "entity_1", properties: [attribute("name", .date)]),
        ])
    }()

    @Test func oddNamesRenderWithGraphviz() throws {
        let result = try ModelDiagramCorpusTests.renderSVG(ModelDiagram.dot(ModelVersion(name: "odd \"one\"", current: true, model: Self.oddModel)))
        #expect(result.status == 0 && result.errors.isEmpty, "\(result.errors)")
        // Node titles are the IDs; the HTML labels show the names as they are.
        #expect(result.svg.contains("<title>Say &quot;hi&quot;\\\\</title>"))
        #expect(result.svg.contains(">Say &quot;hi&quot;\\</text>"))
        #expect(result.svg.contains(">a&lt;b&gt;&amp;c: String?</text>"))
        #expect(result.svg.contains(">{x}: Integer 16</text>"))
    }

    @Test func oddNamesReadBackFromMermaid() throws {
        let text = ModelDiagram.mermaid(ModelVersion(name: "odd", current: true, model: Self.oddModel))
        try MermaidDiagram.check(text, against: Self.oddModel, source: "odd")
        // The keyword and the names that are not identifiers get generated IDs, which avoid the
        // entity literally called entity_1.
        #expect(
            text.contains("\n  class entity_2[\"Say #34;hi#34;#92;\"] {\n    <<abstract>>\n    a#60;b#62;#38;c: String?\n    #123;x#125;: Integer 16\n  }\n"))
        #expect(text.contains("\n  class entity_3[\"class\"]\n"))
        #expect(text.contains("\n  entity_2 \"0..1\" -- \"0..*\" entity_3 : Say #34;hi#34;#92;.items (ordered, cascade) / class.owner (nullify)\n"))
        #expect(text.contains("\n  entity_3 --> \"0..1\" entity_3 : class.#35;1#59; #40;x#41; (nullify)\n"))
        #expect(text.hasSuffix("\n  entity_1 <|-- entity_3"))
    }

    @Test func multiplicities() {
        func relationship(optional: Bool, min: Int, max: Int) -> RelationshipDescription {
            RelationshipDescription(common: PropertyCommon(name: "r", isOptional: optional), destinationEntity: "E", minCount: min, maxCount: max)
        }
        #expect(ModelDiagram.multiplicity(relationship(optional: true, min: 0, max: 1)) == "0..1")
        // Xcode 4 wrote minCount 1 on optional to-ones.
        #expect(ModelDiagram.multiplicity(relationship(optional: true, min: 1, max: 1)) == "0..1")
        #expect(ModelDiagram.multiplicity(relationship(optional: false, min: 0, max: 1)) == "1")
        #expect(ModelDiagram.multiplicity(relationship(optional: true, min: 0, max: 0)) == "0..*")
        #expect(ModelDiagram.multiplicity(relationship(optional: false, min: 3, max: 10)) == "3..10")
        #expect(ModelDiagram.multiplicity(relationship(optional: false, min: 0, max: 0)) == "1..*")
        // ruby-xcdm's Xcode 4 style: maxCount -1 is an unbounded to-many.
        #expect(ModelDiagram.multiplicity(relationship(optional: true, min: 1, max: -1)) == "0..*")
    }
}

/// A reader for the Mermaid text ``ModelDiagram/mermaid(_:)`` writes, which checks it against the
/// model it was drawn from.
enum MermaidDiagram {
    struct ClassBlock {
        var name: String
        var isAbstract = false
        var members: [String] = []
    }

    /// A relationship end as the picture shows it: the entity declaring it and its name.
    struct End: Hashable, CustomStringConvertible {
        var entity: String
        var name: String
        var description: String { "\(entity).\(name)" }
    }

    /// `#code;` entities back to characters.
    static func decode(_ text: String) -> String {
        var result = "", rest = Substring(text)
        while let hash = rest.firstIndex(of: "#") {
            result += rest[..<hash]
            let afterHash = rest.index(after: hash)
            if let semicolon = rest[afterHash...].firstIndex(of: ";"), let code = UInt32(rest[afterHash..<semicolon]),
                let scalar = Unicode.Scalar(code)
            {
                result.unicodeScalars.append(scalar)
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "#"
                rest = rest[afterHash...]
            }
        }
        return result + rest
    }

    static func match(_ line: String, _ pattern: String) -> [String]? {
        guard let expression = try? NSRegularExpression(pattern: "^" + pattern + "$"),
            let found = expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line))
        else { return nil }
        return (0..<found.numberOfRanges).map { index in
            Range(found.range(at: index), in: line).map { String(line[$0]) } ?? ""
        }
    }

    /// The end an end label (`Entity.name (notes)`) names, with the entity that declares the
    /// relationship: the label's entity or the ancestor it inherits the relationship from.
    static func end(_ label: String, in model: ManagedObjectModel) -> End {
        // Names are escaped, so the first " (" starts the notes and the only "." is the separator.
        let path = label.range(of: " (").map { label[..<$0.lowerBound] } ?? label[...]
        let words = path.split(separator: ".", maxSplits: 1).map { decode(String($0)) }
        let entity = words.first ?? "", name = words.count > 1 ? words[1] : ""
        let owner = model.lineage(of: entity).first { $0.relationships.contains { $0.name == name } }
        return End(entity: owner?.name ?? entity, name: name)
    }

    static func check(_ text: String, against model: ManagedObjectModel, source: String) throws {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
        #expect(lines.popFirst() == "classDiagram", "\(source)")
        var classes: [String: ClassBlock] = [:]
        var ends: [End] = []
        var pairs: [Set<End>] = []
        var parents: [String: String] = [:]
        var open: String?
        func name(_ id: String) -> String { classes[id]?.name ?? id }
        while let line = lines.popFirst() {
            if let id = open {
                if line == "  }" {
                    open = nil
                } else if line == "    <<abstract>>" {
                    classes[id]?.isAbstract = true
                } else if line.hasPrefix("    ") {
                    classes[id]?.members.append(decode(String(line.dropFirst(4))))
                } else {
                    Issue.record("\(source): unexpected line in a class block: \(line)")
                }
            } else if let parts = match(line, #"  class (\w+)(?:\["([^"]*)"\])?( \{)?"#) {
                #expect(classes[parts[1]] == nil, "\(source): class \(parts[1]) declared twice")
                classes[parts[1]] = ClassBlock(name: parts[2].isEmpty ? parts[1] : decode(parts[2]))
                if !parts[3].isEmpty { open = parts[1] }
            } else if let parts = match(line, #"  (\w+) "([^"]+)" -- "([^"]+)" (\w+) : (.+) / (.+)"#) {
                let forward = end(parts[5], in: model), inverse = end(parts[6], in: model)
                #expect(forward.entity == name(parts[1]), "\(source): \(line)")
                ends += forward == inverse ? [forward] : [forward, inverse]
                pairs.append([forward, inverse])
            } else if let parts = match(line, #"  (\w+) --> "([^"]+)" (\w+) : (.+)"#) {
                ends.append(end(parts[4], in: model))
                #expect(ends.last?.entity == name(parts[1]), "\(source): \(line)")
            } else if let parts = match(line, #"  (\w+) <\|-- (\w+)"#) {
                #expect(parents[name(parts[2])] == nil, "\(source): \(name(parts[2])) has two parents")
                parents[name(parts[2])] = name(parts[1])
            } else {
                Issue.record("\(source): unexpected line: \(line)")
            }
        }
        #expect(open == nil, "\(source): a class block is not closed")

        let blocks = Dictionary(classes.values.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(blocks.count == model.entities.count, "\(source): \(blocks.count) classes for \(model.entities.count) entities")
        var expectedEnds: [End] = []
        for entity in model.entities {
            guard let block = blocks[entity.name] else {
                Issue.record("\(source): no class for \(entity.name)")
                continue
            }
            #expect(block.isAbstract == entity.isAbstract, "\(source): \(entity.name)")
            #expect(block.members.map { String($0.prefix { $0 != ":" }) } == entity.attributes.map(\.name), "\(source): \(entity.name)")
            for relationship in entity.relationships {
                let end = End(entity: entity.name, name: relationship.name)
                expectedEnds.append(end)
                // An inverse that names this relationship back shares its line.
                guard let inverseName = relationship.inverseName else { continue }
                let owner = model.lineage(of: relationship.inverseEntity ?? relationship.destinationEntity).first {
                    $0.relationships.contains { $0.name == inverseName }
                }
                guard let owner, owner.relationships.first(where: { $0.name == inverseName })?.inverseName == relationship.name else { continue }
                let inverseEnd = End(entity: owner.name, name: inverseName)
                #expect(pairs.contains([end, inverseEnd]), "\(source): \(end) and \(inverseEnd) are not drawn as one pair")
            }
        }
        #expect(
            ends.sorted { $0.description < $1.description } == expectedEnds.sorted { $0.description < $1.description },
            "\(source): relationships drawn differ from the model's, or some are drawn twice")
        let expectedParents = Dictionary(
            model.entities.compactMap { entity in entity.parentName.map { (entity.name, $0) } },
            uniquingKeysWith: { first, _ in first })
        #expect(parents == expectedParents, "\(source)")
    }
}
