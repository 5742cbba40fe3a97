import CDArchive
@testable import CDModel
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Xcode 3 model bundles (`elements` archives) read by ``LegacyElementsReader``.
@Suite(.temporaryDirectories) struct LegacyElementsTests {
    static func load(_ bundle: String) throws -> ManagedObjectModel {
        try LegacyElementsReader.model(fromBundleAt: Corpus.url(bundle))
    }

    /// `NSStoreModelVersionHashes` of a store, read from a private copy.
    static func storeHashes(_ store: String) throws -> [String: Data] {
        let copy = try Corpus.copyStore(store)
        let snapshot = try StoreSnapshot(path: copy.path)
        return try snapshot.read { try StoreMetadata.read($0, path: copy.path) }.versionHashes
    }

    // MARK: - The stores written from these models

    /// A store without a model cache, and the legacy model version it was written with.
    struct StorePair: Sendable, CustomTestStringConvertible {
        let store: String
        let bundle: String
        var testDescription: String { "\(store) ← \(bundle)" }
    }

    /// Every legacy bundle that sits next to a store. `recipes-migration` has two versions:
    /// its store matches the version named `Recipes` (see ``recipesTwoIsALaterRevision()``).
    static let pairs: [StorePair] = [
        // framework 230; version `CoreDataBooks` of the versioned bundle, and the same model unversioned
        StorePair(
            store: "apple-coredatabooks/CoreDataBooks.sqlite",
            bundle: "apple-coredatabooks/CoreDataBooks.xcdatamodeld/CoreDataBooks.xcdatamodel"),
        StorePair(
            store: "apple-coredatabooks/CoreDataBooks.sqlite",
            bundle: "apple-coredatabooks/legacy-unversioned/CoreDataBooks.xcdatamodel"),
        // framework 241; the iPhone model and its desktop twin (different transformer names only)
        StorePair(store: "apple-recipes/Recipes.sqlite", bundle: "apple-recipes/Recipes.xcdatamodel"),
        StorePair(store: "apple-recipes/Recipes.sqlite", bundle: "apple-recipes/DesktopRecipes/Recipes.xcdatamodel"),
        // framework 241; version `Recipes` (identifier 1.1) of the two-version bundle
        StorePair(
            store: "recipes-migration/Recipes.sqlite",
            bundle: "recipes-migration/Recipes.xcdatamodeld/Recipes.xcdatamodel"),
    ]

    /// The strongest proof: these stores have no `Z_MODELCACHE`, so their stored hashes can only
    /// be reproduced from the legacy model. Every entity must match exactly.
    @Test(arguments: pairs)
    func entityHashesEqualTheStoredHashes(_ pair: StorePair) throws {
        let stored = try Self.storeHashes(pair.store)
        let computed = VersionHashes.entityHashes(of: try Self.load(pair.bundle))
        #expect(!stored.isEmpty)
        #expect(Set(computed.keys) == Set(stored.keys))
        for (entity, hash) in stored {
            #expect(computed[entity]?.hexString == hash.hexString, "entity \(entity)")
        }
    }

    @Test func storedHashesAreTheKnownValues() throws {
        // Sanity check of the metadata read, against sqlite3 + plistlib on the same files.
        #expect(
            try Self.storeHashes("apple-coredatabooks/CoreDataBooks.sqlite").mapValues(\.hexString) == [
                "Book": "4b2c05cdc2213e563008fe8dce7b01329e96c841c5df361d698bd7fc721a188d"
            ])
        #expect(
            try Self.storeHashes("recipes-migration/Recipes.sqlite").mapValues(\.hexString) == [
                "Image": "9e36f1371d40fdb66b5350d5445f4ac7a01873f13a5ca61a56a6cd24b758942f",
                "Ingredient": "e6d08b940d6bf69d5459d393af75c9f99cc1afa6f1ada580b3756df7308065e9",
                "Recipe": "3dc49d7986203b9716fb3e6cf1c1e9019cf2dd61cefeea6caba523c6dc1c9288",
                "RecipeType": "12da9a817d80efeb10a836c16c4b45653f62433d87b2ebfcba6d8dcfa93960ae",
            ])
    }

    /// `Recipes 2` does not match the recipes-migration store, and this shows why property by
    /// property: it is the later revision the project migrates to. It adds the entity `Chef` and
    /// the relationship `Recipe.chef`, and turns `Recipe.type` from a to-one (counts 1..1) into a
    /// to-many (0..0), so `Recipe` changes while `Image`, `Ingredient` and `RecipeType` (whose
    /// `recipes` hashes only its inverse's name) keep the store's hashes.
    @Test func recipesTwoIsALaterRevision() throws {
        let stored = try Self.storeHashes("recipes-migration/Recipes.sqlite")
        let one = try Self.load("recipes-migration/Recipes.xcdatamodeld/Recipes.xcdatamodel")
        let two = try Self.load("recipes-migration/Recipes.xcdatamodeld/Recipes 2.xcdatamodel")
        let hashes = VersionHashes.entityHashes(of: two)

        #expect(Set(hashes.keys).subtracting(stored.keys) == ["Chef"])
        for entity in ["Image", "Ingredient", "RecipeType"] {
            #expect(hashes[entity] == stored[entity], "entity \(entity)")
        }
        #expect(hashes["Recipe"] != stored["Recipe"])

        let oldRecipe = try #require(one.entity(named: "Recipe"))
        let newRecipe = try #require(two.entity(named: "Recipe"))
        #expect(Set(newRecipe.properties.map(\.name)).subtracting(oldRecipe.properties.map(\.name)) == ["chef"])
        #expect(Set(oldRecipe.properties.map(\.name)).subtracting(newRecipe.properties.map(\.name)).isEmpty)
        var changed: [String] = []
        for property in oldRecipe.properties {
            let counterpart = try #require(newRecipe.properties.first { $0.name == property.name })
            if VersionHashes.propertyHash(property, declaredBy: "Recipe")
                != VersionHashes.propertyHash(counterpart, declaredBy: "Recipe")
            {
                changed.append(property.name)
            }
        }
        #expect(changed == ["type"])
        let oldType = try #require(oldRecipe.relationships.first { $0.name == "type" })
        let newType = try #require(newRecipe.relationships.first { $0.name == "type" })
        #expect((oldType.minCount, oldType.maxCount, oldType.isToMany) == (1, 1, false))
        #expect((newType.minCount, newType.maxCount, newType.isToMany) == (0, 0, true))
        #expect(newType.destinationEntity == oldType.destinationEntity && newType.inverseName == oldType.inverseName)
        let chef = try #require(newRecipe.relationships.first { $0.name == "chef" })
        #expect(chef.destinationEntity == "Chef" && chef.inverseName == "recipes" && chef.maxCount == 1)

        // Undo both changes and Recipes 2's Recipe hashes exactly as the store's.
        var reverted = two
        let index = try #require(reverted.entities.firstIndex { $0.name == "Recipe" })
        reverted.entities[index].properties.removeAll { $0.name == "chef" }
        reverted.entities[index].properties = reverted.entities[index].properties.map { property in
            guard case .relationship(var r) = property, r.name == "type" else { return property }
            (r.minCount, r.maxCount) = (oldType.minCount, oldType.maxCount)
            return .relationship(r)
        }
        #expect(VersionHashes.entityHashes(of: reverted)["Recipe"] == stored["Recipe"])

        // Version identifiers are not hashed: the store has none, version `Recipes` says 1.1.
        #expect(one.versionIdentifiers == ["1.1"])
        #expect(two.versionIdentifiers == ["2.0"])
    }

    // MARK: - Exact contents

    /// One line per entity, attribute, relationship and template, in the format of the python
    /// script that produced the expectations below.
    static func summary(_ model: ManagedObjectModel) -> [String] {
        func info(_ userInfo: [String: String]) -> String {
            userInfo.isEmpty ? "" : " userInfo=" + userInfo.keys.sorted().map { "\($0)=\(userInfo[$0]!)" }.joined(separator: ",")
        }
        func flags(_ common: PropertyCommon) -> String {
            (common.isOptional ? "" : " required") + (common.isTransient ? " transient" : "") + (common.isIndexed ? " indexed" : "")
        }
        let rules: [DeleteRule: String] = [.noAction: "noAction", .nullify: "nullify", .cascade: "cascade", .deny: "deny"]
        var lines: [String] = []
        for entity in model.entities {
            lines.append(
                entity.name + " class=\(entity.className)" + (entity.parentName.map { " parent=\($0)" } ?? "")
                    + (entity.isAbstract ? " abstract" : "") + info(entity.userInfo))
            for property in entity.properties {
                switch property {
                case .attribute(let a):
                    var line = "  A \(a.name) \(a.type.rawValue)" + flags(a.common)
                    for (label, value) in [
                        ("default", a.defaultValue), ("min", a.minValue), ("max", a.maxValue),
                        ("transformer", a.valueTransformerName),
                    ] {
                        if let value { line += " \(label)=\(value)" }
                    }
                    lines.append(line + info(a.common.userInfo))
                case .relationship(let r):
                    lines.append(
                        "  R \(r.name) -> \(r.destinationEntity)" + (r.inverseName.map { ".\($0)" } ?? "")
                            + " \(r.minCount)..\(r.maxCount) \(rules[r.deleteRule]!)" + flags(r.common)
                            + (r.isOrdered ? " ordered" : "") + info(r.common.userInfo))
                case .fetched(let f):
                    lines.append("  F \(f.common.name)")
                }
            }
        }
        for template in model.fetchRequestTemplates {
            lines.append("fetch \(template.name) \(template.entityName)" + (template.predicate.map { " where \($0)" } ?? ""))
        }
        return lines
    }

    /// Expected lines written by a throwaway python script: `plistlib` decodes the archive,
    /// UIDs are followed by hand, each element's stereotype buckets are flattened into tags, and
    /// the tags are printed in this format (entities and properties sorted by name; missing
    /// relationship counts → 0..0 for to-many, 0..1 for to-one).
    @Test func appleRecipesExactContents() throws {
        let model = try Self.load("apple-recipes/Recipes.xcdatamodel")
        #expect(
            Self.summary(model) == [
                "Image class=NSManagedObject",
                "  A image 1800 transformer=ImageToDataTransformer",
                "  R recipe -> Recipe.image 1..1 nullify required indexed",
                "Ingredient class=Ingredient",
                "  A amount 700",
                "  A displayOrder 100 required default=0",
                "  A name 700 required default=Ingredient Name",
                "  R recipe -> Recipe.ingredients 1..1 nullify indexed",
                "Recipe class=Recipe",
                "  R image -> Image.recipe 1..1 cascade indexed",
                "  R ingredients -> Ingredient.recipe 0..0 cascade indexed",
                "  A instructions 700",
                "  A name 700",
                "  A overview 700",
                "  A prepTime 700",
                "  A thumbnailImage 1800 transformer=ImageToDataTransformer",
                "  R type -> RecipeType.recipes 1..1 nullify indexed",
                "RecipeType class=NSManagedObject",
                "  A name 700",
                "  R recipes -> Recipe.type 0..0 nullify indexed",
            ])
        #expect(model.versionIdentifiers.isEmpty && model.configurations.isEmpty && model.fetchRequestTemplates.isEmpty)
        let image = try #require(model.entity(named: "Recipe")?.relationships.first { $0.name == "image" })
        #expect(image.inverseEntity == "Image" && !image.isToMany)
    }

    /// mogenerator's legacy test model: inheritance, transient attributes (one without a type),
    /// an ordered to-many, a relationship without inverse, userInfo, and entity fetch requests.
    /// Expected lines produced by the same python script as above.
    @Test func mogeneratorExactContents() throws {
        let model = try Self.load("mogenerator-test-models/legacy-6f34c08a/test.xcdatamodel")
        #expect(
            Self.summary(model) == [
                "Child class=ChildMO parent=Human",
                "  A childName 700",
                "  R parent -> Parent.children 1..1 nullify indexed",
                "  A type 700",
                "ConcreteEntityWithCustomClass1 class=ConcreteEntityWithCustomClass1 parent=EntitySansCustomClass2",
                "  A dummy2 100 default=0",
                "ConcreteEntityWithCustomClass2 class=ConcreteEntityWithCustomClass2 parent=EntitySansCustomClass2",
                "  A dummy3 100 default=0",
                "EntitySansCustomClass class=NSManagedObject",
                "  A foo 700",
                "EntitySansCustomClass2 class=NSManagedObject",
                "  A dummy1 100 default=0",
                "EntityWithBaseClass class=MyBaseClass",
                "  A bar 700",
                "Human class=HumanMO userInfo=additionalHeaderFileName=Gender.h",
                "  A age 100 required default=0 min=0 userInfo=mogenerator.readonly=true",
                "  A gender 100 required default=0 userInfo=attributeValueScalarType=Gender",
                "  A hairColor 0 transient",
                "  A hairColorStorage 1000 transient",
                "  A humanName 700",
                "  R meaninglessRelationship -> EntitySansCustomClass 1..1 nullify indexed",
                "Parent class=ParentMO parent=Human",
                "  R children -> Child.parent 0..0 cascade indexed ordered",
                "  A myBinaryData 1000",
                "  A myBoolean 800",
                "  A myDate 900",
                "  A myDecimal 400",
                "  A myDouble 500",
                "  A myFloat 600",
                "  A myInt16 100",
                "  A myInt16Transient 100 transient",
                "  A myInt32 200",
                "  A myInt64 300",
                "  A myString 700",
                "  A myTransformableSansClassName 1800",
                "  A myTransformableWithClassName 1800 userInfo=attributeValueClassName=NSColor",
                "  A myTransformableWithProtocol 1800 userInfo=attributeTransformableProtocols=MyProtocol,attributeValueClassName=id<MyProtocol>",
                "  A parentName 700",
                "fetch allHumans Human",
                "fetch byHumanName Human where humanName == $humanName",
                "fetch byParent Child where parent == $parent",
                "fetch byParentName Child where parent.parentName == $parentName",
                "fetch oneByHumanName Human where humanName == $humanName",
            ])
        let meaningless = try #require(model.entity(named: "Human")?.relationships.first)
        #expect(meaningless.inverseName == nil && meaningless.inverseEntity == nil)
    }

    /// No store exists for this model, so these hashes come from an independent python version
    /// of reference §5 run on the python decoding above; they exercise inheritance (a parent's
    /// hash and inherited properties) and transient properties being left out.
    @Test func mogeneratorHashesAgreeWithAnIndependentImplementation() throws {
        let hashes = VersionHashes.entityHashes(of: try Self.load("mogenerator-test-models/legacy-6f34c08a/test.xcdatamodel"))
        #expect(
            hashes.mapValues(\.hexString) == [
                "Child": "b450be7a72d15058656bd47b356fd05fb2115b42e1187dd32b6cb835da5db08f",
                "ConcreteEntityWithCustomClass1": "fc87c44df2cdcf1693926e9f8011da7769baab3142f894bdd003f1aa47afe0b9",
                "ConcreteEntityWithCustomClass2": "016cd23eae20743c0727dba17e371a118cf2a58a4c95f7087cacefe89a128a84",
                "EntitySansCustomClass": "3b6cbaaa9d66475d48ca18187185de8f94f754f4a7aa15fdccdd0b3ad9da8560",
                "EntitySansCustomClass2": "6f4e20d3fbca1ba1ad54e94593037e17043800c53f2be7bba0d60fd52cba66af",
                "EntityWithBaseClass": "4869f9beb3a60c955c91e3e60b7a448b6fa5b9e02e4b2c9ee58a8c8357f457fa",
                "Human": "9ed198d7a3ddf259dbf0ca9455042436ecf05e61989a92b098581812b87e5240",
                "Parent": "c553ab4a849e517f32bec733d6c1d27a0509f8e8447f7a95f50228c4bb9c9f08",
            ])
    }

    /// Every legacy bundle of the corpus loads; counts from the python decoding.
    @Test func everyLegacyBundleLoads() throws {
        let expected: [String: (entities: Int, attributes: Int, relationships: Int)] = [
            "apple-coredatabooks/CoreDataBooks.xcdatamodeld/CoreDataBooks.xcdatamodel": (1, 3, 0),
            "apple-coredatabooks/legacy-unversioned/CoreDataBooks.xcdatamodel": (1, 3, 0),
            "apple-recipes/Recipes.xcdatamodel": (4, 10, 6),
            "apple-recipes/DesktopRecipes/Recipes.xcdatamodel": (4, 10, 6),
            "recipes-migration/Recipes.xcdatamodeld/Recipes.xcdatamodel": (4, 10, 6),
            "recipes-migration/Recipes.xcdatamodeld/Recipes 2.xcdatamodel": (5, 12, 8),
            "restkit-test-models/Data Model.xcdatamodel": (18, 57, 40),
            "mogenerator-test-models/legacy-6f34c08a/test.xcdatamodel": (8, 27, 3),
        ]
        let found = Set(Corpus.files(endingWith: ".xcdatamodel/elements").map { String($0.dropLast("/elements".count)) })
        #expect(found == Set(expected.keys))
        for (bundle, counts) in expected {
            #expect(LegacyElementsReader.isLegacyBundle(Corpus.url(bundle)), "\(bundle)")
            let model = try Self.load(bundle)
            #expect(model.entities.count == counts.entities, "\(bundle)")
            #expect(model.entities.map(\.attributes.count).reduce(0, +) == counts.attributes, "\(bundle)")
            #expect(model.entities.map(\.relationships.count).reduce(0, +) == counts.relationships, "\(bundle)")
            for entity in model.entities {
                for relationship in entity.relationships {
                    #expect(model.entity(named: relationship.destinationEntity) != nil, "\(bundle) \(entity.name).\(relationship.name)")
                }
            }
        }
    }

    @Test func restKitSyncServicesUserInfoIsDescribed() throws {
        let model = try Self.load("restkit-test-models/Data Model.xcdatamodel")
        let cat = try #require(model.entity(named: "Cat"))
        #expect(cat.className == "RKCat")
        #expect(cat.userInfo["primaryKeyAttribute"] == "railsID")
        let name = try #require(cat.attributes.first { $0.name == "name" })
        #expect(name.defaultValue == "Kitty Cat!")
        let policy = try #require(name.common.userInfo["com.apple.syncservices.AutomaticResolutionPolicy"])
        #expect(policy.contains("PreferredRecord = Truth"))
        #expect(model.entity(named: "HoardedCat")?.parentName == "Cat")
        #expect(model.lineage(of: "HoardedCat").map(\.name) == ["HoardedCat", "Cat"])
    }

    // MARK: - Bad input

    static func assertOneLineFailure(_ body: () throws -> ManagedObjectModel) {
        do {
            _ = try body()
            Issue.record("expected a failure")
        } catch let failure as ModelError {
            #expect(!failure.description.isEmpty && !failure.description.contains("\n"))
        } catch {
            Issue.record("unexpected error type: \(error)")
        }
    }

    /// Every truncation of a real archive throws a one-line failure (a binary plist's trailer is
    /// at its end, so no prefix is readable).
    @Test func truncatedArchivesThrow() throws {
        let data = try Data(contentsOf: Corpus.url("apple-coredatabooks/legacy-unversioned/CoreDataBooks.xcdatamodel/elements"))
        for length in stride(from: 0, to: data.count, by: 37) {
            Self.assertOneLineFailure { try LegacyElementsReader.model(fromElements: data.prefix(length)) }
        }
        Self.assertOneLineFailure { try LegacyElementsReader.model(fromElements: data.dropLast()) }
    }

    /// Damaged bytes anywhere either still decode or throw; nothing crashes.
    @Test func corruptedArchivesNeverCrash() throws {
        let data = try Data(contentsOf: Corpus.url("apple-recipes/Recipes.xcdatamodel/elements"))
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<400 {
            var damaged = data
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let position = Int(generator.next() % UInt64(damaged.count))
                damaged[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            do {
                let model = try LegacyElementsReader.model(fromElements: damaged)
                _ = VersionHashes.entityHashes(of: model)
            } catch let failure as ModelError {
                #expect(!failure.description.contains("\n"))
            }
        }
    }

    @Test func otherInputIsRejected() throws {
        Self.assertOneLineFailure { try LegacyElementsReader.model(fromElements: Data("not a plist".utf8)) }
        // A keyed archive of Core Data's own model classes is not an Xcode 3 model.
        let mom = try Data(contentsOf: Corpus.url("cdplus-samplemodel/SampleModel.momd/SampleModel.mom"))
        do {
            _ = try LegacyElementsReader.model(fromElements: mom)
            Issue.record("a .mom was accepted")
        } catch let failure as ModelError {
            #expect(failure.description.contains("NSManagedObjectModel"))
        }
        // A bundle in the XML format has no elements file.
        let xmlBundle = Corpus.url("failedbankcd-seed/FailedBankCD.xcdatamodeld/FailedBankCD.xcdatamodel")
        #expect(!LegacyElementsReader.isLegacyBundle(xmlBundle))
        Self.assertOneLineFailure { try LegacyElementsReader.model(fromBundleAt: xmlBundle) }
    }
}
