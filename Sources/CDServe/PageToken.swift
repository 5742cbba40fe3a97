import CDFetch
import Foundation
import GRDB

/// The opaque `after` parameter of a paged list: where the next page starts. For objects it is
/// a ``KeysetPosition`` (the last shown object's sort values and `Z_PK`) with the sort it
/// belongs to, so a token used with another sort is refused instead of skipping objects; for
/// members read in the relationship's own order it is the position in that order.
///
/// Written as base64url of `v1|<sort>|<value>,…|<pk>`, each value `n` (NULL), `i<integer>`,
/// `r<hex of the double's bits>` (exact), `t<base64 UTF-8>` or `b<base64 bytes>`. Anything a
/// client changes is either refused (400) or a valid position, never an SQL fragment: the
/// values are bound.
struct PageToken: Equatable, Sendable {
    /// The sort the position belongs to, as the `sort` parameters wrote it.
    var sort: String
    var position: KeysetPosition

    var encoded: String {
        let values = position.sortValues.map(Self.encode).joined(separator: ",")
        let text = "v1|\(sort)|\(values)|\(position.primaryKey)"
        return Self.base64URL(Data(text.utf8))
    }

    /// Base64url without padding, byte by byte: Foundation's `replacingOccurrences`, three times
    /// per token, was a visible cost of every JSON entity page under scripts/bench-serve.sh.
    private static func base64URL(_ data: Data) -> String {
        let base64 = data.base64EncodedString()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(base64.utf8.count)
        for byte in base64.utf8 {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    init(sort: String, position: KeysetPosition) {
        self.sort = sort
        self.position = position
    }

    /// Reads a token this server wrote; anything else is a 400.
    init(_ token: String) throws(ServeError) {
        let invalid = ServeError.badRequest("the after parameter is not a page token of this server; follow the page's next link")
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard token.count <= 65536, let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { throw invalid }
        let fields = text.split(separator: "|", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == "v1", let primaryKey = Int64(fields[3]) else { throw invalid }
        var values: [DatabaseValue] = []
        if !fields[2].isEmpty {
            for item in fields[2].split(separator: ",", omittingEmptySubsequences: false) {
                guard let value = Self.decode(item) else { throw invalid }
                values.append(value)
            }
        }
        sort = String(fields[1])
        position = KeysetPosition(sortValues: values, primaryKey: primaryKey)
    }

    private static func encode(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "n"
        case .int64(let integer): return "i\(integer)"
        case .double(let double): return "r" + String(double.bitPattern, radix: 16)
        case .string(let text): return "t" + Data(text.utf8).base64EncodedString()
        case .blob(let bytes): return "b" + bytes.base64EncodedString()
        }
    }

    private static func decode(_ item: Substring) -> DatabaseValue? {
        guard let tag = item.first else { return nil }
        let rest = String(item.dropFirst())
        switch tag {
        case "n": return rest.isEmpty ? .null : nil
        case "i": return Int64(rest).map(\.databaseValue)
        case "r": return UInt64(rest, radix: 16).map { Double(bitPattern: $0).databaseValue }
        case "t": return Data(base64Encoded: rest).flatMap { String(data: $0, encoding: .utf8) }.map(\.databaseValue)
        case "b": return Data(base64Encoded: rest).map(\.databaseValue)
        default: return nil
        }
    }
}
