import CDModel
import Foundation

/// The R-tree tables (`Z_RT_…`) of location attributes and their triggers.
extension MappingBuilder {
    /// `Z_RT_<Entity>_<name>`: an SQLite R-tree with `<COLUMN>_MIN` and `<COLUMN>_MAX` per
    /// indexed value, keyed by `Z_PK`.
    ///
    /// Seen in every Photos store from 10.15 on (977 to 1447), from a transient location
    /// attribute whose user info `_NSLocationAttributeDerivedComponents` names its latitude and
    /// longitude attributes (`latitude, longitude`, or an array of the two in 10.15.4):
    /// `Z_RT_Asset_boundedByRect (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN FLOAT, …)`. No model
    /// in the corpus has a fetch index of R-tree elements (every archived element has type 0);
    /// such an index is mapped the same way under the index's name, which is **uncertain**.
    /// With `triggers` (``MappingOptions/rtreeTriggerVersions``), the `_INSERT`, `_UPDATE` and
    /// `_DELETE` triggers on the entity table that fill the R-tree with each row's values.
    mutating func rtreeTables(of entity: EntityDescription, table: MappedTable, triggers: Bool) -> [MappedTable] {
        var sources: [(name: String, properties: [String])] = []
        for attribute in entity.attributes {
            guard let components = attribute.common.userInfo["_NSLocationAttributeDerivedComponents"] else { continue }
            let names = components.split(whereSeparator: { ",()\n\"".contains($0) })
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            sources.append((attribute.name, names))
        }
        for fetchIndex in entity.fetchIndexes where fetchIndex.isRTree {
            sources.append((fetchIndex.name, fetchIndex.elements.map(\.property)))
        }
        var result: [MappedTable] = []
        for source in sources {
            let name = "Z_RT_\(entity.name)_\(source.name)"
            let keys = source.properties.map { column(ofProperty: $0, entity: entity.name, in: table) }
            guard !keys.isEmpty, keys.allSatisfy({ $0 != nil }) else {
                notes.append(
                    MappingResolution(
                        rule: .rtreeIndex, held: nil, table: name,
                        detail: "R-tree \(entity.name).\(source.name) names \(source.properties), not all of which have a column; not mapped"))
                continue
            }
            var columns = [MappedColumn(name: "Z_PK", type: "INTEGER", role: .primaryKey)]
            for key in keys.compactMap({ $0 }) {
                for bound in ["_MIN", "_MAX"] {
                    columns.append(
                        MappedColumn(
                            name: key.name + bound, type: "FLOAT", role: .rtreeBound,
                            entity: key.entity, property: key.property))
                }
            }
            var rtree = MappedTable(name: name, kind: .rtree, entities: [entity.name], columns: columns, primaryKey: ["Z_PK"])
            if triggers { rtree.triggers = Self.rtreeTriggers(rtree, on: table.name, values: keys.compactMap { $0?.name }) }
            result.append(rtree)
        }
        if !result.isEmpty {
            notes.append(
                MappingResolution(
                    rule: .rtreeIndex, held: nil, table: table.name,
                    detail: "R-tree tables \(result.map(\.name).joined(separator: ", ")) "
                        + (triggers ? "with the triggers that fill them (frameworks up to 1347)" : "without triggers (framework 1447 writes none)")))
        }
        return result
    }

    /// Core Data's text, spacing included: each value goes in as both bounds, and the first
    /// two are parted by ` ,` (`NEW.ZLATITUDE ,NEW.ZLATITUDE, NEW.ZLONGITUDE, NEW.ZLONGITUDE`).
    /// Only two-value R-trees have been seen, so the spacing of others is **uncertain**.
    static func rtreeTriggers(_ rtree: MappedTable, on table: String, values: [String]) -> [String] {
        let columns = rtree.columns.map(\.name).joined(separator: ", ")
        let entries = values.flatMap { ["NEW.\($0)", "NEW.\($0)"] }
        let bounds = "NEW.Z_PK, " + entries.prefix(1).joined() + " ," + entries.dropFirst().joined(separator: ", ")
        let insert = "INTO \(rtree.name) (\(columns)) VALUES (\(bounds)) ;"
        let row = "AFTER %@ ON \(table) FOR EACH ROW BEGIN"
        return [
            "CREATE TRIGGER \(rtree.name)_INSERT \(row.replacingOccurrences(of: "%@", with: "INSERT")) INSERT OR REPLACE \(insert) END",
            "CREATE TRIGGER \(rtree.name)_UPDATE \(row.replacingOccurrences(of: "%@", with: "UPDATE")) DELETE FROM \(rtree.name) WHERE Z_PK = NEW.Z_PK ; INSERT \(insert) END",
            "CREATE TRIGGER \(rtree.name)_DELETE \(row.replacingOccurrences(of: "%@", with: "DELETE")) DELETE FROM \(rtree.name) WHERE Z_PK = OLD.Z_PK ; END",
        ]
    }

    /// The attribute or to-one key column of `property` as `entity` sees it (own or inherited).
    func column(ofProperty property: String, entity: String, in table: MappedTable) -> MappedColumn? {
        for ancestor in model.lineage(of: entity) {
            if let column = table.columns.first(where: {
                $0.entity == ancestor.name && $0.property == property && ($0.role == .attribute || $0.role == .toOneKey)
            }) {
                return column
            }
        }
        return nil
    }
}
