@testable import CDModel
import CDTestSupport
import Foundation
import Testing

/// The JSON form of a model (`cdstore model --json`): each property a flat object with a `kind`,
/// never Swift's synthesized `{"attribute": {"_0": {…}}}`, and decoding gives the model back.
@Suite struct ModelJSONTests {
    @Test(arguments: ModelSources.contentsFiles)
    func everyModelRoundTrips(_ url: URL) throws {
        let model = try XMLModelReader.model(fromXML: Data(contentsOf: url))
        let json = try JSONEncoder().encode(model)
        #expect(try JSONDecoder().decode(ManagedObjectModel.self, from: json) == model, "\(url.lastPathComponent)")
        #expect(!String(decoding: json, as: UTF8.self).contains("\"_0\""))
    }

    /// Apple's Recipes sample: Recipe's first attribute and first relationship, in full.
    @Test func propertiesAreFlatWithAKind() throws {
        let url = ModelSources.referenceExamples.appendingPathComponent("05-AppleRecipes-Recipes.contents.xml")
        let recipe = try #require(try XMLModelReader.model(fromXML: Data(contentsOf: url)).entity(named: "Recipe"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func common(_ name: String) -> String {
            #""common":{"isIndexed":false,"isIndexedBySpotlight":false,"isOptional":true,"isReadOnly":false,"isStoredInTruthFile":false,"isTransient":false,"name":"\#(name)","userInfo":{}}"#
        }
        let instructions = try #require(recipe.properties.first)
        #expect(
            String(decoding: try encoder.encode(instructions), as: UTF8.self)
                == #"{"allowsExternalBinaryDataStorage":false,"# + common("instructions")
                + #","kind":"attribute","preservesValueInHistoryOnDeletion":false,"type":700,"validationRules":[]}"#)
        let image = try #require(recipe.properties.first { $0.name == "image" })
        #expect(
            String(decoding: try encoder.encode(image), as: UTF8.self)
                == "{" + common("image")
                + #","deleteRule":2,"destinationEntity":"Image","inverseEntity":"Image","inverseName":"recipe","isOrdered":false,"kind":"relationship","maxCount":1,"minCount":0}"#
        )
        #expect(try recipe.properties.map { try JSONDecoder().decode(PropertyDescription.self, from: encoder.encode($0)) } == recipe.properties)
    }

    @Test func anUnknownKindIsAnError() throws {
        let json = Data(#"{"kind": "composite", "common": {"name": "x"}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PropertyDescription.self, from: json) }
    }
}
