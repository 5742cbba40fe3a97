import CDBase
import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One column value as a SQLite record stores it.
enum SQLiteFileValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    var blob: Data? {
        if case .blob(let value) = self { return value }
        return nil
    }
}

/// Reads a few small tables of a SQLite database straight from its files, without SQLite.
///
/// `find` looks at every store under a folder — possibly stores an app or a simulator is writing
/// right now — and needs only `sqlite_master`, `Z_METADATA` and `Z_PRIMARYKEY` of each. Opening
/// them with SQLite would either need a private copy of the whole store (too slow for a large
/// library, and the point of `find` is to be cheap) or an open of the original, which for a WAL
/// store may create or write the `-shm` (store-format.md §10). Reading pages with `pread` writes
/// nothing and takes no lock.
///
/// Pages come from the `-wal` when it holds a committed version of them: the WAL is scanned as
/// SQLite recovers it (matching salts, a running checksum, frames up to the last commit frame),
/// so a store whose main file is empty and whose data all sit in the WAL reads correctly. A
/// writer checkpointing at the same moment can make a read fail; the caller reports that store
/// as unreadable rather than guessing.
final class SQLiteFileReader {
    private let main: Int32
    private let wal: Data?
    /// Page number → offset of the page's newest committed copy in `wal`.
    private let walPages: [Int: Int]
    let pageSize: Int
    /// The page size minus the per-page reserved bytes (header byte 20).
    private let usableSize: Int
    private let textEncoding: Int
    private static let magic = Array("SQLite format 3\u{0}".utf8)

    /// Opens `path` (and `path-wal` when it exists) for reading; `nil` when neither the main file
    /// nor the WAL starts like a SQLite database.
    init?(path: String) throws {
        main = open(path, O_RDONLY | O_CLOEXEC)
        guard main >= 0 else { throw FinderError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var header = [UInt8](repeating: 0, count: 100)
        let headerRead = pread(main, &header, 100, 0)
        let mainIsSQLite = headerRead == 100 && Array(header[0..<16]) == Self.magic
        // Any other file is dismissed after 100 bytes; the WAL is read only for a database,
        // or for an empty main file, which is normal when every page still sits in the WAL.
        guard mainIsSQLite || headerRead == 0 else {
            close(main)
            return nil
        }
        let walData = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"), options: .alwaysMapped)
        let scan = walData.flatMap(WALIndex.init)
        wal = walData
        walPages = scan?.pages ?? [:]
        if !mainIsSQLite {
            guard let scan, let first = scan.pages[1], let data = walData,
                Array(data[first..<first + 16]) == Self.magic
            else {
                close(main)
                return nil
            }
            header = [UInt8](data[first..<first + 100])
        }
        let rawPageSize = Int(header[16]) << 8 | Int(header[17])
        pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        usableSize = pageSize - Int(header[20])
        textEncoding = Int(header[56]) << 24 | Int(header[57]) << 16 | Int(header[58]) << 8 | Int(header[59])
        guard pageSize >= 512, pageSize.nonzeroBitCount == 1, usableSize >= 480 else {
            close(main)
            throw FinderError.damagedHeader(path: path, rawPageSize: rawPageSize)
        }
        if let scan, scan.pageSize != pageSize {
            close(main)
            throw FinderError.walPageSizeMismatch(path: path, walPageSize: scan.pageSize, pageSize: pageSize)
        }
    }

    deinit { close(main) }

    /// The bytes of page `number` (1-based): the WAL's committed copy, else the main file's.
    func page(_ number: Int) throws -> [UInt8] {
        if let offset = walPages[number], let wal {
            return [UInt8](wal[offset..<offset + pageSize])
        }
        var bytes = [UInt8](repeating: 0, count: pageSize)
        let count = pread(main, &bytes, pageSize, off_t(number - 1) * off_t(pageSize))
        guard count == pageSize else { throw FinderError.missingPage(number: number) }
        return bytes
    }

    /// The tables named in `sqlite_master`, by name, with their root page and `CREATE` text.
    func tables() throws -> [String: (rootPage: Int, sql: String)] {
        var result: [String: (rootPage: Int, sql: String)] = [:]
        try scanTable(rootPage: 1) { _, values in
            guard values.count >= 5, values[0].text == "table", let name = values[1].text,
                let root = values[3].integer
            else { return true }
            result[name] = (Int(root), values[4].text ?? "")
            return true
        }
        return result
    }

    /// Calls `row` with each row's rowid and values in rowid order until it returns false. A
    /// column declared `INTEGER PRIMARY KEY` is stored as NULL; the rowid stands in for it.
    func scanTable(rootPage: Int, row: (Int64, [SQLiteFileValue]) throws -> Bool) throws {
        var stack = [rootPage]
        var visited = Set<Int>()
        while let number = stack.popLast() {
            guard visited.insert(number).inserted, visited.count < 1_000_000 else {
                throw FinderError.loopingBTree(page: number)
            }
            let bytes = try page(number)
            let start = number == 1 ? 100 : 0
            let type = bytes[start]
            let cellCount = Int(be16(bytes, start + 3))
            let headerSize = type == 0x05 ? 12 : 8
            guard start + headerSize + 2 * cellCount <= bytes.count else {
                throw FinderError.tooManyCells(page: number)
            }
            switch type {
            case 0x0D:
                for cell in 0..<cellCount {
                    let pointer = Int(be16(bytes, start + headerSize + 2 * cell))
                    guard pointer < bytes.count else { throw FinderError.cellPointerOutOfRange }
                    var cursor = pointer
                    let payloadSize = try varint(bytes, &cursor)
                    let rowid = try varint(bytes, &cursor)
                    let payload = try self.payload(bytes, at: cursor, size: Int(payloadSize))
                    var values = try record(payload)
                    if values.first == .null { values[0] = .integer(rowid) }
                    if try !row(rowid, values) { return }
                }
            case 0x05:
                // Children in key order: the stack pops the last pushed first, so push right to left.
                var children: [Int] = []
                for cell in 0..<cellCount {
                    let pointer = Int(be16(bytes, start + headerSize + 2 * cell))
                    guard pointer + 4 <= bytes.count else { throw FinderError.cellPointerOutOfRange }
                    children.append(Int(be32(bytes, pointer)))
                }
                children.append(Int(be32(bytes, start + 8)))
                stack.append(contentsOf: children.reversed())
            default:
                throw FinderError.notATablePage(page: number, type: Int(type))
            }
        }
    }

    /// A cell's payload: the part on the page, then the overflow chain (SQLite file format §1.6).
    private func payload(_ bytes: [UInt8], at offset: Int, size: Int) throws -> [UInt8] {
        let local = SQLitePayload.localBytes(total: size, usableSize: usableSize)
        guard offset + local <= bytes.count else { throw FinderError.recordPastPage }
        var result = Array(bytes[offset..<offset + local])
        guard local < size else { return result }
        guard offset + local + 4 <= bytes.count else { throw FinderError.recordPastPage }
        var next = Int(be32(bytes, offset + local))
        var hops = 0
        while result.count < size {
            hops += 1
            guard next > 0, hops < 100_000 else { throw FinderError.brokenOverflowChain }
            let overflow = try page(next)
            let take = min(size - result.count, usableSize - 4)
            result += overflow[4..<4 + take]
            next = Int(be32(overflow, 0))
        }
        return result
    }

    /// Decodes a record: a header of serial types, then the values (SQLite file format §2.1).
    private func record(_ bytes: [UInt8]) throws -> [SQLiteFileValue] {
        var cursor = 0
        let headerSize = Int(try varint(bytes, &cursor))
        guard headerSize <= bytes.count else { throw FinderError.damagedRecordHeader }
        var types: [Int64] = []
        while cursor < headerSize { types.append(try varint(bytes, &cursor)) }
        var body = headerSize
        var values: [SQLiteFileValue] = []
        for type in types {
            func take(_ count: Int) throws -> ArraySlice<UInt8> {
                guard body + count <= bytes.count else { throw FinderError.recordShorterThanHeader }
                defer { body += count }
                return bytes[body..<body + count]
            }
            switch type {
            case 0: values.append(.null)
            case 1, 2, 3, 4, 5, 6:
                let size = [1, 2, 3, 4, 6, 8][Int(type) - 1]
                let raw = try take(size)
                var value = Int64(Int8(bitPattern: raw.first ?? 0))
                for byte in raw.dropFirst() { value = value << 8 | Int64(byte) }
                values.append(.integer(value))
            case 7:
                let raw = try take(8)
                let bits = raw.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                values.append(.real(Double(bitPattern: bits)))
            case 8: values.append(.integer(0))
            case 9: values.append(.integer(1))
            case 10, 11: throw FinderError.reservedSerialType
            default:
                let raw = try take(Int((type - (type % 2 == 0 ? 12 : 13)) / 2))
                values.append(type % 2 == 0 ? .blob(Data(raw)) : .text(decodeText(raw)))
            }
        }
        return values
    }

    private func decodeText(_ raw: ArraySlice<UInt8>) -> String {
        switch textEncoding {
        case 2: return String(data: Data(raw), encoding: .utf16LittleEndian) ?? ""
        case 3: return String(data: Data(raw), encoding: .utf16BigEndian) ?? ""
        default: return String(decoding: raw, as: UTF8.self)
        }
    }

    private func varint(_ bytes: [UInt8], _ cursor: inout Int) throws -> Int64 {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard cursor < bytes.count else { throw FinderError.recordCutShort }
            let byte = bytes[cursor]
            cursor += 1
            if index == 8 { return Int64(bitPattern: value << 8 | UInt64(byte)) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        return Int64(bitPattern: value)
    }
}

func be16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
}

func be32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
}

/// Where the newest committed copy of each page sits in a `-wal` file, found as SQLite's
/// recovery finds it: frames whose salts match the header and whose running checksum is right,
/// up to the last frame that ends a transaction (https://sqlite.org/fileformat.html §4).
struct WALIndex {
    let pageSize: Int
    let pages: [Int: Int]

    init?(_ data: Data) {
        guard data.count >= 32 else { return nil }
        let magic = data.be32(0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return nil }
        let bigEndian = magic == 0x377F_0683
        pageSize = Int(data.be32(8))
        guard pageSize >= 512, pageSize <= 65536 else { return nil }
        var sums = WALChecksum(bigEndian: bigEndian)
        sums.add(data, from: 0, count: 24)
        guard sums.first == data.be32(24), sums.second == data.be32(28) else { return nil }
        let salts = (data.be32(16), data.be32(20))
        var committed: [Int: Int] = [:]
        var pending: [Int: Int] = [:]
        var offset = 32
        while offset + 24 + pageSize <= data.count {
            guard data.be32(offset + 8) == salts.0, data.be32(offset + 12) == salts.1 else { break }
            sums.add(data, from: offset, count: 8)
            sums.add(data, from: offset + 24, count: pageSize)
            guard sums.first == data.be32(offset + 16), sums.second == data.be32(offset + 20) else { break }
            pending[Int(data.be32(offset))] = offset + 24
            if data.be32(offset + 4) != 0 {
                committed.merge(pending) { _, newer in newer }
                pending = [:]
            }
            offset += 24 + pageSize
        }
        pages = committed
    }
}

/// SQLite's WAL checksum: two running 32-bit sums over pairs of words in the byte order the
/// WAL's magic number names.
private struct WALChecksum {
    let bigEndian: Bool
    var first: UInt32 = 0
    var second: UInt32 = 0

    init(bigEndian: Bool) { self.bigEndian = bigEndian }

    mutating func add(_ data: Data, from start: Int, count: Int) {
        data.withUnsafeBytes { raw in
            var index = start
            while index + 8 <= start + count {
                let x0 = word(raw, index), x1 = word(raw, index + 4)
                first = first &+ x0 &+ second
                second = second &+ x1 &+ first
                index += 8
            }
        }
    }

    private func word(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        let value = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value)
    }
}

extension Data {
    /// The big-endian 32-bit number at `offset` from the start of the data.
    func be32(_ offset: Int) -> UInt32 {
        let base = startIndex + offset
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(self[base + $1]) }
    }
}
