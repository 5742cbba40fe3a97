import Foundation

/// One Core Data log message found in a captured line: `CoreData: <category>: <message>`
/// (docs/format/sqldebug.md §2), whatever wrapper the capture added.
package struct LogRecord: Equatable, Sendable {
    /// The categories of sqldebug.md §2.
    package enum Category: String, Sendable, CaseIterable {
        case sql, annotation, details, debug, error, warning
    }

    package var category: Category
    package var message: String

    package init(category: Category, message: String) {
        self.category = category
        self.message = message
    }
}

/// Finds the Core Data message in one captured line, for every wrapper users capture
/// (docs/format/web-ui-and-logs.md §4):
///
/// * plain `CoreData: sql: …`, as Core Data writes it to standard error and cdstore's own
///   `--sql-debug` writes it, and any text before it: NSLog's `2014-07-30 11:45:15.647
///   App[1:2] ` (form A), the os_log echo `… App[1:2] [error] ` (B), `log show`/`log stream`'s
///   `--style syslog` and `--style compact` columns (E, F);
/// * `log show`'s default style, where the message follows `[com.apple.coredata:<category>] `
///   and may lack `CoreData: ` (D);
/// * `--style ndjson`/`json` objects, whose `eventMessage` holds the message (G);
/// * lines pasted into documents: no prefix at all (`sql: …`), a prefix missing its first
///   characters (`ata: sql: …`, `oreData: sql: …`), `//` or quote wrappers (sqldebug.md §2);
/// * ANSI colour escapes of `-com.apple.CoreData.SyntaxColoredLogging` anywhere (§1).
///
/// Anything else is not a record (nil): the app's own output, `log`'s preamble, Xcode's
/// metadata lines (form C), continuation lines.
package enum LogRecordParser {
    // The words looked for in every line are literals (`StaticString`): their bytes are
    // constants, where a static array is reached through a lazy initialiser and retained.
    private static var coreData: StaticString { "CoreData: " }
    private static var unifiedCategory: StaticString { "[com.apple.coredata:" }

    /// Finds the record in `line` and calls `body` with its category and message bytes (valid
    /// only inside `body`); nil when the line holds no record. The message is not copied: the
    /// reader calls this for every line of a log that may be gigabytes long. `mayHoldEscape`
    /// false says the caller knows the line has no escape byte (``LogLineReader/lineMayHoldEscape``).
    package static func withRecord<Result>(
        in line: UnsafeBufferPointer<UInt8>,
        mayHoldEscape: Bool = true,
        _ body: (LogRecord.Category, UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result? {
        if mayHoldEscape, let base = line.baseAddress, memchr(base, 0x1B, line.count) != nil {
            let plain = stripANSI(line)
            return plain.withUnsafeBufferPointer { withCleanRecord(in: $0, body) }
        }
        return withCleanRecord(in: line, body)
    }

    /// The record in `line`, or nil.
    package static func parse(_ line: UnsafeBufferPointer<UInt8>) -> LogRecord? {
        withRecord(in: line) { category, message in
            LogRecord(category: category, message: String(decoding: message, as: UTF8.self))
        }
    }

    /// The record in `line` given as text.
    package static func parse(_ line: String) -> LogRecord? {
        var copy = line
        return copy.withUTF8 { parse($0) }
    }

    private static func withCleanRecord<Result>(
        in line: UnsafeBufferPointer<UInt8>,
        _ body: (LogRecord.Category, UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result? {
        if isJSONObject(line) { return withJSONRecord(in: line, body) }
        guard let (category, range) = plainRecord(in: line) else { return nil }
        return body(category, UnsafeBufferPointer(rebasing: line[range]))
    }

    /// Whether the line's first byte other than a space or tab is `{` (form G).
    package static func isJSONObject(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        while start < line.count, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        return start < line.count && line[start] == UInt8(ascii: "{")
    }

    /// The category and message range of the record in a line with no escape byte that is not a
    /// JSON object (``isJSONObject(_:)``), or nil: ``withRecord(in:mayHoldEscape:_:)`` without
    /// its closure, for the reader's loop.
    package static func plainRecord(in line: UnsafeBufferPointer<UInt8>) -> (LogRecord.Category, Range<Int>)? {
        var start = 0
        while start < line.count, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        guard start < line.count else { return nil }
        return locate(in: line, from: start)
    }

    /// The category and message range of the record in a line without colour escapes or JSON.
    private static func locate(in line: UnsafeBufferPointer<UInt8>, from start: Int) -> (LogRecord.Category, Range<Int>)? {
        // Most lines start with it (Core Data's own standard error output, cdstore's, pasted).
        if matches(coreData, in: line, at: start) { return keyword(in: line, at: start + coreData.utf8CodeUnitCount) }
        if let found = find(coreData, in: line, from: start) {
            return keyword(in: line, at: found + coreData.utf8CodeUnitCount)
        }
        if let found = find(unifiedCategory, in: line, from: start),
            let close = firstIndex(of: UInt8(ascii: "]"), in: line, from: found)
        {
            var messageStart = close + 1
            while messageStart < line.count, line[messageStart] == 0x20 { messageStart += 1 }
            if let record = keyword(in: line, at: messageStart) { return record }
            let name = String(
                decoding: UnsafeBufferPointer(rebasing: line[(found + unifiedCategory.utf8CodeUnitCount)..<close]), as: UTF8.self)
            guard let category = LogRecord.Category(rawValue: name) else { return nil }
            return (category, messageStart..<line.count)
        }
        // Pasted forms: comment and quote wrappers, then a keyword or a cut `CoreData: `.
        var index = start
        while index < line.count, [UInt8(ascii: "/"), UInt8(ascii: "'"), UInt8(ascii: "\""), 0x20, 0x09].contains(line[index]) {
            index += 1
        }
        if let record = keyword(in: line, at: index) { return record }
        if let colon = firstIndex(of: UInt8(ascii: ":"), in: line, from: index), colon > index,
            colon - index < coreData.utf8CodeUnitCount - 1, colon + 2 <= line.count, line[colon + 1] == 0x20
        {
            let head = Array(line[index..<colon])
            let name = Array(UnsafeBufferPointer(start: coreData.utf8Start, count: coreData.utf8CodeUnitCount).dropLast(2))
            if Array(name.suffix(head.count)) == head { return keyword(in: line, at: colon + 2) }
        }
        return nil
    }

    /// `<category>: <message>` at `offset`. The first byte picks the one or two keywords that
    /// can be there (this runs for every line of the log).
    private static func keyword(in line: UnsafeBufferPointer<UInt8>, at offset: Int) -> (LogRecord.Category, Range<Int>)? {
        guard offset < line.count else { return nil }
        func record(_ keyword: StaticString, _ category: LogRecord.Category) -> (LogRecord.Category, Range<Int>)? {
            matches(keyword, in: line, at: offset) ? (category, (offset + keyword.utf8CodeUnitCount)..<line.count) : nil
        }
        switch line[offset] {
        case UInt8(ascii: "s"): return record("sql: ", .sql)
        case UInt8(ascii: "a"): return record("annotation: ", .annotation)
        case UInt8(ascii: "d"): return record("details: ", .details) ?? record("debug: ", .debug)
        case UInt8(ascii: "e"): return record("error: ", .error)
        case UInt8(ascii: "w"): return record("warning: ", .warning)
        default: return nil
        }
    }

    /// Whether `line` holds `word` at `offset`.
    static func matches(_ word: StaticString, in line: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard let base = line.baseAddress, offset >= 0, offset + word.utf8CodeUnitCount <= line.count else { return false }
        return memcmp(base + offset, word.utf8Start, word.utf8CodeUnitCount) == 0
    }

    /// Form G: one JSON object; its `eventMessage` is read as a line of its own, with the
    /// category taken from `category` when the message has no keyword.
    private static func withJSONRecord<Result>(
        in line: UnsafeBufferPointer<UInt8>,
        _ body: (LogRecord.Category, UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let message = object["eventMessage"] as? String
        else { return nil }
        if let subsystem = object["subsystem"] as? String, !subsystem.isEmpty, subsystem != "com.apple.coredata" { return nil }
        let fallback = (object["category"] as? String).flatMap(LogRecord.Category.init(rawValue:))
        var text = message
        return text.withUTF8 { bytes -> Result? in
            if let (category, range) = locate(in: bytes, from: 0) { return body(category, UnsafeBufferPointer(rebasing: bytes[range])) }
            guard let fallback else { return nil }
            return body(fallback, bytes)
        }
    }

    private static func stripANSI(_ line: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(line.count)
        var index = 0
        while index < line.count {
            if line[index] == 0x1B, index + 1 < line.count, line[index + 1] == UInt8(ascii: "[") {
                index += 2
                while index < line.count, !(0x40...0x7E).contains(line[index]) { index += 1 }
                index += 1
            } else {
                result.append(line[index])
                index += 1
            }
        }
        return result
    }

    private static func firstIndex(of byte: UInt8, in line: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard let base = line.baseAddress, from < line.count, let hit = memchr(base + from, Int32(byte), line.count - from) else { return nil }
        return UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
    }

    /// Where `needle` first occurs in `line` at or after `from`.
    static func find(_ needle: StaticString, in line: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let count = needle.utf8CodeUnitCount
        guard let base = line.baseAddress, count > 0, from >= 0, line.count - from >= count else { return nil }
        let bytes = needle.utf8Start
        let first = Int32(bytes[0])
        // Pointers rather than indices: this runs several times for every line of the log.
        let last = base + (line.count - count)
        var position = base + from
        while position <= last {
            guard let hit = memchr(position, first, last - position + 1) else { return nil }
            let candidate = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(candidate + 1, bytes + 1, count - 1) == 0 { return candidate - base }
            position = candidate + 1
        }
        return nil
    }
}
