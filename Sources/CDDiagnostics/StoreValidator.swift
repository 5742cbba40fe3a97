import CDBase
import CDMapping
import CDModel
import CDStore
import Foundation
import GRDB

/// `cdstore validate`: every validation rule of the model over every row, the way Core Data
/// checks an object on save, plus the integrity of the store itself (errors.md §1.1, §3).
///
/// Row rules: 1570 for a NULL non-optional attribute or to-one, 1580/1590 for a to-many outside
/// its minimum or maximum count, the attribute rules of ``AttributeRules`` (1550, 1610–1680);
/// several errors of one object are wrapped in a 1560, as Core Data wraps them. Integrity: to-one
/// keys and join-table rows pointing at no row, `Z_ENT` values that are unknown or abstract,
/// `Z_MAX` below the largest `Z_PK`, missing and orphaned external-data files, the metadata
/// digest and checksum, the model cache against the metadata, and SQLite's integrity check.
/// Rows stream through ``ObjectReader``; only the failures are kept.
package enum StoreValidator {
    /// Offenders kept per integrity problem, and validation failures kept in all; the counts go on.
    package static let exampleLimit = 5
    package static let failureLimit = 10_000

    package static func validate(_ snapshot: StoreSnapshot, model: ManagedObjectModel? = nil) throws -> ValidationReport {
        let reader = try ObjectReader(snapshot: snapshot, model: model)
        var report = ValidationReport(store: snapshot.files.main.path)
        try checkObjects(reader, into: &report)
        try checkIntegrity(reader, into: &report)
        return report
    }

    // MARK: Rows

    private struct EntityRules {
        var attributes: [String: AttributeRules] = [:]
        var mandatory: Set<String> = []
        var toMany: [String: RelationshipDescription] = [:]
    }

    private static func rules(for model: ManagedObjectModel, notChecked: inout [String]) -> [String: EntityRules] {
        var result: [String: EntityRules] = [:]
        for entity in model.entities {
            var rules = EntityRules()
            for property in model.allProperties(of: entity.name) where !property.isTransient {
                switch property {
                case .attribute(let attribute) where !attribute.isDerived:
                    let attributeRules = AttributeRules(attribute)
                    if !attributeRules.rules.isEmpty { rules.attributes[attribute.name] = attributeRules }
                    notChecked += attributeRules.unchecked.map { "\(entity.name).\($0)" }
                    if !attribute.common.isOptional { rules.mandatory.insert(attribute.name) }
                case .relationship(let relationship) where relationship.isToMany:
                    if relationship.minCount > 0 || relationship.maxCount > 1 { rules.toMany[relationship.name] = relationship }
                case .relationship(let relationship):
                    if !relationship.common.isOptional { rules.mandatory.insert(relationship.name) }
                default:
                    break
                }
            }
            result[entity.name] = rules
        }
        return result
    }

    private static func checkObjects(_ reader: ObjectReader, into report: inout ValidationReport) throws {
        var notChecked: [String] = []
        let rulesByEntity = rules(for: reader.model, notChecked: &notChecked)
        report.notChecked = Array(Set(notChecked)).sorted()
        var externalData = ExternalDataInventory(exampleLimit: exampleLimit)
        var invalidObjects = 0
        let needsCounts = rulesByEntity.values.contains { !$0.toMany.isEmpty }
        try reader.read(
            ObjectQuery(countsToMany: needsCounts), section: { _ in },
            object: { object in
                report.objects += 1
                guard let rules = rulesByEntity[object.id.entity] else { return }
                var found: [ValidationFailure] = []
                for (name, value) in object.values {
                    externalData.record(value, key: name, of: object)
                    found += failures(of: name, value: value, rules: rules, object: object)
                }
                guard !found.isEmpty else { return }
                invalidObjects += 1
                guard invalidObjects <= failureLimit else { return }
                if found.count == 1 {
                    report.errors.append(found[0])
                } else {
                    report.errors.append(
                        ValidationFailure(
                            code: 1560, entity: object.id.entity, key: nil, object: object.id.uri, value: nil,
                            message: "Multiple validation errors occurred.", errors: found))
                }
            })
        if invalidObjects > failureLimit {
            report.notChecked.append("\(invalidObjects - failureLimit) more invalid objects were counted but not listed")
        }
        for (_, entry) in externalData.missingFiles.sorted(by: { $0.key < $1.key }) {
            report.integrity.append(
                IntegrityProblem(
                    kind: .missingExternalFile, entity: entry.entity, key: entry.key, count: entry.count,
                    examples: entry.examples,
                    message: "\(plural(entry.count, "external-data reference")) of \(entry.entity).\(entry.key) point to missing files"))
        }
        let folder = reader.snapshot.files.externalDataFolder
        let orphans = externalData.orphans(in: folder)
        if !orphans.isEmpty {
            report.integrity.append(
                IntegrityProblem(
                    kind: .orphanedExternalFile, count: orphans.count, examples: Array(orphans.prefix(exampleLimit)),
                    message: "\(plural(orphans.count, "file")) in \(folder.path) no row refers to"))
        }
    }

    private static func failures(of name: String, value: ObjectValue, rules: EntityRules, object: StoredObject) -> [ValidationFailure] {
        func failure(_ code: Int, _ message: String) -> ValidationFailure {
            ValidationFailure(code: code, entity: object.id.entity, key: name, object: object.id.uri, value: text(value), message: message)
        }
        if rules.mandatory.contains(name), case .null = value {
            return [failure(1570, "\(name) is a required value.")]
        }
        if let relationship = rules.toMany[name], case .objectCount(let count) = value {
            if count > 0 || !relationship.common.isOptional, count < relationship.minCount {
                return [failure(1580, "Too few items in \(name).")]
            }
            if relationship.maxCount > 1, count > relationship.maxCount {
                return [failure(1590, "Too many items in \(name).")]
            }
        }
        guard let attributeRules = rules.attributes[name] else { return [] }
        return attributeRules.failures(value).map { rule in
            let message: String
            switch rule.code {
            case 1610: message = "\(name) is too large."
            case 1620: message = "\(name) is too small."
            case 1630: message = "\(name) is too late."
            case 1640: message = "\(name) is too soon."
            case 1660: message = "\(name) is too long."
            case 1670: message = "\(name) is too short."
            case 1680: message = "\(name) is invalid."
            default: message = "\(name) is not valid." + (rule.warning.map { $0.isEmpty ? "" : " " + $0 } ?? "")
            }
            return failure(rule.code, message)
        }
    }

    /// A short text of a stored value for reports (nil for NULL): ``ObjectValue/text(binary:)``
    /// cut to 80 characters, bytes by their size.
    static func text(_ value: ObjectValue) -> String? {
        value.text().map { $0.count > 80 ? String($0.prefix(80)) + "…" : $0 }
    }

    // MARK: Integrity

    private static func checkIntegrity(_ reader: ObjectReader, into report: inout ValidationReport) throws {
        let snapshot = reader.snapshot
        let mapping = reader.mapping
        let inspection = try StoreInspector.inspect(snapshot, counts: true)
        let uuid = reader.storeUUID
        func uri(_ ent: Int, _ pk: Int64) -> String {
            "x-coredata://\(uuid)/\(mapping.entities.first { $0.number == ent }?.name ?? "Z_ENT \(ent)")/p\(pk)"
        }
        for problem in reader.registry.problems {
            report.integrity.append(
                IntegrityProblem(
                    kind: problem.kind == .wrongType ? .wrongType : .outOfRange, entity: problem.entity,
                    key: "\(problem.table).\(problem.column)", count: 1, message: problem.message))
        }
        try snapshot.read { db in
            let tables = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            for table in mapping.tables where table.kind == .entity && tables.contains(table.name) {
                let known = Set(table.entities.compactMap { mapping.entityNumber(of: $0) })
                let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, COUNT(*) FROM \(table.name.quotedSQLIdentifier) GROUP BY Z_ENT")
                for row in rows {
                    let ent = StoredInteger(row, 0)
                    let count = StoredInteger(row, 1).value.map(Int.init) ?? 0
                    if let problem = ent.problem {
                        report.integrity.append(
                            IntegrityProblem(
                                kind: .wrongType, key: "\(table.name).Z_ENT", count: count,
                                message: "\(plural(count, "row")) of \(table.name) have Z_ENT \(problem), not an integer"))
                        continue
                    }
                    guard let number = ent.value, known.contains(Int(clamping: number)) else {
                        report.integrity.append(
                            IntegrityProblem(
                                kind: .unknownEntity, key: table.name, count: count,
                                message:
                                    "\(plural(count, "row")) of \(table.name) have Z_ENT \(ent.value.map(String.init) ?? "NULL"), which is not an entity of this table"
                            ))
                        continue
                    }
                }
                for column in table.columns where column.role == .toOneKey {
                    guard let entity = column.entity, let property = column.property,
                        case .relationship(let relationship)? = reader.model.allProperties(of: entity).first(where: { $0.name == property }),
                        let destination = mapping.table(forEntity: relationship.destinationEntity), tables.contains(destination.name)
                    else { continue }
                    let unmatched = try Row.fetchAll(
                        db,
                        sql: """
                            SELECT a.Z_ENT, a.Z_PK, a.\(column.name.quotedSQLIdentifier) FROM \(table.name.quotedSQLIdentifier) a
                            WHERE a.\(column.name.quotedSQLIdentifier) IS NOT NULL
                            AND NOT EXISTS (SELECT 1 FROM \(destination.name.quotedSQLIdentifier) d WHERE d.Z_PK = a.\(column.name.quotedSQLIdentifier))
                            ORDER BY a.Z_PK
                            """)
                    // A key that is not an integer points nowhere too, but it is damage of another kind.
                    func rowURI(_ row: Row) -> String {
                        uri(StoredInteger(row, 0).value(in: EntityRegistry.entityNumbers) ?? 0, StoredInteger(row, 1).value ?? 0)
                    }
                    let (wrongType, dangling) = unmatched.reduce(into: ([(Row, String)](), [(Row, Int64)]())) { split, row in
                        switch StoredInteger(row, 2) {
                        case .integer(let key): split.1.append((row, key))
                        case .wrongType(let description): split.0.append((row, description))
                        case .null: break
                        }
                    }
                    if !wrongType.isEmpty {
                        report.integrity.append(
                            IntegrityProblem(
                                kind: .wrongType, entity: entity, key: property, count: wrongType.count,
                                examples: wrongType.prefix(exampleLimit).map { "\(rowURI($0.0)) → \($0.1)" },
                                message:
                                    "\(wrongType.count) \(entity).\(property) \(noun("key is", count: wrongType.count, "keys are")) not an integer (column \(table.name).\(column.name))"
                            ))
                    }
                    guard !dangling.isEmpty else { continue }
                    let examples = dangling.prefix(exampleLimit).map { "\(rowURI($0.0)) → Z_PK \($0.1)" }
                    report.integrity.append(
                        IntegrityProblem(
                            kind: .danglingToOne, entity: entity, key: property, count: dangling.count, examples: examples,
                            message:
                                "\(dangling.count) \(entity).\(property) \(noun("key", count: dangling.count)) point to no \(relationship.destinationEntity) row"
                        ))
                }
            }
            for table in mapping.tables where table.kind == .manyToMany && tables.contains(table.name) {
                for column in table.columns where column.role == .joinKey {
                    let target =
                        column.destination
                        ?? column.entity.flatMap { entity in
                            column.property.flatMap { property -> String? in
                                if case .relationship(let r)? = reader.model.allProperties(of: entity).first(where: { $0.name == property }) {
                                    return r.destinationEntity
                                }
                                return nil
                            }
                        }
                    guard let target, let destination = mapping.table(forEntity: target), tables.contains(destination.name) else { continue }
                    let count =
                        try Int.fetchOne(
                            db,
                            sql: """
                                SELECT COUNT(*) FROM \(table.name.quotedSQLIdentifier) j WHERE NOT EXISTS
                                (SELECT 1 FROM \(destination.name.quotedSQLIdentifier) d WHERE d.Z_PK = j.\(column.name.quotedSQLIdentifier))
                                """) ?? 0
                    guard count > 0 else { continue }
                    report.integrity.append(
                        IntegrityProblem(
                            kind: .danglingJoinRow, entity: target, key: "\(table.name).\(column.name)", count: count,
                            message: "\(plural(count, "row")) of \(table.name) point to no \(target) row in \(column.name)"))
                }
            }
            let messages = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
            if !messages.isEmpty {
                report.integrity.append(
                    IntegrityProblem(
                        kind: .sqlite, count: messages.count, examples: Array(messages.prefix(exampleLimit)),
                        message: "SQLite's integrity check found \(plural(messages.count, "problem"))"))
            }
        }
        for entity in inspection.entities {
            if entity.isAbstract == true, let rows = entity.rows, rows > 0 {
                report.integrity.append(
                    IntegrityProblem(
                        kind: .abstractEntity, entity: entity.name, count: rows,
                        message: "\(plural(rows, "row")) of the abstract entity \(entity.name), which Core Data never instantiates"))
            }
            if let max = entity.max, let largest = entity.maxPK, largest > max {
                report.integrity.append(
                    IntegrityProblem(
                        kind: .primaryKeyBelowMaximum, entity: entity.name, key: "Z_MAX", count: largest.subtractingReportingOverflow(max).partialValue,
                        message:
                            "\(entity.name): Z_MAX is \(max) but the largest Z_PK in \(entity.table) is \(largest): the next insert would reuse a primary key"))
            }
        }
        if inspection.metadata.hashesDigestMatches == false {
            report.integrity.append(
                IntegrityProblem(
                    kind: .digestMismatch, count: 1,
                    message: "NSStoreModelVersionHashesDigest does not match the entity hashes in the metadata"))
        }
        if inspection.metadata.checksumMatches == false {
            report.integrity.append(
                IntegrityProblem(
                    kind: .checksumMismatch, count: 1,
                    message: "NSStoreModelVersionChecksumKey does not match the entity hashes in the metadata"))
        }
        if let error = inspection.modelCache.error {
            report.integrity.append(
                IntegrityProblem(
                    kind: .unreadableModelCache, key: "Z_MODELCACHE", count: 1,
                    message: "the model cache (Z_MODELCACHE) cannot be read: \(error)"))
        }
        if inspection.modelCache.hashesMatch == false {
            let names = inspection.modelCache.mismatches.map(\.entity)
            report.integrity.append(
                IntegrityProblem(
                    kind: .modelCacheMismatch, count: names.count, examples: Array(names.prefix(exampleLimit)),
                    message: "the model cache and the metadata disagree on \(plural(names.count, "entity", "entities"))"))
        }
    }
}
