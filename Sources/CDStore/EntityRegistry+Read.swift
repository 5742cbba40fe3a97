import CDMapping
import Foundation
import GRDB

extension EntityRegistry {
    /// Reads `Z_PRIMARYKEY`; values it cannot use are reported in `problems` rather than thrown,
    /// so a damaged table still yields the entities it can.
    public static func read(_ db: Database) throws -> EntityRegistry {
        let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        var problems: [StoredValueProblem] = []
        var entities: [RegisteredEntity] = []
        for row in rows {
            let name = String.fromDatabaseValue(row[1] as DatabaseValue) ?? ""
            func checked(_ index: Int, _ column: String, range: ClosedRange<Int64>) -> Int? {
                let stored = StoredInteger(row, index)
                if let problem = stored.problem {
                    problems.append(StoredValueProblem(kind: .wrongType, table: "Z_PRIMARYKEY", column: column, entity: name, pk: nil, value: problem))
                } else if let value = stored.value, !range.contains(value) {
                    problems.append(StoredValueProblem(kind: .outOfRange, table: "Z_PRIMARYKEY", column: column, entity: name, pk: nil, value: String(value)))
                    return nil
                }
                return stored.value(in: range)
            }
            guard let ent = checked(0, "Z_ENT", range: entityNumbers) else { continue }
            let superEnt = checked(2, "Z_SUPER", range: 0...entityNumbers.upperBound) ?? 0
            let max = checked(3, "Z_MAX", range: 0...Int64.max) ?? 0
            entities.append(RegisteredEntity(ent: ent, name: name, superEnt: superEnt, max: max))
        }
        return EntityRegistry(entities: entities, problems: problems)
    }
}
