import CDModel
import Foundation

/// Indexes of entity tables: legacy per-attribute indexes, fetch indexes, uniqueness constraints.
extension MappingBuilder {
    /// The column-constraint style: one-property constraints become `UNIQUE` columns.
    func markUniqueColumns(of table: inout MappedTable, members: [String]) {
        for member in members {
            for constraint in model.entity(named: member)?.uniquenessConstraints ?? [] where constraint.count == 1 {
                guard let column = column(ofProperty: constraint[0], entity: member, in: table),
                    let position = table.columns.firstIndex(of: column)
                else { continue }
                table.columns[position].unique = true
            }
        }
    }

    /// Key indexes in column order, the `Z_ENT` index, then per entity its fetch indexes and
    /// uniqueness constraints: the order Core Data creates them in (§7.7).
    mutating func indexes(of table: MappedTable, members: [String], options: MappingOptions) -> [MappedIndex] {
        var result: [MappedIndex] = []
        for column in table.columns where column.role == .toOneKey || column.role == .toManyKeyWithoutInverse {
            result.append(
                MappedIndex(
                    name: "\(table.name)_\(column.name)_INDEX", table: table.name,
                    kind: .foreignKey, columns: [column.name]))
        }
        if members.count > 1 {
            result.append(MappedIndex(name: "\(table.name)_Z_ENT_INDEX", table: table.name, kind: .entityType, columns: ["Z_ENT"]))
        }
        for member in members {
            guard let entity = model.entity(named: member) else { continue }
            if entity.fetchIndexes.isEmpty {
                for index in legacyIndexes(of: entity, table: table, style: options.legacyIndexes)
                where !result.contains(where: { $0.name == index.name }) {
                    result.append(index)
                }
            }
            for fetchIndex in entity.fetchIndexes {
                // A model can list one name twice (PGCurationCache `Moment.identifier`); Core
                // Data creates the index once.
                if let index = self.fetchIndex(fetchIndex, of: entity, table: table),
                    !result.contains(where: { $0.name == index.name })
                {
                    result.append(index)
                }
            }
            for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
                if options.uniqueness == .columnConstraint && constraint.count == 1 { continue }
                let columns = constraint.compactMap { column(ofProperty: $0, entity: member, in: table)?.name }
                guard columns.count == constraint.count else {
                    notes.append(
                        MappingResolution(
                            rule: .notMapped, held: nil, table: table.name,
                            detail: "uniqueness constraint \(member) \(constraint) names a property without a column"))
                    continue
                }
                result.append(
                    MappedIndex(
                        name: "Z_\(member)_UNIQUE_" + constraint.joined(separator: "_"),
                        table: table.name, kind: .uniqueness, unique: true, columns: columns,
                        order: columns.map { _ in "ASC" }, entity: member))
            }
        }
        return result
    }

    /// Indexed attributes, then legacy compound indexes, of an entity without fetch indexes, in
    /// the framework's ``LegacyIndexStyle``. An entity that declares fetch indexes gets only those
    /// (knowledgeC 851 and 866 keep both in their caches and create only the fetch indexes).
    func legacyIndexes(of entity: EntityDescription, table: MappedTable, style: LegacyIndexStyle) -> [MappedIndex] {
        var groups: [[String]] = entity.attributes.filter { $0.common.isIndexed && !$0.common.isTransient }.map { [$0.name] }
        groups += entity.compoundIndexes.filter { !$0.isEmpty }
        return groups.compactMap { properties in
            let columns = properties.compactMap { column(ofProperty: $0, entity: entity.name, in: table)?.name }
            guard columns.count == properties.count else { return nil }
            switch style {
            case .fetchIndexes:
                return MappedIndex(
                    name: "Z_\(entity.name)_" + properties.joined(separator: "_"), table: table.name,
                    kind: .fetchIndex, columns: columns, order: columns.map { _ in "ASC" }, entity: entity.name)
            case .plainIndexes where properties.count == 1 && isAttribute(properties[0], of: entity):
                return MappedIndex(
                    name: "\(table.name)_\(columns[0])_INDEX", table: table.name,
                    kind: .indexedAttribute, columns: columns)
            case .plainIndexes:
                return MappedIndex(
                    name: ([table.name] + columns).joined(separator: "_"), table: table.name,
                    kind: .compoundIndex, columns: columns)
            }
        }
    }

    /// Whether `name` is one of `entity`'s own indexed attributes (not a compound index of one).
    func isAttribute(_ name: String, of entity: EntityDescription) -> Bool {
        entity.attributes.contains { $0.name == name && $0.common.isIndexed }
    }

    /// `Z_<Entity>_<name>`, each element `COLLATE BINARY ASC|DESC`.
    ///
    /// Skipped, as in every corpus store: indexes with a to-many element (no column) and
    /// indexes of a single to-one (its key index already covers it). `SELF` indexes `Z_PK`
    /// and `entity` indexes `Z_ENT`. R-tree elements build a virtual table that is not mapped.
    mutating func fetchIndex(_ fetchIndex: FetchIndex, of entity: EntityDescription, table: MappedTable) -> MappedIndex? {
        var columns: [String] = []
        var foreignKeys = 0
        guard !fetchIndex.isRTree else { return nil }
        for element in fetchIndex.elements {
            if let expression = element.expression {
                switch expression {
                case "SELF": columns.append("Z_PK")
                case "entity": columns.append("Z_ENT")
                default:
                    notes.append(
                        MappingResolution(
                            rule: .notMapped, held: nil, table: table.name,
                            detail: "fetch index \(entity.name).\(fetchIndex.name) indexes the expression \(expression)"))
                    return nil
                }
                continue
            }
            guard let column = column(ofProperty: element.property, entity: entity.name, in: table) else {
                if !isToMany(element.property, of: entity.name) {
                    notes.append(
                        MappingResolution(
                            rule: .notMapped, held: nil, table: table.name,
                            detail: "fetch index \(entity.name).\(fetchIndex.name) names \(element.property), which has no column"))
                }
                return nil
            }
            if column.role == .toOneKey { foreignKeys += 1 }
            columns.append(column.name)
        }
        if columns.isEmpty || (columns.count == 1 && foreignKeys == 1) { return nil }
        var whereClause: String?
        if let predicate = fetchIndex.partialIndexPredicate {
            whereClause = PartialIndexSQL.translate(predicate) { path in
                self.column(ofProperty: path, entity: entity.name, in: table)?.name
            }
            if whereClause == nil {
                notes.append(
                    MappingResolution(
                        rule: .notMapped, held: nil, table: table.name,
                        detail: "partial index predicate of \(entity.name).\(fetchIndex.name) not translated: \(predicate)"))
            }
        }
        return MappedIndex(
            name: "Z_\(entity.name)_\(fetchIndex.name)", table: table.name, kind: .fetchIndex,
            columns: columns, order: fetchIndex.elements.map { $0.ascending ? "ASC" : "DESC" },
            whereClause: whereClause, entity: entity.name)
    }
}
