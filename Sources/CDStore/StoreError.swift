import CDBase
import CDMapping
import CDModel
import Foundation

/// Why a store cannot be opened or read: a file that is not there or not a Core Data store, an
/// SQLite failure, a damaged bookkeeping table, a model that cannot be chosen, a name the store
/// does not have. A front end tells the cases apart by their payloads (a server answers an
/// ``unknownEntity(name:known:)`` with 404 and a ``changedWhileReading(path:)`` with 409);
/// ``message`` is the one line the command line prints, usually starting with the store's path.
public enum StoreError: UserFacingError, Sendable, Equatable {
    // MARK: The main file, before SQLite opens it

    /// Nothing exists at `path` (a store, or a model file given in its place).
    case fileNotFound(path: String)
    /// `path` is a directory where a store file was expected.
    case isDirectory(path: String)
    /// `path` exists but this process may not read it.
    case permissionDenied(path: String)
    /// `path` has 0 bytes.
    case emptyFile(path: String)
    /// `path` does not start with the SQLite header string.
    case noSQLiteHeader(path: String)
    /// The header's page count needs `expectedBytes`; the file, without a `-wal`, has `actualBytes`.
    case truncated(path: String, expectedBytes: Int, actualBytes: Int)
    /// The file, without a `-wal`, ends inside a page.
    case partialPage(path: String, size: Int, pageSize: Int)

    // MARK: Opening it as a Core Data store

    /// A WAL-mode main file without its `-wal` (named `walName`) and without the Core Data tables.
    case walMissing(path: String, walName: String)
    /// An SQLite database without `Z_METADATA` and/or `Z_PRIMARYKEY` (store-format.md §1).
    case notACoreDataStore(path: String, missingTables: [String])
    /// An app changed the store in a way that made what was read a mix of two versions.
    case changedWhileReading(path: String)
    /// The folder for a private copy could not be made; `reason` is the system's.
    case privateCopyFolder(reason: String)
    /// The `-wal` at `path` is not a write-ahead log SQLite would read (store-format.md §10b).
    case badWAL(path: String, reason: String)
    /// `--as-of` named a commit the `-wal` at `path` does not have (it has `commits`).
    case noSuchCommit(path: String, requested: Int, commits: Int)

    // MARK: SQLite's verdicts (result codes, with SQLite's own message where it gave one)

    /// `SQLITE_NOTADB`.
    case notADatabase(path: String)
    /// `SQLITE_CORRUPT`.
    case corrupt(path: String, sqliteMessage: String?)
    /// `SQLITE_BUSY` or `SQLITE_LOCKED`.
    case locked(path: String)
    /// `SQLITE_CANTOPEN`, `SQLITE_PERM` or `SQLITE_AUTH`.
    case cannotOpen(path: String, sqliteMessage: String?)
    /// `SQLITE_IOERR`.
    case ioError(path: String, sqliteMessage: String?)
    /// Any other SQLite result code.
    case sqlite(path: String, code: Int32, message: String?)
    /// A failure that is not SQLite's; `description` is the error's `localizedDescription`.
    case system(path: String, description: String)

    // MARK: Bookkeeping tables

    /// `Z_MODELCACHE` cannot be inflated or unarchived; `reason` is the reader's error.
    case corruptModelCache(path: String, reason: String)
    /// `Z_METADATA.Z_PLIST` is not a readable property list; `reason` is the reader's error.
    case corruptMetadata(path: String, reason: String)
    /// The store has no `Z_MODELCACHE` (written before framework 754) and no model was given.
    case noModelCache(path: String, remedy: ModelRemedy)
    /// The store has no `ATRANSACTION` and `ACHANGE` tables (store-format.md §11).
    case noPersistentHistory(path: String)

    // MARK: Choosing the model

    /// `path` is a directory of no model format cdstore reads.
    case directoryNotAModel(path: String)
    /// `--framework-version` was given with a store as the model.
    case frameworkVersionForStore(path: String)
    /// A store given as the model has only the version `cache`, not `requested`.
    case storeVersionNotCache(path: String, requested: String)
    /// The model at `path` has no version `name`; `versions` are the ones it has.
    case unknownModelVersion(path: String, name: String, versions: [String])
    /// The model at `path` has several versions and none is marked current.
    case noCurrentModelVersion(path: String)

    // MARK: Names and layout

    /// `name` is not an entity of the store; `known` are the ones a command can name
    /// (`StoreMapping/nameableEntities(model:)`). Build it with ``unknownEntity(_:mapping:model:)``.
    case unknownEntity(name: String, known: [String])
    /// `--include name` is not a to-many relationship of `scope` (an entity, or "any entity");
    /// `toMany` are the ones there are.
    case notToMany(name: String, scope: String, toMany: [String])
    /// A fetch statement selected fewer columns than reading `entity` needs; `missing` are the rest.
    case missingColumns(entity: String, missing: [String])
    /// The destination of `entity.relationship` has no table in the store.
    case destinationWithoutTable(entity: String, relationship: String, destination: String)
    /// The store has neither a foreign key column nor a join table for `entity.relationship`.
    case relationshipNotStored(entity: String, relationship: String)
    /// A member page's start has an order value where the relationship has no order column, or
    /// none where it has one.
    case memberPositionMismatch(relationship: String)

    /// What a store without a model cache asks for, in the words of the command that needs it.
    public enum ModelRemedy: Sendable, Equatable {
        /// The model is an argument: "pass the app's model file instead".
        case modelFile
        /// The model is an option: "pass its model with --model".
        case modelOption
    }

    public var message: String {
        switch self {
        case .fileNotFound(let path): return "\(path): no such file"
        case .isDirectory(let path): return "\(path) is a directory, not a store file"
        case .permissionDenied(let path): return "\(path): permission denied"
        case .emptyFile(let path): return "\(path) is empty (0 bytes), not a SQLite database"
        case .noSQLiteHeader(let path): return "\(path) is not a SQLite database (no SQLite header)"
        case .truncated(let path, let expected, let actual):
            return "\(path) is truncated: the header expects \(grouped(expected)) bytes, the file has \(grouped(actual))"
        case .partialPage(let path, let size, let pageSize):
            return "\(path) is truncated: \(grouped(size)) bytes is not a whole number of \(grouped(pageSize))-byte pages"
        case .walMissing(let path, let walName):
            return
                "\(path) is in WAL mode but has no \(walName) beside it, and it lacks the Core Data tables: the data is probably in the missing -wal file; copy the store together with its -wal and -shm files"
        case .notACoreDataStore(let path, let missing):
            return "\(path) is a SQLite database but not a Core Data store: missing table\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", "))"
        case .changedWhileReading(let path):
            return "\(path) changed while cdstore was reading it (an app is writing to it); run the command again"
        case .privateCopyFolder(let reason): return "cannot create a temporary directory for the private copy: \(reason)"
        case .badWAL(let path, let reason): return "\(path) is not a write-ahead log SQLite would read: \(reason)"
        case .noSuchCommit(let path, let requested, let commits):
            return commits == 0
                ? "--as-of \(requested): \(path) holds no commit (the store is its main file): only --as-of 0 can be read"
                : "--as-of \(requested): \(path) holds \(plural(commits, "commit")); --as-of takes 0 (the main file alone) to \(commits)"
        case .notADatabase(let path): return "\(path) is not a SQLite database (file is encrypted or not a database)"
        case .corrupt(let path, let message): return "\(path) is corrupt: \(message ?? "database disk image is malformed")"
        case .locked(let path): return "\(path) is locked by another process (database is locked); try again when the app has closed it"
        case .cannotOpen(let path, let message): return "\(path): cannot open (\(message ?? "permission denied"))"
        case .ioError(let path, let message):
            return "\(path): I/O error while reading (\(message ?? "disk I/O error")); the file may be truncated"
        case .sqlite(let path, let code, let message): return "\(path): SQLite error \(code): \(message ?? "unknown")"
        case .system(let path, let description): return "\(path): \(description)"
        case .corruptModelCache(let path, let reason): return "\(path): the model cache (Z_MODELCACHE) is corrupt: \(reason)"
        case .corruptMetadata(let path, let reason): return "\(path): the metadata (Z_METADATA.Z_PLIST) is corrupt: \(reason)"
        case .noModelCache(let path, let remedy):
            let advice = remedy == .modelFile ? "pass the app's model file instead" : "pass its model with --model"
            return "\(path) has no model cache (Z_MODELCACHE): it was written before framework 754; \(advice)"
        case .noPersistentHistory(let path):
            return "\(path) keeps no persistent history (no ATRANSACTION and ACHANGE tables); the app must set NSPersistentHistoryTrackingKey"
        case .directoryNotAModel(let path):
            return "\(path) is a directory but not a model (.xcdatamodeld, .xcdatamodel, .momd, a folder of ruby-xcdm .rb schemas)"
        case .frameworkVersionForStore(let path):
            return "\(path) is a store: its mapping follows its own schema; --framework-version applies to model files"
        case .storeVersionNotCache(let path, let requested):
            return "\(path) is a store; its only version is \"cache\", not \"\(requested)\""
        case .unknownModelVersion(let path, let name, let versions):
            return "\(path) has no version named \"\(name)\"; versions: \(versions.map { "\"\($0)\"" }.joined(separator: ", "))"
        case .noCurrentModelVersion(let path): return "\(path) has several versions and none is current; choose one with --version"
        case .unknownEntity(let name, let known): return "unknown entity \"\(name)\"; entities: \(known.joined(separator: ", "))"
        case .notToMany(let name, let scope, let toMany):
            let known = toMany.isEmpty ? "it has no to-many relationships" : "to-many relationships: \(toMany.joined(separator: ", "))"
            return "--include \(name): not a to-many relationship of \(scope); \(known)"
        case .missingColumns(let entity, let missing):
            return "the fetch statement does not select every column \(entity) needs: \(missing.joined(separator: ", "))"
        case .destinationWithoutTable(let entity, let relationship, let destination):
            return "\(entity).\(relationship): destination \(destination) has no table"
        case .relationshipNotStored(let entity, let relationship):
            return "\(entity).\(relationship): the store has no column or join table for this relationship"
        case .memberPositionMismatch(let relationship):
            return "\(relationship): the page's start does not fit the relationship's order; start from the first page"
        }
    }

    /// The error for a name that is not an entity of the store, listing the entities every
    /// command accepts (`StoreMapping/nameableEntities(model:)`): the one place the list is made.
    public static func unknownEntity(_ name: String, mapping: StoreMapping, model: ManagedObjectModel) -> StoreError {
        .unknownEntity(name: name, known: mapping.nameableEntities(model: model))
    }

    /// The same error where only `Z_PRIMARYKEY` is at hand (persistent history reads no mapping):
    /// the store's entities in `Z_ENT` order without Core Data's own, which is the list above
    /// for a store read with the model that wrote it.
    public static func unknownEntity(_ name: String, registry: EntityRegistry) -> StoreError {
        .unknownEntity(name: name, known: registry.entities.filter { $0.reservedRange == nil }.map(\.name))
    }
}

extension StoreMapping {
    /// The entities a command can name, and the list an unknown name is answered with: every
    /// entity of `model` that has a table in this mapping, in `Z_ENT` order (the order `dump`
    /// reads them in). Core Data's own entities (history, CloudKit) are not in a model's mapping,
    /// and an entity of the model the store has no table for cannot be read, so neither is listed.
    public func nameableEntities(model: ManagedObjectModel) -> [String] {
        entities.filter { model.entity(named: $0.name) != nil && table(named: $0.table) != nil }.map(\.name)
    }
}
