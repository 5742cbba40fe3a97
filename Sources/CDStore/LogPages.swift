import Foundation

/// The pages of a store as they stood after any commit of its `-wal`: a page's image is the
/// newest frame holding it up to that commit, else the main file's page (store-format.md §10b,
/// "State as of a commit"). Read one page at a time with positioned reads, without SQLite, so
/// the before and after images of a commit's pages cost a read each whatever the store's size.
package final class LogPages {
    package let log: WriteAheadLog
    package let files: StoreFiles
    private let main: FileHandle
    /// The log's file; nil for a store without one (every page is the main file's).
    private let wal: FileHandle?
    private let mainBytes: Int64
    /// The frames holding each page, ascending, over the committed frames.
    private var framesOfPage: [Int: [Int]] = [:]
    /// The last frame of each commit, by commit number − 1.
    private let lastFrames: [Int]

    /// Opens the main file and the log of `files` for reading and indexes the page of every
    /// committed frame (24 bytes read per frame).
    package init(files: StoreFiles, log: WriteAheadLog) throws {
        self.files = files
        self.log = log
        do {
            main = try FileHandle(forReadingFrom: files.main)
            wal = FileManager.default.fileExists(atPath: files.wal.path) ? try FileHandle(forReadingFrom: files.wal) : nil
            mainBytes = Int64(try main.seekToEnd())
        } catch {
            throw StoreError.system(path: files.main.path, description: error.localizedDescription)
        }
        lastFrames = log.commits.map { $0.firstFrame + $0.frames - 1 }
        if let lastFrame = lastFrames.last, let wal {
            for frame in 1...lastFrame {
                let head = try read(wal, at: frameOffset(frame), count: 4, path: files.wal.path)
                framesOfPage[BTreePage.bigEndian32(head, 0), default: []].append(frame)
            }
        }
    }

    deinit {
        try? main.close()
        try? wal?.close()
    }

    /// Frame `index` (1-based) of the log as it lies in the file, whatever its salts: the page
    /// number its header names, whether it carries the header's salts, and its page image; nil
    /// past the file's last whole frame.
    package func frame(_ index: Int) throws -> (page: Int, currentSalts: Bool, image: [UInt8])? {
        guard let wal, index >= 1, frameOffset(index) + Int64(24 + pageSize) <= log.fileBytes else { return nil }
        let bytes = try read(wal, at: frameOffset(index), count: 24 + pageSize, path: files.wal.path)
        let salts = [UInt32(BTreePage.bigEndian32(bytes, 8)), UInt32(BTreePage.bigEndian32(bytes, 12))]
        return (BTreePage.bigEndian32(bytes, 0), salts == log.header.salts, Array(bytes[24...]))
    }

    /// The last frame of the last commit; 0 without one.
    package var lastCommittedFrame: Int { lastFrames.last ?? 0 }

    /// The page size of the log (and of the store).
    package var pageSize: Int { log.header.pageSize }

    /// Page `number` as it stood after commit `commit` (0: the main file alone); zeros for a page
    /// neither the log up to then nor the main file holds.
    package func page(_ number: Int, asOf commit: Int) throws -> [UInt8] {
        let last = commit > 0 && commit <= lastFrames.count ? lastFrames[commit - 1] : 0
        if let wal, let frames = framesOfPage[number], let frame = frames.last(where: { $0 <= last }) {
            return try read(wal, at: frameOffset(frame) + 24, count: pageSize, path: files.wal.path)
        }
        let offset = Int64(number - 1) * Int64(pageSize)
        guard number >= 1, offset + Int64(pageSize) <= mainBytes else { return [UInt8](repeating: 0, count: pageSize) }
        return try read(main, at: offset, count: pageSize, path: files.main.path)
    }

    /// The database's size in pages after `commit`: its commit frame's, or the main file's
    /// header's for commit 0.
    package func databasePages(asOf commit: Int) throws -> Int {
        if commit > 0, commit <= log.commits.count { return log.commits[commit - 1].databasePages }
        let first = try page(1, asOf: 0)
        return first.count >= 32 ? BTreePage.bigEndian32(first, 28) : 0
    }

    /// The free-list pages (trunks and leaves) after `commit`, walked from the database header;
    /// the walk stops at the header's count of free pages or a page number past the database.
    package func freePages(asOf commit: Int) throws -> Set<Int> {
        let first = try page(1, asOf: commit)
        let size = try databasePages(asOf: commit)
        var free = Set<Int>()
        var trunk = BTreePage.bigEndian32(first, 32)
        let total = BTreePage.bigEndian32(first, 36)
        while trunk > 1, trunk <= size, free.count < total, !free.contains(trunk) {
            free.insert(trunk)
            let image = try page(trunk, asOf: commit)
            let leaves = min(BTreePage.bigEndian32(image, 4), (pageSize - 8) / 4)
            for index in 0..<leaves {
                let leaf = BTreePage.bigEndian32(image, 8 + 4 * index)
                if leaf > 1, leaf <= size { free.insert(leaf) }
            }
            trunk = BTreePage.bigEndian32(image, 0)
        }
        return free
    }

    /// Whether page `number` is a pointer-map page after `commit`: with `auto_vacuum` on (a
    /// non-zero largest root page at header offset 52), page 2 and every page that follows the
    /// pages one map covers (usable size / 5 of them).
    package func isPointerMap(_ number: Int, asOf commit: Int) throws -> Bool {
        let first = try page(1, asOf: commit)
        guard BTreePage.bigEndian32(first, 52) != 0, number >= 2 else { return false }
        let usable = pageSize - Int(first[20])
        let covered = usable / 5
        return (number - 2) % (covered + 1) == 0
    }

    private func frameOffset(_ frame: Int) -> Int64 {
        32 + Int64(frame - 1) * Int64(24 + pageSize)
    }

    /// `count` bytes at `offset`.
    private func read(_ handle: FileHandle, at offset: Int64, count: Int, path: String) throws -> [UInt8] {
        do {
            try handle.seek(toOffset: UInt64(offset))
            let bytes = [UInt8](try handle.read(upToCount: count) ?? Data())
            // A file that ends early (changed while reading) reads as zeros past its end.
            return bytes.count == count ? bytes : bytes + [UInt8](repeating: 0, count: count - bytes.count)
        } catch {
            throw StoreError.system(path: path, description: error.localizedDescription)
        }
    }
}
