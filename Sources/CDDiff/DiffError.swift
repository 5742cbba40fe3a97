import CDBase
import CDStore

/// Why two stores cannot be compared. Every case exits with status 2, as diff(1) does for trouble.
package enum DiffError: UserFacingError, Equatable {
    /// An entity named on the command line is in neither model.
    case unknownEntity(name: String, known: [String])
    /// `--key` text that is not `Entity=attribute[,attribute]`.
    case malformedKey(String)
    /// A `--key` attribute that is not a stored attribute of the entity in both models.
    case unknownKeyAttribute(entity: String, attribute: String, store: String)
    /// Two objects of one store share a key value.
    case keyNotUnique(entity: String, key: [String], values: [String], store: String)
    /// The two models have no entity in common: the stores belong to unrelated apps.
    case unrelatedModels(storeA: String, storeB: String)

    package var message: String {
        switch self {
        case .unknownEntity(let name, let known):
            return StoreError.unknownEntity(name: name, known: known).message
        case .malformedKey(let text):
            return "--key \(text): expected Entity=attribute[,attribute]"
        case .unknownKeyAttribute(let entity, let attribute, let store):
            return "--key \(entity)=…: \(attribute) is not a stored attribute of \(entity) in \(store)"
        case .keyNotUnique(let entity, let key, let values, let store):
            return "--key \(entity)=\(key.joined(separator: ",")) is not unique in \(store): "
                + "several \(entity) objects have \(zip(key, values).map { "\($0) = \($1)" }.joined(separator: ", "))"
        case .unrelatedModels(let storeA, let storeB):
            return "\(storeA) and \(storeB) have no entity in common: they are not stores of the same app"
        }
    }

    package var hint: String? {
        switch self {
        case .keyNotUnique: return "add attributes to the key until it names one object, or match by Z_PK (no --key)"
        case .unrelatedModels: return "compare two versions of one app's store, or pass --only schema to compare the tables"
        default: return nil
        }
    }
}
