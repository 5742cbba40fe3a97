@testable import CDModel
import CDTestSupport
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An SVG document read back with `XMLParser`: its elements with their attributes and text.
struct SVGElement {
    var name: String
    var attributes: [String: String]
    var children: [SVGElement] = []
    var text = ""

    /// Every element below this one, depth first.
    var descendants: [SVGElement] { children.flatMap { [$0] + $0.descendants } }

    func number(_ attribute: String) -> Double? { attributes[attribute].flatMap(Double.init) }

    /// Parses `text`; `nil` when it is not well-formed XML.
    static func parse(_ text: String) -> SVGElement? {
        let builder = Builder()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = builder
        return parser.parse() ? builder.root : nil
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [SVGElement] = []
        var root: SVGElement?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            stack.append(SVGElement(name: elementName, attributes: attributes))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if !stack.isEmpty { stack[stack.count - 1].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let finished = stack.popLast() else { return }
            if stack.isEmpty { root = finished } else { stack[stack.count - 1].children.append(finished) }
        }
    }
}

/// The picture ``ModelDiagram/svg(_:)`` draws, read back from its XML and checked against the
/// model it was drawn from, independently of how it was laid out.
enum SVGPicture {
    struct Box {
        var name: String
        var kind: String
        var x: Double, y: Double, width: Double, height: Double
        var texts: [String]
    }

    /// Checks everything the picture promises; `source` names the model in messages.
    static func check(_ text: String, against model: ManagedObjectModel, source: String) throws {
        let root = try #require(SVGElement.parse(text), "\(source): the SVG is not well-formed XML")
        let all = [root] + root.descendants
        #expect(root.name == "svg" && root.attributes["xmlns"] == "http://www.w3.org/2000/svg", "\(source)")

        // Self-contained and inert: nothing runs, nothing is fetched, nothing a CSP forbids.
        let allowedElements: Set = ["svg", "title", "defs", "marker", "path", "circle", "rect", "g", "text", "tspan"]
        #expect(all.allSatisfy { allowedElements.contains($0.name) }, "\(source): \(Set(all.map(\.name)).subtracting(allowedElements))")
        for element in all {
            for (name, value) in element.attributes {
                #expect(!name.lowercased().hasPrefix("on") && !name.lowercased().hasSuffix("href") && name != "style", "\(source): \(name)")
                if value.contains("url(") { #expect(value.hasPrefix("url(#cdstore-") && value.hasSuffix(")"), "\(source): \(value)") }
            }
        }

        // The canvas holds every box.
        let width = try #require(root.number("width")), height = try #require(root.number("height"))
        #expect(root.attributes["viewBox"] == "0 0 \(root.attributes["width"] ?? "") \(root.attributes["height"] ?? "")", "\(source)")
        var boxes: [Box] = []
        for group in all where group.name == "g" && (group.attributes["class"] ?? "").contains("entity") {
            let frame = try #require(group.children.first { $0.name == "rect" }, "\(source): a box without a rect")
            let texts = group.children.filter { $0.name == "text" }.map { $0.text }
            let x = try #require(frame.number("x")), y = try #require(frame.number("y"))
            let width = try #require(frame.number("width")), height = try #require(frame.number("height"))
            boxes.append(
                Box(name: group.attributes["data-entity"] ?? "", kind: group.attributes["class"] ?? "", x: x, y: y, width: width, height: height, texts: texts))
        }
        for box in boxes {
            #expect(box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height, "\(source): \(box.name) off the canvas")
        }

        // No two boxes overlap.
        for (index, first) in boxes.enumerated() {
            for second in boxes[(index + 1)...] {
                let apart =
                    first.x + first.width <= second.x || second.x + second.width <= first.x || first.y + first.height <= second.y
                    || second.y + second.height <= first.y
                #expect(apart, "\(source): \(first.name) and \(second.name) overlap")
            }
        }

        // One box per entity, listing its attributes and relationships, each inside the box at a
        // monospace font's real 0.6 em (Menlo, DejaVu Sans Mono), wide characters at two columns.
        let entityBoxes = boxes.filter { $0.kind != "missing-entity" }
        #expect(entityBoxes.map(\.name).sorted() == model.entities.map(\.name).sorted(), "\(source): entity boxes differ from the model's entities")
        let byName = Dictionary(entityBoxes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in model.entities {
            guard let box = byName[entity.name] else { continue }
            #expect(box.kind == (entity.isAbstract ? "entity abstract" : "entity"), "\(source): \(entity.name)")
            let expected =
                (entity.isAbstract ? ["«abstract»"] : []) + [entity.name]
                + entity.attributes.map { "\($0.name): \(ModelDiagram.attributeType($0))" }
                + entity.relationships.map { "\($0.name) → \($0.destinationEntity) \(ModelDiagram.multiplicity($0))" }
            #expect(box.texts == expected.map(displayed), "\(source): \(entity.name)")
        }
        for box in boxes {
            let widest = box.texts.map { $0.unicodeScalars.reduce(0.0) { $0 + ($1.value < 0x1100 ? 1 : 2) } }.max() ?? 0
            #expect(widest * 12 * 0.6 + 8 <= box.width, "\(source): \(box.name)'s text is wider than its box")
        }
        // A box for a name the model uses without defining it, and for no other.
        let used = Set(model.entities.flatMap { entity in entity.relationships.map(\.destinationEntity) + [entity.parentName].compactMap { $0 } })
        let missing = used.subtracting(model.entities.map(\.name))
        #expect(boxes.filter { $0.kind == "missing-entity" }.map(\.name).sorted() == missing.sorted(), "\(source)")

        // Every relationship on exactly one edge, an inverse pair on one edge.
        var ends: [MermaidDiagram.End] = []
        var pairs: [Set<MermaidDiagram.End>] = []
        let paths = all.filter { $0.name == "g" && $0.attributes["class"] == "relationship" }
        for edge in paths {
            let source = edge.attributes["data-source"] ?? "", name = edge.attributes["data-name"] ?? ""
            let forward = MermaidDiagram.End(entity: source, name: name)
            let path = edge.children.first { $0.name == "path" }
            #expect(path?.attributes["marker-end"] != nil, "\(source).\(name): no marker at its destination")
            guard let inverseName = edge.attributes["data-inverse"] else {
                ends.append(forward)
                #expect(path?.attributes["marker-start"] == nil, "\(source).\(name)")
                continue
            }
            #expect(path?.attributes["marker-start"] != nil, "\(source).\(name): no marker at its source")
            let destination = edge.attributes["data-destination"] ?? ""
            let owner = model.lineage(of: destination).first { $0.relationships.contains { $0.name == inverseName } }
            let inverse = MermaidDiagram.End(entity: owner?.name ?? destination, name: inverseName)
            ends += forward == inverse ? [forward] : [forward, inverse]
            pairs.append([forward, inverse])
        }
        var expectedEnds: [MermaidDiagram.End] = []
        for entity in model.entities {
            for relationship in entity.relationships {
                let end = MermaidDiagram.End(entity: entity.name, name: relationship.name)
                expectedEnds.append(end)
                guard let inverseName = relationship.inverseName,
                    let owner = model.lineage(of: relationship.inverseEntity ?? relationship.destinationEntity).first(where: {
                        $0.relationships.contains { $0.name == inverseName }
                    }),
                    owner.relationships.first(where: { $0.name == inverseName })?.inverseName == relationship.name
                else { continue }
                let inverseEnd = MermaidDiagram.End(entity: owner.name, name: inverseName)
                #expect(pairs.contains([end, inverseEnd]), "\(source): \(end) and \(inverseEnd) are not drawn as one edge")
            }
        }
        #expect(
            ends.sorted { $0.description < $1.description } == expectedEnds.sorted { $0.description < $1.description },
            "\(source): relationships drawn differ from the model's, or some are drawn twice")
        // One label per relationship edge, naming it (and its inverse), on one line or two.
        let labels = all.filter { $0.name == "g" && $0.attributes["class"] == "labels" }.flatMap { $0.children.filter { $0.name == "text" } }
            .map { text in text.children.isEmpty ? text.text : text.children.map(\.text).joined(separator: " ") }
        let expectedLabels = paths.map { edge in
            let name = edge.attributes["data-name"] ?? ""
            guard let inverse = edge.attributes["data-inverse"],
                inverse != name || edge.attributes["data-source"] != edge.attributes["data-destination"]
            else { return name }
            return name + " / " + inverse
        }
        #expect(labels.sorted() == expectedLabels.sorted(), "\(source): the labels differ from the relationship edges' names")

        // Every parent.
        var parents: [String: String] = [:]
        for edge in all where edge.name == "g" && edge.attributes["class"] == "inheritance" {
            let child = edge.attributes["data-entity"] ?? ""
            #expect(parents[child] == nil, "\(source): \(child) has two parents")
            parents[child] = edge.attributes["data-parent"]
        }
        let expectedParents = Dictionary(
            model.entities.compactMap { entity in entity.parentName.map { (entity.name, $0) } }, uniquingKeysWith: { first, _ in first })
        #expect(parents == expectedParents, "\(source)")
    }

    /// `text` as the picture shows it: characters XML cannot hold as U+FFFD.
    static func displayed(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value >= 0xFFFE && $0.value <= 0xFFFF ? "\u{FFFD}" : $0 }))
    }
}

@Suite(.temporaryDirectories) struct ModelDiagramSVGTests {
    static let samplesBundle = Corpus.repositoryRoot.appendingPathComponent("Samples/CoreDataPlus/SampleModel.xcdatamodeld")

    /// The same golden files as `model --format svg` (ModelDiagramCommandTests): Core Data
    /// Editor's iOS example (an abstract entity, inheritance, a many-to-many pair, ordered
    /// to-manys, a relationship to its own entity) and CoreDataPlus's SampleModel3.
    @Test func goldenPictures() throws {
        let iosExample = try #require(ModelFiles.versions(at: Corpus.url("core-data-editor-models/iOS_Example.xcdatamodel")).first)
        let sampleModel3 = try #require(ModelFiles.versions(at: Self.samplesBundle).first { $0.name == "SampleModel3" })
        for (name, version) in [("model/ios-example.svg", iosExample), ("model/samplemodel3.svg", sampleModel3)] {
            let text = ModelDiagram.svg(version) + "\n"
            #expect(text == (try Golden.expected(name, actual: text)), "\(name)")
            try SVGPicture.check(text, against: version.model, source: name)
        }
    }

    /// Every corpus model (85 versions of model files, 31 cached models) draws a well-formed,
    /// inert SVG with one box per entity, no two overlapping, every relationship once.
    @Test func everyCorpusModelDrawsACheckedPicture() throws {
        var checked = Set<String>()
        var largest = 0
        for (source, version) in CorpusModels.all {
            let text = ModelDiagram.svg(version)
            guard checked.insert(text).inserted else { continue }
            try SVGPicture.check(text, against: version.model, source: source)
            largest = max(largest, version.model.entities.count)
        }
        #expect(checked.count >= 60)
        // Photos' models have 60 and more entities.
        #expect(largest >= 60)
    }

    /// Names that are markup, quotes, ampersands, control characters, noncharacters and wide
    /// characters; a relationship to an entity the model does not define.
    static let hostileModel: ManagedObjectModel = {
        func attribute(_ name: String) -> PropertyDescription {
            .attribute(AttributeDescription(common: PropertyCommon(name: name, isOptional: true), type: .string))
        }
        func relationship(_ name: String, to destination: String, inverse: String?, toMany: Bool = false) -> PropertyDescription {
            .relationship(
                RelationshipDescription(
                    common: PropertyCommon(name: name, isOptional: true), destinationEntity: destination,
                    inverseName: inverse, inverseEntity: inverse == nil ? nil : destination, maxCount: toMany ? 0 : 1))
        }
        return ManagedObjectModel(entities: [
            EntityDescription(
                name: "<script>alert(\"x\")</script>&",
                properties: [
                    attribute("\"><img src=x onerror=alert(1)>"), attribute("tab\there\u{FFFF}"),
                    relationship("a&b", to: "写真", inverse: "<back>", toMany: true),
                    relationship("lost", to: "Nowhere<>", inverse: nil),
                ]),
            EntityDescription(name: "写真", properties: [relationship("<back>", to: "<script>alert(\"x\")</script>&", inverse: "a&b")]),
        ])
    }()

    @Test func hostileNamesRenderEscaped() throws {
        let text = ModelDiagram.svg(ModelVersion(name: "v<1>&\"", current: true, model: Self.hostileModel))
        try SVGPicture.check(text, against: Self.hostileModel, source: "hostile")
        #expect(!text.contains("<script") && !text.contains("<img") && !text.contains("\t") && !text.contains("\u{FFFF}"))
        #expect(text.contains("<title>v&lt;1&gt;&amp;&quot;</title>"))
        #expect(text.contains("<g class=\"entity\" data-entity=\"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;\">"))
        #expect(text.contains(">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;: String?</text>"))
        #expect(text.contains(">tab\u{FFFD}here\u{FFFD}: String?</text>"))
        #expect(text.contains("data-name=\"a&amp;b\" data-destination=\"写真\" data-inverse=\"&lt;back&gt;\""))
        #expect(text.contains(">a&amp;b / &lt;back&gt;</text>"))
        #expect(text.contains("<g class=\"missing-entity\" data-entity=\"Nowhere&lt;&gt;\">"))
    }

    @Test func emptyModelIsAnEmptyCanvas() throws {
        let text = ModelDiagram.svg(ModelVersion(name: "empty", current: true, model: ManagedObjectModel(entities: [])))
        let root = try #require(SVGElement.parse(text))
        #expect(root.attributes["viewBox"] == "0 0 24 24")
        #expect(!root.descendants.contains { $0.name == "g" && $0.attributes["data-entity"] != nil })
    }
}
