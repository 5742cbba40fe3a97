/// Where a table b-tree cell's payload lies (SQLite's file-format document, "B-tree Pages";
/// docs/format/store-format.md §10b): the bytes kept on the leaf page, the rest on overflow
/// pages. The store's own reader (CDStore) and `find`'s file reader (CDFinder) both need it.
package enum SQLitePayload {
    /// How many of a table leaf cell's `total` payload bytes stay on its page: all of them up
    /// to usable size − 35, else a minimum plus what fits of the rest.
    package static func localBytes(total: Int, usableSize: Int) -> Int {
        let most = usableSize - 35
        guard total > most else { return total }
        let least = (usableSize - 12) * 32 / 255 - 23
        let candidate = least + (total - least) % (usableSize - 4)
        return candidate <= most ? candidate : least
    }
}
