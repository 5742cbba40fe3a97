import Foundation
import GRDB

/// The rows a commit of a store's `-wal` may have changed, found from the pages it wrote rather
/// than by reading whole tables (store-format.md §10b, "Rows a commit changed").
///
/// A row SQLite inserts, updates or deletes is a cell of a table leaf page, and that page is
/// written by the commit, with two exceptions the pages still show: a leaf emptied by deletes is
/// freed without being written (its parent, which loses the pointer, is written), and a row
/// whose local bytes stay the same while its overflow pages change (SQLite overwrites a cell of
/// unchanged size in place) writes only overflow pages. So the rows are: the cells of every
/// written page that was a table leaf before the commit or is one after it, each in the table
/// whose b-tree reached it then; every row under a child a written interior page lost; and when
/// the commit rewrote an overflow page in place, or changed the schema, the pages cannot tell
/// and ``wholeStoreReason`` says why. A page's table is found by walking each table's b-tree
/// from its root toward a rowid of the page: a few page reads per table, whatever the store's
/// size.
package struct CommitRows: Sendable, Equatable {
    /// Rowids by table name (as `sqlite_master` spells it): the rows the commit may have
    /// inserted, updated or deleted; every other row is the same before and after it.
    package var rows: [String: Set<Int64>] = [:]
    /// Why the commit's pages cannot tell which rows it changed; nil when they can.
    package var wholeStoreReason: String?

    /// The tables of a store at one state: name and root page, and `sqlite_master`'s rows to
    /// tell a schema change.
    package struct Schema: Sendable, Equatable {
        package var tables: [(name: String, root: Int)]
        var entries: [String]

        package static func == (lhs: Schema, rhs: Schema) -> Bool { lhs.entries == rhs.entries }

        /// Whether Core Data's own tables are there: a store the log created has none before
        /// its first commit.
        package var isCoreData: Bool {
            ["Z_METADATA", "Z_PRIMARYKEY"].allSatisfy { name in tables.contains { $0.name.uppercased() == name } }
        }

        /// The schema of the store as of `walBytes` of its log (read through the read-only VFS);
        /// empty where the main file alone holds no table.
        package static func read(_ files: StoreFiles, walBytes: Int64) throws -> Schema {
            guard let database = try StoreSnapshot.logState(files, walBytes: walBytes) else { return Schema(tables: [], entries: []) }
            defer { try? database.close() }
            do {
                return try database.read { try read($0) }
            } catch {
                throw StoreError.corrupt(path: files.main.path, sqliteMessage: (error as? DatabaseError)?.message)
            }
        }

        /// The schema `db` reads.
        package static func read(_ db: Database) throws -> Schema {
            var schema = Schema(tables: [], entries: [])
            let rows = try Row.fetchCursor(db, sql: "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master ORDER BY name")
            while let row = try rows.next() {
                let type: String? = row[0], name: String? = row[1], root: Int? = row[3], sql: String? = row[4]
                schema.entries.append([type, name, row[2] as String?, root.map(String.init), sql].map { $0 ?? "" }.joined(separator: "\u{1}"))
                if type == "table", let name, let root, root > 1 { schema.tables.append((name, root)) }
            }
            return schema
        }
    }

    /// The rows commit `commit` of `pages`' log may have changed; `before` and `after` are the
    /// schemas as of the commit before it and as of it.
    package static func of(commit: Int, pages: LogPages, before: Schema, after: Schema) throws -> CommitRows {
        var result = CommitRows()
        guard commit >= 1, commit <= pages.log.commits.count else { return result }
        if before != after {
            result.wholeStoreReason = "it changed the schema"
            return result
        }
        var walker = TreeWalker(pages: pages)
        let sizeBefore = try pages.databasePages(asOf: commit - 1), sizeAfter = try pages.databasePages(asOf: commit)
        var freeBefore: Set<Int>?, freeAfter: Set<Int>?
        for number in pages.log.commits[commit - 1].pages {
            let afterImage = try pages.page(number, asOf: commit)
            let beforeImage = number <= sizeBefore ? try pages.page(number, asOf: commit - 1) : nil
            let afterPage = BTreePage(afterImage, number: number)
            let beforePage = beforeImage.flatMap { BTreePage($0, number: number) }
            if let afterPage, afterPage.kind == .tableLeaf, let rowids = afterPage.rowids,
                let table = try walker.owner(of: number, rowid: rowids.first, schema: after, state: commit)
            {
                result.rows[table, default: []].formUnion(rowids)
            }
            if let beforePage, let table = try walker.owner(of: number, rowid: Self.someRowid(beforePage), schema: before, state: commit - 1) {
                if let rowids = beforePage.rowids {
                    result.rows[table, default: []].formUnion(rowids)
                } else if let children = beforePage.children {
                    // Children the page no longer points to: their rows may be gone with them.
                    let kept = Set(afterPage?.children ?? [])
                    for child in children where !kept.contains(child) {
                        try walker.collectRows(under: child, state: commit - 1, limit: sizeBefore, into: &result.rows[table, default: []])
                    }
                }
            }
            // An overflow page before and after the commit may have been overwritten in place.
            guard afterPage == nil, number <= sizeAfter, beforeImage != nil, beforePage == nil else { continue }
            if freeAfter == nil { freeAfter = try pages.freePages(asOf: commit) }
            if freeBefore == nil { freeBefore = try pages.freePages(asOf: commit - 1) }
            let pointerMap = try pages.isPointerMap(number, asOf: commit)
            let outsideTrees =
                freeAfter?.contains(number) == true || freeBefore?.contains(number) == true || pointerMap
                || number == lockBytePage(pages.pageSize)
            if !outsideTrees {
                result.wholeStoreReason = "it rewrote overflow page \(number) in place"
                return result
            }
        }
        return result
    }

    /// A rowid under a table page: a leaf's first, an interior page's first key; nil for an
    /// empty leaf or another kind of page.
    private static func someRowid(_ page: BTreePage) -> Int64? {
        page.rowids?.first ?? page.keys?.first
    }

    /// The page holding the bytes at offset 2^30 (SQLite's lock bytes), never used for data.
    private static func lockBytePage(_ pageSize: Int) -> Int { 1_073_741_824 / pageSize + 1 }

    /// Walks tables' b-trees as they stood after a commit, keeping the interior pages it read.
    private struct TreeWalker {
        let pages: LogPages
        private var interiors: [Int: [Int: BTreePage]] = [:]

        init(pages: LogPages) { self.pages = pages }

        /// The table of `schema` whose b-tree, as of `state`, reaches page `number` on the way to
        /// `rowid`; nil when none does (a free page, or a page of an index).
        mutating func owner(of number: Int, rowid: Int64?, schema: Schema, state: Int) throws -> String? {
            for table in schema.tables {
                if table.root == number { return table.name }
                guard let rowid else { continue }
                var current = table.root
                for _ in 0..<64 {
                    guard let node = try interior(current, state: state), let child = node.child(toward: rowid) else { break }
                    if child == number { return table.name }
                    current = child
                }
            }
            return nil
        }

        /// Every rowid of the subtree under page `root` as of `state`, visiting at most `limit`
        /// pages (the database's size: a cycle in a damaged file ends there).
        func collectRows(under root: Int, state: Int, limit: Int, into rows: inout Set<Int64>) throws {
            var stack = [root], visited = Set<Int>()
            while let number = stack.popLast(), visited.count < limit {
                guard visited.insert(number).inserted, let node = BTreePage(try pages.page(number, asOf: state), number: number) else { continue }
                if let rowids = node.rowids {
                    rows.formUnion(rowids)
                } else if let children = node.children {
                    stack += children
                }
            }
        }

        private mutating func interior(_ number: Int, state: Int) throws -> BTreePage? {
            if let known = interiors[state]?[number] { return known }
            guard let node = BTreePage(try pages.page(number, asOf: state), number: number), node.kind == .tableInterior else { return nil }
            interiors[state, default: [:]][number] = node
            return node
        }
    }
}
