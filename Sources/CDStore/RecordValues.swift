/// The values of one SQLite record (docs/format/store-format.md §10b, from SQLite's
/// file-format document, "Record Format"): a header of serial types, then the values in order.
/// Read from a payload as a page holds it, so a record cut short (its overflow pages not
/// followed) yields the values that fit and says it is partial.
package enum RecordValue: Sendable, Equatable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text([UInt8])
    case blob([UInt8])
}

package struct RecordValues: Sendable, Equatable {
    /// The values that could be read, in column order.
    package var values: [RecordValue]
    /// How many columns the header declares.
    package var columnCount: Int
    /// Whether some declared values lie past the bytes at hand.
    package var isPartial: Bool { values.count < columnCount }

    /// The record in `payload`; nil when its header is malformed (a varint runs past it, a
    /// reserved serial type 10 or 11, a header longer than the payload).
    package init?(_ payload: ArraySlice<UInt8>) {
        let bytes = Array(payload)
        var offset = 0
        guard let headerSize = BTreePage.varint(bytes, &offset), headerSize >= 1, headerSize <= Int64(bytes.count) else { return nil }
        var types: [Int64] = []
        while offset < Int(headerSize) {
            guard let type = BTreePage.varint(bytes, &offset), type != 10, type != 11, type >= 0 else { return nil }
            types.append(type)
        }
        guard offset == Int(headerSize) else { return nil }
        columnCount = types.count
        values = []
        var position = Int(headerSize)
        for type in types {
            let size: Int
            switch type {
            case 0, 8, 9: size = 0
            case 1, 2, 3, 4: size = Int(type)
            case 5: size = 6
            case 6, 7: size = 8
            default: size = Int((type - 12) / 2)
            }
            guard position + size <= bytes.count else { break }
            let field = bytes[position..<(position + size)]
            position += size
            switch type {
            case 0: values.append(.null)
            case 8: values.append(.integer(0))
            case 9: values.append(.integer(1))
            case 1...6:
                // Big-endian two's complement of 1, 2, 3, 4, 6 or 8 bytes.
                var value = Int64(Int8(bitPattern: field.first ?? 0))
                for byte in field.dropFirst() { value = value << 8 | Int64(byte) }
                values.append(.integer(value))
            case 7:
                values.append(.real(Double(bitPattern: field.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })))
            default:
                values.append(type % 2 == 0 ? .blob(Array(field)) : .text(Array(field)))
            }
        }
    }
}
