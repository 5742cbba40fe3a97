import CDMapping

/// The columns of a mapping by declaring entity and property, with the entity lineage walked
/// as `StoreMapping/columns(forProperty:ofEntity:)` walks it, but without scanning every
/// table for each property: planning a read or a comparison over a store with thousands of
/// properties (Photos) would otherwise take longer than the read. ``ObjectReader`` builds one
/// for its mapping.
package struct ColumnIndex: Sendable {
    private let columns: [String: [MappedColumn]]
    private let parents: [String: String]

    package init(_ mapping: StoreMapping) {
        var columns: [String: [MappedColumn]] = [:]
        for table in mapping.tables where table.kind == .entity {
            for column in table.columns {
                guard let entity = column.entity, let property = column.property else { continue }
                columns[entity + "." + property, default: []].append(column)
            }
        }
        self.columns = columns
        parents = Dictionary(mapping.entities.compactMap { entity in entity.parent.map { (entity.name, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The columns of `property` as `entity` sees it: its own declaration or an ancestor's.
    package func columns(forProperty property: String, ofEntity entity: String) -> [MappedColumn] {
        var current: String? = entity
        var hops = 0
        while let name = current, hops < 64 {
            if let found = columns[name + "." + property] { return found }
            current = parents[name]
            hops += 1
        }
        return []
    }
}
