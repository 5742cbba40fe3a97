import CDArchive
@testable import CDModel
import CDTestSupport
import Foundation
import Testing

/// The test vectors of docs/format/model-format.md §5.8, built by hand.
@Suite struct VersionHashTestVectors {
    @Test func xcodeEventTemplate() {
        let timeStamp = AttributeDescription(common: PropertyCommon(name: "timeStamp", isOptional: true), type: .date)
        let model = ManagedObjectModel(entities: [EntityDescription(name: "Event", properties: [.attribute(timeStamp)])])
        #expect(
            VersionHashes.propertyHash(.attribute(timeStamp), declaredBy: "Event").hexString
                == "f9ab6fc10a4f5ed1f08a9467563526463ee199e5dde15bdaabfb057b4bca142a")
        #expect(
            VersionHashes.entityHashes(of: model)["Event"]?.hexString
                == "5431c046d30e7f32c2cc809958add1e7579ad104a3aa8fc4846e97d7af01cc79")
    }

    /// Vector B: a one-to-one relationship (wibosco-migration store 3).
    @Test func oneToOneRelationship() {
        func string(_ name: String) -> PropertyDescription {
            .attribute(AttributeDescription(common: PropertyCommon(name: name, isOptional: true), type: .string))
        }
        let colorPost = RelationshipDescription(
            common: PropertyCommon(name: "post", isOptional: true),
            destinationEntity: "Post", inverseName: "color", inverseEntity: "Post",
            minCount: 0, maxCount: 1)
        let postColor = RelationshipDescription(
            common: PropertyCommon(name: "color", isOptional: false),
            destinationEntity: "Color", inverseName: "post", inverseEntity: "Color",
            minCount: 0, maxCount: 1)
        let date = AttributeDescription(common: PropertyCommon(name: "date", isOptional: true), type: .date)
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Color", properties: [string("colorID"), string("hex"), .relationship(colorPost)]),
            EntityDescription(name: "Post", properties: [.relationship(postColor), .attribute(date), string("postID")]),
        ])
        #expect(
            VersionHashes.propertyHash(string("colorID"), declaredBy: "Color").hexString
                == "3f2deefa8cf0ef152816c95da78ca338dc0ce653913c6ec7115e423c18d74ae1")
        #expect(
            VersionHashes.propertyHash(.relationship(colorPost), declaredBy: "Color").hexString
                == "cc4b02d51149b07989a4ee2397789f4d4a7060529c0c17dac5b537ee441e4c7d")
        let hashes = VersionHashes.entityHashes(of: model)
        #expect(hashes["Color"]?.hexString == "c42610dacb82dfd67d8281d49d82916bd02493cb4cc897db9ca097fe7c9cb9e7")
        #expect(hashes["Post"]?.hexString == "8a55fd4ce6c31444313d4c97e0247ac5d3ed2528c484daeb70b4e481d36e2345")
    }

    @Test func transientAndFetchedPropertiesDoNotChangeTheEntityHash() {
        let timeStamp = PropertyDescription.attribute(AttributeDescription(common: PropertyCommon(name: "timeStamp", isOptional: true), type: .date))
        let transient = PropertyDescription.attribute(AttributeDescription(common: PropertyCommon(name: "cached", isTransient: true), type: .string))
        let fetched = PropertyDescription.fetched(
            FetchedPropertyDescription(
                common: PropertyCommon(name: "recent"),
                fetchRequest: FetchRequestTemplate(name: "recent", entityName: "Event")))
        let plain = ManagedObjectModel(entities: [EntityDescription(name: "Event", properties: [timeStamp])])
        let extended = ManagedObjectModel(entities: [EntityDescription(name: "Event", properties: [transient, timeStamp, fetched])])
        #expect(VersionHashes.entityHashes(of: plain) == VersionHashes.entityHashes(of: extended))
    }

    @Test func modifierChangesTheHash() {
        var entity = EntityDescription(name: "Event")
        let before = VersionHashes.entityHashes(of: ManagedObjectModel(entities: [entity]))["Event"]
        entity.versionHashModifier = "v2"
        let after = VersionHashes.entityHashes(of: ManagedObjectModel(entities: [entity]))["Event"]
        #expect(before != nil && after != nil && before != after)
    }

    /// The digest sorts names by bytes: "NWActivityFragment" < "NetworkAttachment" ('W' < 'e').
    @Test func namesSortByBytesNotCaseInsensitively() {
        let names = VersionHashes.sortedNames(["NetworkAttachment": Data(), "NWActivityFragment": Data(), "app": Data()])
        #expect(names == ["NWActivityFragment", "NetworkAttachment", "app"])
    }

    @Test func coreDataStyleDescription() {
        let data = Data(hex: "5431c046d30e7f32c2cc809958add1e7579ad104a3aa8fc4846e97d7af01cc79")
        #expect(data.coreDataDescription == "<5431c046 d30e7f32 c2cc8099 58add1e7 579ad104 a3aa8fc4 846e97d7 af01cc79>")
    }
}

/// Compiled `.mom` files in the corpus against the hashes `momc` wrote into `VersionInfo.plist`.
@Suite struct CompiledModelHashes {
    static let momFiles = Corpus.files(endingWith: ".mom").filter { $0.contains(".momd/") }

    @Test func corpusHasCompiledModels() {
        #expect(Self.momFiles.count >= 5)
    }

    @Test(arguments: momFiles)
    func momHashesEqualVersionInfo(_ relativePath: String) throws {
        let url = Corpus.url(relativePath)
        let model = try ArchivedModelReader.model(fromArchive: Data(contentsOf: url))
        let info = try PropertyList.decode(Data(contentsOf: url.deletingLastPathComponent().appendingPathComponent("VersionInfo.plist")))
        let version = url.deletingPathExtension().lastPathComponent
        let expected = try #require(info["NSManagedObjectModel_VersionHashes"]?[version]?.dictionaryEntries)
        let computed = VersionHashes.entityHashes(of: model)
        #expect(computed.count == expected.count)
        for (name, value) in expected {
            #expect(computed[name] == value.dataValue, "\(version).\(name)")
        }
        if let checksum = info["NSManagedObjectModel_VersionChecksums"]?[version]?.stringValue {
            #expect(VersionHashes.checksum(of: computed) == checksum)
        }
    }
}
