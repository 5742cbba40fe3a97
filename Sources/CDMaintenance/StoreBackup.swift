import CDStore
import Foundation

/// A copy of a store's parts in a new folder beside it, taken before `reset` or `clean` changes
/// anything.
///
/// The folder is `<store file name>.cdstore-backup-<UTC time>` (with `-2`, `-3`, … when that
/// name is taken: an existing folder is never written into). Each part keeps its name, so copying
/// the folder's contents back beside the store (`cp -a BACKUP/. DIR/`) restores the files byte
/// for byte, the hidden `.<name>_SUPPORT` folder included.
package enum StoreBackup {
    /// Copies `parts` of `files`; on failure the partial folder is removed and nothing else changed.
    package static func make(
        of parts: [StorePart], store files: StoreFiles, at date: Date,
        using operations: FileOperations
    ) throws -> URL {
        let folder = try createFolder(for: files, at: date, using: operations)
        do {
            for part in parts {
                try operations.copyItem(part.url, to: folder.appendingPathComponent(part.name, isDirectory: part.isDirectory))
            }
        } catch {
            try? operations.removeItem(folder)
            throw MaintenanceError.cannotBackUp(path: files.main.path, reason: "\(error)")
        }
        return folder
    }

    /// `Foo.sqlite.cdstore-backup-20261122T215000Z`.
    package static func folderName(for files: StoreFiles, at date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return "\(files.main.lastPathComponent).cdstore-backup-\(formatter.string(from: date))"
    }

    private static func createFolder(for files: StoreFiles, at date: Date, using operations: FileOperations) throws -> URL {
        let directory = files.main.deletingLastPathComponent()
        let base = folderName(for: files, at: date)
        for attempt in 1...100 {
            let name = attempt == 1 ? base : "\(base)-\(attempt)"
            let candidate = directory.appendingPathComponent(name, isDirectory: true)
            if FileManager.default.fileExists(atPath: candidate.path) { continue }
            do {
                try operations.createDirectory(candidate)
                return candidate
            } catch {
                throw MaintenanceError.cannotCreateBackupFolder(reason: "\(error)")
            }
        }
        throw MaintenanceError.backupNamesTaken(base: base)
    }
}
