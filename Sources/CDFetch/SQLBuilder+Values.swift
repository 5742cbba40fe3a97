import CDBase
import CDMapping
import CDModel
import CDPredicate
import CDStore
import Foundation
import GRDB

/// Terms and values: columns, constants and bound arguments of a comparison.
extension SQLBuilder {
    func term(_ left: Operand, _ op: ComparisonOperator, _ right: Operand, options: ComparisonOptions) throws(FetchSQLError) -> String {
        guard case .sql(let lhs, let attribute, let destination) = left else {
            throw .comparisonWithoutKeyPath
        }
        let flags = StringMatching.flags(options)
        switch (op, right) {
        case (.equal, .value(.null)): return lhs + " IS NULL"
        case (.notEqual, .value(.null)): return lhs + " IS NOT NULL"
        case (.equal, .value(let value)) where flags != 0, (.notEqual, .value(let value)) where flags != 0:
            let search = try " NSCoreDataStringSearch(" + lhs + ", " + bind(value, attribute: attribute, destination: destination) + ", \(flags), 0)"
            return op == .equal ? search : " NOT (" + search + ")"
        case (.equal, _), (.notEqual, _), (.less, _), (.lessOrEqual, _), (.greater, _), (.greaterOrEqual, _):
            let symbol = [ComparisonOperator.equal: "=", .notEqual: "<>", .less: "<", .lessOrEqual: "<=", .greater: ">", .greaterOrEqual: ">="][op]!
            return lhs + " \(symbol) " + (try rhs(right, attribute: attribute, destination: destination))
        case (.between, .values(let bounds)) where bounds.count == 2:
            return try lhs + " BETWEEN " + bind(bounds[0], attribute: attribute, destination: destination)
                + " AND " + bind(bounds[1], attribute: attribute, destination: destination)
        case (.between, _):
            throw .betweenNeedsTwoBounds
        case (.in, .values(let values)):
            var placeholders: [String] = []
            for value in values { placeholders.append(try bind(value, attribute: attribute, destination: destination)) }
            return lhs + " IN (" + placeholders.joined(separator: ", ") + ")"
        case (.in, .value(let value)):
            return try lhs + " = " + bind(value, attribute: attribute, destination: destination)
        case (.in, _):
            throw .inNeedsList
        case (.beginsWith, .value(let value)), (.endsWith, .value(let value)), (.contains, .value(let value)):
            let operation: CoreDataSQLFunctions.SearchOperation = op == .beginsWith ? .beginsWith : op == .endsWith ? .endsWith : .contains
            return try " NSCoreDataStringSearch(" + lhs + ", " + bind(value, attribute: attribute, destination: nil)
                + ", \(flags), \(operation.rawValue))"
        case (.like, .value(let value)):
            return try " NSCoreDataLike(" + lhs + ", " + bind(value, attribute: nil, destination: nil) + ", \(flags))"
        case (.matches, .value(let value)):
            return try " NSCoreDataMatches(" + lhs + ", " + bind(value, attribute: nil, destination: nil) + ", \(flags))"
        case (.beginsWith, _), (.endsWith, _), (.contains, _), (.like, _), (.matches, _):
            throw .needsStringValue(operator: op.rawValue)
        }
    }

    func rhs(_ right: Operand, attribute: AttributeDescription?, destination: String?) throws(FetchSQLError) -> String {
        switch right {
        case .value(let value): return try bind(value, attribute: attribute, destination: destination)
        case .sql(let sql, _, _): return sql
        case .values: throw .listOutsideInOrBetween
        }
    }

    /// Binds `value` (converted for the attribute or object it is compared with) and returns `?`.
    /// Text compared with a date attribute must name a date, and text compared with an object
    /// (a relationship, a member, `SELF`) must be an object ID of that entity: bound as text
    /// either would compare with the column's numbers and silently match nothing (or everything).
    /// An object ID is bound as its `Z_PK`, as Core Data binds an object (store-format.md §8):
    /// the key alone names one row of the entity's table, sub-entities included.
    func bind(_ value: Value, attribute: AttributeDescription? = nil, destination: String? = nil) throws(FetchSQLError) -> String {
        if let attribute, attribute.type == .date, case .string(let text) = value, CoreDataDate(iso8601: text) == nil {
            throw .notADate(text: text, attribute: attribute.name)
        }
        if let destination, case .string(let text) = value {
            guard let object = ObjectURI(text) else {
                throw .notAnObjectID(text: text, destination: destination)
            }
            guard model.lineage(of: object.entity).contains(where: { $0.name == destination }) else {
                throw .objectOfOtherEntity(uri: text, entity: object.entity, destination: destination)
            }
            return bind(object.primaryKey.databaseValue)
        }
        return bind(Self.databaseValue(value, type: attribute?.type))
    }

    func bind(_ value: DatabaseValue) -> String {
        arguments.append(value)
        return "?"
    }

    static func databaseValue(_ value: Value, type: AttributeType?) -> DatabaseValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        // A number compared with a string attribute is its text, as a `%@` argument "15" means.
        case .integer(let integer): return type == .string ? String(integer).databaseValue : integer.databaseValue
        case .double(let double): return type == .string ? String(double).databaseValue : double.databaseValue
        case .date(let date): return date.timeIntervalSinceReferenceDate.databaseValue
        case .string(let text):
            if type == .date, let date = CoreDataDate(iso8601: text) { return date.secondsSince2001.databaseValue }
            if type == .uuid, let uuid = UUID(uuidString: text) {
                return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue
            }
            return text.databaseValue
        }
    }
}
