import CDBase

/// One page of a SQLite database file read as a b-tree page (docs/format/store-format.md §10b,
/// from SQLite's file-format document, "B-tree Pages"): its kind, its cells' rowids on a table
/// leaf, its children on a table interior page.
///
/// Page images come from the file or the log as they are, so every offset is checked against
/// the page: a page that is not a b-tree page, or whose cells point outside it, reads as nil
/// rather than trapping.
package struct BTreePage: Sendable {
    /// The four kinds of b-tree page, by the flag byte that starts the page header.
    package enum Kind: UInt8, Sendable {
        case indexInterior = 2
        case tableInterior = 5
        case indexLeaf = 10
        case tableLeaf = 13
    }

    package let kind: Kind
    private let bytes: [UInt8]
    /// Where the page header starts: 100 on page 1, after the database header, else 0.
    private let header: Int
    private let cellCount: Int

    /// `bytes` read as page `number`; nil when it does not start with a b-tree page header whose
    /// cell pointer array fits the page.
    package init?(_ bytes: [UInt8], number: Int) {
        let header = number == 1 ? 100 : 0
        guard bytes.count >= header + 12, let kind = Kind(rawValue: bytes[header]) else { return nil }
        let cellCount = Int(bytes[header + 3]) << 8 | Int(bytes[header + 4])
        let pointers = header + (kind == .tableInterior || kind == .indexInterior ? 12 : 8)
        guard pointers + 2 * cellCount <= bytes.count else { return nil }
        self.kind = kind
        self.bytes = bytes
        self.header = header
        self.cellCount = cellCount
    }

    /// The rowids of a table leaf's cells, in order; nil for another kind or a malformed cell.
    package var rowids: [Int64]? {
        guard kind == .tableLeaf else { return nil }
        var result: [Int64] = []
        result.reserveCapacity(cellCount)
        for index in 0..<cellCount {
            guard var offset = cellOffset(index), Self.varint(bytes, &offset) != nil, let rowid = Self.varint(bytes, &offset) else { return nil }
            result.append(rowid)
        }
        return result
    }

    /// A table leaf's cells: each rowid with the payload bytes the page holds (the local part;
    /// `complete` is false when the rest sits on overflow pages, which are not followed); nil
    /// for another kind of page. A malformed cell is skipped. `usableSize` is the page size
    /// less the reserved bytes per page (database header offset 20).
    package func cells(usableSize: Int) -> [(rowid: Int64, payload: ArraySlice<UInt8>, complete: Bool)]? {
        guard kind == .tableLeaf else { return nil }
        var result: [(rowid: Int64, payload: ArraySlice<UInt8>, complete: Bool)] = []
        for index in 0..<cellCount {
            guard var offset = cellOffset(index), let size = Self.varint(bytes, &offset), size >= 0,
                let rowid = Self.varint(bytes, &offset)
            else { continue }
            let total = Int(clamping: size)
            let local = SQLitePayload.localBytes(total: total, usableSize: usableSize)
            guard local >= 0, offset + local <= bytes.count else { continue }
            result.append((rowid, bytes[offset..<(offset + local)], local == total))
        }
        return result
    }

    /// A table interior page's keys (each the largest rowid under its left child); nil for
    /// another kind or a malformed cell.
    package var keys: [Int64]? { interiorCells?.map(\.key) }

    /// A table interior page's children, left to right, the right-most pointer last; nil for
    /// another kind or a malformed cell.
    package var children: [Int]? {
        interiorCells.map { $0.map(\.child) + [Self.bigEndian32(bytes, header + 8)] }
    }

    /// The child of a table interior page whose subtree holds `rowid`: the first cell whose key
    /// is at least `rowid`, else the right-most pointer.
    package func child(toward rowid: Int64) -> Int? {
        guard let cells = interiorCells else { return nil }
        return cells.first { $0.key >= rowid }?.child ?? Self.bigEndian32(bytes, header + 8)
    }

    /// A table interior page's cells in order: a left child's page number, then the largest
    /// rowid under it; nil for another kind or a malformed cell.
    private var interiorCells: [(child: Int, key: Int64)]? {
        guard kind == .tableInterior else { return nil }
        var result: [(child: Int, key: Int64)] = []
        for index in 0..<cellCount {
            guard var offset = cellOffset(index), offset + 4 <= bytes.count else { return nil }
            let child = Self.bigEndian32(bytes, offset)
            offset += 4
            guard let key = Self.varint(bytes, &offset) else { return nil }
            result.append((child, key))
        }
        return result
    }

    private func cellOffset(_ index: Int) -> Int? {
        let pointers = header + (kind == .tableInterior || kind == .indexInterior ? 12 : 8)
        let offset = Int(bytes[pointers + 2 * index]) << 8 | Int(bytes[pointers + 2 * index + 1])
        return offset > header && offset < bytes.count ? offset : nil
    }

    /// SQLite's variable-length integer at `offset` (1 to 9 bytes, big-endian, 7 bits a byte and
    /// all 8 bits of a ninth), moving `offset` past it; nil when the page ends first.
    static func varint(_ bytes: [UInt8], _ offset: inout Int) -> Int64? {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard offset < bytes.count else { return nil }
            let byte = bytes[offset]
            offset += 1
            if index == 8 { return Int64(bitPattern: value << 8 | UInt64(byte)) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return Int64(bitPattern: value) }
        }
        return nil
    }

    static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> Int {
        (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
    }
}
