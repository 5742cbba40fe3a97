import CDBase
import CDDiagnostics
import CDFetch
import CDPredicate
import CDModel
import CDStore

/// An object typed by its ID, `Task/p3` or `x-coredata://UUID/Task/p3`, optionally followed by
/// one relationship to navigate (`Task/p3.list`, `Author/p1.articles`), as a REPL user pastes an
/// ID from a log and follows it.
struct ObjectReference: Equatable {
    var storeUUID: String?
    var entity: String
    var primaryKey: Int64
    var relationship: String?

    /// `nil` when `text` is not an object ID (it is then read as a query).
    static func parse(_ text: String) -> ObjectReference? {
        var rest = Substring(text)
        var storeUUID: String?
        if rest.hasPrefix("x-coredata://") {
            rest = rest.dropFirst("x-coredata://".count)
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            storeUUID = String(rest[..<slash])
            rest = rest[rest.index(after: slash)...]
        }
        guard let slash = rest.firstIndex(of: "/"), isName(rest[..<slash]) else { return nil }
        let entity = String(rest[..<slash])
        rest = rest[rest.index(after: slash)...]
        guard rest.first == "p" else { return nil }
        rest = rest.dropFirst()
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard let primaryKey = Int64(digits) else { return nil }
        rest = rest.dropFirst(digits.count)
        var relationship: String?
        if rest.first == "." {
            relationship = String(rest.dropFirst())
            guard isName(rest.dropFirst()) else { return nil }
        } else if !rest.isEmpty {
            return nil
        }
        return ObjectReference(storeUUID: storeUUID, entity: entity, primaryKey: primaryKey, relationship: relationship)
    }

    private static func isName(_ text: Substring) -> Bool {
        guard let first = text.first, first.isLetter || first == "_" else { return false }
        return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    /// The fetch that returns the object, or the objects its relationship leads to: through the
    /// inverse relationship when the model has one (the fetch Core Data runs to fire the fault),
    /// else by reading the object's own key or members first.
    func request(in session: ConsoleSession) throws -> FetchRequest {
        let model = session.model
        guard model.entity(named: entity) != nil else {
            throw StoreError.unknownEntity(entity, mapping: session.reader.mapping, model: model)
        }
        if let storeUUID, storeUUID != session.reader.storeUUID {
            throw ConsoleError.otherStore(objectStore: storeUUID, thisStore: session.reader.storeUUID)
        }
        let uri = ObjectID(storeUUID: session.reader.storeUUID, entity: entity, ent: 0, pk: primaryKey).uri
        let itself = CDPredicate.Predicate.comparison(Comparison(.evaluatedObject, .equal, .constant(.string(uri))))
        guard let relationship else { return FetchRequest(entity: entity, predicate: itself) }
        guard let description = Self.relationship(relationship, of: entity, in: model) else {
            let names = model.lineage(of: entity).flatMap(\.relationships).map(\.name)
            throw ConsoleError.noSuchRelationship(entity: entity, name: relationship, relationships: names)
        }
        let destination = description.destinationEntity
        if let inverseName = description.inverseName,
            let inverse = Self.relationship(inverseName, of: destination, in: model)
        {
            // A to-one compares with the object's URI (bound as its Z_PK); the members of a
            // to-many are compared by key, which is what a URI stands for.
            let comparison =
                inverse.isToMany
                ? Comparison(.keyPath([.key(inverseName)]), .equal, .constant(.integer(primaryKey)), quantifier: .any)
                : Comparison(.keyPath([.key(inverseName)]), .equal, .constant(.string(uri)))
            return FetchRequest(entity: destination, predicate: .comparison(comparison))
        }
        var targets: [ObjectID] = []
        var found = false
        try session.runner.objects(
            FetchRequest(entity: entity, predicate: itself),
            includes: description.isToMany ? [relationship] : [],
            section: { _ in },
            object: { object in
                found = true
                switch object.value(relationship) {
                case .object(let target)?: targets = [target]
                case .objects(let members?)?: targets = members
                default: break
                }
            })
        guard found else { throw ConsoleError.noSuchObject(entity: entity, primaryKey: primaryKey) }
        let members = CDPredicate.Expression.aggregate(targets.map { .constant(.string($0.uri)) })
        return FetchRequest(
            entity: destination,
            predicate: targets.isEmpty ? .constant(false) : .comparison(Comparison(.evaluatedObject, .in, members)))
    }

    /// The relationship `name` of `entity` or of one of its ancestors.
    static func relationship(_ name: String, of entity: String, in model: ManagedObjectModel) -> RelationshipDescription? {
        model.lineage(of: entity).lazy.flatMap(\.relationships).first { $0.name == name }
    }
}

/// A console problem with the input, in one line: a dot-command used wrongly, a name the store
/// or the console does not know, an output file that cannot be written.
enum ConsoleError: UserFacingError, Equatable {
    /// A dot-command without the arguments it takes; `synopsis` shows them.
    case usage(_ synopsis: String)
    /// Not one of the console's dot-commands.
    case unknownCommand(name: String)
    /// Ctrl-C while a command ran.
    case interrupted
    /// `.trace` outside 0–4.
    case traceLevelOutOfRange
    /// `.limit` with something other than a number, 0 or more.
    case rowLimitNotANumber
    /// `.format` with a name that is not a format; `formats` are the ones there are.
    case unknownFormat(name: String, formats: [String])
    /// `.explain` with a code the catalogue does not have.
    case unknownErrorCode(_ code: String)
    /// `.template` placeholders that name no key of `entity`; `known` are its keys.
    case unknownTemplateKeys(entity: String, keys: [String], known: [String])
    /// `.output` cannot open `target`; `reason` is the system's.
    case cannotWrite(target: String, reason: String)
    /// A quote left open in a dot-command's arguments.
    case unterminatedQuote
    /// An object ID of another store (its UUID is `objectStore`).
    case otherStore(objectStore: String, thisStore: String)
    /// `entity` has no relationship `name`; `relationships` are the ones it has.
    case noSuchRelationship(entity: String, name: String, relationships: [String])
    /// No row of `entity` has this primary key.
    case noSuchObject(entity: String, primaryKey: Int64)

    var message: String {
        switch self {
        case .usage(let synopsis): return "usage: " + synopsis
        case .unknownCommand(let name): return "unknown command \(name); .help lists the commands"
        case .interrupted: return "interrupted"
        case .traceLevelOutOfRange: return "the SQL debug level is 0 to 4"
        case .rowLimitNotANumber: return ".limit takes a number, 0 or more"
        case .unknownFormat(let name, let formats): return "unknown format \"\(name)\"; formats: \(formats.joined(separator: ", "))"
        case .unknownErrorCode(let code): return Explanation.unknownCodeMessage(code)
        case .unknownTemplateKeys(let entity, let keys, let known):
            return "\(entity) has no \(keys.map { "{\($0)}" }.joined(separator: ", ")); keys: " + known.joined(separator: ", ")
        case .cannotWrite(let target, let reason): return "cannot write \(target): \(reason)"
        case .unterminatedQuote: return "unterminated quote in the arguments"
        case .otherStore(let objectStore, let thisStore): return "the object ID is from store \(objectStore); this store is \(thisStore)"
        case .noSuchRelationship(let entity, let name, let relationships):
            return "\(entity) has no relationship \"\(name)\"; relationships: " + (relationships.isEmpty ? "none" : relationships.joined(separator: ", "))
        case .noSuchObject(let entity, let primaryKey): return "\(entity)/p\(primaryKey) does not exist in this store"
        }
    }
}
