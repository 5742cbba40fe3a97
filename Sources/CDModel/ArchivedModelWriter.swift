import CDArchive
import CDBase
import CDPredicate
import Foundation

/// Writes a model as an archived `NSManagedObjectModel`: the uncompressed keyed archive that a
/// `.mom` holds and that, raw-DEFLATE-compressed, is a store's `Z_MODELCACHE.Z_CONTENT`
/// (docs/format/store-format.md §6, model-format.md §3). ``ArchivedModelReader`` reads it back.
///
/// Classes, keys, `_P` and `NSFlagsKey` bits are those of store-format.md §6, laid out as in
/// real model caches: `NSEntities` is an `NSKnownKeysDictionary1`, every property points at
/// its entity (`NSEntity`), every entity at the model, its superentity and sub-entities, and
/// relationships at their destination and inverse, so the archive is a graph with cycles.
///
/// Where the model type keeps less than Core Data does, the simplest form the reader reads
/// back is written, and these differ from Apple's archives:
/// * a sub-entity's `NSProperties` holds only its own properties, not proxies
///   (`_NSPropertyDescriptionProxy`) for the inherited ones;
/// * `NSAttributeValueClassName` is the model's custom class name, not one derived from the type;
/// * compound-index members and uniqueness constraints are property names, not descriptions;
/// * bounds (`minValue`, `maxValue`) and the regular expression become validation predicates
///   with Core Data's error codes as warnings, as `momc` compiles them; the codes for binary
///   attributes' bounds are the string ones, which is **UNCERTAIN**.
public enum ArchivedModelWriter {
    /// The keyed archive (a `bplist00`) of `model`.
    ///
    /// Throws when a predicate or expression text (validation rule, fetch request, derivation,
    /// index) does not parse (`PredicateParser.parseModelText`) or holds what an archive cannot
    /// (a subquery, a cast other than to a date).
    public static func archive(_ model: ManagedObjectModel) throws -> Data {
        var builder = ModelArchiveBuilder(model: model)
        let root = try builder.build()
        return try builder.writer.data(root: root)
    }
}

/// The state of one archiving: the writer and the UIDs reserved for entities and properties.
private struct ModelArchiveBuilder {
    let model: ManagedObjectModel
    var writer = KeyedArchiveWriter()
    var entityUIDs: [String: PropertyListValue] = [:]
    /// Declared properties by entity name, then property name.
    var propertyUIDs: [String: [String: PropertyListValue]] = [:]

    init(model: ManagedObjectModel) {
        self.model = model
    }

    /// `$classes` of the Core Data classes written here (superclasses as in real archives).
    static func classes(_ name: String) -> [String] {
        switch name {
        case "NSAttributeDescription", "NSRelationshipDescription", "NSFetchedPropertyDescription", "NSExpressionDescription":
            return [name, "NSPropertyDescription", "NSObject"]
        case "NSDerivedAttributeDescription":
            return [name, "NSAttributeDescription", "NSPropertyDescription", "NSObject"]
        case "NSKnownKeysDictionary1":
            return [name, "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"]
        case "NSKnownKeysMappingStrategy1":
            return [name, "NSKnownKeysMappingStrategy", "NSObject"]
        case "NSComparisonPredicate", "NSCompoundPredicate", "NSTruePredicate", "NSFalsePredicate":
            return [name, "NSPredicate", "NSObject"]
        case _ where name.hasSuffix("PredicateOperator"):
            return name == "NSPredicateOperator" ? [name, "NSObject"] : [name, "NSPredicateOperator", "NSObject"]
        case _ where name.hasSuffix("Expression"):
            return [name, "NSExpression", "NSObject"]
        default:
            return [name, "NSObject"]
        }
    }

    mutating func object(_ className: String, _ fields: [(key: String, value: PropertyListValue)]) -> PropertyListValue {
        writer.object(className: className, classes: Self.classes(className), fields: fields)
    }

    mutating func build() throws -> PropertyListValue {
        let root = writer.reserve()
        for entity in model.entities {
            entityUIDs[entity.name] = writer.reserve()
            propertyUIDs[entity.name] = Dictionary(
                entity.properties.map { ($0.name, writer.reserve()) },
                uniquingKeysWith: { first, _ in first })
        }
        for entity in model.entities { try fillEntity(entity, root: root) }
        let entities = knownKeysDictionary(model.entities.map { ($0.name, entityUIDs[$0.name]!) })
        var templates = KeyedArchiveWriter.null
        if !model.fetchRequestTemplates.isEmpty {
            let requests = try model.fetchRequestTemplates.map { ($0.name, try fetchRequest($0)) }
            templates = writer.dictionary(requests.map { (key: $0.0, value: $0.1) })
        }
        let identifiers = model.versionIdentifiers.map { writer.string($0) }
        var fields: [(key: String, value: PropertyListValue)] = [
            ("NSEntities", entities),
            ("NSFetchRequestTemplates", templates),
            ("NSVersionIdentifiers", writer.collection(identifiers, className: "NSMutableSet")),
        ]
        if !model.configurations.isEmpty {
            let configurations = model.configurations.map { configuration in
                (
                    key: configuration.name,
                    value: writer.collection(configuration.entities.compactMap { entityUIDs[$0] }, className: "NSMutableSet")
                )
            }
            fields.append(("NSConfigurations", writer.dictionary(configurations)))
        }
        writer.fill(root, className: "NSManagedObjectModel", classes: Self.classes("NSManagedObjectModel"), fields: fields)
        return root
    }

    /// The layout of `NSEntities` in model caches (store-format.md §6).
    mutating func knownKeysDictionary(_ entries: [(String, PropertyListValue)]) -> PropertyListValue {
        let keys = writer.collection(entries.map { writer.string($0.0) })
        let mapping = object(
            "NSKnownKeysMappingStrategy1",
            [
                ("length", .integer(Int64(entries.count))), ("keys", keys), ("version", .integer(1)),
            ])
        let values = writer.collection(entries.map(\.1))
        return object(
            "NSKnownKeysDictionary1",
            [
                ("values", values), ("searchMapping", mapping),
                ("emptyToken", writer.string("__empty_slot_token_4c24_98dc_ac1e_b773__")), ("version", .integer(1)),
            ])
    }

    mutating func fillEntity(_ entity: EntityDescription, root: PropertyListValue) throws {
        let uid = entityUIDs[entity.name]!
        var properties: [(key: String, value: PropertyListValue)] = []
        for property in entity.properties where propertyUIDs[entity.name]?[property.name] != nil {
            let propertyUID = propertyUIDs[entity.name]![property.name]!
            guard !properties.contains(where: { $0.key == property.name }) else { continue }
            try fillProperty(property, uid: propertyUID, entity: entity)
            properties.append((property.name, propertyUID))
        }
        let subentities = model.subentities(of: entity.name).map { (key: $0.name, value: entityUIDs[$0.name]!) }
        var fields: [(key: String, value: PropertyListValue)] = [
            ("NSEntityName", writer.string(entity.name)),
            ("NSClassNameForEntity", writer.string(entity.className)),
            ("NSUserInfo", userInfo(entity.userInfo)),
            ("NSSubentities", writer.dictionary(subentities, className: "NSMutableDictionary")),
            ("NSVersionHashModifier", writer.string(entity.versionHashModifier)),
            ("NSProperties", writer.dictionary(properties, className: "NSMutableDictionary")),
            ("NSRenamingIdentifier", writer.string(entity.renamingIdentifier ?? entity.name)),
            ("NSManagedObjectModel", root),
            ("NSSuperentity", entity.parentName.flatMap { entityUIDs[$0] } ?? KeyedArchiveWriter.null),
        ]
        if entity.isAbstract { fields.append(("NSIsAbstract", .boolean(true))) }
        let tuples = entity.uniquenessConstraints.map { names in
            writer.collection(names.map { writer.string($0) }, className: "NSMutableArray")
        }
        fields.append(("NSUniqueTuples", writer.collection(tuples, className: "NSMutableArray")))
        let indexes = try entity.fetchIndexes.map { try fetchIndex($0, entity: uid) }
        fields.append(("NSFetchIndexDescriptions", writer.collection(indexes, className: "NSMutableArray")))
        let compound = entity.compoundIndexes.map { names in
            writer.collection(names.map { writer.string($0) }, className: "NSMutableArray")
        }
        fields.append(("NSCompoundIndexes", writer.collection(compound, className: "NSMutableArray")))
        writer.fill(uid, className: "NSEntityDescription", classes: Self.classes("NSEntityDescription"), fields: fields)
    }

    /// `NSUserInfo`: always present on entities, only when non-empty on properties (as Apple).
    mutating func userInfo(_ info: [String: String]) -> PropertyListValue {
        writer.dictionary(info.keys.sorted().map { (key: $0, value: writer.string(info[$0]!)) })
    }

    /// Keys every property kind shares, and `_P` (store-format.md §6).
    mutating func commonFields(
        _ common: PropertyCommon, entity: EntityDescription, ordered: Bool = false,
        hasPredicates: Bool = false
    ) -> [(key: String, value: PropertyListValue)] {
        var bits = 0x1
        if common.isOptional { bits |= 0x2 }
        if common.isReadOnly { bits |= 0x4 }
        if common.isTransient { bits |= 0x8 }
        if !hasPredicates { bits |= 0x10 | 0x20 }
        if common.userInfo.isEmpty { bits |= 0x40 }
        if common.versionHashModifier == nil { bits |= 0x80 }
        if common.isIndexedBySpotlight { bits |= 0x100 }
        if common.isStoredInTruthFile { bits |= 0x200 }
        if ordered { bits |= 0x400 }
        var fields: [(key: String, value: PropertyListValue)] = [
            ("_P", .integer(Int64(bits))),
            ("NSEntity", entityUIDs[entity.name]!),
            ("NSPropertyName", writer.string(common.name)),
            ("NSRenamingIdentifier", writer.string(common.renamingIdentifier ?? common.name)),
        ]
        if common.isOptional { fields.append(("NSIsOptional", .boolean(true))) }
        if common.isTransient { fields.append(("NSIsTransient", .boolean(true))) }
        if common.isReadOnly { fields.append(("NSIsReadOnly", .boolean(true))) }
        if common.isIndexed { fields.append(("NSIsIndexed", .boolean(true))) }
        if common.isIndexedBySpotlight { fields.append(("NSIndexedBySpotlight", .boolean(true))) }
        if common.isStoredInTruthFile { fields.append(("NSIsStoredInTruth", .boolean(true))) }
        if !common.userInfo.isEmpty { fields.append(("NSUserInfo", userInfo(common.userInfo))) }
        if let modifier = common.versionHashModifier { fields.append(("NSVersionHashModifier", writer.string(modifier))) }
        return fields
    }

    mutating func fillProperty(_ property: PropertyDescription, uid: PropertyListValue, entity: EntityDescription) throws {
        switch property {
        case .attribute(let attribute):
            try fillAttribute(attribute, uid: uid, entity: entity)
        case .relationship(let relationship):
            var fields = commonFields(relationship.common, entity: entity, ordered: relationship.isOrdered)
            let destination = entityUIDs[relationship.destinationEntity] ?? KeyedArchiveWriter.null
            // Only an inverse the inverse entity declares itself is referenced: Apple points at
            // a sub-entity's own copy of an inherited one, which this writer does not make, so
            // the reader falls back to `_NSInverseRelationshipName` and the destination.
            let inverse =
                relationship.inverseName.flatMap {
                    propertyUIDs[relationship.inverseEntity ?? relationship.destinationEntity]?[$0]
                } ?? KeyedArchiveWriter.null
            fields += [
                ("NSDestinationEntity", destination),
                ("_NSDestinationEntityName", writer.string(relationship.destinationEntity)),
                ("NSInverseRelationship", inverse),
                ("_NSInverseRelationshipName", writer.string(relationship.inverseName)),
                ("NSMinCount", .integer(Int64(relationship.minCount))),
                ("NSMaxCount", .integer(Int64(relationship.maxCount))),
                ("NSDeleteRule", .integer(Int64(relationship.deleteRule.rawValue))),
            ]
            if relationship.isOrdered { fields.append(("NSIsOrdered", .boolean(true))) }
            writer.fill(uid, className: "NSRelationshipDescription", classes: Self.classes("NSRelationshipDescription"), fields: fields)
        case .fetched(let fetched):
            var fields = commonFields(fetched.common, entity: entity)
            fields += [
                ("NSFetchRequest", try fetchRequest(fetched.fetchRequest)),
                ("_NSFetchRequestEntityName", writer.string(fetched.fetchRequest.entityName)),
            ]
            writer.fill(uid, className: "NSFetchedPropertyDescription", classes: Self.classes("NSFetchedPropertyDescription"), fields: fields)
        }
    }

    mutating func fillAttribute(_ attribute: AttributeDescription, uid: PropertyListValue, entity: EntityDescription) throws {
        let rules = try attribute.validationRules.map { (try parsedPredicate($0.predicate), $0.warning) } + (try boundRules(attribute))
        var fields = commonFields(attribute.common, entity: entity, hasPredicates: !rules.isEmpty)
        var flags = 0
        if attribute.maxValue != nil { flags |= 0x1 }
        if attribute.minValue != nil { flags |= 0x2 }
        if attribute.allowsExternalBinaryDataStorage { flags |= 0x4 }
        if attribute.preservesValueInHistoryOnDeletion { flags |= 0x10 }
        fields += [
            ("NSAttributeType", .integer(Int64(attribute.type.rawValue))),
            ("NSAttributeValueClassName", writer.string(attribute.valueClassName)),
            ("NSValueTransformerName", writer.string(attribute.valueTransformerName)),
            ("NSDefaultValue", defaultValue(attribute.defaultValue, type: attribute.type)),
            ("NSFlagsKey", .integer(Int64(flags))),
        ]
        if !rules.isEmpty {
            let predicates = try rules.map { try archive($0.0) }
            let warnings = rules.map { rule in
                Int64(rule.1).map { writer.value(.integer($0)) } ?? writer.string(rule.1)
            }
            fields.append(("NSValidationPredicates", writer.collection(predicates)))
            fields.append(("NSValidationWarnings", writer.collection(warnings)))
        }
        var className = "NSAttributeDescription"
        if let derivation = attribute.derivationExpression {
            className = "NSDerivedAttributeDescription"
            fields.append(("NSDerivationExpression", try expression(derivation)))
            fields.append(("NSFilteringPredicate", try attribute.filteringPredicate.map { try predicate($0) } ?? KeyedArchiveWriter.null))
        }
        writer.fill(uid, className: className, classes: Self.classes(className), fields: fields)
    }

    /// Bounds and pattern as `momc` compiles them: a predicate on `SELF` (numbers, dates) or on
    /// `length` (strings, data), with the `NSValidation…Error` code as the warning.
    func boundRules(_ attribute: AttributeDescription) throws -> [(CDPredicate.Predicate, String)] {
        var rules: [(CDPredicate.Predicate, String)] = []
        let type = attribute.type
        let isLength = type == .string || type == .binary
        let subject: CDPredicate.Expression = isLength ? .keyPath([.key("length")]) : .evaluatedObject
        func bound(_ text: String, _ op: ComparisonOperator) throws -> CDPredicate.Predicate {
            let value: CDPredicate.Value
            switch try parsedExpression(text) {
            case .constant(.integer(let number)): value = type == .date ? .date(Date(timeIntervalSinceReferenceDate: Double(number))) : .integer(number)
            case .constant(.double(let number)): value = type == .date ? .date(Date(timeIntervalSinceReferenceDate: number)) : .double(number)
            default: throw ModelError.cannotArchive(reason: "cannot archive the bound \"\(text)\" of \(attribute.name): it is not a number")
            }
            return .comparison(Comparison(subject, op, .constant(value)))
        }
        if let min = attribute.minValue {
            rules.append((try bound(min, .greaterOrEqual), isLength ? "1670" : type == .date ? "1640" : "1620"))
        }
        if let max = attribute.maxValue {
            rules.append((try bound(max, .lessOrEqual), isLength ? "1660" : type == .date ? "1630" : "1610"))
        }
        if let pattern = attribute.regularExpression {
            rules.append((.comparison(Comparison(.evaluatedObject, .matches, .constant(.string(pattern)))), "1680"))
        }
        return rules
    }

    /// The default typed by the attribute's type (NSNumber, NSString, NSDate, NSUUID, NSURL,
    /// NSData); text that does not parse as the type is kept as a string.
    mutating func defaultValue(_ text: String?, type: AttributeType) -> PropertyListValue {
        guard let text else { return KeyedArchiveWriter.null }
        switch type {
        case .integer16, .integer32, .integer64:
            if let i = Int64(text) { return writer.value(.integer(i)) }
        case .double, .float, .decimal:
            if let i = Int64(text), type == .decimal { return writer.value(.integer(i)) }
            if let r = Double(text) { return writer.value(.real(r)) }
        case .boolean:
            switch text.uppercased() {
            case "YES", "TRUE", "1": return writer.value(.boolean(true))
            case "NO", "FALSE", "0": return writer.value(.boolean(false))
            default: break
            }
        case .date:
            if let t = Double(text) { return object("NSDate", [("NS.time", .real(t))]) }
        case .uuid:
            if let uuid = UUID(uuidString: text) {
                return object("NSUUID", [("NS.uuidbytes", .data(withUnsafeBytes(of: uuid.uuid) { Data($0) }))])
            }
        case .uri:
            return object("NSURL", [("NS.base", KeyedArchiveWriter.null), ("NS.relative", writer.string(text))])
        default:
            break
        }
        return writer.string(text)
    }

    mutating func fetchRequest(_ template: FetchRequestTemplate) throws -> PropertyListValue {
        let sorts = template.sortDescriptors.map { sort in
            object(
                "NSSortDescriptor",
                [
                    ("NSKey", writer.string(sort.key)), ("NSAscending", .boolean(sort.ascending)),
                    ("NSSelector", writer.string(sort.selector ?? "compare:")), ("NSReverseNullOrder", .boolean(false)),
                ])
        }
        return object(
            "NSFetchRequest",
            [
                ("NSEntity", entityUIDs[template.entityName] ?? KeyedArchiveWriter.null),
                ("NSPredicate", try template.predicate.map { try predicate($0) } ?? KeyedArchiveWriter.null),
                ("NSSortDescriptors", sorts.isEmpty ? KeyedArchiveWriter.null : writer.collection(sorts)),
                ("NSFetchLimit", .integer(Int64(template.fetchLimit))),
                ("NSBatchSize", .integer(0)), ("NSFetchOffset", .integer(0)), ("NSResultType", .integer(0)),
                ("NSValuesToFetch", KeyedArchiveWriter.null), ("NSValuesToGroupBy", KeyedArchiveWriter.null),
                ("NSHavingPredicate", KeyedArchiveWriter.null),
                ("NSRelationshipKeyPathsForPrefetching", KeyedArchiveWriter.null),
            ])
    }

    /// An element is a property by name, or an `NSExpressionDescription` when it indexes an
    /// expression (model-format.md §3.2; e.g. `SELF`).
    mutating func fetchIndex(_ index: FetchIndex, entity: PropertyListValue) throws -> PropertyListValue {
        let uid = writer.reserve()
        let elements = try index.elements.map { element in
            var fields: [(key: String, value: PropertyListValue)] = [
                ("NSPropertyName", writer.string(element.property)),
                ("NSFetchIndexElementType", .integer(element.type == "RTree" ? 1 : 0)),
                ("NSFetchIndexDescription", uid),
                ("NSAscending", .boolean(element.ascending)),
            ]
            if let text = element.expression {
                let indexed = object(
                    "NSExpressionDescription",
                    [
                        ("_P", .integer(0x1 | 0x2 | 0x4 | 0x10 | 0x20 | 0x40 | 0x80)), ("NSIsOptional", .boolean(true)),
                        ("NSIsReadOnly", .boolean(true)), ("NSExpressionType", .integer(2000)),
                        ("NSEntity", KeyedArchiveWriter.null), ("NSPropertyName", writer.string(element.property)),
                        ("NSRenamingIdentifier", writer.string(element.property)), ("NSExpression", try expression(text)),
                    ])
                fields.append(("NSIndexedProperty", indexed))
            }
            return object("NSFetchIndexElementDescription", fields)
        }
        writer.fill(
            uid, className: "NSFetchIndexDescription", classes: Self.classes("NSFetchIndexDescription"),
            fields: [
                ("NSIndexName", writer.string(index.name)),
                ("NSPartialIndexPredicate", try index.partialIndexPredicate.map { try predicate($0) } ?? KeyedArchiveWriter.null),
                ("NSIndexElements", writer.collection(elements, className: "NSMutableArray")),
                ("NSEntity", entity),
            ])
        return uid
    }

    mutating func predicate(_ text: String) throws -> PropertyListValue {
        try archive(try parsedPredicate(text))
    }

    mutating func expression(_ text: String) throws -> PropertyListValue {
        try archive(try parsedExpression(text))
    }

    func parsedPredicate(_ text: String) throws -> CDPredicate.Predicate {
        do {
            return try PredicateParser.parseModelText(text)
        } catch {
            throw ModelError.cannotArchive(reason: "cannot archive predicate \"\(text)\": \(error.message) at offset \(error.offset)")
        }
    }

    func parsedExpression(_ text: String) throws -> CDPredicate.Expression {
        do {
            return try PredicateParser.parseModelExpression(text)
        } catch {
            throw ModelError.cannotArchive(reason: "cannot archive expression \"\(text)\": \(error.message) at offset \(error.offset)")
        }
    }

    mutating func archive(_ predicate: CDPredicate.Predicate) throws -> PropertyListValue {
        switch predicate {
        case .constant(let value): return object(value ? "NSTruePredicate" : "NSFalsePredicate", [])
        case .not(let operand): return try compound(0, [operand])
        case .and(let operands): return try compound(1, operands)
        case .or(let operands): return try compound(2, operands)
        case .comparison(let comparison):
            // NONE is NOT ANY: `NSComparisonPredicate` has no NONE modifier.
            if comparison.quantifier == .none {
                var any = comparison
                any.quantifier = .any
                return try compound(0, [.comparison(any)])
            }
            let modifier = comparison.quantifier == .all ? 1 : comparison.quantifier == .any ? 2 : 0
            let type = ArchivedPredicateFormatter.operatorTypes.first { $0.1 == comparison.op }?.0 ?? 4
            let options = ArchivedPredicateFormatter.optionBits.reduce(0) { $0 | (comparison.options.contains($1.1) ? $1.0 : 0) }
            let op = predicateOperator(type: type, options: options, modifier: modifier)
            return object(
                "NSComparisonPredicate",
                [
                    ("NSLeftExpression", try archive(comparison.left)), ("NSRightExpression", try archive(comparison.right)),
                    ("NSPredicateOperator", op),
                ])
        case .opaque(let text):
            throw ModelError.cannotArchive(reason: "cannot archive predicate \"\(text)\"")
        }
    }

    /// `NSCompoundPredicateType`: 0 NOT, 1 AND, 2 OR.
    mutating func compound(_ type: Int, _ operands: [CDPredicate.Predicate]) throws -> PropertyListValue {
        let subpredicates = writer.collection(try operands.map { try archive($0) })
        return object("NSCompoundPredicate", [("NSCompoundPredicateType", .integer(Int64(type))), ("NSSubpredicates", subpredicates)])
    }

    mutating func archive(_ expression: CDPredicate.Expression) throws -> PropertyListValue {
        switch expression {
        case .evaluatedObject:
            return object("NSSelfExpression", [("NSExpressionType", .integer(1))])
        case .variable(let name):
            return object("NSVariableExpression", [("NSExpressionType", .integer(2)), ("NSVariable", writer.string(name))])
        case .constant(let value):
            let constant: PropertyListValue
            switch value {
            case .null: constant = KeyedArchiveWriter.null
            case .bool(let flag): constant = writer.value(.boolean(flag))
            case .integer(let integer): constant = writer.value(.integer(integer))
            case .double(let double): constant = writer.value(.real(double))
            case .string(let text): constant = writer.string(text)
            case .date(let date): constant = object("NSDate", [("NS.time", .real(date.timeIntervalSinceReferenceDate))])
            }
            return object("NSConstantValueExpression", [("NSExpressionType", .integer(0)), ("NSConstantValue", constant)])
        case .keyPath(let components):
            return try keyPathExpression(operand: .evaluatedObject, components)
        case .path(let base, let components):
            return try keyPathExpression(operand: base, components)
        case .function(let selector, let arguments):
            let operand = object(
                "NSConstantValueExpression",
                [
                    ("NSExpressionType", .integer(0)),
                    ("NSConstantValue", writer.string("NSPredicateUtilities")),
                ])
            let archived = try arguments.map { try archive($0) }
            return object(
                "NSFunctionExpression",
                [
                    ("NSOperand", operand), ("NSSelectorName", writer.string(selector)),
                    ("NSExpressionType", .integer(4)), ("NSArguments", writer.collection(archived, className: "NSMutableArray")),
                ])
        case .aggregate(let items):
            let archived = try items.map { try archive($0) }
            return object("NSAggregateExpression", [("NSExpressionType", .integer(14)), ("NSCollection", writer.collection(archived))])
        case .subquery, .cast, .opaque:
            throw ModelError.cannotArchive(
                reason: "cannot archive the expression \(expression): only key paths, "
                    + "variables, constants, aggregates and functions are written")
        }
    }

    /// `valueForKey:` with the whole key path as one specifier (`author.name`, `books.@count`).
    mutating func keyPathExpression(operand: CDPredicate.Expression, _ components: [KeyPathComponent]) throws -> PropertyListValue {
        let path = components.map { component in
            switch component {
            case .key(let key): return key
            case .collectionOperator(let op): return "@" + op.rawValue
            }
        }.joined(separator: ".")
        let specifier = object("NSKeyPathSpecifierExpression", [("NSExpressionType", .integer(10)), ("NSKeyPath", writer.string(path))])
        let archivedOperand = try archive(operand)
        return object(
            "NSKeyPathExpression",
            [
                ("NSOperand", archivedOperand), ("NSSelectorName", writer.string("valueForKey:")),
                ("NSExpressionType", .integer(3)), ("NSArguments", writer.collection([specifier], className: "NSMutableArray")),
            ])
    }

    /// Operator classes by type: ordering comparisons, equality, membership, and the string
    /// operators; only the type, options and modifier matter to the reader.
    mutating func predicateOperator(type: Int, options: Int, modifier: Int) -> PropertyListValue {
        switch type {
        case 0...3:
            return object(
                "NSComparisonPredicateOperator",
                [
                    ("NSModifier", .integer(Int64(modifier))), ("NSVariant", .integer(Int64(type))),
                    ("NSOptions", .integer(Int64(options))), ("NSOperatorType", .integer(Int64(type))),
                ])
        case 4, 5:
            return object(
                "NSEqualityPredicateOperator",
                [
                    ("NSModifier", .integer(Int64(modifier))), ("NSNegate", .boolean(type == 5)),
                    ("NSOptions", .integer(Int64(options))), ("NSOperatorType", .integer(Int64(type))),
                ])
        case 10, 99:
            return object(
                "NSInPredicateOperator",
                [
                    ("NSModifier", .integer(Int64(modifier))), ("NSFlags", .integer(Int64(options))),
                    ("NSOperatorType", .integer(Int64(type))),
                ])
        default:
            let className =
                type == 6
                ? "NSMatchingPredicateOperator"
                : type == 7
                    ? "NSLikePredicateOperator"
                    : type == 100 ? "NSBetweenPredicateOperator" : "NSSubstringPredicateOperator"
            return object(
                className,
                [
                    ("NSModifier", .integer(Int64(modifier))), ("NSOptions", .integer(Int64(options))),
                    ("NSOperatorType", .integer(Int64(type))),
                ])
        }
    }
}
