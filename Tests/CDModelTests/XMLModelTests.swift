import CDArchive
@testable import CDModel
import CDTestSupport
import Foundation
import Testing

/// Every `contents` file in the corpus and in the reference examples.
enum ModelSources {
    static let contentsFiles: [URL] =
        Corpus.files(endingWith: "/contents").map(Corpus.url)
        + ((try? FileManager.default.contentsOfDirectory(atPath: referenceExamples.path)) ?? [])
        .filter { $0.hasSuffix(".contents.xml") }.sorted().map { referenceExamples.appendingPathComponent($0) }

    static let referenceExamples = Corpus.root.deletingLastPathComponent().appendingPathComponent("reference/model-examples")

    static let compiledModels: [URL] = Corpus.files(endingWith: ".mom").map(Corpus.url)
}

@Suite struct XMLModelReaderTests {
    @Test func everyContentsFileLoads() throws {
        #expect(ModelSources.contentsFiles.count >= 25)
        for url in ModelSources.contentsFiles {
            let model = try XMLModelReader.model(fromXML: Data(contentsOf: url))
            #expect(!model.entities.isEmpty || url.path.contains("Harmony"), "\(url.lastPathComponent)")
        }
    }

    /// Settings from one real file, checked one by one (Apple's Recipes sample, reference/model-examples).
    @Test func readsAppleRecipes() throws {
        let model = try XMLModelReader.model(
            fromXML: Data(contentsOf: ModelSources.referenceExamples.appendingPathComponent("05-AppleRecipes-Recipes.contents.xml")))
        #expect(model.entities.map(\.name) == ["Image", "Ingredient", "Recipe", "RecipeType"])
        #expect(model.versionIdentifiers == [""])
        let displayOrder = try #require(model.entity(named: "Ingredient")?.attributes.first { $0.name == "displayOrder" })
        #expect(displayOrder.type == .integer16 && displayOrder.defaultValue == "0" && displayOrder.common.isOptional)
        let image = try #require(model.entity(named: "Image")?.attributes.first)
        #expect(image.type == .transformable && image.valueTransformerName == "ImageToDataTransformer")
        let recipe = try #require(model.entity(named: "Recipe"))
        #expect(recipe.className == "Recipe")
        #expect(recipe.properties.map(\.name) == ["instructions", "name", "overview", "prepTime", "thumbnailImage", "image", "ingredients", "type"])
        let ingredients = try #require(recipe.relationships.first { $0.name == "ingredients" })
        #expect(ingredients.isToMany && ingredients.maxCount == 0 && ingredients.deleteRule == .cascade)
        #expect(ingredients.destinationEntity == "Ingredient" && ingredients.inverseName == "recipe")
        let toOne = try #require(recipe.relationships.first { $0.name == "image" })
        #expect(!toOne.isToMany && toOne.maxCount == 1 && toOne.minCount == 0 && toOne.deleteRule == .cascade)
    }

    @Test func derivationTextIsHashedInFunctionForm() {
        #expect(DerivationExpression.compiled("pages.@count") == "count:(pages)")
        #expect(DerivationExpression.compiled("legalEntity.name") == "legalEntity.name")
        #expect(DerivationExpression.xml("count:(pages)") == "pages.@count")
    }

    @Test func countsDefaultAsMomcCompilesThem() throws {
        let xml = """
            <model><entity name="A">
            <relationship name="one" optional="YES" destinationEntity="B"/>
            <relationship name="many" toMany="YES" destinationEntity="B"/>
            <relationship name="old" maxCount="-1" minCount="1" destinationEntity="B"/>
            </entity><entity name="B"/></model>
            """
        let relationships = try XMLModelReader.model(fromXML: Data(xml.utf8)).entity(named: "A")!.relationships
        #expect(relationships.map(\.maxCount) == [1, 0, -1])
        #expect(relationships.map(\.minCount) == [0, 0, 1])
        #expect(relationships.map(\.isToMany) == [false, true, true])
    }

    @Test func malformedXMLIsOneLine() {
        #expect(throws: ModelError.self) { try XMLModelReader.model(fromXML: Data("<model><entity".utf8)) }
        do {
            _ = try XMLModelReader.model(fromXML: Data("<plist></plist>".utf8))
            Issue.record("expected a failure")
        } catch {
            #expect("\(error)" == "not a Core Data model: the XML root is <plist>, not <model>")
        }
    }
}

/// `--format xcdatamodel` output, loaded again, gives identical hashes.
@Suite struct RoundTripTests {
    private func roundTrip(_ model: ManagedObjectModel) throws -> ManagedObjectModel {
        try XMLModelReader.model(fromXML: Data(ModelXMLWriter.xml(for: model).utf8))
    }

    private func expectSameHashes(_ model: ManagedObjectModel, _ label: String) throws {
        let again = try roundTrip(model)
        #expect(VersionHashes.entityHashes(of: again) == VersionHashes.entityHashes(of: model), "\(label)")
        #expect(again.entities.map(\.name) == model.entities.map(\.name), "\(label)")
        #expect(again.versionIdentifiers == model.versionIdentifiers, "\(label)")
    }

    @Test func xmlSources() throws {
        for url in ModelSources.contentsFiles {
            try expectSameHashes(try XMLModelReader.model(fromXML: Data(contentsOf: url)), url.path)
        }
    }

    /// ruby-xcdm schemas: the corpus fixture (whose `publishedAt` has the text default "NO") and
    /// every sample schema folder.
    @Test func rubyXcdmSchemas() throws {
        let samples = Corpus.repositoryRoot.appendingPathComponent("Samples/schemas")
        let folders = try FileManager.default.contentsOfDirectory(atPath: samples.path).sorted().map { samples.appendingPathComponent($0) }
        #expect(folders.count >= 5)
        var versions = try folders.flatMap { try ModelFiles.versions(at: $0) }
        versions += try ModelFiles.versions(at: Corpus.url("xcdm-ruby-xcdm-fixture/001_baseline.rb"))
        versions += try ModelFiles.versions(at: Corpus.url("xcdm-cdq/001_baseline.rb"))
        for version in versions { try expectSameHashes(version.model, version.name) }
        let fixture = try #require(versions.last(where: { $0.model.entity(named: "Article")?.attributes.contains { $0.name == "publishedAt" } == true }))
        let xml = ModelXMLWriter.xml(for: fixture.model)
        #expect(xml.contains("<attribute name=\"publishedAt\" optional=\"YES\" attributeType=\"Date\" defaultValueString=\"NO\""))
    }

    @Test(arguments: ModelSources.compiledModels.map(\.path))
    func compiledModels(_ path: String) throws {
        try expectSameHashes(try ArchivedModelReader.model(fromArchive: Data(contentsOf: URL(fileURLWithPath: path))), path)
    }
}

@Suite struct LintTests {
    @Test func momcWarnings() throws {
        let model = try XMLModelReader.model(fromXML: Data(contentsOf: Corpus.url("mogenerator-test-models/test.xcdatamodel/contents")))
        let findings = ModelLint.findings(for: model)
        #expect(findings.map(\.rule) == ["missing-inverse", "missing-inverse", "insecure-transformer"])
        #expect(
            findings.first?.message
                == "Human.meaninglessRelationship does not have an inverse; this is an advanced setting (no object can be in multiple destinations for a specific relationship)"
        )
        #expect(findings.allSatisfy { $0.code == nil })
    }

    @Test func cloudKitRules() throws {
        let xml = """
            <model usedWithCloudKit="YES">
            <entity name="Item">
              <attribute name="title" attributeType="String"/>
              <attribute name="count" attributeType="Integer 32" defaultValueString="0"/>
              <relationship name="tags" toMany="YES" ordered="YES" deletionRule="Deny" destinationEntity="Tag"/>
              <uniquenessConstraints><uniquenessConstraint><constraint value="title"/></uniquenessConstraint></uniquenessConstraints>
            </entity>
            <entity name="Tag"><attribute name="name" optional="YES" attributeType="String"/></entity>
            </model>
            """
        let findings = ModelLint.findings(for: try XMLModelReader.model(fromXML: Data(xml.utf8)))
        #expect(
            findings.map(\.rule) == [
                "missing-inverse", "cloudkit-mandatory-attribute", "cloudkit-mandatory-relationship",
                "cloudkit-missing-inverse", "cloudkit-ordered", "cloudkit-deny-rule", "cloudkit-unique-constraint",
            ])
        #expect(findings.filter { $0.rule.hasPrefix("cloudkit") }.allSatisfy { $0.code == 134060 })
    }

    @Test func inverseThatDoesNotReciprocate() throws {
        let xml = """
            <model>
            <entity name="Session"><relationship name="location" optional="YES" destinationEntity="Place" inverseName="sessions" inverseEntity="Place"/></entity>
            <entity name="Place"><relationship name="sessions" optional="YES" toMany="YES" destinationEntity="Session" inverseName="other" inverseEntity="Session"/>
            <relationship name="visits" optional="YES" toMany="YES" destinationEntity="Session" inverseName="location" inverseEntity="Session"/></entity>
            </model>
            """
        let findings = ModelLint.findings(for: try XMLModelReader.model(fromXML: Data(xml.utf8)))
        #expect(
            findings.map(\.message).contains("Session.location: The inverse relationship for Session.location does not reciprocate an inverse relationship"))
    }
}
