/// `cdstore model --sql` as text: the DDL Core Data runs, with notes on the uncertain naming
/// rules as SQL comments.
package enum MappingText {
    /// `indexesAfterEachTable` writes each table's indexes right after it, as frameworks before
    /// 754 do (``StoreMapping/createStatements(indexesAfterEachTable:)``).
    package static func render(_ mapping: StoreMapping, indexesAfterEachTable: Bool = false) -> String {
        var lines: [String] = []
        for note in mapping.resolutions {
            let verdict = note.held.map { $0 ? "held" : "did not hold; the store's names are used" } ?? "predicted"
            lines.append("-- \(note.rule.rawValue)\(note.table.map { " (\($0))" } ?? ""): \(note.detail) [\(verdict)]")
        }
        for table in mapping.tables {
            for alternative in table.alternatives {
                lines.append("-- instead of \(table.name), Core Data may create:")
                lines += ([alternative.createStatement] + alternative.indexes.map(\.createStatement)).map { "--   \($0);" }
            }
        }
        if !lines.isEmpty { lines.append("") }
        let script = mapping.createStatements(indexesAfterEachTable: indexesAfterEachTable).map { $0 + ";\n" }.joined()
        return lines.joined(separator: "\n") + script
    }
}
