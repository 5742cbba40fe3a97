import Foundation

/// Statement shapes and what is recorded when a statement is finished.
extension TraceAnalyzer {
    /// What finishing a statement asks of its shape, worked out once per shape: reading these
    /// costs a load, where a copy of the ``StatementShape`` retains and releases its strings.
    struct ShapeTraits {
        var kind: StatementShape.Kind
        var limit: Int?
        var returnsObjects: Bool
        var selectsKeysOnly: Bool
        var filtersOnOneKey: Bool
        var tableCount: Int
        /// The numbers of the main table's and the WHERE clause's texts (``clauseNumbers``), -1
        /// for none: equal numbers, equal texts.
        var mainTable: Int
        var whereClause: Int
        /// The WHERE clause checks the version (`Z_OPT = ?`: optimistic locking).
        var checksVersion: Bool
    }

    func traits(of shape: StatementShape) -> ShapeTraits {
        ShapeTraits(
            kind: shape.kind, limit: shape.limit, returnsObjects: shape.returnsObjects, selectsKeysOnly: shape.selectsKeysOnly,
            filtersOnOneKey: shape.filtersOnOneKey, tableCount: shape.tables.count, mainTable: clauseNumber(shape.mainTable),
            whereClause: clauseNumber(shape.whereClause), checksVersion: shape.whereClause?.contains("Z_OPT = ?") == true)
    }

    func clauseNumber(_ text: String?) -> Int {
        guard let text else { return -1 }
        if let number = clauseNumbers[text] { return number }
        clauseNumbers[text] = clauseTexts.count
        clauseTexts.append(text)
        return clauseTexts.count - 1
    }

    func appendShape(_ shape: StatementShape, example: String) {
        traits.append(traits(of: shape))
        shapes.append(ShapeStatistics(shape: shape, example: example))
    }

    /// Keeps the text of an interner's number (numbers come in order, each once).
    func rememberText(_ sql: String, number: Int) {
        if number == textsByNumber.count {
            textsByNumber.append(sql)
        } else if number < textsByNumber.count {
            textsByNumber[number] = sql
        } else {
            textsByNumber.append(contentsOf: repeatElement("", count: number - textsByNumber.count))
            textsByNumber.append(sql)
        }
    }

    /// The shape of a statement whose text a ``StatementInterner`` numbered: by number once known.
    func shapeNumber(for sql: String, textNumber: Int?) -> Int {
        guard let textNumber else { return shapeNumber(for: sql) }
        if textNumber < shapeByTextNumber.count, shapeByTextNumber[textNumber] >= 0 { return Int(shapeByTextNumber[textNumber]) }
        let number = shapeNumber(for: sql)
        if textNumber >= shapeByTextNumber.count {
            shapeByTextNumber.append(contentsOf: repeatElement(-1, count: textNumber + 1 - shapeByTextNumber.count))
        }
        shapeByTextNumber[textNumber] = Int32(number)
        return number
    }

    func shapeNumber(for sql: String) -> Int {
        if let known = shapeBySQL[sql] { return known }
        let shape = StatementShape(sql: sql)
        let number: Int
        if let existing = shapeByText[shape.text] {
            number = existing
        } else if shapes.count < Self.maximumShapes {
            number = shapes.count
            appendShape(shape, example: String(sql.prefix(100_000)))
            shapeByText[shape.text] = number
        } else {
            let other = "(other shapes)"
            if let existing = shapeByText[other] {
                number = existing
            } else {
                number = shapes.count
                appendShape(StatementShape(sql: other), example: "")
                shapeByText[other] = number
            }
        }
        if shapeBySQL.count < 4 * Self.maximumShapes { shapeBySQL[sql] = number }
        return number
    }

    // MARK: finishing a statement

    /// Counts a statement in its shape and the trackers. The statement is lent, not copied
    /// (it is 200 bytes), and its shape's number is passed beside it.
    func finishStatement(_ statement: TracedStatement) {
        let number = shapeNumber(for: statement.sql, textNumber: statement.textNumber)
        let rows = statement.rows ?? 0
        let shape = traits[number]
        let large =
            shape.kind == .fetch && shape.limit == nil && statement.prefetchKey == nil && rows >= Self.largeFetchRows
            && !shape.selectsKeysOnly
        var afterSameCount = false
        if shape.kind == .fetch, shape.returnsObjects, let counted = lastFinishedCount.map({ traits[$0] }) {
            afterSameCount = counted.mainTable == shape.mainTable && counted.whereClause == shape.whereClause
        }
        // Updated in place: a copy of the statistics would retain and release all their fields.
        func update(_ stats: inout ShapeStatistics) {
            let seconds = statement.seconds
            stats.count += 1
            stats.seconds += seconds
            stats.maxSeconds = max(stats.maxSeconds, seconds)
            stats.rows += rows
            stats.maxRows = max(stats.maxRows, rows)
            if stats.entity == nil, let entity = statement.entity, !entity.isEmpty { stats.entity = entity }
            if stats.predicate == nil, let predicate = statement.predicate { stats.predicate = predicate }
            if stats.entity == nil, case .object(let entity) = statement.fault { stats.entity = entity }
            if large { stats.largeFetches += 1 }
            if afterSameCount { stats.afterSameCount += 1 }
        }
        update(&shapes[number])
        if large, shapes[number].largeFetches == 1 { onEvent?(.largeFetch(shape: number, rows: rows)) }
        trackFaults(statement, number: number)
        trackBatches(statement, number: number)
        trackTransaction(statement, number: number)
        lastFinishedCount = statement.countResult != nil ? number : nil
    }
}
