@testable import CDModel
import CDTestSupport
import Foundation
import Testing

/// ruby-xcdm schemas read as data (docs/format/model-format.md §7).
@Suite(.temporaryDirectories) struct RubyXcdmTests {
    static let fixture = Corpus.url("xcdm-ruby-xcdm-fixture/001_baseline.rb")
    static let cdqSchema = Corpus.url("xcdm-cdq/001_baseline.rb")

    private func schema(_ text: String, xcodeVersion: String? = nil) throws -> ManagedObjectModel {
        try RubyXcdmSchemaReader.version(fromSchema: text, fileName: "test.rb", xcodeVersion: xcodeVersion).model
    }

    private func parseFailure(_ text: String) -> ModelError? {
        do {
            _ = try RubyXcdmSchemaReader.version(fromSchema: text, fileName: "bad.rb")
            return nil
        } catch {
            return error as? ModelError
        }
    }

    /// The line and column of a schema error.
    private func position(_ error: ModelError) -> (line: Int, column: Int)? {
        if case .schema(_, let line, let column, _) = error { return (line, column) }
        return nil
    }

    // MARK: ruby-xcdm's own fixture

    /// The checked-in `Article.xcdatamodeld` was generated in the Xcode 4.x style: its to-one
    /// relationship has `minCount="1"` and its to-many one `maxCount="-1" minCount="1"` with no
    /// `toMany`. So the schema is read with an Xcode version matching `/4\..*/`.
    @Test func fixtureSchemaLoadsLikeTheModelRubyXcdmGeneratedFromIt() throws {
        let generated = try ModelFiles.versions(at: Corpus.url("xcdm-ruby-xcdm-fixture/Article.xcdatamodeld"))
        #expect(generated.count == 1)
        let expected = try #require(generated.first).model
        let version = try RubyXcdmSchemaReader.version(fromSchemaAt: Self.fixture, xcodeVersion: "4.6")
        #expect(version.name == "0.0.1")
        #expect(version.current)
        let model = version.model

        #expect(model.entities.map(\.name) == expected.entities.map(\.name))
        for entity in expected.entities {
            let actual = try #require(model.entity(named: entity.name))
            #expect(actual.className == entity.className)
            #expect(actual.userInfo == entity.userInfo)
            #expect(actual.attributes.map(\.name) == entity.attributes.map(\.name))
            for attribute in entity.attributes {
                let mine = try #require(actual.attributes.first { $0.name == attribute.name })
                #expect(mine.type == attribute.type, "\(entity.name).\(attribute.name)")
                #expect(mine.common.isOptional == attribute.common.isOptional, "\(entity.name).\(attribute.name)")
                #expect(mine.defaultValue == attribute.defaultValue, "\(entity.name).\(attribute.name)")
            }
            #expect(actual.relationships.map(\.name) == entity.relationships.map(\.name))
            for relationship in entity.relationships {
                let mine = try #require(actual.relationships.first { $0.name == relationship.name })
                #expect(mine.destinationEntity == relationship.destinationEntity)
                #expect(mine.inverseName == relationship.inverseName)
                #expect(mine.inverseEntity == relationship.inverseEntity)
                #expect(mine.minCount == relationship.minCount)
                #expect(mine.maxCount == relationship.maxCount)
                #expect(mine.deleteRule == relationship.deleteRule)
                #expect(mine.isToMany == relationship.isToMany)
            }
        }
        #expect(model == expected)
        #expect(VersionHashes.entityHashes(of: model) == VersionHashes.entityHashes(of: expected))
    }

    /// The spot checks behind the comparison above, written out.
    @Test func fixtureDefaultsAndNormalisation() throws {
        let model = try RubyXcdmSchemaReader.version(fromSchemaAt: Self.fixture, xcodeVersion: "4.6").model
        let article = try #require(model.entity(named: "Article"))
        let attributes = Dictionary(uniqueKeysWithValues: article.attributes.map { ($0.name, $0) })
        #expect(attributes["body"]?.common.isOptional == false)
        #expect(attributes["length"]?.type == .integer32)
        #expect(attributes["length"]?.defaultValue == "0")
        #expect(attributes["published"]?.defaultValue == "NO")
        #expect(attributes["publishedAt"]?.type == .date)
        #expect(attributes["publishedAt"]?.defaultValue == "NO")
        #expect(article.userInfo == ["userinfotest": "userinfovalue"])
        #expect(model.entity(named: "Author")?.attributes.first { $0.name == "fee" }?.defaultValue == "0.0")
        #expect(model.versionIdentifiers == ["0.0.1"])
    }

    /// `/4\..*/` is unanchored: "14.2" and "10.4.1" select the old style, "15.0" and `nil` do not.
    @Test func xcodeVersionSelectsTheRelationshipStyle() throws {
        let text = try String(contentsOf: Self.fixture, encoding: .utf8)
        func articles(_ version: String?) throws -> RelationshipDescription? {
            try schema(text, xcodeVersion: version).entity(named: "Author")?.relationships.first
        }
        for old in ["4.6", "14.2", "10.4.1"] {
            #expect(try articles(old)?.maxCount == -1, "\(old)")
            #expect(try articles(old)?.minCount == 1, "\(old)")
        }
        for modern in [nil, "15.0", "5.1.1", "16.2"] {
            #expect(try articles(modern)?.maxCount == 0, "\(modern ?? "nil")")
            #expect(try articles(modern)?.minCount == 0, "\(modern ?? "nil")")
            #expect(try articles(modern)?.isToMany == true)
        }
        let overridden = text.replacingOccurrences(of: "schema \"0.0.1\" do", with: "schema \"0.0.1\", xcode_version: \"4.3\" do")
        #expect(try schema(overridden, xcodeVersion: "16.0").entity(named: "Author")?.relationships.first?.maxCount == -1)
        #expect(try schema(text, xcodeVersion: "4.6").entity(named: "Article")?.relationships.first?.minCount == 1)
        #expect(try schema(text).entity(named: "Article")?.relationships.first?.minCount == 0)
    }

    // MARK: CDQ

    @Test func cdqSchemaLoads() throws {
        let version = try RubyXcdmSchemaReader.version(fromSchemaAt: Self.cdqSchema)
        let model = version.model
        #expect(version.name == "0.0.1")
        #expect(
            model.entities.map(\.name)
                == ["Article", "Author", "Writer", "Spouse", "Publisher", "Citation", "Timestamp", "Discussion", "Message"])

        let article = try #require(model.entity(named: "Article"))
        #expect(article.className == "Article")
        #expect(article.attributes.map(\.name) == ["body", "length", "published", "publishedAt", "title", "title2"])
        #expect(article.attributes.map(\.type) == [.string, .integer32, .boolean, .date, .string, .string])
        #expect(model.entity(named: "Author")?.attributes.first { $0.name == "fee" }?.type == .float)
        #expect(model.entity(named: "Timestamp")?.attributes.map(\.type) == [.boolean, .date, .date])
        #expect(model.entity(named: "Spouse")?.className == "CDQManagedObject")
        #expect(model.entity(named: "Publisher")?.className == "CDQManagedObject")
        #expect(model.entity(named: "Spouse")?.attributes.first?.common.isOptional == true)
        #expect(model.entity(named: "Publisher")?.attributes.first?.common.isOptional == false)

        func relationship(_ path: String) throws -> RelationshipDescription {
            let parts = path.split(separator: ".").map(String.init)
            return try #require(model.entity(named: parts[0])?.relationships.first { $0.name == parts[1] }, "\(path)")
        }
        func expectInverses(_ a: String, _ b: String) throws {
            let (left, right) = (try relationship(a), try relationship(b))
            let (leftEntity, rightEntity) = (String(a.split(separator: ".")[0]), String(b.split(separator: ".")[0]))
            #expect(left.destinationEntity == rightEntity && left.inverseEntity == rightEntity && left.inverseName == right.name, "\(a)")
            #expect(right.destinationEntity == leftEntity && right.inverseEntity == leftEntity && right.inverseName == left.name, "\(b)")
        }

        let spouses = try relationship("Writer.spouses")
        let writers = try relationship("Spouse.writers")
        try expectInverses("Writer.spouses", "Spouse.writers")
        #expect(spouses.isToMany && spouses.isOrdered)
        #expect(writers.isToMany && !writers.isOrdered)

        try expectInverses("Article.author", "Author.articles")
        try expectInverses("Citation.article", "Article.citations")
        try expectInverses("Message.discussion", "Discussion.messages")
        #expect(try relationship("Article.author").maxCount == 1)
        #expect(try relationship("Author.articles").isToMany)
        #expect(try relationship("Discussion.messages").deleteRule == .cascade)
        #expect(try relationship("Message.discussion").deleteRule == .nullify)
        #expect(try relationship("Article.author").common.isOptional)

        #expect(VersionHashes.entityHashes(of: model).count == 9)
    }

    @Test func cdqTemplateIsAnEmptyVersion() throws {
        let version = try RubyXcdmSchemaReader.version(fromSchemaAt: Corpus.url("xcdm-cdq/templates/init/schemas/0001_initial.rb"))
        #expect(version.name == "0001 initial")
        #expect(version.current)
        #expect(version.model.entities.isEmpty)
        #expect(version.model.versionIdentifiers == ["0001 initial"])
    }

    // MARK: The DSL

    @Test func defaultsAndOptionNormalisation() throws {
        let model = try schema(
            """
            schema "1" do
              entity "Thing" do
                integer16 :small
                integer64 :big, default: 42
                decimal :price
                double :ratio, default: nil
                float :scale, default: 1.5e-7
                string :title, default: "Untitled", indexed: true, minValueString: 3
                boolean :flag, default: true, transient: true
                binary :blob, allowsExternalBinaryDataStorage: true
                transformable :tags, valueTransformerName: "NSSecureUnarchiveFromData", customClassName: "[String]"
                datetime :seen, versionHashModifier: :v2
              end
            end
            """)
        let attributes = try #require(model.entities.first).attributes
        let byName = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0) })
        #expect(byName["small"]?.defaultValue == "0")
        #expect(byName["big"]?.defaultValue == "42")
        #expect(byName["price"]?.defaultValue == "0.0")
        #expect(byName["price"]?.type == .decimal)
        #expect(byName["ratio"]?.defaultValue == nil)
        #expect(byName["scale"]?.defaultValue == "1.5e-07")
        #expect(byName["title"]?.defaultValue == "Untitled")
        #expect(byName["title"]?.common.isIndexed == true)
        #expect(byName["title"]?.minValue == "3")
        #expect(byName["flag"]?.defaultValue == "YES")
        #expect(byName["flag"]?.common.isTransient == true)
        #expect(byName["blob"]?.allowsExternalBinaryDataStorage == true)
        #expect(byName["tags"]?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(byName["tags"]?.valueClassName == "[String]")
        #expect(byName["seen"]?.common.versionHashModifier == "v2")
        #expect(attributes.allSatisfy { $0.common.isOptional })
    }

    /// `raw_property` and entity options are not normalised: `true` is written as `true`, which
    /// Core Data does not read as YES.
    @Test func rawPropertiesAndEntityOptions() throws {
        let model = try schema(
            """
            schema "1" do
              entity "Base", abstract: true, versionHashModifier: "b" do
                raw_property name: "identifier", attributeType: "UUID", optional: "NO"
                raw_property({ :name => "link", "attributeType" => "URI", :optional => true })
              end
              entity "Child", parent: "Base", class_name: ".Child" do
                raw_relationship name: "base", destinationEntity: "Base", maxCount: 1
                user_info_entry 'a', 'first'
                user_info_entry "b", 2
                user_info_entry 'a', 'second'
              end
            end
            """)
        let base = try #require(model.entity(named: "Base"))
        let child = try #require(model.entity(named: "Child"))
        #expect(base.isAbstract)
        #expect(base.versionHashModifier == "b")
        #expect(base.attributes.map(\.type) == [.uuid, .uri])
        #expect(base.attributes.map(\.common.isOptional) == [false, false])
        #expect(child.parentName == "Base")
        #expect(child.className == ".Child")
        #expect(child.userInfo == ["a": "second", "b": "2"])
        let relationship = try #require(child.relationships.first)
        #expect(relationship.destinationEntity == "Base")
        #expect(relationship.inverseName == nil)
        #expect(relationship.deleteRule == .nullify)
        #expect(relationship.common.isOptional)
    }

    @Test func relationshipHelpersAndInference() throws {
        let model = try schema(
            """
            schema "1" do
              entity "FailedBankInfo" do
                has_one :details, inverse: "FailedBankDetails.info", deletionRule: "Cascade"
                has_many :categories
                belongs_to :person, optional: false
                relationship :owner
                has_many :replies, inverse: "Post.parent", ordered: true, minCount: 2, maxCount: 10
              end
            end
            """)
        let relationships = try #require(model.entities.first).relationships
        let byName = Dictionary(uniqueKeysWithValues: relationships.map { ($0.name, $0) })
        #expect(byName["details"]?.destinationEntity == "FailedBankDetails")
        #expect(byName["details"]?.inverseName == "info")
        #expect(byName["details"]?.maxCount == 1)
        #expect(byName["details"]?.deleteRule == .cascade)
        #expect(byName["categories"]?.destinationEntity == "Category")
        #expect(byName["categories"]?.inverseName == "failed_bank_info")
        #expect(byName["person"]?.destinationEntity == "Person")
        #expect(byName["person"]?.inverseName == "failed_bank_infos")
        #expect(byName["person"]?.common.isOptional == false)
        #expect(byName["owner"]?.destinationEntity == "Owner")
        #expect(byName["owner"]?.maxCount == 1)
        #expect(byName["replies"]?.isOrdered == true)
        #expect(byName["replies"]?.minCount == 2)
        #expect(byName["replies"]?.maxCount == 10)
        #expect(relationships.map(\.name) == ["details", "categories", "person", "owner", "replies"])
    }

    @Test func inflections() {
        #expect(RubyInflector.classify("articles") == "Article")
        #expect(RubyInflector.classify("replies") == "Reply")
        #expect(RubyInflector.classify("addresses") == "Address")
        #expect(RubyInflector.classify("statuses") == "Status")
        #expect(RubyInflector.classify("people") == "Person")
        #expect(RubyInflector.classify("created_by") == "CreatedBy")
        #expect(RubyInflector.classify("toDoItems") == "ToDoItem")
        #expect(RubyInflector.classify("wolves") == "Wolf")
        #expect(RubyInflector.classify("news") == "News")
        #expect(RubyInflector.underscore("FailedBankInfo") == "failed_bank_info")
        #expect(RubyInflector.underscore("HTTPRequest") == "http_request")
        #expect(RubyInflector.underscore("Article") == "article")
        #expect(RubyInflector.pluralize("article") == "articles")
        #expect(RubyInflector.pluralize("category") == "categories")
        #expect(RubyInflector.pluralize("box") == "boxes")
        #expect(RubyInflector.pluralize("person") == "people")
        #expect(RubyInflector.pluralize("to_do_item") == "to_do_items")
        #expect(RubyInflector.pluralize("day") == "days")
        #expect(RubyInflector.pluralize("sheep") == "sheep")
        #expect(RubyInflector.pluralize("analysis") == "analyses")
    }

    /// Comments, `=begin`/`=end`, `__END__`, both hash syntaxes, parentheses and `{ … }` blocks.
    @Test func rubySyntaxVariants() throws {
        let model = try schema(
            """
            # leading comment
            =begin
            entity "Ignored" do end
            =end
            schema('2', :xcode_version => nil) {
              entity("Note", { class_name: 'NoteObject' }) { string(:text, :optional => false); integer32 :rank,
                  default: -0x10, :indexed => false }
              entity "Tag" do # trailing comment
                string :label, "default": 'it\\'s', minValueString: 1_000
                double :weight, default: 2.50
              end
            }
            __END__
            entity "NotCode" do
            """)
        #expect(model.entities.map(\.name) == ["Note", "Tag"])
        let note = try #require(model.entity(named: "Note"))
        #expect(note.className == "NoteObject")
        #expect(note.attributes.first?.common.isOptional == false)
        #expect(note.attributes.last?.defaultValue == "-16")
        let tag = try #require(model.entity(named: "Tag"))
        #expect(tag.attributes.first?.defaultValue == "it's")
        #expect(tag.attributes.first?.minValue == "1000")
        #expect(tag.attributes.last?.defaultValue == "2.5")
    }

    @Test func rubyFloatFormatting() {
        #expect(RubyFloatFormat.string(0.0) == "0.0")
        #expect(RubyFloatFormat.string(1.0) == "1.0")
        #expect(RubyFloatFormat.string(-2.5) == "-2.5")
        #expect(RubyFloatFormat.string(0.0001) == "0.0001")
        #expect(RubyFloatFormat.string(0.00001) == "1.0e-05")
        #expect(RubyFloatFormat.string(1e15) == "1000000000000000.0")
        #expect(RubyFloatFormat.string(1e16) == "1.0e+16")
        #expect(RubyFloatFormat.string(1.25e20) == "1.25e+20")
        #expect(RubyFloatFormat.string(123.456) == "123.456")
    }

    // MARK: Errors

    @Test func malformedSchemasGiveOneLineErrorsWithAPosition() throws {
        let cases: [(String, String, Int, Int)] = [
            ("schema \"1\" do\n  entity \"A\" do\n    string :name, default: \"oops\n  end\nend\n", "unterminated string", 3, 28),
            ("schema \"1\" do\n  entity \"A\" do\n    string :name\nend\n", "expected `end` to close the block opened with `do` at 1:12", 5, 1),
            ("schema \"1\" do\n  entity \"A\" do\n    uuid :key\n  end\nend\n", "unknown method `uuid` in an `entity` block", 3, 5),
            ("schema \"1\" do\n  entity \"A\" do\n    string :name, optional: false)\n  end\nend\n", "expected a new line", 3, 34),
            ("@#!%&*", "unexpected character `@`", 1, 1),
            ("", "expected `schema \"version\" do … end`", 1, 1),
            ("schema \"1\"\n", "`schema` needs a `do … end` block", 1, 1),
            ("schema \"1\" do end\nschema \"2\" do end\n", "one `schema` block", 2, 1),
            ("schema \"1\" do\n  entity \"A\" do\n    has_many :b, inverse: \".b\"\n  end\nend\n", "`inverse:` expects", 3, 18),
            ("schema \"1\" do\n  entity \"A\" do\n    string :t, default: \"#{x}\"\n  end\nend\n", "interpolation", 3, 25),
            ("schema \"1\" do\n  entity \"A\" do\n    string :t, default: {a: 1}\n  end\nend\n", "found a hash", 3, 16),
            ("schema \"1\" do\n  entity \"A\" do\n    string\n  end\nend\n", "wrong arguments for `string`", 3, 5),
            ("schema \"1\" do\n  entity \"A\" do\n    string :a, b: 1, :c\n  end\nend\n", "plain argument cannot follow", 3, 22),
            ("schema \"1\" do\n  entity \"A\" do\n    string :a, 'optional' => false\n  end\nend\n", "both :optional and \"optional\"", 3, 16),
        ]
        for (text, message, line, column) in cases {
            let failure = try #require(parseFailure(text), "\(text)")
            #expect(failure.description.hasPrefix("bad.rb:\(line):\(column): "), "\(failure.description)")
            #expect(failure.description.contains(message), "\(failure.description)")
            #expect(!failure.description.contains("\n"))
            #expect(position(failure)?.line == line && position(failure)?.column == column)
        }
    }

    /// Every prefix of the corpus schemas, and seeded random damage, either parse or fail with
    /// a positioned error: never a crash.
    @Test func truncatedAndDamagedSchemasNeverCrash() throws {
        var generator = SeededGenerator(seed: 0x5eed)
        for url in [Self.fixture, Self.cdqSchema] {
            let text = try String(contentsOf: url, encoding: .utf8)
            let scalars = Array(text.unicodeScalars)
            for length in 0...scalars.count {
                var prefix = String.UnicodeScalarView()
                prefix.append(contentsOf: scalars[0..<length])
                checkNoCrash(String(prefix))
            }
            let alphabet = Array("\"' :,#{}()=>do end\n\\_-1.e".unicodeScalars)
            for _ in 0..<300 {
                var damaged = scalars
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let index = Int.random(in: 0..<damaged.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: damaged.remove(at: index)
                    case 1: damaged.insert(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)], at: index)
                    default: damaged[index] = alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
                    }
                }
                var view = String.UnicodeScalarView()
                view.append(contentsOf: damaged)
                checkNoCrash(String(view))
            }
        }
        checkNoCrash("schema \"1\" do\n entity \"A\" do\n string :x, default: " + String(repeating: "{a: ", count: 10_000))
        checkNoCrash("schema \"1\" " + String(repeating: "do x ", count: 5_000))
    }

    private func checkNoCrash(_ text: String) {
        do {
            _ = try RubyXcdmSchemaReader.version(fromSchema: text, fileName: "t.rb")
        } catch let failure as ModelError {
            #expect(failure.description.hasPrefix("t.rb:") && position(failure) != nil && !failure.description.contains("\n"), "\(failure.description)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    // MARK: Loading through ModelFiles

    @Test func modelFilesLoadsSchemaFilesAndFolders() throws {
        #expect(ModelFiles.canRead(Self.cdqSchema))
        let single = try ModelFiles.versions(at: Self.cdqSchema)
        #expect(single.map(\.name) == ["0.0.1"])

        let folder = try TemporaryDirectory.make()
        try "schema \"0002 tags\" do\n  entity \"Note\" do\n    string :text\n    string :tags\n  end\nend\n"
            .write(to: folder.appendingPathComponent("0002_tags.rb"), atomically: true, encoding: .utf8)
        try "schema \"0001 initial\" do\n  entity \"Note\" do\n    string :text\n  end\nend\n"
            .write(to: folder.appendingPathComponent("0001_initial.rb"), atomically: true, encoding: .utf8)
        try "not a schema".write(to: folder.appendingPathComponent(".hidden.rb"), atomically: true, encoding: .utf8)
        try "notes".write(to: folder.appendingPathComponent("README"), atomically: true, encoding: .utf8)
        #expect(ModelFiles.canRead(folder))
        let versions = try ModelFiles.versions(at: folder)
        #expect(versions.map(\.name) == ["0001 initial", "0002 tags"])
        #expect(versions.map(\.current) == [false, true])

        try "schema \"0001 initial\" do\nend\n".write(to: folder.appendingPathComponent("0003_again.rb"), atomically: true, encoding: .utf8)
        #expect(
            throws: ModelError.schema(
                file: folder.appendingPathComponent("0003_again.rb").path, line: 1, column: 1,
                reason: "schema version \"0001 initial\" is also declared by 0001_initial.rb")
        ) {
            try ModelFiles.versions(at: folder)
        }
        let empty = try TemporaryDirectory.make()
        #expect(!ModelFiles.canRead(empty))

        let broken = folder.appendingPathComponent("0004_broken.rb")
        try "schema \"0004\" do\n  entity \"X\" do\n".write(to: broken, atomically: true, encoding: .utf8)
        do {
            _ = try ModelFiles.versions(at: broken)
            Issue.record("a broken schema loaded")
        } catch let failure as ModelError {
            #expect(failure.description.hasPrefix("\(broken.path):3:1: "), "\(failure.description)")
        }
    }
}

/// `Samples/schemas/<App>/*.rb`: each app's schema history, for showing migrations.
@Suite struct SampleSchemaTests {
    static let folder = Corpus.repositoryRoot.appendingPathComponent("Samples/schemas", isDirectory: true)

    static let apps: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }()

    @Test func theFiveSampleAppsAreThere() {
        #expect(Self.apps == ["Articles", "Employees", "FailedBank", "TaskList", "ToDo"])
    }

    /// Each later version adds one property to one entity, so only that entity's hash changes
    /// (the hashes of §5 cover every persistent property; no sample entity has a sub-entity).
    @Test(arguments: apps) func eachVersionAddsOnePropertyToOneEntity(app: String) throws {
        let url = Self.folder.appendingPathComponent(app, isDirectory: true)
        #expect(ModelFiles.canRead(url))
        let versions = try ModelFiles.versions(at: url)
        #expect(versions.count >= 2)
        #expect(versions.map(\.current) == Array(repeating: false, count: versions.count - 1) + [true])
        for (earlier, later) in zip(versions, versions.dropFirst()) {
            let before = VersionHashes.entityHashes(of: earlier.model)
            let after = VersionHashes.entityHashes(of: later.model)
            #expect(before.keys.sorted() == after.keys.sorted(), "\(later.name)")
            let changed = Set(after.keys.filter { before[$0] != after[$0] })
            let grown = Set(
                later.model.entities.filter { entity in
                    let previous = earlier.model.entity(named: entity.name)?.properties.map(\.name) ?? []
                    return Set(entity.properties.map(\.name)).isStrictSuperset(of: previous)
                        && entity.properties.count == previous.count + 1
                }.map(\.name))
            #expect(grown.count == 1, "\(app) \(later.name): \(grown)")
            #expect(changed == grown, "\(app) \(later.name): hashes changed for \(changed.sorted())")
        }
    }

    /// The FailedBank schema reproduces the tutorial's own Xcode model, hash for hash.
    @Test func failedBankMatchesTheTutorialModel() throws {
        let schema = try ModelFiles.versions(at: Self.folder.appendingPathComponent("FailedBank/0001_initial.rb"))
        let xcode = try ModelFiles.versions(at: Corpus.url("failedbankcd-seed/FailedBankCD.xcdatamodeld"))
        let schemaModel = try #require(schema.first).model
        let xcodeModel = try #require(xcode.first).model
        #expect(VersionHashes.entityHashes(of: schemaModel) == VersionHashes.entityHashes(of: xcodeModel))
    }
}

/// Schema strings decode Ruby's escapes like CDQ queries do: `\1` is U+0001, not `1`.
@Test func rubySchemaStringsDecodeRubyEscapes() throws {
    var lexer = RubyLexer(#"x "\1\101\x42\u{43 44}\é""#)
    let kinds = try lexer.tokens().map(\.kind)
    #expect(kinds == [.identifier("x"), .string("\u{01}AB" + "CDé"), .endOfFile])
}
