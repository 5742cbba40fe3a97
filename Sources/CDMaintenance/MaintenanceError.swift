import CDBase

/// Why `reset`, `clean` or `create` stopped before (or while) changing the user's files: a
/// read-only folder, a store another process holds, a backup or staging step that failed, a
/// destination that exists. `reason` payloads are the underlying error's own words. Most cases
/// promise that nothing was changed, and the message says so.
package enum MaintenanceError: UserFacingError, Sendable, Equatable {
    /// The store's folder is read-only, so `storeName` cannot be removed from it.
    case folderReadOnly(path: String, storeName: String)
    /// A folder that belongs to the store (the support folder) is read-only and cannot be moved.
    case partReadOnly(path: String)
    /// The store's folder is read-only, so SQLite cannot write `storeName`'s journal there.
    case journalFolderReadOnly(path: String, storeName: String)
    /// Another process holds the store; `holder` says which (from its lock).
    case inUse(path: String, holder: String)
    /// SQLite reports the store locked while cleaning.
    case lockedWhileCleaning(path: String)
    /// Another process reads the store, so the `-wal` could not be checkpointed.
    case checkpointBlocked(path: String)
    /// Cleaning failed for another reason.
    case cannotClean(path: String, reason: String)
    /// `reset --recreate` without `--model` on a store without a model cache.
    case noModelCacheToRecreate(path: String)
    /// The backup of `path` failed; nothing was changed.
    case cannotBackUp(path: String, reason: String)
    /// The backup folder could not be created; nothing was changed.
    case cannotCreateBackupFolder(reason: String)
    /// `base` and its 99 numbered variants all exist beside the store.
    case backupNamesTaken(base: String)
    /// The store's files could not be moved aside; nothing was changed.
    case cannotRemove(path: String, reason: String)
    /// The files could not be moved aside, and moving them back failed too: they are in
    /// `stagingFolder`.
    case cannotRestore(path: String, reason: String, restoreReason: String, stagingFolder: String)
    /// The files were moved aside but the staging folder could not be deleted.
    case stagingNotDeleted(stagingFolder: String, reason: String)
    /// `create` found `path` taken when it came to move the new store there.
    case destinationTaken(path: String)
    /// `create` will not overwrite `path`.
    case destinationExists(path: String)
    /// The folder `path` to create a store in does not exist.
    case noSuchFolder(path: String)
    /// The new store could not be moved to `destination`; `reason` is Foundation's.
    case cannotInstall(destination: String, reason: String)
    /// The new store could not be written in `folder`.
    case cannotWriteNewStore(folder: String, reason: String)

    package var message: String {
        switch self {
        case .folderReadOnly(let path, let storeName):
            return "\(path) is read-only: cannot remove \(storeName) from it, nothing was changed"
        case .partReadOnly(let path): return "\(path) is read-only: cannot move it, nothing was changed"
        case .journalFolderReadOnly(let path, let storeName):
            return "\(path) is read-only: SQLite cannot write \(storeName)'s journal there, nothing was changed"
        case .inUse(let path, let holder): return "\(path) is in use: \(holder); quit the app (or the simulator) first, or pass --force"
        case .lockedWhileCleaning(let path):
            return "\(path) is in use: another process holds a lock on it (database is locked); quit the app first"
        case .checkpointBlocked(let path):
            return "\(path) is in use: another process is reading it, so the -wal could not be checkpointed; the other changes were saved"
        case .cannotClean(let path, let reason): return LocatedMessage.at(path, says: "cannot clean: \(reason)")
        case .noModelCacheToRecreate(let path):
            return "\(path) has no model cache (written before framework 754): pass the app's model with --model"
        case .cannotBackUp(let path, let reason): return "cannot back up \(path), nothing was changed: \(reason)"
        case .cannotCreateBackupFolder(let reason): return "cannot create the backup folder, nothing was changed: \(reason)"
        case .backupNamesTaken(let base): return "cannot create the backup folder: \(base) and 99 numbered variants exist beside the store"
        case .cannotRemove(let path, let reason): return "cannot remove \(path), nothing was changed: \(reason)"
        case .cannotRestore(let path, let reason, let restoreReason, let stagingFolder):
            return "cannot remove \(path) (\(reason)), and putting the moved files back failed too (\(restoreReason)): they are in \(stagingFolder)"
        case .stagingNotDeleted(let stagingFolder, let reason):
            return "the store's files were moved out of place but not deleted (\(reason)); delete \(stagingFolder) to finish"
        case .destinationTaken(let path): return "\(path) already exists"
        case .destinationExists(let path):
            return "\(path) already exists; cdstore create never overwrites a file (use cdstore reset --recreate to replace a store)"
        case .noSuchFolder(let path): return LocatedMessage.at(path, says: "no such directory")
        case .cannotInstall(let destination, let reason): return "cannot move the new store to \(destination): \(reason)"
        case .cannotWriteNewStore(let folder, let reason): return "cannot write a new store in \(folder): \(reason)"
        }
    }
}

/// The one shape of the maintenance and import messages that say where the problem is: the
/// places, outermost first (a file, an object, a key), then the problem, joined by ": " —
/// `Book/p3: title: expected a string, got a number`.
enum LocatedMessage {
    static func at(_ places: String..., says problem: String) -> String {
        (places + [problem]).joined(separator: ": ")
    }
}
