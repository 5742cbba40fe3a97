import CDArchive
import CDBase
import Foundation

extension ObjectValue {
    /// The one text form of a value: dump formats (line, table, expanded, CSV, query rows),
    /// validation reports and the metadata of `inspect` all write values through it. `nil` for
    /// NULL, which each output writes its own way (`--null`, JSON `null`, no value).
    ///
    /// Dates are Core Data's description form and numbers NSNumber's, as the dump goldens pin.
    /// What still differs between outputs is passed in: `binary` writes bytes (the dump's
    /// `--binary` mode; reports give the size alone). Reports that want short values cut the
    /// result themselves.
    public func text(binary: (Data) -> String = ValueText.byteCount) -> String? {
        switch self {
        case .null: return nil
        case .integer(let i): return String(i)
        case .boolean(let b): return b ? "1" : "0"
        case .decimal(let d), .double(let d): return ValueText.number(d)
        case .string(let s): return s
        case .date(let t): return ValueText.coreDataDate(t)
        case .binary(let d), .transformableData(let d): return binary(d)
        case .uuid(let u): return u.uuidString
        case .uri(let u): return u
        case .transformable(let archived, _): return archived.text
        case .externalReference(let file, let exists): return "<external data: \(file)\(exists ? "" : ", missing")>"
        case .largeValue(let bytes): return "<\(bytes) bytes, not read>"
        case .object(let target): return target.uri
        case .objects(nil): return "<fault>"
        case .objectCount(let count): return plural(count, "object", grouping: false)
        case .objects(let members?):
            let count = plural(members.count, "object", grouping: false)
            return members.isEmpty ? count : count + ": " + members.map { "\($0.entity)/p\($0.pk)" }.joined(separator: ", ")
        case .unexpected(let text): return text
        }
    }

    /// A metadata value the app set, in the terms of a stored value, so that `inspect` writes
    /// it as `dump` writes an attribute: data holding a keyed archive is decoded like a
    /// transformable attribute; anything else is written as archives write their contents,
    /// which for scalars is the same text.
    init(metadata value: PropertyListValue) {
        if case .data(let bytes) = value {
            self = ValueDecoder.transformable(bytes)
        } else {
            self = .transformable(ArchivedValue(plain: value), size: 0)
        }
    }
}

extension ArchivedValue {
    /// One line for a decoded archive — `(a, b)`, `{(a, b)}` for a set, `{k = v; …}` — its
    /// scalars written as ``ObjectValue/text(binary:)`` writes them, data by its size.
    public var text: String {
        switch self {
        case .null: return "<null>"
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .real(let r): return ValueText.number(r)
        case .boolean(let b): return b ? "1" : "0"
        case .date(let t): return ValueText.coreDataDate(t)
        case .data(let d): return ValueText.byteCount(d)
        case .uuid(let u): return u.uuidString
        case .url(let u): return u
        case .array(let items): return "(" + items.map(\.text).joined(separator: ", ") + ")"
        case .set(let items): return "{(" + items.map(\.text).joined(separator: ", ") + ")}"
        case .dictionary(let pairs): return "{" + pairs.map { $0.key.text + " = " + $0.value.text }.joined(separator: "; ") + "}"
        case .object(let className, let size): return "<\(className), \(size) keys>"
        }
    }

    /// A plain property list value (no archive around it) in archive terms. A UID points into
    /// an archive's object table and means nothing outside one, so it is kept as its number.
    init(plain value: PropertyListValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .integer(i)
        case .real(let r): self = .real(r)
        case .boolean(let b): self = .boolean(b)
        case .date(let t): self = .date(t)
        case .data(let d): self = .data(d)
        case .array(let items): self = .array(items.map(ArchivedValue.init(plain:)))
        case .dictionary(let entries): self = .dictionary(entries.map { (.string($0.key), ArchivedValue(plain: $0.value)) })
        case .uid(let index): self = .integer(Int64(index))
        }
    }
}
