import CDBase
import CDModel
import CDStore
import Foundation

/// `cdstore reset`: removes a Core Data store and every part of it, after a backup, or changes
/// nothing.
///
/// The steps are separate so a command that writes a fresh store in the old one's place can run
/// ``prepare(path:)``, ``checkRemovable(_:force:using:)`` and ``StoreBackup``, stage the old
/// store with ``StagedRemoval``, create the new one, then commit or restore.
package enum StoreReset {
    /// What the user asked for.
    package struct Options: Sendable {
        /// List what would go and change nothing.
        package var dryRun: Bool
        /// Copy the parts into a backup folder first.
        package var backup: Bool
        /// Go ahead even when another process holds the store.
        package var force: Bool

        package init(dryRun: Bool = false, backup: Bool = true, force: Bool = false) {
            self.dryRun = dryRun
            self.backup = backup
            self.force = force
        }
    }

    /// A store checked to be Core Data's, with the parts that make it up.
    package struct Plan: Sendable {
        package let files: StoreFiles
        package let parts: [StorePart]
    }

    /// Checks that `path` is a Core Data store (SQLite header, `Z_PRIMARYKEY` and `Z_METADATA`,
    /// read on a private copy) and lists its parts. Throws a one-line ``StoreError`` or ``MaintenanceError`` otherwise.
    package static func prepare(path: String) throws -> Plan {
        plan(for: try StoreSnapshot(path: path))
    }

    /// The parts of the store `snapshot` was opened on (its opening checked the signature).
    static func plan(for snapshot: StoreSnapshot) -> Plan {
        Plan(files: snapshot.files, parts: StorePart.existing(of: snapshot.files))
    }

    /// Refuses, before anything moves, when the parts cannot be moved out of the directory or,
    /// unless `force`, when another process holds the store.
    package static func checkRemovable(_ plan: Plan, force: Bool, using operations: FileOperations) throws {
        let directory = plan.files.main.deletingLastPathComponent()
        guard operations.isWritableDirectory(directory) else {
            throw MaintenanceError.folderReadOnly(path: directory.path, storeName: plan.files.main.lastPathComponent)
        }
        // Moving a folder to another parent rewrites its `..` entry, which needs write access to it.
        for part in plan.parts where part.isDirectory && !operations.isWritableDirectory(part.url) {
            throw MaintenanceError.partReadOnly(path: part.url.path)
        }
        try checkNotHeld(plan.files, force: force)
    }

    /// Refuses when another process holds the store, unless `force`.
    package static func checkNotHeld(_ files: StoreFiles, force: Bool) throws {
        guard !force, let holder = StoreLockProbe.holder(of: files) else { return }
        throw MaintenanceError.inUse(path: files.main.path, holder: holder)
    }

    /// Runs a whole reset: check, back up, stage, delete. `date` names the backup folder.
    package static func run(
        path: String, options: Options, date: Date = Date(),
        using operations: FileOperations = SystemFileOperations()
    ) throws -> ResetReport {
        let plan = try prepare(path: path)
        var report = ResetReport(
            store: plan.files.main.path, dryRun: options.dryRun,
            parts: plan.parts.map(ResetReport.Part.init), backup: nil, removed: false)
        guard !options.dryRun else { return report }
        try checkRemovable(plan, force: options.force, using: operations)
        if options.backup {
            report.backup = try StoreBackup.make(of: plan.parts, store: plan.files, at: date, using: operations).path
        }
        let removal = try StagedRemoval.stage(plan.parts, of: plan.files, using: operations)
        try removal.commit(using: operations)
        report.removed = true
        return report
    }

    /// Replaces the store at `path` with an empty one for `model` (default: the model cached in
    /// the store), laid out as the old store was (``StoreBlueprint/replacing(_:model:frameworkVersion:)``).
    ///
    /// The new store is written completely under a temporary name first; only then is the old
    /// one backed up and moved aside, the new one moved into place, and the old one deleted. Any
    /// failure before the new store is in place restores the old store.
    package static func recreate(
        path: String, model: ManagedObjectModel?, frameworkVersion: Int? = nil,
        options: Options, date: Date = Date(), uuid: UUID = UUID(),
        using operations: FileOperations = SystemFileOperations()
    ) throws -> ResetReport {
        let snapshot = try StoreSnapshot(path: path)
        let plan = plan(for: snapshot)
        let chosenModel: ManagedObjectModel
        if let model {
            chosenModel = model
        } else {
            let cache = try snapshot.read { db in try ModelCache.read(db, path: plan.files.main.path) }
            guard let cache else {
                throw MaintenanceError.noModelCacheToRecreate(path: plan.files.main.path)
            }
            chosenModel = cache.model
        }
        let blueprint = try StoreBlueprint.replacing(snapshot, model: chosenModel, frameworkVersion: frameworkVersion)
        var report = ResetReport(
            store: plan.files.main.path, dryRun: options.dryRun,
            parts: plan.parts.map(ResetReport.Part.init), backup: nil, removed: false)
        if !options.dryRun {
            try checkRemovable(plan, force: options.force, using: operations)
        }
        guard !options.dryRun else {
            // Written in a temporary directory, so the store's own directory stays untouched.
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cdstore-\(uuid.uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            var summary = try StoreCreator.create(blueprint, at: scratch.appendingPathComponent(plan.files.main.lastPathComponent).path, uuid: uuid)
            summary.path = plan.files.main.path
            report.recreated = summary
            return report
        }
        let prepared = try StoreCreator.prepare(blueprint, for: plan.files.main.path, uuid: uuid, replacing: true)
        let removal: StagedRemoval
        do {
            if options.backup {
                report.backup = try StoreBackup.make(of: plan.parts, store: plan.files, at: date, using: operations).path
            }
            removal = try StagedRemoval.stage(plan.parts, of: plan.files, using: operations)
        } catch {
            prepared.discard()
            throw error
        }
        do {
            try prepared.install()
        } catch {
            prepared.discard()
            try removal.restore(using: operations)
            throw error
        }
        try removal.commit(using: operations)
        report.removed = true
        report.recreated = prepared.summary
        return report
    }
}

/// What `reset` removed (or, in a dry run, would remove). A JSON contract: every key is present.
package struct ResetReport: Sendable, Codable, Equatable {
    /// One removed file or folder.
    package struct Part: Sendable, Codable, Equatable {
        package let role: StorePart.Role
        package let path: String
        package let directory: Bool
        package let bytes: Int

        init(_ part: StorePart) {
            role = part.role
            path = part.url.path
            directory = part.isDirectory
            bytes = part.bytes
        }
    }

    package let store: String
    package let dryRun: Bool
    package let parts: [Part]
    package let totalBytes: Int
    /// The backup folder, or null without one (`--no-backup`, a dry run).
    @NullEncoded package var backup: String?
    /// True once every part is gone.
    package var removed: Bool
    /// With `--recreate`: the empty store written in the old one's place (in a dry run, the one
    /// that would be); null otherwise.
    @NullEncoded package var recreated: CreatedStore?

    init(store: String, dryRun: Bool, parts: [Part], backup: String?, removed: Bool, recreated: CreatedStore? = nil) {
        self.store = store
        self.dryRun = dryRun
        self.parts = parts
        totalBytes = parts.reduce(0) { $0 + $1.bytes }
        self.backup = backup
        self.removed = removed
        self.recreated = recreated
    }
}
