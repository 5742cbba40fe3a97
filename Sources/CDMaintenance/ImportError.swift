import CDBase

/// Why `cdstore create --import` refuses its JSON input: the file cannot be read or parsed, or
/// an object in it does not fit the model. `object` is the object's label in the input
/// (`Book #3`, `object #2`), `key` the member that is wrong; ``message`` is the one line printed.
package enum ImportError: UserFacingError, Sendable, Equatable {
    /// The import file cannot be read; `reason` is Foundation's.
    case cannotRead(path: String, reason: String)
    /// The input is not JSON at a 1-based `line` and `column`; `reason` is the parser's.
    case malformedJSON(line: Int, column: Int, reason: String)
    /// The value of an entity's member at the top level is not an array.
    case notAnArray(entity: String)
    /// An element is not a JSON object; `kind` is what it is.
    case notAnObject(object: String, kind: String)
    /// `_entity` is not a string.
    case entityNotAString(object: String, kind: String)
    /// `_entity` names `named`, but the object sits in the array of `array`.
    case entityMismatch(object: String, named: String, array: String)
    /// `_id` is not a string.
    case idNotAString(object: String, kind: String)
    /// The object says nowhere which entity it is.
    case noEntity(object: String)
    /// Two objects have the same `_id`.
    case duplicateID(object: String)
    /// The input read differently the second time (objects are read in two passes).
    case inputChanged(object: String)
    /// The model has no (stored) entity `entity`.
    case noSuchEntity(object: String, entity: String)
    /// `entity` is abstract.
    case abstractEntity(object: String, entity: String)
    /// `key` appears twice in one object.
    case keyTwice(object: String, key: String)
    /// `entity` has no property `key`.
    case noSuchProperty(object: String, key: String, entity: String)
    /// `key` is not stored (`why`: transient, derived, …) and was given a value.
    case notStored(object: String, key: String, why: String)
    /// The value of `key` does not fit its attribute; `reason` says how.
    case badValue(object: String, key: String, reason: String)
    /// A to-one relationship's value is not an object ID string or null (`kind`).
    case expectedObjectID(object: String, key: String, kind: String)
    /// A to-many relationship's value is not an array of ID strings or null (`kind`).
    case expectedObjectIDs(object: String, key: String, kind: String)
    /// A to-many relationship's array holds something other than an ID string (`kind`).
    case expectedObjectIDElement(object: String, key: String, kind: String)
    /// No object of the input has `_id` `id`.
    case unknownID(object: String, key: String, id: String)
    /// The object with `_id` `id` is an `entity`, where `destination` was expected.
    case wrongDestination(object: String, key: String, id: String, entity: String, destination: String)
    /// A to-many relationship lists `id` twice.
    case listedTwice(object: String, key: String, id: String)
    /// The object `id` already names another object through `inverse`.
    case namedByAnother(object: String, key: String, id: String, inverse: String)
    /// A to-many `key` lists `listed` objects, but `stored` name the object through `inverse`.
    case inverseCountMismatch(object: String, key: String, listed: Int, stored: Int, inverse: String)
    /// A to-one `key` is null, but the object with `Z_PK` `ownerPK` names it through `inverse`.
    case nullButNamed(object: String, key: String, ownerPK: String, inverse: String)
    /// SQLite refused to write the objects; `reason` is its message (or result code).
    case cannotWrite(reason: String)

    package var message: String {
        switch self {
        case .cannotRead(let path, let reason): return LocatedMessage.at(path, says: "cannot read the import file (\(reason))")
        case .malformedJSON(let line, let column, let reason): return "malformed JSON at line \(line), column \(column): \(reason)"
        case .notAnArray(let entity): return LocatedMessage.at(entity, says: "expected an array of objects")
        case .notAnObject(let object, let kind): return LocatedMessage.at(object, says: "expected an object, got \(kind)")
        case .entityNotAString(let object, let kind): return LocatedMessage.at(object, says: "_entity must be a string, got \(kind)")
        case .entityMismatch(let object, let named, let array): return LocatedMessage.at(object, says: "_entity is \"\(named)\" in the array of \(array)")
        case .idNotAString(let object, let kind): return LocatedMessage.at(object, says: "_id must be a string, got \(kind)")
        case .noEntity(let object): return LocatedMessage.at(object, says: "no _entity")
        case .duplicateID(let object): return LocatedMessage.at(object, says: "_id is used by an earlier object")
        case .inputChanged(let object): return LocatedMessage.at(object, says: "the input changed while it was read")
        case .noSuchEntity(let object, let entity): return LocatedMessage.at(object, says: "the model has no entity \(entity)")
        case .abstractEntity(let object, let entity): return LocatedMessage.at(object, says: "\(entity) is abstract and cannot be instantiated")
        case .keyTwice(let object, let key): return LocatedMessage.at(object, says: "\(key) is given twice")
        case .noSuchProperty(let object, let key, let entity): return LocatedMessage.at(object, key, says: "\(entity) has no property \(key)")
        case .notStored(let object, let key, let why): return LocatedMessage.at(object, key, says: "is \(why) and cannot be given a value")
        case .badValue(let object, let key, let reason): return LocatedMessage.at(object, key, says: reason)
        case .expectedObjectID(let object, let key, let kind):
            return LocatedMessage.at(object, key, says: "expected an object ID string or null, got \(kind)")
        case .expectedObjectIDs(let object, let key, let kind):
            return LocatedMessage.at(object, key, says: "expected an array of object ID strings or null, got \(kind)")
        case .expectedObjectIDElement(let object, let key, let kind):
            return LocatedMessage.at(object, key, says: "expected an array of object ID strings, found \(kind) in it")
        case .unknownID(let object, let key, let id): return LocatedMessage.at(object, key, says: "no object has _id \"\(id)\"")
        case .wrongDestination(let object, let key, let id, let entity, let destination):
            return LocatedMessage.at(object, key, says: "\"\(id)\" is a \(entity), not a \(destination)")
        case .listedTwice(let object, let key, let id): return LocatedMessage.at(object, key, says: "\"\(id)\" is listed twice")
        case .namedByAnother(let object, let key, let id, let inverse):
            return LocatedMessage.at(object, key, says: "\"\(id)\" names another object as its \(inverse)")
        case .inverseCountMismatch(let object, let key, let listed, let stored, let inverse):
            return LocatedMessage.at(object, says: "\(key) lists \(listed) objects, but \(stored) objects name it through \(inverse)")
        case .nullButNamed(let object, let key, let ownerPK, let inverse):
            return LocatedMessage.at(object, says: "\(key) is null, but the object with Z_PK \(ownerPK) names it through \(inverse)")
        case .cannotWrite(let reason): return "cannot write the imported objects: \(reason)"
        }
    }
}
