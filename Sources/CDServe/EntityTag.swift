import Foundation
import Hummingbird

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The `ETag` of a page: which version of its stores it shows, so that a reload of an unchanged
/// store is a 304 with no SQLite work.
///
/// A page is a function of its URL, its representation (HTML or JSON, by `Accept`: hence
/// `Vary: Accept`), the server run (store numbers and names, the stores it may link to) and the
/// data of the stores it reads. The data's version is ``StoreStamp`` (size and modification time
/// of the main file and the `-wal`) with the counters SQLite bumps on every write: the file
/// change counter in the main file's header (offset 24) and the
/// `-shm`'s WAL-index header (its first 48 bytes: the change counter, the last committed frame,
/// the salts and checksums), which moves with every commit in WAL mode even when two commits
/// fall in one tick of the file system's clock and leave the `-wal` the same size
/// (docs/format/store-format.md §10b). The tag is weak (`W/`): two answers for one version may differ in a notice (the
/// first page of a new version says so), not in data. Pages without a store's data version
/// (explain's pasted dump, the event stream, errors) carry no tag.
enum EntityTag {
    /// The tag of `route` as `format`, taken before the page reads its stores (a store written
    /// meanwhile gets a newer tag on the next request); nil when the page has none or a store's
    /// file cannot be read.
    static func of(_ route: Route, format: Route.Format, catalog: StoreCatalog) -> String? {
        let stores: [String]
        switch route {
        case .stores: stores = []
        case .store(let name), .entity(let name, _), .object(let name, _, _), .members(let name, _, _, _), .model(let name), .validate(let name),
            .compat(let name), .history(let name):
            stores = [name]
        case .diff(let nameA, let nameB): stores = [nameA, nameB]
        case .explain, .asset, .events: return nil
        }
        var parts = [catalog.instance, format.rawValue]
        for name in stores {
            guard let pool = try? catalog.pool(named: name), let stamp = StoreStamp(pool.store.path),
                let header = headerBytes(pool.store.path, offset: 24, count: 4)
            else { return nil }
            parts.append(stamp.text)
            parts.append(header + "-" + (headerBytes(pool.store.path + "-shm", offset: 0, count: 48) ?? "n"))
        }
        return "W/\"" + parts.joined(separator: ".") + "\""
    }

    /// `count` bytes of the file at `path` from `offset`, in hex; nil when the file cannot be
    /// read or is shorter. Read with `pread` on a descriptor of its own, read-only and without a
    /// lock: the `-shm` is SQLite's shared memory, and reading it changes nothing.
    static func headerBytes(_ path: String, offset: Int, count: Int) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        guard pread(descriptor, &bytes, count, off_t(offset)) == count else { return nil }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `ifNoneMatch` (the header's value: tags separated by commas) names `tag`, by the
    /// weak comparison of RFC 9110 §13.1.2 (`W/` ignored on both sides). `*` matches nothing:
    /// it asks whether the page exists, which only building the page can tell (an unknown
    /// entity is a 404), and a tag the server gave was given for a 200 only.
    static func matches(_ ifNoneMatch: String?, _ tag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        func opaque(_ text: Substring) -> Substring {
            let trimmed = text.drop { $0 == " " || $0 == "\t" }
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
        }
        let wanted = opaque(Substring(tag))
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let value = opaque(candidate).reversed().drop { $0 == " " || $0 == "\t" }
            let text = String(value.reversed())
            return text == wanted
        }
    }
}

extension StoreStamp {
    /// The stamp in a tag: `size-seconds.nanoseconds` of the main file, then of the `-wal` or `n`.
    var text: String {
        func file(_ stamp: FileStamp) -> String { "\(stamp.size)-\(stamp.modifiedSeconds)-\(stamp.modifiedNanoseconds)" }
        return file(main) + "." + (wal.map(file) ?? "n")
    }
}
