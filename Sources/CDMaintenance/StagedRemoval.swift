import CDStore
import Foundation

/// Removes a store's parts all at once, or not at all.
///
/// ``stage(_:of:using:)`` renames every part into one hidden folder beside the store
/// (`.<store file name>.cdstore-removing-<UUID>`); a rename is atomic on one file system. If any
/// rename fails, the ones done are renamed back and the folder removed, so the store is whole
/// again. Once staged, ``commit(using:)`` deletes the folder, or ``restore(using:)`` puts the
/// parts back: a command that replaces a store stages the old one, writes the new one, and
/// commits or restores.
///
/// The main file moves first, so the store stops being openable before any sidecar leaves it: if
/// the process is killed half-way, no app opens a main file whose `-wal` is gone, and the staging
/// folder holds what moved, under the same names.
package struct StagedRemoval {
    /// The hidden folder the parts were moved into.
    package let stagingFolder: URL
    /// The parts, at their original places.
    package let parts: [StorePart]

    /// Moves `parts` of `files` into a new staging folder.
    package static func stage(_ parts: [StorePart], of files: StoreFiles, using operations: FileOperations) throws -> StagedRemoval {
        let folder = files.main.deletingLastPathComponent()
            .appendingPathComponent(".\(files.main.lastPathComponent).cdstore-removing-\(UUID().uuidString)", isDirectory: true)
        do {
            try operations.createDirectory(folder)
        } catch {
            throw MaintenanceError.cannotRemove(path: files.main.path, reason: "\(error)")
        }
        let removal = StagedRemoval(stagingFolder: folder, parts: parts)
        var moved: [StorePart] = []
        do {
            for part in parts {
                try operations.moveItem(part.url, to: removal.stagedURL(of: part))
                moved.append(part)
            }
        } catch {
            let restored = StagedRemoval(stagingFolder: folder, parts: moved)
            do {
                try restored.restore(using: operations)
            } catch let restoreError {
                throw MaintenanceError.cannotRestore(path: files.main.path, reason: "\(error)", restoreReason: "\(restoreError)", stagingFolder: folder.path)
            }
            throw MaintenanceError.cannotRemove(path: files.main.path, reason: "\(error)")
        }
        return removal
    }

    /// Deletes the staged parts for good.
    package func commit(using operations: FileOperations) throws {
        do {
            try operations.removeItem(stagingFolder)
        } catch {
            throw MaintenanceError.stagingNotDeleted(stagingFolder: stagingFolder.path, reason: "\(error)")
        }
    }

    /// Moves the staged parts back, last moved first. The then empty staging folder is removed
    /// if it can be; an empty hidden folder left behind does no harm, a part left behind would.
    package func restore(using operations: FileOperations) throws {
        for part in parts.reversed() {
            try operations.moveItem(stagedURL(of: part), to: part.url)
        }
        try? operations.removeItem(stagingFolder)
    }

    private func stagedURL(of part: StorePart) -> URL {
        stagingFolder.appendingPathComponent(part.name, isDirectory: part.isDirectory)
    }
}
