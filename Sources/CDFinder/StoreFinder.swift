import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a scan found: the stores, and the folders it could not enter.
package struct FindReport: Sendable, Codable, Equatable {
    package var stores: [FoundStore]
    /// Folders that could not be listed (permissions, vanished while scanning); counted, not
    /// fatal, because `~/Library` always has some.
    package var unreadableFolders: Int
    /// The first unreadable folder, to name one in the report.
    package var firstUnreadableFolder: String?
    package var scannedFolders: Int
    package var scannedFiles: Int
}

/// How far a scan has got, for a progress line.
package struct FindProgress: Sendable {
    package let folders: Int
    package let files: Int
    package let stores: Int
}

/// The order of `find`'s rows.
package enum FindSort: String, Sendable, CaseIterable {
    /// Newest first: the store the app just wrote is at the top.
    case modified
    /// Largest first.
    case size
    case path
}

/// Finds Core Data stores under folders, whatever their file names, without writing anything.
///
/// The walk lists folders with `readdir` (no `stat` per entry where the file system reports
/// the entry type) and does not follow symbolic links, so a link loop cannot trap it. Each file
/// is then probed in parallel: 100 bytes tell SQLite from anything else, and only a SQLite file
/// has its schema, `Z_METADATA` and `Z_PRIMARYKEY` read, page by page, by ``SQLiteFileReader``.
package enum StoreFinder {
    /// The folders `find` searches without arguments: on macOS where simulators, sandboxed
    /// apps and app groups keep their data; elsewhere the current directory.
    package static func defaultRoots(home: String = NSHomeDirectory()) -> [String] {
        #if os(macOS)
            let library = home + "/Library"
            return [
                library + "/Developer/CoreSimulator/Devices",
                library + "/Application Support/iPhone Simulator",
                library + "/Containers",
                library + "/Group Containers",
                library + "/Application Support",
            ].filter { FileManager.default.fileExists(atPath: $0) }
        #else
            return [FileManager.default.currentDirectoryPath]
        #endif
    }

    /// Scans `roots` (folders or single files). `app` keeps the stores whose container belongs
    /// to that bundle ID (or to its app group `group.<id>`). `progress` is called from time to
    /// time during the walk and the probing.
    package static func find(
        roots: [String], app: String? = nil, sort: FindSort = .modified,
        progress: (@Sendable (FindProgress) -> Void)? = nil
    ) -> FindReport {
        var walk = Walk(progress: progress)
        var seenRoots = Set<String>()
        for root in roots {
            let path = URL(fileURLWithPath: root).standardizedFileURL.path
            // The default roots overlap (Application Support holds iPhone Simulator).
            guard seenRoots.insert(path).inserted else { continue }
            walk.visit(root: path)
        }
        // The default roots overlap (Application Support holds iPhone Simulator): each file once.
        var seenFiles = Set<String>()
        let candidates = walk.files.filter { seenFiles.insert($0).inserted }
        let folderCount = walk.folders
        let resolver = LocationResolver()
        let results = ResultSlots(count: candidates.count)
        let counter = ProgressCounter()
        DispatchQueue.concurrentPerform(iterations: candidates.count) { index in
            let path = candidates[index]
            let folder = (path as NSString).deletingLastPathComponent
            let found = StoreProbe.probe(path: path, location: resolver.location(ofFolder: folder))
            results.set(index, found)
            let done = counter.add(found != nil)
            if let progress, done.probed % 200 == 0 {
                progress(FindProgress(folders: folderCount, files: done.probed, stores: done.stores))
            }
        }
        var stores = results.values.compactMap { $0 }
        if let app {
            let wanted = app.lowercased()
            stores = stores.filter { store in
                guard let bundleID = store.location.bundleID?.lowercased() else { return false }
                return bundleID == wanted || bundleID == "group." + wanted
            }
        }
        switch sort {
        case .modified: stores.sort { ($0.modified, $1.path) > ($1.modified, $0.path) }
        case .size: stores.sort { ($0.size, $1.path) > ($1.size, $0.path) }
        case .path: stores.sort { $0.path < $1.path }
        }
        return FindReport(
            stores: stores, unreadableFolders: walk.unreadable, firstUnreadableFolder: walk.firstUnreadable,
            scannedFolders: walk.folders, scannedFiles: candidates.count)
    }

    /// The folder walk: files to probe, and counts.
    private struct Walk {
        let progress: (@Sendable (FindProgress) -> Void)?
        var files: [String] = []
        var folders = 0
        var unreadable = 0
        var firstUnreadable: String?

        mutating func visit(root: String) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
                noteUnreadable(root)
                return
            }
            if !isDirectory.boolValue {
                files.append(root)
                return
            }
            var pending = [root]
            while let folder = pending.popLast() {
                folders += 1
                if let progress, folders % 500 == 0 {
                    progress(FindProgress(folders: folders, files: files.count, stores: 0))
                }
                guard let directory = opendir(folder) else {
                    noteUnreadable(folder)
                    continue
                }
                var children: [String] = []
                while let entry = readdir(directory) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                    }
                    if name == "." || name == ".." { continue }
                    let path = folder + "/" + name
                    switch Int32(entry.pointee.d_type) {
                    case Int32(DT_DIR): children.append(path)
                    case Int32(DT_REG): if !StoreProbe.isSidecar(name) { files.append(path) }
                    case Int32(DT_UNKNOWN):
                        var info = stat()
                        guard lstat(path, &info) == 0 else { continue }
                        if info.st_mode & S_IFMT == S_IFDIR {
                            children.append(path)
                        } else if info.st_mode & S_IFMT == S_IFREG, !StoreProbe.isSidecar(name) {
                            files.append(path)
                        }
                    default: continue
                    }
                }
                closedir(directory)
                pending.append(contentsOf: children.sorted().reversed())
            }
        }

        private mutating func noteUnreadable(_ folder: String) {
            unreadable += 1
            if firstUnreadable == nil { firstUnreadable = folder }
        }
    }
}

/// One result slot per candidate file, written from many threads.
private final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [FoundStore?]

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: FoundStore?) {
        lock.lock()
        values[index] = value
        lock.unlock()
    }
}

/// Files probed and stores found so far, for progress lines.
private final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var probed = 0
    private var stores = 0

    func add(_ isStore: Bool) -> (probed: Int, stores: Int) {
        lock.lock()
        defer { lock.unlock() }
        probed += 1
        if isStore { stores += 1 }
        return (probed, stores)
    }
}
