import Foundation

/// What a pasted dump holds: every error found at the top level (nested ones hang below them),
/// which of them the explanation is about, and whether the paste was cut short.
package struct DumpReading: Sendable {
    package var errors: [ErrorFinding]
    /// Index into ``errors`` of the error to explain: the first Core Data (`NSCocoaErrorDomain`)
    /// error, else the first SQLite one, else the first.
    package var primaryIndex: Int
    /// The paste contains a cut (`[…]`, as docs/format/errors.md marks them) or ends inside an
    /// unclosed userInfo dictionary.
    package var truncated: Bool

    package var primary: ErrorFinding { errors[primaryIndex] }
    package var others: [ErrorFinding] { errors.enumerated().filter { $0.offset != primaryIndex }.map(\.element) }
}

/// Reads pasted NSError descriptions and Core Data console logs into ``ErrorFinding``s.
///
/// The dumps come in several shapes (docs/format/errors.md §5): `Error Domain=… Code=N "…"
/// UserInfo={key=value, …}` (new style), `UserInfo=0x… {…}` (old style), `returned error
/// Domain(N) with userInfo dictionary {key = value; …}` (plist style), bare `CoreData: error:
/// (522) I/O error for database at …` lines, and fragments without any code. Errors nest
/// (`NSDetailedErrors=( … )`, `NSUnderlyingError=0x… {…}`) and pastes are often cut. The parser
/// therefore finds error headers, delimits each one's userInfo by bracket matching (running to the
/// end of the text when the paste is cut), and reads keys from the part of each region that does
/// not belong to a nested error. It never fails: anything it cannot read is left `nil`.
package enum ErrorDumpParser {
    /// Parses `text`; `nil` when it holds nothing that identifies an error.
    package static func parse(_ text: String) -> DumpReading? {
        let limited = text.utf8.count > maximumInput
        let (source, cut) = normalise(limited ? String(decoding: text.utf8.prefix(maximumInput), as: UTF8.self) : text)
        var truncated = cut || limited
        let nodes = findHeaders(in: source)
        var errors: [ErrorFinding] = []
        for index in nodes.indices where nodes[index].parent == nil {
            errors.append(finding(for: index, nodes: nodes, source: source))
        }
        if nodes.contains(where: { $0.unclosed }) { truncated = true }
        // Text outside every top-level error can hold an error of its own: SQLite I/O lines next
        // to a POSIX error (errors.md §5.11), or a whole dump without any `Error Domain=`.
        let outside = Self.outside(of: nodes.filter { $0.parent == nil }.map { $0.start..<$0.end }, in: source)
        var loose = ErrorFinding()
        fill(&loose, from: outside)
        if loose.code == nil { identifyWithoutHeader(&loose, text: outside) }
        if loose.code != nil, !errors.contains(where: { $0.domain == loose.domain && $0.code == loose.code }) {
            errors.append(loose)
        }
        guard !errors.isEmpty else { return nil }
        if let url = firstMatch(#"URL:\s*(file:[^\s)]+)"#, in: source) {
            for index in errors.indices where errors[index].storePath == nil {
                errors[index].storePath = filePath(url)
            }
        }
        let primary =
            errors.firstIndex { $0.domain == ErrorDomain.cocoa.rawValue }
            ?? errors.firstIndex { $0.domain == ErrorDomain.sqlite.rawValue } ?? 0
        return DumpReading(errors: errors, primaryIndex: primary, truncated: truncated)
    }

    // MARK: - Normalising

    /// Removes cut marks (`[…]`, `[… text …]`, `[...]`) and one level of escaping, so an error
    /// quoted inside `NSDetailedErrors` (`\"messageStr is a required value.\"`) reads like a
    /// top-level one.
    static func normalise(_ text: String) -> (String, Bool) {
        var result = text.replacingOccurrences(of: "\r\n", with: "\n")
        var truncated = false
        let cut = #/\[(?:…|\.\.\.)[^\]\n]*\]/#
        if result.contains(cut) {
            truncated = true
            result = result.replacing(cut, with: "")
        }
        result = result.replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\n", with: "\n")
        return (result, truncated)
    }

    // MARK: - Error headers and their regions

    /// Bytes of a paste that are read; console logs with errors are far smaller.
    static let maximumInput = 1 << 20
    static let maximumHeaders = 256
    static let maximumDepth = 16

    struct Node {
        var start: String.Index
        /// Where the userInfo (or the rest of the header line) begins.
        var bodyStart: String.Index
        var end: String.Index
        var domain: String
        var code: Int?
        var message: String?
        var unclosed = false
        var parent: Int?
    }

    static func findHeaders(in text: String) -> [Node] {
        var nodes: [Node] = []
        let closes = bracketPairs(in: text)
        for match in text.matches(of: #/Error Domain=([A-Za-z0-9_.]+) Code=(-?\d{1,9})/#) {
            if nodes.count >= maximumHeaders { break }
            var node = Node(
                start: match.range.lowerBound, bodyStart: match.range.upperBound, end: match.range.upperBound,
                domain: String(match.output.1), code: Int(match.output.2))
            var cursor = match.range.upperBound
            if text[cursor...].hasPrefix(" \"") {
                let messageStart = text.index(cursor, offsetBy: 2)
                let lineEnd = text[messageStart...].firstIndex(of: "\n") ?? text.endIndex
                let line = text[messageStart..<lineEnd]
                if let close = line.firstRange(of: #/"\s*UserInfo=/#) ?? line.range(of: "\"", options: .backwards) {
                    node.message = String(text[messageStart..<close.lowerBound])
                    cursor = text.index(after: close.lowerBound)
                } else {
                    node.message = String(line)
                    cursor = lineEnd
                }
            }
            node.bodyStart = cursor
            // Without a userInfo the error ends with its line, or where a dictionary it is nested
            // in goes on (`NSUnderlyingError=Error Domain=… "…", NSFilePath=…`).
            node.end =
                cursor < text.endIndex && ",;})".contains(text[cursor])
                ? cursor : text[cursor...].firstIndex(of: "\n") ?? text.endIndex
            if let userInfo = text[cursor...].prefixMatch(of: #/\s*UserInfo=(?:0x[0-9a-fA-F]+\s*)?/#) {
                let open = userInfo.range.upperBound
                if open < text.endIndex, text[open] == "{" {
                    if let close = closes[open] {
                        node.end = text.index(after: close)
                    } else {
                        node.end = text.endIndex
                        node.unclosed = true
                    }
                }
            }
            nodes.append(node)
        }
        for match in text.matches(of: #/returned error ([A-Za-z0-9_.]+)\((-?\d{1,9})\) with userInfo[^{\n]*\{/#) {
            if nodes.count >= 2 * maximumHeaders { break }
            let open = text.index(before: match.range.upperBound)
            let close = closes[open]
            nodes.append(
                Node(
                    start: match.range.lowerBound, bodyStart: match.range.upperBound,
                    end: close.map { text.index(after: $0) } ?? text.endIndex,
                    domain: String(match.output.1), code: Int(match.output.2), unclosed: close == nil))
        }
        nodes.sort { $0.start < $1.start }
        // A real dump nests a few levels; hostile input must not cost quadratic time or a deep
        // recursion, so only the first headers count and deeper levels are left to their parent.
        if nodes.count > maximumHeaders { nodes.removeLast(nodes.count - maximumHeaders) }
        var depths: [Int] = []
        var kept: [Node] = []
        for var node in nodes {
            let parent = kept.indices.last { other in kept[other].start < node.start && node.start < kept[other].end }
            let depth = parent.map { depths[$0] + 1 } ?? 0
            guard depth <= maximumDepth else { continue }
            node.parent = parent
            if let parent {
                node.end = min(node.end, kept[parent].end)
                node.bodyStart = min(node.bodyStart, node.end)
            }
            kept.append(node)
            depths.append(depth)
        }
        return kept
    }

    /// Every opening bracket's closing partner, found in one pass (as ``matchingClose(in:from:)``
    /// would find them one by one), so a paste with many unclosed errors stays linear.
    static func bracketPairs(in text: String) -> [String.Index: String.Index] {
        var pairs: [String.Index: String.Index] = [:]
        var open: [String.Index] = []
        var index = text.startIndex
        while index < text.endIndex {
            switch text[index] {
            case "{", "(", "[": open.append(index)
            case "}", ")", "]":
                if let start = open.popLast() { pairs[start] = index }
            default: break
            }
            index = text.index(after: index)
        }
        return pairs
    }

    /// The index of the bracket closing the one at `open`; `{}`, `()` and `[]` all count, so a
    /// value such as `<Chat: 0x…> (entity: Chat; … data: {…})` stays inside its dictionary.
    static func matchingClose(in text: String, from open: String.Index) -> String.Index? {
        var depth = 0
        var index = open
        while index < text.endIndex {
            switch text[index] {
            case "{", "(", "[": depth += 1
            case "}", ")", "]":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// The part of `text` within `bounds` (all of it by default) without the given ranges, each
    /// replaced by a line break.
    static func outside(of ranges: [Range<String.Index>], in text: String, bounds: Range<String.Index>? = nil) -> String {
        let bounds = bounds ?? text.startIndex..<text.endIndex
        var result = ""
        var cursor = bounds.lowerBound
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where range.lowerBound >= cursor && range.upperBound <= bounds.upperBound {
            result += text[cursor..<range.lowerBound]
            result += "\n"
            cursor = range.upperBound
        }
        result += text[cursor..<bounds.upperBound]
        return result
    }

    // MARK: - Reading one error

    static func finding(for index: Int, nodes: [Node], source: String) -> ErrorFinding {
        let node = nodes[index]
        var finding = ErrorFinding()
        finding.domain = node.domain
        finding.code = node.code
        finding.identifiedBy = node.code == nil ? nil : .code
        finding.message = cleanMessage(node.message)
        let children = nodes.indices.filter { nodes[$0].parent == index }
        let own = outside(of: children.map { nodes[$0].start..<nodes[$0].end }, in: source, bounds: node.bodyStart..<node.end)
        fill(&finding, from: own)
        let detailedRange = listRange(of: "NSDetailedErrors", in: source, within: node.bodyStart..<node.end)
        for child in children {
            let nested = Self.finding(for: child, nodes: nodes, source: source)
            if let detailedRange, detailedRange.contains(nodes[child].start) {
                finding.detailedErrors.append(nested)
            } else {
                finding.underlyingErrors.append(nested)
            }
        }
        return finding
    }

    /// The range of a `KEY=( … )` or `KEY = ( … )` list within `bounds` (to the end of the bounds
    /// when the list is cut).
    static func listRange(of key: String, in text: String, within bounds: Range<String.Index>) -> Range<String.Index>? {
        guard let keyRange = text.range(of: key, range: bounds),
            let match = text[keyRange.upperBound..<bounds.upperBound].prefixMatch(of: #/\s*=\s*\(/#)
        else { return nil }
        let open = text.index(before: match.range.upperBound)
        let close = matchingClose(in: text, from: open).map { min($0, bounds.upperBound) } ?? bounds.upperBound
        return open..<close
    }

    /// Reads the userInfo keys cdstore understands from one error's own text.
    static func fill(_ finding: inout ErrorFinding, from text: String) {
        if finding.message == nil { finding.message = cleanMessage(value(of: "NSLocalizedDescription", in: text)) }
        if let match = text.firstMatch(
            of: #/NSValidationErrorObject\s*=\s*<([^:>\s]+):\s*0x[0-9a-fA-F]+>\s*\(entity:\s*([^;\s]+);\s*id:\s*(?:0x[0-9a-fA-F]+\s*)?<(x-coredata:[^>\s]*)>/#)
        {
            finding.object = ObjectReference(uri: String(match.output.3), className: String(match.output.1))
            let entity = String(match.output.2)
            finding.entity = entity == "<null>" ? finding.object?.entity : entity
        }
        if let key = value(of: "NSValidationErrorKey", in: text) ?? value(of: "attribute", in: text) {
            finding.key = key
        }
        if finding.entity == nil { finding.entity = value(of: "entity", in: text) }
        finding.value = value(of: "NSValidationErrorValue", in: text)
        if finding.value == nil, let key = finding.key, finding.object != nil {
            finding.value = printedValue(of: key, in: text)
        }
        finding.reason = value(of: "reason", in: text, multiline: true)
        finding.failureReason = value(of: "NSLocalizedFailureReason", in: text, multiline: true)
        finding.sourceURL = value(of: "sourceURL", in: text)
        finding.destinationURL = value(of: "destinationURL", in: text)
        readSQLite(&finding, from: text)
        finding.storePath =
            value(of: "NSFilePath", in: text).map(filePath) ?? value(of: "URL", in: text).map(filePath)
            ?? finding.sourceURL.map(filePath) ?? finding.storePath
        if let metadataRange = dictionaryRange(of: "metadata", in: text) {
            finding.metadata = metadata(from: String(text[metadataRange]))
        }
        if let sourceModel = text.range(of: "sourceModel") {
            finding.sourceModelEntities = text[sourceModel.upperBound...]
                .matches(of: #/\n\s*"?([A-Za-z_][A-Za-z0-9_]*)"? = "\(<NSEntityDescription/#).map { String($0.output.1) }
        }
        if let reason = finding.failureReason { finding.cloudKit = cloudKitFindings(in: reason) }
        if !finding.cloudKit.isEmpty {
            let items = finding.cloudKit.flatMap(\.items).map { $0.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } }
            let entities = Set(items.compactMap { $0.count == 2 ? $0[0] : nil })
            if entities.count == 1, items.allSatisfy({ $0.count == 2 }) { finding.entity = entities.first }
            if items.count == 1, items[0].count == 2 { finding.key = items[0][1] }
        }
        finding.conflicts = text.matches(
            of:
                #/NSMergeConflict \(0x[0-9a-fA-F]+\) for [^\s(]+ \(0x[0-9a-fA-F]+\) with objectID '(?:0x[0-9a-fA-F]+ )?<(x-coredata:[^>\s]+)>'(?: with oldVersion = (\d+) and newVersion = (\d+))?/#
        ).map {
            MergeConflict(objectID: String($0.output.1), oldVersion: $0.output.2.flatMap { Int($0) }, newVersion: $0.output.3.flatMap { Int($0) })
        }
        // A fault that cannot be fulfilled (133000) names its object only in the message.
        let uris = Set(text.matches(of: #/x-coredata://[^>\s'"]+/#).map { String($0.output) })
        if finding.object == nil, finding.conflicts.isEmpty, uris.count == 1, let uri = uris.first {
            finding.object = ObjectReference(uri: uri)
            finding.entity = finding.entity ?? finding.object?.entity
        }
        if finding.object == nil, let first = finding.conflicts.first {
            finding.object = ObjectReference(uri: first.objectID)
            finding.entity = finding.entity ?? finding.object?.entity
        }
        if finding.code == nil, let cocoa = text.firstMatch(of: #/\(Cocoa error (\d{1,9})\.?\)/#), let code = Int(cocoa.output.1) {
            finding.domain = ErrorDomain.cocoa.rawValue
            finding.code = code
            finding.identifiedBy = .code
        }
        if finding.key == nil, let code = finding.code, let message = finding.message {
            finding.key = propertyName(in: message, code: code)
        }
    }

    /// SQLite details: `… I/O error for database at PATH.  SQLite error code:522, 'not an error'`,
    /// `NSSQLiteErrorDomain = 6922`, and "database is locked".
    static func readSQLite(_ finding: inout ErrorFinding, from text: String) {
        if let line = text.firstMatch(of: #/I/O error for database at ([^\n]+?)\.\s+SQLite error code:\s*(\d{1,9}), '([^'\n]*)'/#) {
            finding.sqliteCode = Int(line.output.2)
            finding.sqliteMessage = String(line.output.3)
            finding.storePath = finding.storePath ?? String(line.output.1)
        } else if let line = text.firstMatch(of: #/SQLite error code:\s*(\d{1,9})(?:, '([^'\n]*)')?/#) {
            finding.sqliteCode = Int(line.output.1)
            finding.sqliteMessage = line.output.2.map(String.init)
        }
        if let code = value(of: "NSSQLiteErrorDomain", in: text).flatMap({ Int($0) }) {
            finding.sqliteCode = code
        }
        if finding.sqliteCode == nil, text.range(of: "database is locked", options: .caseInsensitive) != nil {
            finding.sqliteCode = 5
            finding.sqliteMessage = "database is locked"
        }
    }

    /// For text without an `Error Domain=` header: an SQLite error line gives an SQLite code, and a
    /// known message gives a Core Data code (the German 134100 of errors.md §5.3 has no number).
    static func identifyWithoutHeader(_ finding: inout ErrorFinding, text: String) {
        if let code = KnownMessages.code(in: text) {
            finding.domain = ErrorDomain.cocoa.rawValue
            finding.code = code
            finding.identifiedBy = .message
            if finding.message == nil, finding.reason == nil {
                finding.message = text.split(separator: "\n").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
                    .first { !$0.isEmpty }.map { String($0.prefix(300)) }
            }
        } else if let sqlite = finding.sqliteCode {
            finding.domain = ErrorDomain.sqlite.rawValue
            finding.code = sqlite
            finding.identifiedBy = .sqlite
        }
    }

    // MARK: - Values

    /// The value of `key` in `key=value` (new style) or `key = value;` (plist style) form.
    ///
    /// A value ends at `;`, at the bracket that closes its dictionary, at `, nextKey=` or (unless
    /// `multiline`) at the end of the line; brackets inside it are skipped, so
    /// `reason=…, NSUnderlyingError=0x… {…}` and `NSLocalizedDescription=… (Cocoa error 1570.)}`
    /// both read correctly. Quoted values are unquoted.
    static func value(of key: String, in text: String, multiline: Bool = false) -> String? {
        var searchStart = text.startIndex
        while let range = text.range(of: key, range: searchStart..<text.endIndex) {
            searchStart = range.upperBound
            if range.lowerBound > text.startIndex {
                let before = text[text.index(before: range.lowerBound)]
                guard before.isWhitespace || "{,(\"".contains(before) else { continue }
            }
            var cursor = range.upperBound
            if cursor < text.endIndex, text[cursor] == "\"" { cursor = text.index(after: cursor) }
            guard let equals = text[cursor...].prefixMatch(of: #/[ \t]*=[ \t]*/#) else { continue }
            cursor = equals.range.upperBound
            guard cursor < text.endIndex else { return nil }
            let raw = text[cursor] == "\"" ? quoted(text, from: cursor) : bare(text, from: cursor, multiline: multiline)
            let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        return nil
    }

    private static func quoted(_ text: String, from open: String.Index) -> String {
        var index = text.index(after: open)
        let start = index
        while index < text.endIndex {
            if text[index] == "\"" {
                let next = text.index(after: index)
                if next == text.endIndex || ";,})\n".contains(text[next]) { return String(text[start..<index]) }
            }
            index = text.index(after: index)
        }
        return String(text[start...])
    }

    private static func bare(_ text: String, from start: String.Index, multiline: Bool) -> String {
        var depth = 0
        var index = start
        while index < text.endIndex {
            let character = text[index]
            switch character {
            case "{", "(", "[", "<": depth += 1
            case "}", ")", "]", ">":
                if depth == 0 { return String(text[start..<index]) }
                depth -= 1
            case ";" where depth == 0:
                return String(text[start..<index])
            case "\n" where depth == 0 && !multiline:
                return String(text[start..<index])
            case "," where depth == 0:
                if text[text.index(after: index)...].prefixMatch(of: #/\s*"?[A-Za-z_][A-Za-z0-9_]*"?\s*=/#) != nil {
                    return String(text[start..<index])
                }
            default: break
            }
            index = text.index(after: index)
        }
        return String(text[start...])
    }

    /// The range inside the braces of `key = {…}` (to the end of the text when cut).
    static func dictionaryRange(of key: String, in text: String) -> Range<String.Index>? {
        var searchStart = text.startIndex
        while let range = text.range(of: key, range: searchStart..<text.endIndex) {
            searchStart = range.upperBound
            guard let match = text[range.upperBound...].prefixMatch(of: #/\s*=\s*\{/#) else { continue }
            let open = text.index(before: match.range.upperBound)
            let close = matchingClose(in: text, from: open) ?? text.endIndex
            return match.range.upperBound..<close
        }
        return nil
    }

    /// The key's value as printed in the failing object's data (`isOnline = nil;`).
    static func printedValue(of key: String, in text: String) -> String? {
        guard let data = text.range(of: "data: {") else { return nil }
        for line in text[data.upperBound...].split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(key + " = ") else { continue }
            var value = trimmed.dropFirst(key.count + 3)
            if value.hasSuffix(";") { value = value.dropLast() }
            return String(value)
        }
        return nil
    }

    /// The property a validation message names, from Core Data's English template
    /// (`%{PROPERTY}@ is a required value.` → "messageStr is a required value." → `messageStr`).
    static func propertyName(in message: String, code: Int) -> String? {
        guard let template = ErrorCatalogue.entry(code: code)?.message, let marker = template.range(of: "%{PROPERTY}@") else { return nil }
        let prefix = template[..<marker.lowerBound], suffix = template[marker.upperBound...]
        guard message.hasPrefix(prefix), message.hasSuffix(suffix), message.count > prefix.count + suffix.count else { return nil }
        let name = message.dropFirst(prefix.count).dropLast(suffix.count)
        return name.contains(" ") ? nil : String(name)
    }

    static func cleanMessage(_ message: String?) -> String? {
        guard let message = message?.trimmingCharacters(in: .whitespacesAndNewlines), !message.isEmpty, message != "(null)" else { return nil }
        return message
    }

    /// A path from `file:///a%20b/c.sqlite`, `file://localhost/…` or a plain path.
    static func filePath(_ value: String) -> String {
        var path = value.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        for prefix in ["file://localhost", "file://"] where path.hasPrefix(prefix) {
            path = String(path.dropFirst(prefix.count))
            path = path.removingPercentEncoding ?? path
            break
        }
        return path
    }

    static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let regex = try? Regex(pattern, as: (Substring, Substring).self), let match = text.firstMatch(of: regex) else { return nil }
        return String(match.output.1)
    }

    // MARK: - Metadata

    /// Reads the store metadata dictionary of a 134100/134130 (errors.md §5.1–§5.4).
    static func metadata(from text: String) -> DumpMetadata {
        var metadata = DumpMetadata()
        metadata.frameworkVersion = value(of: "NSPersistenceFrameworkVersion", in: text).flatMap { Int($0) }
        metadata.storeType = value(of: "NSStoreType", in: text)
        metadata.storeUUID = value(of: "NSStoreUUID", in: text)
        metadata.hashesVersion = value(of: "NSStoreModelVersionHashesVersion", in: text).flatMap { Int($0) }
        if let list = listRange(of: "NSStoreModelVersionIdentifiers", in: text, within: text.startIndex..<text.endIndex),
            list.upperBound < text.endIndex
        {
            let body = text[text.index(after: list.lowerBound)..<list.upperBound]
            metadata.versionIdentifiers = body.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }.filter { !$0.isEmpty || body.contains("\"\"") }
        }
        if let hashes = dictionaryRange(of: "NSStoreModelVersionHashes", in: text) {
            metadata.listsEveryEntity = hashes.upperBound < text.endIndex
            for match in text[hashes].matches(of: #/"?([A-Za-z_][A-Za-z0-9_.]*)"?\s*=\s*(<[0-9a-fA-F \n]*>?|\{length[^}]*\}?)/#) {
                let name = String(match.output.1)
                let printed = String(match.output.2)
                let hex = printed.hasPrefix("<") ? printed.filter(\.isHexDigit).lowercased() : ""
                if hex.count == 64, printed.hasSuffix(">") {
                    metadata.versionHashes[name] = hex
                } else if !metadata.truncatedHashes.contains(name) {
                    metadata.truncatedHashes.append(name)
                    metadata.visibleHashBytes[name] = visibleBytes(of: printed)
                }
            }
            metadata.hashesComplete = metadata.listsEveryEntity && metadata.truncatedHashes.isEmpty
        }
        return metadata
    }

    /// The prefix and suffix a cut-short hash shows (`bytes = 0x8a55fd4c 1c43d4e5 ... 7d6ad7b2 }`);
    /// a paste cut inside the hash keeps the prefix alone.
    static func visibleBytes(of printed: String) -> VisibleHashBytes {
        guard let start = printed.range(of: "0x") else { return VisibleHashBytes(prefix: "", suffix: "") }
        let rest = printed[start.upperBound...]
        let cut = rest.range(of: "...") ?? rest.range(of: "…")
        let head = rest[..<(cut?.lowerBound ?? rest.endIndex)]
        let tail = cut.map { rest[$0.upperBound...] } ?? ""
        func hex(_ text: Substring) -> String { text.prefix { $0.isHexDigit || $0 == " " || $0 == "\n" }.filter(\.isHexDigit).lowercased() }
        return VisibleHashBytes(prefix: hex(head), suffix: cut == nil ? "" : hex(tail))
    }

    // MARK: - CloudKit

    /// Splits a 134060 `NSLocalizedFailureReason` into rules and their `Entity: property` items.
    static func cloudKitFindings(in text: String) -> [CloudKitFinding] {
        let starts = ["CloudKit integration", "The following relationships are configured", "Unable to find a configuration", "The configuration named"]
        var positions: [String.Index] = []
        for start in starts {
            var from = text.startIndex
            while let range = text.range(of: start, range: from..<text.endIndex) {
                positions.append(range.lowerBound)
                from = range.upperBound
            }
        }
        positions.sort()
        var findings: [CloudKitFinding] = []
        for (offset, position) in positions.enumerated() {
            let segmentEnd = offset + 1 < positions.count ? positions[offset + 1] : text.endIndex
            let segment = text[position..<segmentEnd]
            var headerEnd = segment.firstIndex(of: "\n") ?? segment.endIndex
            if let following = segment.range(of: "following"), let colon = segment[following.upperBound...].firstIndex(of: ":") {
                headerEnd = segment.index(after: colon)
            }
            let header = segment[..<headerEnd].split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let items = segment[headerEnd...].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            findings.append(CloudKitFinding(rule: cloudKitRule(header), header: header, items: items))
        }
        return findings
    }

    static func cloudKitRule(_ header: String) -> String {
        let lower = header.lowercased()
        let rules: [(String, String)] = [
            ("optional, or have a default", "attributes must be optional or have a default value"),
            ("relationships be optional", "relationships must be optional"),
            ("have an inverse", "relationships must have an inverse"),
            ("ordered relationships", "no ordered relationships"),
            ("attribute types", "only supported attribute types"),
            ("value transformer", "value transformers must be registered and reversible"),
            ("sync'd", "no relationships to entities outside the synced configuration"),
            ("delete rules", "no Deny delete rule"),
            ("unique constraints", "no uniqueness constraints"),
            ("ckrecord", "each record must stay under 700,000 bytes"),
            ("configuration", "the configuration must exist and hold entities"),
        ]
        return rules.first { lower.contains($0.0) }?.1 ?? "CloudKit model rule"
    }
}

/// Message texts that identify a Core Data error when a dump carries no code: Core Data's
/// English messages (without a property placeholder), the older `reason` wordings, and the
/// German 134100 message of docs/format/errors.md §5.3.
enum KnownMessages {
    static let extra: [(String, Int)] = [
        ("The model used to open the store is incompatible with the one used to create the store", 134100),
        ("Die Version des Managed Object Model für das Öffnen des dauerhaften Speichers ist nicht mit der Version kompatibel", 134100),
        ("Cannot migrate store in-place", 134110),
        ("CloudKit integration requires", 134060),
        ("CloudKit integration does not", 134060),
        ("could not fulfill a fault", 133000),
    ]

    static func code(in text: String) -> Int? {
        let messages = ErrorCatalogue.entries.compactMap { entry -> (String, Int)? in
            guard let message = entry.message, !message.contains("%{") else { return nil }
            return (message.hasSuffix(".") ? String(message.dropLast()) : message, entry.code)
        }
        return (extra + messages).first { text.range(of: $0.0, options: .caseInsensitive) != nil }?.1
    }
}
