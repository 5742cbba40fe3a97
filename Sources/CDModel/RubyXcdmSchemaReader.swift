import CDBase
import Foundation

/// Reads ruby-xcdm schema files (`schemas/*.rb`, docs/format/model-format.md §7) as data,
/// without running Ruby.
///
/// Each schema becomes the element tree of the `contents` XML that ruby-xcdm would write for
/// it, and that tree goes through ``XMLModelReader``. A schema therefore loads exactly as the
/// model ruby-xcdm generates from it, defaults and normalisation included.
///
/// The Xcode version decides between the two relationship styles of §7. ruby-xcdm picks the old
/// one when the version matches the unanchored `/4\..*/`, i.e. when it contains `4.` anywhere
/// ("4.6", but also "14.2" and "10.4.1"). `nil`, the default, selects the current style: it is
/// what ruby-xcdm writes when it gets no version (no `xcodebuild`, Linux) or any version
/// without `4.`, so it matches schemas built with today's Xcode and SDKs. A schema's own
/// `xcode_version:` option wins over the version passed in, as in ruby-xcdm.
public enum RubyXcdmSchemaReader {
    /// The one version a schema file declares, named by its version string and marked current.
    public static func version(fromSchema text: String, fileName: String, xcodeVersion: String? = nil) throws -> ModelVersion {
        try loadSchema(text, fileName: fileName, xcodeVersion: xcodeVersion).version
    }

    /// The one version of the schema file at `url`; errors name the file by its path.
    public static func version(fromSchemaAt url: URL, xcodeVersion: String? = nil) throws -> ModelVersion {
        try version(fromSchema: try read(url), fileName: url.path, xcodeVersion: xcodeVersion)
    }

    /// One version per `*.rb` file of `url` (hidden files skipped, as Ruby's `Dir[]` does), in
    /// the order of their version strings. The last is current: ruby-xcdm's `.xccurrentversion`
    /// names the largest version string (byte-wise string comparison, §7).
    public static func versions(inSchemasFolder url: URL, xcodeVersion: String? = nil) throws -> [ModelVersion] {
        let files = schemaFiles(in: url)
        guard !files.isEmpty else { throw ModelError.notAModel(path: url.path, reason: "no ruby-xcdm schema files (*.rb)") }
        var loaded: [(version: ModelVersion, file: URL)] = []
        for file in files {
            let schema = try loadSchema(try read(file), fileName: file.path, xcodeVersion: xcodeVersion)
            // ruby-xcdm would silently write both into one directory; refusing is clearer.
            if let other = loaded.first(where: { $0.version.name == schema.version.name }) {
                throw ModelError.schema(
                    file: file.path, line: schema.position.line, column: schema.position.column,
                    reason: "schema version \"\(schema.version.name)\" is also declared by \(other.file.lastPathComponent)")
            }
            loaded.append((schema.version, file))
        }
        var versions = loaded.map(\.version).sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for index in versions.indices { versions[index].current = index == versions.count - 1 }
        return versions
    }

    /// Whether `url` is a folder (not a model bundle) holding at least one schema file.
    package static func isSchemasFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else { return false }
        return !schemaFiles(in: url).isEmpty
    }

    private static func schemaFiles(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".rb") && !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }.filter { file in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    private static func read(_ url: URL) throws -> String {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "permission denied" : "no such file"
            throw ModelError.unreadable(path: url.path, reason: "cannot read (\(reason))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw ModelError.malformed(path: url.path, reason: "not UTF-8 text") }
        return text
    }

    private static func loadSchema(_ text: String, fileName: String, xcodeVersion: String?) throws
        -> (version: ModelVersion, position: RubySourcePosition)
    {
        do {
            let program = try RubySchemaParser.parse(text)
            let schema = try RubyXcdmSchema(program: program, xcodeVersion: xcodeVersion)
            let model = try XMLModelReader.model(from: schema.contents)
            return (ModelVersion(name: schema.version, current: true, model: model), schema.position)
        } catch let error as RubySyntaxError {
            // One line: a message may quote source text that spans lines.
            throw ModelError.schema(
                file: fileName, line: error.position.line, column: error.position.column,
                reason: error.message.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " "))
        } catch let error as ModelError {
            throw error.inFile(fileName)
        }
    }
}

/// One evaluated `schema "version" do … end` block: its version and the `<model>` element tree
/// ruby-xcdm would write for it.
///
/// The header ruby-xcdm writes (tools and system versions, §7) carries nothing the model keeps,
/// so the tree holds only `userDefinedModelVersionIdentifier` and the entities.
struct RubyXcdmSchema {
    let version: String
    let position: RubySourcePosition
    let contents: XMLTree

    init(program: RubyProgram, xcodeVersion: String?) throws(RubySyntaxError) {
        guard let call = program.calls.first else {
            throw RubySyntaxError(
                position: program.endPosition,
                message: "expected `schema \"version\" do … end`, found the end of the file")
        }
        guard call.name == "schema" else {
            throw RubySyntaxError(position: call.position, message: "unknown method `\(call.name)`; a schema file holds one `schema \"version\" do … end`")
        }
        if let second = program.calls.dropFirst().first {
            throw RubySyntaxError(
                position: second.position,
                message: "a schema file holds one `schema` block (one version per file), found `\(second.name)` after it")
        }
        let arguments = try Arguments(call, usage: "schema \"version\" do … end", required: 1)
        guard case .string(let version) = arguments.positional[0].value else {
            throw RubySyntaxError(
                position: arguments.positional[0].position, message: "`schema` expects a version string, found \(arguments.positional[0].value.summary)")
        }
        let statements = try arguments.block()
        // Whether relationship helpers use the Xcode 4.x counts (see ``RubyXcdmSchemaReader``).
        let usesXcode4Style: Bool
        if let requested = arguments.options[symbol: "xcode_version"], requested.isTruthy {
            // Ruby matches the regular expression against strings and symbols only.
            switch requested {
            case .string(let text), .symbol(let text): usesXcode4Style = text.contains("4.")
            default: usesXcode4Style = false
            }
        } else {
            usesXcode4Style = xcodeVersion?.contains("4.") ?? false
        }
        self.version = version
        self.position = call.position
        var entities: [XMLTree] = []
        for statement in statements {
            guard statement.name == "entity" else {
                throw RubySyntaxError(position: statement.position, message: "unknown method `\(statement.name)` in a `schema` block; expected `entity`")
            }
            entities.append(try Self.entity(statement, usesXcode4Style: usesXcode4Style))
        }
        contents = XMLTree(name: "model", attributes: ["userDefinedModelVersionIdentifier": version], children: entities)
    }

    /// ruby-xcdm's type methods and the XML `attributeType` each writes.
    static let typeMethods: [String: String] = [
        "integer16": "Integer 16", "integer32": "Integer 32", "integer64": "Integer 64",
        "decimal": "Decimal", "double": "Double", "float": "Float", "string": "String",
        "boolean": "Boolean", "datetime": "Date", "binary": "Binary", "transformable": "Transformable",
    ]

    private static let propertyDefaults: [(String, RubyValue)] = [("optional", .string("YES")), ("syncable", .string("YES"))]
    private static let relationshipDefaults: [(String, RubyValue)] = [
        ("optional", .string("YES")), ("deletionRule", .string("Nullify")), ("syncable", .string("YES")),
    ]

    /// `entity "Name", options do … end`. `class_name`, `parent` and `abstract` are translated;
    /// any other option is copied as an XML attribute without normalisation (so `true` stays
    /// `true`, not `YES`), exactly as ruby-xcdm does. Attributes come first, then
    /// relationships, then one `<userInfo>` per `user_info_entry`, in call order.
    private static func entity(_ call: RubyCall, usesXcode4Style: Bool) throws(RubySyntaxError) -> XMLTree {
        let arguments = try Arguments(call, usage: "entity \"Name\", options do … end", required: 1)
        guard case .string(let name) = arguments.positional[0].value else {
            throw RubySyntaxError(
                position: arguments.positional[0].position, message: "`entity` expects a name string, found \(arguments.positional[0].value.summary)")
        }
        let statements = try arguments.block()
        var options = arguments.options
        let className = options.remove("class_name").flatMap { $0.isTruthy ? $0 : nil } ?? .string(name)
        if let parent = options.remove("parent"), parent.isTruthy {
            options.set(.string("parentEntity"), parent)
        }
        if let abstract = options.remove("abstract"), abstract.isTruthy {
            options.set(.string("isAbstract"), try normalized(abstract, at: call.position))
        }
        let header = RubyOptions([
            ("name", .string(name)), ("syncable", .string("YES")),
            ("representedClassName", className), ("codeGenerationType", .string("class")),
        ])
        var attributes: [XMLTree] = []
        var relationships: [XMLTree] = []
        var userInfo: [XMLTree] = []
        for statement in statements {
            var helperDefaults: [(String, RubyValue)]?
            switch statement.name {
            case let method where typeMethods[method] != nil:
                attributes.append(try property(statement, type: method))
            case "raw_property":
                let raw = try Arguments(statement, usage: "raw_property(name: \"…\", attributeType: \"…\")", required: 0, takesBlock: false)
                attributes.append(XMLTree(name: "attribute", attributes: try raw.soleHash().merged(over: propertyDefaults).xmlAttributes(), children: []))
            case "raw_relationship":
                let raw = try Arguments(statement, usage: "raw_relationship(name: \"…\", destinationEntity: \"…\")", required: 0, takesBlock: false)
                relationships.append(
                    XMLTree(name: "relationship", attributes: try raw.soleHash().merged(over: relationshipDefaults).xmlAttributes(), children: []))
            case "user_info_entry":
                let entry = try Arguments(statement, usage: "user_info_entry 'key', 'value'", required: 2, allowsOptions: false, takesBlock: false)
                let pair = RubyOptions([("key", entry.positional[0].value), ("value", entry.positional[1].value)])
                userInfo.append(
                    XMLTree(
                        name: "userInfo", attributes: [:],
                        children: [
                            XMLTree(name: "entry", attributes: try pair.xmlAttributes(at: statement.position), children: [])
                        ]))
            case "relationship":
                helperDefaults = []
            case "belongs_to":
                helperDefaults =
                    usesXcode4Style
                    ? [("maxCount", .integer("1")), ("minCount", .integer("1")), ("plural_inverse", .boolean(true))]
                    : [("maxCount", .integer("1")), ("plural_inverse", .boolean(true))]
            case "has_one":
                helperDefaults = usesXcode4Style ? [("maxCount", .integer("1")), ("minCount", .integer("1"))] : [("maxCount", .integer("1"))]
            case "has_many":
                helperDefaults = usesXcode4Style ? [("maxCount", .integer("-1")), ("minCount", .integer("1"))] : [("toMany", .boolean(true))]
            default:
                throw RubySyntaxError(
                    position: statement.position,
                    message: "unknown method `\(statement.name)` in an `entity` block; expected a type method "
                        + "(integer16, integer32, integer64, decimal, double, float, string, boolean, datetime, binary, transformable), "
                        + "raw_property, user_info_entry, relationship, raw_relationship, belongs_to, has_one or has_many")
            }
            if let helperDefaults {
                relationships.append(try relationship(statement, in: name, defaults: helperDefaults))
            }
        }
        return XMLTree(
            name: "entity", attributes: try options.merged(over: header.entries).xmlAttributes(at: call.position),
            children: attributes + relationships + userInfo)
    }

    /// A type method: `string :name, options`. Integer types default to `0` and floating-point
    /// types to `0.0` unless `default:` is given; `default: nil` writes no default (§7).
    private static func property(_ call: RubyCall, type method: String) throws(RubySyntaxError) -> XMLTree {
        let arguments = try Arguments(call, usage: "\(method) :name, options", required: 1, takesBlock: false)
        let name = try propertyName(arguments, method: method)
        var options = arguments.options
        var property = RubyOptions([("attributeType", .string(typeMethods[method] ?? "")), ("name", .string(name))])
        let explicitDefault = options.remove("default")
        if let explicitDefault, explicitDefault != .nil {
            property.set(.symbol("defaultValueString"), try normalized(explicitDefault, at: arguments.options.position(of: "default") ?? call.position))
        } else if explicitDefault == nil, ["integer16", "integer32", "integer64"].contains(method) {
            property.set(.symbol("defaultValueString"), .string("0"))
        } else if explicitDefault == nil, ["float", "double", "decimal"].contains(method) {
            property.set(.symbol("defaultValueString"), .string("0.0"))
        }
        for entry in options.entries { property.set(entry.key, try normalized(entry.value, at: entry.position), from: entry.position) }
        return XMLTree(name: "attribute", attributes: try property.merged(over: propertyDefaults).xmlAttributes(at: call.position), children: [])
    }

    /// `relationship :name, options` after the helper's defaults. With `inverse: "Entity.rel"`
    /// both ends are given; otherwise the destination is `name.classify` and the inverse is the
    /// entity's name underscored, pluralised when `plural_inverse` is set (§7, ``RubyInflector``).
    private static func relationship(_ call: RubyCall, in entityName: String, defaults: [(String, RubyValue)])
        throws(RubySyntaxError) -> XMLTree
    {
        let arguments = try Arguments(call, usage: "\(call.name) :name, options", required: 1, takesBlock: false)
        let name = try propertyName(arguments, method: call.name)
        var options = arguments.options.merged(over: defaults)
        var relationship = RubyOptions([("name", .string(name))])
        if let inverse = options[symbol: "inverse"], inverse.isTruthy {
            let position = options.position(of: "inverse") ?? call.position
            _ = options.remove("inverse")
            guard case .string(let specification) = inverse else {
                throw RubySyntaxError(position: position, message: "`inverse:` expects a string \"Entity.relationship\", found \(inverse.summary)")
            }
            // Ruby's `split('.')`: trailing empty parts are dropped.
            var parts = specification.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            while parts.last == "" { parts.removeLast() }
            guard let destination = parts.first, !destination.isEmpty else {
                throw RubySyntaxError(position: position, message: "`inverse:` expects \"Entity.relationship\", found \"\(specification)\"")
            }
            relationship.set(.symbol("destinationEntity"), .string(destination))
            relationship.set(.symbol("inverseEntity"), .string(destination))
            relationship.set(.symbol("inverseName"), parts.count > 1 ? .string(parts[1]) : .nil)
            _ = options.remove("plural_inverse")
        } else {
            let destination = RubyInflector.classify(name)
            relationship.set(.symbol("destinationEntity"), .string(destination))
            relationship.set(.symbol("inverseEntity"), .string(destination))
            let inverse = RubyInflector.underscore(entityName)
            let plural = options.remove("plural_inverse")?.isTruthy ?? false
            relationship.set(.symbol("inverseName"), .string(plural ? RubyInflector.pluralize(inverse) : inverse))
        }
        for entry in options.entries { relationship.set(entry.key, try normalized(entry.value, at: entry.position), from: entry.position) }
        return XMLTree(name: "relationship", attributes: try relationship.merged(over: relationshipDefaults).xmlAttributes(at: call.position), children: [])
    }

    private static func propertyName(_ arguments: Arguments, method: String) throws(RubySyntaxError) -> String {
        switch arguments.positional[0].value {
        case .symbol(let name), .string(let name): return name
        case let other:
            throw RubySyntaxError(position: arguments.positional[0].position, message: "`\(method)` expects a name such as :title, found \(other.summary)")
        }
    }

    /// ruby-xcdm's `normalize_value`: `true` → `YES`, `false` → `NO`, anything else `to_s`.
    private static func normalized(_ value: RubyValue, at position: RubySourcePosition) throws(RubySyntaxError) -> RubyValue {
        switch value {
        case .boolean(let flag): return .string(flag ? "YES" : "NO")
        case .hash: throw RubySyntaxError(position: position, message: "expected a plain value, found a hash")
        default: return .string(value.rubyString ?? "")
        }
    }
}

/// The arguments of one DSL call, checked against the method's Ruby signature
/// (`name, options = {}` for most of them).
private struct Arguments {
    let call: RubyCall
    let positional: [RubyArgument]
    let options: RubyOptions
    let usage: String

    init(_ call: RubyCall, usage: String, required: Int, allowsOptions: Bool = true, takesBlock: Bool = true) throws(RubySyntaxError) {
        self.call = call
        self.usage = usage
        var positional = call.arguments
        var options = RubyOptions([])
        if allowsOptions, positional.count == required + 1, case .hash(let entries) = positional[required].value {
            options = RubyOptions(entries: entries)
            positional.removeLast()
        }
        guard positional.count == required else {
            let position = positional.count > required ? positional[required].position : call.position
            throw RubySyntaxError(position: position, message: "wrong arguments for `\(call.name)`; expected `\(usage)`")
        }
        if !takesBlock, call.block != nil {
            throw RubySyntaxError(position: call.position, message: "`\(call.name)` takes no block; expected `\(usage)`")
        }
        self.positional = positional
        self.options = options
    }

    /// The calls inside the required `do … end` block.
    func block() throws(RubySyntaxError) -> [RubyCall] {
        guard let block = call.block else {
            throw RubySyntaxError(position: call.position, message: "`\(call.name)` needs a `do … end` block; expected `\(usage)`")
        }
        return block
    }

    /// The one hash argument of `raw_property` and `raw_relationship`.
    func soleHash() throws(RubySyntaxError) -> RubyOptions {
        guard call.arguments.count == 1, case .hash(let entries) = call.arguments[0].value else {
            throw RubySyntaxError(
                position: call.arguments.first?.position ?? call.position,
                message: "`\(call.name)` expects one hash; expected `\(usage)`")
        }
        return RubyOptions(entries: entries)
    }
}

/// A Ruby options hash and the few `Hash` operations ruby-xcdm performs on it. Keys compare as
/// Ruby's do (`:optional` and `"optional"` are different keys); a later duplicate wins.
struct RubyOptions {
    private(set) var entries: [RubyHashEntry]

    init(entries: [RubyHashEntry]) { self.entries = entries }

    /// Symbol-keyed entries with no source position (defaults and computed values).
    init(_ pairs: [(String, RubyValue)]) {
        entries = pairs.map { RubyHashEntry(key: .symbol($0.0), value: $0.1, position: RubySourcePosition(line: 0, column: 0)) }
    }

    subscript(symbol name: String) -> RubyValue? {
        entries.last { $0.key == .symbol(name) }?.value
    }

    func position(of name: String) -> RubySourcePosition? {
        entries.last { $0.key == .symbol(name) }?.position
    }

    /// `Hash#delete(:name)`.
    mutating func remove(_ name: String) -> RubyValue? {
        let value = self[symbol: name]
        entries.removeAll { $0.key == .symbol(name) }
        return value
    }

    /// `hash[key] = value`: replaces an existing key in place, or appends. `position` is where
    /// the value comes from in the source, if anywhere.
    mutating func set(_ key: RubyValue, _ value: RubyValue, from position: RubySourcePosition = RubySourcePosition(line: 0, column: 0)) {
        if let index = entries.lastIndex(where: { $0.key == key }) {
            entries[index].value = value
            entries[index].position = position
        } else {
            entries.append(RubyHashEntry(key: key, value: value, position: position))
        }
    }

    /// `defaults.merge(self)`: own entries win.
    func merged(over defaults: [(String, RubyValue)]) -> RubyOptions {
        merged(over: RubyOptions(defaults).entries)
    }

    func merged(over defaults: [RubyHashEntry]) -> RubyOptions {
        var result = RubyOptions(entries: defaults)
        for entry in entries {
            if let index = result.entries.lastIndex(where: { $0.key == entry.key }) {
                result.entries[index] = entry
            } else {
                result.entries.append(entry)
            }
        }
        return result
    }

    /// The XML attributes Ruby's Builder writes for this hash: keys and values through `to_s`,
    /// `nil` values left out. Keys that differ only as symbol and string (`:optional`,
    /// `"optional"`) would give ruby-xcdm a duplicate XML attribute, so they are refused.
    func xmlAttributes(at fallback: RubySourcePosition? = nil) throws(RubySyntaxError) -> [String: String] {
        var attributes: [String: String] = [:]
        var keys: [String: RubyValue] = [:]
        for entry in entries {
            let position = entry.position.line > 0 ? entry.position : fallback ?? entry.position
            guard let key = entry.key.rubyString else {
                throw RubySyntaxError(position: position, message: "expected a symbol or string key, found a hash")
            }
            if let earlier = keys.updateValue(entry.key, forKey: key), earlier != entry.key {
                throw RubySyntaxError(
                    position: position,
                    message: "`\(key)` is given as both \(earlier.summary) and \(entry.key.summary); ruby-xcdm would write the XML attribute twice")
            }
            if entry.value == .nil {
                attributes[key] = nil
                continue
            }
            guard let value = entry.value.rubyString else {
                throw RubySyntaxError(position: position, message: "expected a plain value for `\(key)`, found a hash")
            }
            attributes[key] = value
        }
        return attributes
    }
}
