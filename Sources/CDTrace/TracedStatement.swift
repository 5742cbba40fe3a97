import Foundation

/// One statement of the log with everything logged about it: its binds, times, rows, and what
/// the annotations after it say it was (a fault, a prefetch, a count request).
package struct TracedStatement: Sendable {
    /// The statement as logged.
    package var sql: String
    /// The number a ``StatementInterner`` gave its text, or nil (not numbered, or the text grew
    /// by a continuation line).
    package var textNumber: Int? = nil
    /// `details: SQLite bind[i]` lines seen.
    package var binds = 0
    /// `sql connection fetch time`.
    package var connectionTime: Double?
    /// `total fetch execution time`, `total count request execution time` or `sql execution time`.
    package var totalTime: Double?
    /// Rows of a fetch (`… for N rows.`, `returned N rows`).
    package var rows: Int?
    /// The result of a count request (`for count of N.`).
    package var countResult: Int?
    /// The entity an annotation names (`on entity 'Person'`, `(entity: Word; …`).
    package var entity: String?
    /// The predicate a level-3 count annotation prints.
    package var predicate: String?
    /// What fault fulfilment the annotation after the statement reports.
    package var fault: Fault?
    /// `Prefetching with key '…'`.
    package var prefetchKey: String?

    /// A fault fulfilled by this statement.
    package enum Fault: Sendable, Equatable {
        /// `fault fulfilled from database for : … <x-coredata://…/Entity/pN>`.
        case object(entity: String?)
        /// `to-many relationship fault "rel" for objectID … <x-coredata://…/Entity/pN>`, or to-one.
        case relationship(entity: String?, name: String, toMany: Bool)
    }

    /// The time the statement took, as well as the log says: the total when logged, else the
    /// connection's fetch time.
    package var seconds: Double { totalTime ?? connectionTime ?? 0 }

    /// Whether an annotation closing the statement has been read.
    var closed: Bool { totalTime != nil || countResult != nil }
}

/// Reads Core Data's annotations (docs/format/sqldebug.md §2), each into what it says.
package enum Annotation: Equatable, Sendable {
    case connectionFetchTime(Double)
    case totalFetch(seconds: Double, rows: Int)
    case totalCount(seconds: Double, count: Int)
    case executionTime(Double)
    case fetchUsing(entity: String, rows: Int)
    case countRequest(entity: String?, predicate: String?, count: Int?)
    case objectFault(entity: String?)
    case relationshipFault(name: String, entity: String?, toMany: Bool, rows: Int?)
    case prefetching(key: String, rows: Int?)
    case connecting(path: String)
    case other

    private static var connectionFetchTime: StaticString { "sql connection fetch time: " }
    private static var totalFetchTime: StaticString { "total fetch execution time: " }
    private static var totalCountTime: StaticString { "total count request execution time: " }
    private static var executionTime: StaticString { "sql execution time: " }
    private static var forRows: StaticString { " for " }
    private static var forCount: StaticString { " for count of " }
    private static var boundIntarray: StaticString { "Bound intarray" }

    /// What `message` (the bytes after `CoreData: annotation: `) says. The timing annotations,
    /// most of a log, are read from the bytes without making a string.
    package static func parse(_ message: UnsafeBufferPointer<UInt8>) -> Annotation {
        var start = 0
        while start < message.count, message[start] == 0x20 { start += 1 }
        let text = UnsafeBufferPointer(rebasing: message[start...])
        if hasPrefix(text, connectionFetchTime) {
            return seconds(text, at: connectionFetchTime.utf8CodeUnitCount).map(Annotation.connectionFetchTime) ?? .other
        }
        if hasPrefix(text, totalFetchTime) {
            guard let time = seconds(text, at: totalFetchTime.utf8CodeUnitCount) else { return .other }
            return .totalFetch(
                seconds: time,
                rows: LogRecordParser.find(forRows, in: text, from: totalFetchTime.utf8CodeUnitCount).flatMap {
                    integer(text, at: $0 + forRows.utf8CodeUnitCount)
                } ?? 0)
        }
        if hasPrefix(text, totalCountTime) {
            guard let time = seconds(text, at: totalCountTime.utf8CodeUnitCount) else { return .other }
            return .totalCount(
                seconds: time,
                count: LogRecordParser.find(forCount, in: text, from: totalCountTime.utf8CodeUnitCount).flatMap {
                    integer(text, at: $0 + forCount.utf8CodeUnitCount)
                } ?? 0)
        }
        if hasPrefix(text, executionTime) {
            return seconds(text, at: executionTime.utf8CodeUnitCount).map(Annotation.executionTime) ?? .other
        }
        if hasPrefix(text, boundIntarray) { return .other }
        let toMany = hasPrefix(text, toManyFault)
        if toMany || hasPrefix(text, toOneFault) {
            // A storm is thousands of these: read the name, the URI's entity and the rows in place.
            let nameStart = toMany ? toManyFault.utf8CodeUnitCount : toOneFault.utf8CodeUnitCount
            guard let nameEnd = LogRecordParser.find(quote, in: text, from: nameStart) else { return .other }
            let name = String(decoding: UnsafeBufferPointer(rebasing: text[nameStart..<nameEnd]), as: UTF8.self)
            return .relationshipFault(
                name: name, entity: uriEntity(text, from: nameEnd), toMany: toMany,
                rows: LogRecordParser.find(got, in: text, from: nameEnd).flatMap { integer(text, at: $0 + got.utf8CodeUnitCount) })
        }
        if hasPrefix(text, fetchUsing) {
            // Level 2 and 3 print one per fetch: the entity and the rows, read in place.
            guard let entityStart = LogRecordParser.find(onEntity, in: text, from: fetchUsing.utf8CodeUnitCount),
                let entityEnd = LogRecordParser.find(quote1, in: text, from: entityStart + onEntity.utf8CodeUnitCount)
            else { return .other }
            let entity = String(decoding: UnsafeBufferPointer(rebasing: text[(entityStart + onEntity.utf8CodeUnitCount)..<entityEnd]), as: UTF8.self)
            let rows = lastIndex(of: returned, in: text).flatMap { integer(text, at: $0 + returned.utf8CodeUnitCount) } ?? 0
            return .fetchUsing(entity: entity, rows: rows)
        }
        return parse(String(decoding: text, as: UTF8.self))
    }

    private static var fetchUsing: StaticString { "fetch using NSSQLiteStatement " }
    private static var onEntity: StaticString { "on entity '" }
    private static var quote1: StaticString { "'" }
    private static var returned: StaticString { " returned " }

    /// The last occurrence of `needle` in `text` (the statement's SQL may contain the words).
    private static func lastIndex(of needle: StaticString, in text: UnsafeBufferPointer<UInt8>) -> Int? {
        var found: Int?
        var from = 0
        while let next = LogRecordParser.find(needle, in: text, from: from) {
            found = next
            from = next + 1
        }
        return found
    }

    private static var toManyFault: StaticString { "to-many relationship fault \"" }
    private static var toOneFault: StaticString { "to-one relationship fault \"" }
    private static var quote: StaticString { "\"" }
    private static var got: StaticString { "Got " }
    private static var uriScheme: StaticString { "x-coredata://" }

    /// The entity of the first `x-coredata://<store>/<Entity>/p<n>` URI after `from`.
    private static func uriEntity(_ text: UnsafeBufferPointer<UInt8>, from: Int) -> String? {
        guard let start = LogRecordParser.find(uriScheme, in: text, from: from), let base = text.baseAddress else { return nil }
        // The URI ends at its first `>` or space (found with memchr: a storm is thousands of
        // these lines); the entity is between its last two slashes, `<store>/<Entity>/p<n>`.
        let uriStart = start + uriScheme.utf8CodeUnitCount
        var end = text.count
        if let close = memchr(base + uriStart, Int32(UInt8(ascii: ">")), end - uriStart) {
            end = UnsafeRawPointer(close).assumingMemoryBound(to: UInt8.self) - base
        }
        if let space = memchr(base + uriStart, 0x20, end - uriStart) {
            end = UnsafeRawPointer(space).assumingMemoryBound(to: UInt8.self) - base
        }
        var lastSlash = end - 1
        while lastSlash >= uriStart, text[lastSlash] != UInt8(ascii: "/") { lastSlash -= 1 }
        var slashBefore = lastSlash - 1
        while slashBefore >= uriStart, text[slashBefore] != UInt8(ascii: "/") { slashBefore -= 1 }
        guard slashBefore >= uriStart else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: text[(slashBefore + 1)..<lastSlash]), as: UTF8.self)
    }

    private static func hasPrefix(_ text: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        LogRecordParser.matches(prefix, in: text, at: 0)
    }

    /// `0.4789s.`, `0.0001s` or a cut-off `0.000` at `offset`: digits, a point, digits. The value
    /// is the decimal's integer over its power of ten, so it is the same Double as Double("0.4789").
    /// Digits past 10^-18 are not read (they would overflow the power of ten; a log prints four
    /// to six).
    private static func seconds(_ text: UnsafeBufferPointer<UInt8>, at offset: Int) -> Double? {
        guard let base = text.baseAddress, offset >= 0 else { return nil }
        var pointer = base + offset
        let end = base + text.count
        var digits: UInt64 = 0
        var scale: UInt64 = 1
        var seenDigit = false
        // Wrapping arithmetic is exact here: digits stay below 2^50 * 10 + 9, scale at most 10^18.
        while pointer < end, digits < 1 << 50 {
            let digit = pointer.pointee &- 0x30
            guard digit < 10 else { break }
            digits = digits &* 10 &+ UInt64(digit)
            seenDigit = true
            pointer += 1
        }
        if pointer < end, pointer.pointee == UInt8(ascii: "."), digits < 1 << 50 {
            pointer += 1
            while pointer < end, digits < 1 << 50, scale < 1_000_000_000_000_000_000 {
                let digit = pointer.pointee &- 0x30
                guard digit < 10 else { break }
                digits = digits &* 10 &+ UInt64(digit)
                scale = scale &* 10
                seenDigit = true
                pointer += 1
            }
        }
        return seenDigit ? Double(digits) / Double(scale) : nil
    }

    private static func integer(_ text: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int? {
        var index = offset
        var value = 0
        var seen = false
        while index < text.count, text[index] >= 0x30, text[index] <= 0x39, value < Int.max / 10 - 10 {
            value = value * 10 + Int(text[index] - 0x30)
            seen = true
            index += 1
        }
        return seen ? value : nil
    }

    /// What `message` (the text after `CoreData: annotation: `) says.
    package static func parse(_ message: String) -> Annotation {
        let text = message.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("sql connection fetch time: ") {
            return seconds(in: text, after: "sql connection fetch time: ").map(Annotation.connectionFetchTime) ?? .other
        }
        if text.hasPrefix("total fetch execution time: ") {
            guard let time = seconds(in: text, after: "total fetch execution time: ") else { return .other }
            return .totalFetch(seconds: time, rows: number(after: " for ", in: text) ?? 0)
        }
        if text.hasPrefix("total count request execution time: ") {
            guard let time = seconds(in: text, after: "total count request execution time: ") else { return .other }
            return .totalCount(seconds: time, count: number(after: " for count of ", in: text) ?? 0)
        }
        if text.hasPrefix("sql execution time: ") {
            return seconds(in: text, after: "sql execution time: ").map(Annotation.executionTime) ?? .other
        }
        if text.hasPrefix("fetch using NSSQLiteStatement ") {
            let entity = between(text, "on entity '", "'") ?? ""
            let rows = number(after: "' returned ", in: text) ?? number(after: " returned ", in: text, last: true) ?? 0
            return .fetchUsing(entity: entity, rows: rows)
        }
        if text.hasPrefix("count request ") {
            let predicate = between(text, "predicate: (", "); sortDescriptors")
            return .countRequest(
                entity: between(text, "(entity: ", ";"), predicate: predicate,
                count: number(after: ") returned ", in: text, last: true))
        }
        if text.hasPrefix("fault fulfilled from database for") {
            return .objectFault(entity: uriEntity(in: text))
        }
        if text.hasPrefix("to-many relationship fault \"") || text.hasPrefix("to-one relationship fault \"") {
            let name = between(text, "relationship fault \"", "\"") ?? ""
            return .relationshipFault(
                name: name, entity: uriEntity(in: text), toMany: text.hasPrefix("to-many"),
                rows: number(after: "Got ", in: text, last: true))
        }
        if text.hasPrefix("Prefetching with key '") {
            return .prefetching(key: between(text, "Prefetching with key '", "'") ?? "", rows: number(after: "Got ", in: text, last: true))
        }
        if text.hasPrefix("Connecting to sqlite database file at \"") {
            guard let start = text.range(of: "\""), let end = text.range(of: "\"", options: .backwards), start.upperBound <= end.lowerBound else {
                return .other
            }
            return .connecting(path: String(text[start.upperBound..<end.lowerBound]))
        }
        return .other
    }

    /// `0.4789s.`, `0.0001s` or a cut-off `0.000` after `prefix`.
    private static func seconds(in text: String, after prefix: String) -> Double? {
        let rest = text.dropFirst(prefix.count)
        let digits = rest.prefix { $0.isNumber || $0 == "." }
        return Double(digits)
    }

    private static func number(after marker: String, in text: String, last: Bool = false) -> Int? {
        guard let range = text.range(of: marker, options: last ? .backwards : []) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    private static func between(_ text: String, _ open: String, _ close: String) -> String? {
        guard let start = text.range(of: open), let end = text.range(of: close, range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// The entity of the first `x-coredata://<store>/<Entity>/p<n>` URI in `text`.
    private static func uriEntity(in text: String) -> String? {
        guard let start = text.range(of: "x-coredata://") else { return nil }
        let parts = text[start.upperBound...].prefix { $0 != ">" && $0 != " " }.split(separator: "/")
        return parts.count >= 3 ? String(parts[parts.count - 2]) : nil
    }
}
