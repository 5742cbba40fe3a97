import CDBase
import CDModel
import CDPredicate
import CDStore
import GRDB

/// A fetch request translated into one SQL statement, written the way Core Data writes it
/// (docs/format/sqldebug.md §5), with every value bound.
package struct FetchStatement: Sendable, Equatable {
    /// What the statement's rows are.
    package enum Kind: Sendable, Equatable {
        /// Objects: `SELECT 0|t0.Z_ENT, t0.Z_PK, t0.Z_OPT, <columns> …`.
        case objects
        /// One row with one integer: `SELECT COUNT(*) …` or `COUNT(DISTINCT t0.Z_PK)`.
        case count
        /// Rows of plain values: distinct values or one aggregate.
        case values
    }

    package var kind: Kind
    /// The fetched entity (sub-entities included).
    package var entity: String
    package var sql: String
    package var arguments: [DatabaseValue]
    /// For object fetches: the table column read at each position (position 0 is `Z_ENT`, or
    /// the constant `0` when the table holds one entity, given here as `nil`).
    package var columns: [String?]
    /// For value fetches: a name per selected value (key path, or `sum(price)`) and the
    /// attribute type that decodes it (`nil`: shown as SQLite gives it).
    package var valueColumns: [(name: String, type: AttributeType?)]
    /// For object fetches with a ``FetchRequest/largeValueLimit``: the result position of each
    /// binary or transformable column's length, by column name.
    package var lengthColumns: [String: Int] = [:]

    /// The statement and its bound values as `cdstore sql` prints them: the SQL, then
    /// `bind[i] = value` lines in the SQL debug log's notation.
    package var text: String {
        ([sql] + arguments.map(SQLTrace.bindText).enumerated().map { "bind[\($0.offset)] = \($0.element)" })
            .joined(separator: "\n")
    }

    package static func == (lhs: FetchStatement, rhs: FetchStatement) -> Bool {
        lhs.kind == rhs.kind && lhs.entity == rhs.entity && lhs.sql == rhs.sql && lhs.arguments == rhs.arguments
            && lhs.columns == rhs.columns && lhs.valueColumns.map(\.name) == rhs.valueColumns.map(\.name)
            && lhs.valueColumns.map(\.type) == rhs.valueColumns.map(\.type)
    }
}

/// Why a fetch request cannot be translated: an unknown key, a key path Core Data cannot run in
/// SQL, a value of the wrong kind. One case per failure; ``message`` renders each in one line.
package enum FetchSQLError: UserFacingError, Equatable, Sendable {
    // Key paths.
    /// `entity` has no property `name`; `known` are its properties (inherited ones included).
    case unknownProperty(entity: String, name: String, known: [String])
    /// A key follows an attribute (`name.first`).
    case keyAfterAttribute(entity: String, name: String)
    /// The attribute is transient: no column holds it.
    case transientAttribute(entity: String, name: String)
    /// The to-one relationship has no foreign key column in the store.
    case noForeignKey(entity: String, relationship: String)
    /// The property is a fetched property: not stored.
    case fetchedProperty(entity: String, name: String)
    /// The key path has no components.
    case emptyKeyPath
    /// The entity has no table in the store (an abstract entity without stored sub-entities).
    case noTable(entity: String)
    /// A sort selector an SQLite fetch does not sort with (the store refuses it too).
    case unsupportedSortSelector(key: String, selector: String)
    /// A keyset page position whose number of sort values is not the request's number of sort keys.
    case keysetPositionMismatch(values: Int, sortKeys: Int)
    /// The object a keyset page starts after is not in the store (any more).
    case noObject(entity: String, primaryKey: Int64)
    /// The to-many relationship has neither a key column nor a join table in the store.
    case noRelationshipStorage(entity: String, relationship: String)
    /// A sort, distinct or aggregate key (`purpose` names which) is empty or has an empty step.
    case needsKeyPath(purpose: String, keyPath: String)
    /// A sort, distinct or aggregate key (`purpose` names which) ends in a to-many relationship.
    case toManyValueKey(purpose: String, entity: String, relationship: String)
    /// Distinct values were asked for without an attribute.
    case distinctWithoutAttributes
    /// `sum:` or `average:` of an attribute that is not a number.
    case aggregateNeedsNumber(function: String, keyPath: String, type: AttributeType)

    // Collection operators and to-many key paths.
    /// A collection operator (`@count`, `@sum`, …; `name` without the `@`) that does not follow a
    /// to-many relationship.
    case collectionOperatorWithoutToMany(name: String)
    /// A key follows `@count`.
    case keyAfterCount
    /// `@sum`/`@avg`/`@min`/`@max` (`name` without the `@`) with no key after it.
    case collectionOperatorNeedsKey(name: String, relationship: String)
    /// `@sum`/`@avg`/`@min`/`@max` whose key is not an attribute of the destination entity.
    case collectionOperatorNeedsAttribute(name: String, destination: String)
    /// A to-many relationship compared directly, without ANY/ALL/NONE or `@count`.
    case toManyWithoutQuantifier(entity: String, relationship: String)
    /// ANY/ALL/NONE (`quantifier`) whose left side does not go through a to-many relationship.
    case quantifierWithoutToMany(quantifier: String)
    /// A key path in a comparison that crosses more than one to-many relationship.
    case severalToManySteps

    // Subqueries and variables.
    /// `$name` is not the variable of an enclosing SUBQUERY.
    case unknownVariable(name: String)
    /// A SUBQUERY followed by something other than `@count`.
    case subqueryWithoutCount
    /// A SUBQUERY used as a value on its own.
    case subqueryAsValue
    /// A SUBQUERY whose collection is not a to-many key path.
    case subqueryCollectionNotToMany
    /// A SUBQUERY over a relationship whose members have no table.
    case subqueryWithoutMemberTable(relationship: String)

    // Operators and values.
    /// `%@ IN x` where `x` is neither a list nor a to-many relationship.
    case inNeedsListOrToMany
    /// `IN` with something other than a list on its right.
    case inNeedsList
    /// `BETWEEN` without a two-value list.
    case betweenNeedsTwoBounds
    /// A `{…}` list that holds a key path or an expression.
    case listOfNonConstants
    /// A `{…}` list outside IN and BETWEEN.
    case listOutsideInOrBetween
    /// A comparison with no key path on either side.
    case comparisonWithoutKeyPath
    /// BEGINSWITH/ENDSWITH/CONTAINS/LIKE/MATCHES (`operator`) with no string on its right.
    case needsStringValue(operator: String)
    /// Text compared with a Date attribute that does not read as a date.
    case notADate(text: String, attribute: String)
    /// Text compared with objects of `destination` that is not an object ID.
    case notAnObjectID(text: String, destination: String)
    /// An object ID of `entity` compared with objects of `destination`, not an ancestor of it.
    case objectOfOtherEntity(uri: String, entity: String, destination: String)
    /// A predicate or expression (`text`) with no SQL translation.
    case untranslatable(text: String)

    // Sessions.
    /// Value rows were asked of a request for objects.
    case objectsHaveNoValueRows

    package var message: String {
        switch self {
        case .unknownProperty(let entity, let name, let known):
            return "\(entity) has no property \"\(name)\"; properties: " + known.joined(separator: ", ")
        case .keyAfterAttribute(let entity, let name): return "\(entity).\(name) is an attribute; nothing can follow it in a key path"
        case .transientAttribute(let entity, let name): return "\(entity).\(name) is transient: it is not stored, so a fetch cannot test it"
        case .noForeignKey(let entity, let relationship): return "\(entity).\(relationship) has no foreign key column in the store"
        case .fetchedProperty(let entity, let name):
            return "\(entity).\(name) is a fetched property: it is not stored, so a fetch cannot test it"
        case .emptyKeyPath: return "empty key path"
        case .noTable(let entity): return "\(entity) has no table in the store"
        case .keysetPositionMismatch(let values, let sortKeys):
            return "the page position has \(values) sort values for \(sortKeys) sort keys"
        case .noObject(let entity, let primaryKey): return "\(entity) has no object with Z_PK \(primaryKey)"
        case .unsupportedSortSelector(let key, let selector):
            return "sorting by \(key) with \(selector): an SQLite fetch sorts only with " + SortComparison.allCases.map(\.rawValue).joined(separator: ", ")
        case .noRelationshipStorage(let entity, let relationship):
            return StoreError.relationshipNotStored(entity: entity, relationship: relationship).message
        case .needsKeyPath(let purpose, let keyPath): return "\(purpose) needs a key path, not \"\(keyPath)\""
        case .toManyValueKey(let purpose, let entity, let relationship):
            return "\(purpose): \(entity).\(relationship) is a to-many relationship; use an attribute or a to-one key path"
        case .distinctWithoutAttributes: return "distinct values need at least one attribute"
        case .aggregateNeedsNumber(let function, let keyPath, let type):
            return "\(function):\(keyPath): \(keyPath) is a \(type) attribute; \(function) takes a number (min and max also take dates and strings)"
        case .collectionOperatorWithoutToMany(let name): return "a collection operator (@\(name)) must follow a to-many relationship"
        case .keyAfterCount: return "nothing can follow @count"
        case .collectionOperatorNeedsKey(let name, let relationship): return "@\(name) needs a key after it: \(relationship).@\(name).price"
        case .collectionOperatorNeedsAttribute(let name, let destination): return "@\(name) needs an attribute of \(destination)"
        case .toManyWithoutQuantifier(let entity, let relationship):
            return "\(entity).\(relationship) is to-many: compare it with ANY/ALL/NONE or through @count"
        case .quantifierWithoutToMany(let quantifier): return "\(quantifier) needs a key path through a to-many relationship on its left"
        case .severalToManySteps: return "a key path may cross one to-many relationship in a comparison; use SUBQUERY for more"
        case .unknownVariable(let name): return "$\(name) is not a SUBQUERY variable in scope"
        case .subqueryWithoutCount: return "a SUBQUERY is used through its @count"
        case .subqueryAsValue: return "a SUBQUERY is used through its @count: SUBQUERY(…).@count > 0"
        case .subqueryCollectionNotToMany: return "SUBQUERY needs a to-many key path as its collection"
        case .subqueryWithoutMemberTable(let relationship): return "SUBQUERY: no member table for \(relationship)"
        case .inNeedsListOrToMany: return "IN needs a list ({a, b}) or a to-many relationship on its right"
        case .inNeedsList: return "IN needs a list of values: IN {a, b}"
        case .betweenNeedsTwoBounds: return "BETWEEN needs two bounds: BETWEEN {low, high}"
        case .listOfNonConstants: return "a {…} list may hold only constant values"
        case .listOutsideInOrBetween: return "a {…} list goes with IN or BETWEEN"
        case .comparisonWithoutKeyPath: return "a comparison needs a key path on one side"
        case .needsStringValue(let op): return "\(op) needs a string value on its right"
        case .notADate(let text, let attribute):
            return
                "\(PredicateError.quoted(text)) is not a date, and \(attribute) is a Date attribute: write a date as 2024-05-31, 2024-05-31T12:00:00 or 2024-05-31T12:00:00+02:00 (UTC without a zone)"
        case .notAnObjectID(let text, let destination):
            return
                "\(PredicateError.quoted(text)) is not an object ID: compare with the ID of an object of entity \(destination) (x-coredata://<store UUID>/\(destination)/p<N>) or with nil"
        case .objectOfOtherEntity(let uri, let entity, let destination):
            return "\(uri) is an object of entity \(entity), but the comparison takes entity \(destination) (or a sub-entity of it), so it could never match"
        case .untranslatable(let text): return "\(text) cannot be translated to SQL"
        case .objectsHaveNoValueRows: return "a request for objects has no value rows"
        }
    }
}

/// Why a fetch or a `--raw` statement cannot run, once the request itself translated: SQLite's
/// limits, a raw statement that is not one read-only statement, values that do not fit its
/// placeholders. `sqliteMessage` is SQLite's own text.
package enum FetchError: UserFacingError, Equatable, Sendable {
    /// The statement is beyond SQLite's compile-time limits (thousands of chained ORs).
    case predicateTooComplex(sqliteMessage: String?)
    /// A request for objects or a count was given to the method that reads values.
    case notForValues
    /// A request for values or a count was given to the method that reads objects.
    case notForObjects
    /// The `--raw` text holds no statement.
    case rawSQLEmpty
    /// The `--raw` text holds more than one statement.
    case rawSQLSeveralStatements
    /// SQLite cannot prepare the `--raw` statement.
    case rawSQLInvalid(sqliteMessage: String?)
    /// The `--raw` statement would change the store.
    case rawSQLWrites
    /// The statement's `?` placeholders do not match the `given` values.
    case rawSQLArgumentCount(given: Int)

    package var message: String {
        switch self {
        case .predicateTooComplex(let message):
            return "the predicate is too complex for SQLite (\(message ?? "")): list values with IN {…} instead of chaining OR, or split the fetch"
        case .notForValues: return "not a request for values"
        case .notForObjects: return "not a request for objects"
        case .rawSQLEmpty: return "--raw needs one SQL statement; the text holds none"
        case .rawSQLSeveralStatements: return "--raw runs exactly one read-only statement; this text holds more than one"
        case .rawSQLInvalid(let message): return "SQL error: \(message ?? "cannot prepare the statement")"
        case .rawSQLWrites: return "--raw runs read-only SQL; this statement would change the store"
        case .rawSQLArgumentCount(let given):
            return "the statement's ? placeholders and the \(given) value(s) given with --arg do not match"
        }
    }
}
