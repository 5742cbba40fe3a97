import CDArchive
import CDBase
import CDMapping
import CDModel
import Foundation
import GRDB

/// Builds a ``StoreInspection``: files, SQLite settings, metadata, model cache, entity tree,
/// extras and warnings.
public enum StoreInspector {
    /// Inspects the store at `path`. With `counts: false` no table is scanned, so the result
    /// comes back in constant time whatever the store's size.
    public static func inspect(path: String, counts: Bool = true, trace: SQLTrace? = nil, asOf: Int? = nil) throws -> StoreInspection {
        let snapshot = try StoreSnapshot(path: path, trace: trace, asOf: asOf)
        return try inspect(snapshot, counts: counts)
    }

    /// Inspects an open snapshot, so a caller that already holds one does not copy the store again.
    public static func inspect(_ snapshot: StoreSnapshot, counts: Bool) throws -> StoreInspection {
        let files = snapshot.files
        let path = files.main.path
        var warnings: [String] = []

        let fileEntries = files.existingFiles.map { role, url -> StoreInspection.FileEntry in
            var entry = StoreInspection.FileEntry(role: role, path: url.path, size: StoreFiles.size(of: url) ?? 0)
            if role == .wal, let wal = WALSummary.read(url) {
                entry.walFrames = wal.committedFrames
                entry.walUncommittedFrames = wal.uncommittedFrames
            }
            return entry
        }
        let support = supportFolder(files)

        return try snapshot.read { db in
            let sqlite = try sqliteInfo(db, header: snapshot.header)
            let metadata = try StoreMetadata.read(db, path: path)
            let registry = try EntityRegistry.read(db)
            warnings += registry.problems.map(\.message)
            var cacheInfo = StoreInspection.ModelCacheInfo(present: false, mismatches: [])
            var cachedModel: ManagedObjectModel?
            do {
                if let cache = try ModelCache.read(db, path: path) {
                    cachedModel = cache.model
                    cacheInfo.present = true
                    cacheInfo.compressedSize = cache.compressedSize
                    cacheInfo.inflatedSize = cache.inflatedSize
                    cacheInfo.entityCount = cache.model.entities.count
                    cacheInfo.versionIdentifiers = cache.model.versionIdentifiers
                }
            } catch {
                cacheInfo.present = true
                cacheInfo.error = "\(error)"
                warnings.append("model cache cannot be read: \(error)")
            }

            let metadataInfo = describe(metadata, warnings: &warnings)
            if let model = cachedModel {
                compare(cache: model, with: metadata, info: &cacheInfo, warnings: &warnings)
            }

            let tables = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            let entities = try entityInfos(db, registry: registry, model: cachedModel, tables: tables, counts: counts, warnings: &warnings)
            let extras = try extrasInfo(db, files: files, registry: registry, model: cachedModel, tables: tables, counts: counts)

            entityWarnings(registry: registry, metadata: metadata, tables: tables, warnings: &warnings)
            if sqlite.walHeader, !fileEntries.contains(where: { $0.role == .wal }) {
                warnings.append(
                    "the header says WAL mode but there is no -wal file: normal after a clean close; if the store was copied from a running app, recent changes may be missing (copy the -wal and -shm too)"
                )
            }
            if let missing = extras.externalData?.missingFiles, missing > 0 {
                warnings.append("\(plural(missing, "external-data reference")) point to files missing from \(files.externalDataFolder.path)")
            }

            return StoreInspection(
                path: path, files: fileEntries, supportFolder: support, sqlite: sqlite,
                metadata: metadataInfo, modelCache: cacheInfo, entities: entities,
                extras: extras, warnings: warnings)
        }
    }

    private static func supportFolder(_ files: StoreFiles) -> StoreInspection.SupportFolder? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: files.supportFolder.path, isDirectory: &isDirectory),
            isDirectory.boolValue
        else { return nil }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: files.externalDataFolder.path)) ?? []
        let bytes = names.reduce(0) { $0 + (StoreFiles.size(of: files.externalDataFolder.appendingPathComponent($1)) ?? 0) }
        return StoreInspection.SupportFolder(path: files.supportFolder.path, externalDataFiles: names.count, externalDataBytes: bytes)
    }

    private static func sqliteInfo(_ db: Database, header: SQLiteHeader) throws -> StoreInspection.SQLiteInfo {
        let autoVacuum = try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? 0
        return StoreInspection.SQLiteInfo(
            pageSize: try Int.fetchOne(db, sql: "PRAGMA page_size") ?? header.pageSize,
            pageCount: try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
            journalMode: try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "unknown",
            autoVacuum: ["none", "full", "incremental"][min(max(autoVacuum, 0), 2)],
            encoding: try String.fetchOne(db, sql: "PRAGMA encoding") ?? "UTF-8",
            walHeader: header.isWALMode)
    }

    private static func describe(_ metadata: StoreMetadata, warnings: inout [String]) -> StoreInspection.MetadataInfo {
        let hashes = metadata.versionHashes
        var info = StoreInspection.MetadataInfo(
            storeUUID: metadata.storeUUID, plistPresent: metadata.plist != nil, storeType: metadata.storeType,
            frameworkVersion: metadata.frameworkVersion, maximumFrameworkVersion: metadata.maximumFrameworkVersion,
            versionIdentifiers: metadata.versionIdentifiers,
            versionHashes: hashes.mapValues(\.hexString), versionHashesVersion: metadata.hashesVersion,
            hashesDigest: metadata.hashesDigest, hashesDigestMatches: nil,
            checksum: metadata.checksum, checksumMatches: nil,
            autoVacuumLevel: metadata.autoVacuumLevel,
            otherKeys: Dictionary(metadata.otherEntries.map { ($0.key, ObjectValue(metadata: $0.value).text() ?? "") }, uniquingKeysWith: { a, _ in a }))
        if metadata.plist == nil {
            warnings.append("the metadata plist (Z_METADATA.Z_PLIST) is NULL: the store's -wal was probably not copied with it")
        }
        if let stored = metadata.hashesDigest, !hashes.isEmpty {
            let matches = VersionHashes.digest(of: hashes) == stored
            info.hashesDigestMatches = matches
            if !matches { warnings.append("NSStoreModelVersionHashesDigest does not match the entity hashes in the metadata") }
        }
        if let stored = metadata.checksum, !hashes.isEmpty {
            let matches = VersionHashes.checksum(of: hashes) == stored
            info.checksumMatches = matches
            if !matches { warnings.append("NSStoreModelVersionChecksumKey does not match the entity hashes in the metadata") }
        }
        return info
    }

    private static func compare(
        cache model: ManagedObjectModel, with metadata: StoreMetadata,
        info: inout StoreInspection.ModelCacheInfo, warnings: inout [String]
    ) {
        guard metadata.plist != nil else { return }
        let computed = VersionHashes.entityHashes(of: model)
        let stored = metadata.versionHashes
        let names = Set(computed.keys).union(stored.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        info.mismatches = names.compactMap { name in
            guard computed[name] != stored[name] else { return nil }
            return StoreInspection.HashMismatch(entity: name, metadataHash: stored[name]?.hexString, cacheHash: computed[name]?.hexString)
        }
        info.hashesMatch = info.mismatches.isEmpty
        if !info.mismatches.isEmpty {
            warnings.append(
                "the model cache and the metadata disagree on \(plural(info.mismatches.count, "entity", "entities")): \(info.mismatches.map(\.entity).joined(separator: ", "))"
            )
        }
    }

    private static func entityInfos(
        _ db: Database, registry: EntityRegistry, model: ManagedObjectModel?,
        tables: Set<String>, counts: Bool,
        warnings: inout [String]
    ) throws -> [StoreInspection.EntityInfo] {
        var rowsByEnt: [Int: Int] = [:]
        var maxPKByRoot: [Int: Int] = [:]
        if counts {
            for root in registry.roots {
                let table = registry.tableName(for: root)
                guard tables.contains(table) else { continue }
                let quoted = table.quotedSQLIdentifier
                let subtree = registry.subtree(of: root)
                if subtree.count > 1 {
                    // Hierarchy tables have a Z_ENT index, so this stays an index scan.
                    for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, COUNT(*) FROM \(quoted) GROUP BY Z_ENT") {
                        let stored = StoredInteger(row, 0)
                        let count = StoredInteger(row, 1).value.map(Int.init) ?? 0
                        if let problem = stored.problem {
                            warnings.append("\(plural(count, "row")) of \(table) have Z_ENT \(problem), not an integer")
                            continue
                        }
                        let ent = stored.value(in: EntityRegistry.entityNumbers) ?? -1
                        rowsByEnt[ent, default: 0] += count
                    }
                } else {
                    rowsByEnt[root.ent] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted)") ?? 0
                }
                maxPKByRoot[root.ent] = try Int.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(quoted)") ?? 0
            }
        }
        var result: [StoreInspection.EntityInfo] = []
        func visit(_ entity: RegisteredEntity, depth: Int) {
            let table = registry.tableName(for: entity)
            let isRoot = registry.parent(of: entity) == nil
            let exists = tables.contains(table)
            let subtree = registry.subtree(of: entity)
            var info = StoreInspection.EntityInfo(
                name: entity.name, ent: entity.ent, superEntity: registry.parent(of: entity)?.name, depth: depth,
                table: table, tableExists: exists, rows: nil, rowsIncludingSubentities: nil,
                max: isRoot ? entity.max : nil, maxPK: nil,
                isAbstract: model?.entity(named: entity.name)?.isAbstract,
                reserved: entity.reservedRange)
            if counts, exists {
                info.rows = rowsByEnt[entity.ent] ?? 0
                info.rowsIncludingSubentities = subtree.reduce(0) { $0 + (rowsByEnt[$1.ent] ?? 0) }
                if isRoot { info.maxPK = maxPKByRoot[entity.ent] }
            }
            result.append(info)
            for child in registry.children(of: entity) { visit(child, depth: depth + 1) }
        }
        for root in registry.roots { visit(root, depth: 0) }

        for info in result {
            if let max = info.max, let maxPK = info.maxPK, maxPK > max {
                warnings.append("\(info.name): Z_MAX is \(max) but the largest Z_PK in \(info.table) is \(maxPK): the next insert would reuse a primary key")
            }
        }
        if counts {
            let known = Set(registry.entities.map(\.ent))
            let unknown = rowsByEnt.keys.filter { !known.contains($0) }.sorted()
            if !unknown.isEmpty {
                warnings.append(
                    "rows with unknown Z_ENT \(noun("value", count: unknown.count)) \(unknown.map(String.init).joined(separator: ", ")) (not in Z_PRIMARYKEY)")
            }
        }
        return result
    }

    private static func extrasInfo(
        _ db: Database, files: StoreFiles, registry: EntityRegistry,
        model: ManagedObjectModel?, tables: Set<String>,
        counts: Bool
    ) throws -> StoreInspection.Extras {
        func count(_ table: String) throws -> Int? {
            guard counts, tables.contains(table) else { return nil }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedSQLIdentifier)")
        }
        var history: StoreInspection.History?
        if tables.contains("ATRANSACTION") || tables.contains("ACHANGE") {
            history = StoreInspection.History(
                transactions: try count("ATRANSACTION"), changes: try count("ACHANGE"),
                strings: try count("ATRANSACTIONSTRING"))
        }
        let cloudKit = try tables.filter { $0.hasPrefix("ANSCK") }.sorted().map {
            StoreInspection.TableCount(name: $0, rows: try count($0))
        }
        let entityTables = Set(registry.entities.map { registry.tableName(for: $0) })
        let bookkeeping: Set<String> = ["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"]
        let rtree = tables.filter { $0.hasPrefix("Z_RT_") }.sorted()
        let others = tables.filter { table in
            !entityTables.contains(table) && !bookkeeping.contains(table) && !table.hasPrefix("ANSCK")
                && !table.hasPrefix("sqlite_") && !table.hasPrefix("Z_RT_") && !CoreDataNaming.isJoinTableName(table)
        }.sorted()
        return StoreInspection.Extras(
            history: history, cloudKitTables: cloudKit,
            externalData: try externalData(db, files: files, registry: registry, model: model, tables: tables, counts: counts),
            rtreeIndexTables: rtree, otherTables: others)
    }

    /// Counts external references (marker 0x02) and inline values (0x01) in the columns of
    /// attributes that allow external storage (store-format.md §9).
    private static func externalData(
        _ db: Database, files: StoreFiles, registry: EntityRegistry,
        model: ManagedObjectModel?, tables: Set<String>,
        counts: Bool
    ) throws -> StoreInspection.ExternalData? {
        guard let model else { return nil }
        var columns: [(label: String, table: String, column: String)] = []
        for entity in model.entities {
            for attribute in entity.attributes where attribute.allowsExternalBinaryDataStorage && !attribute.common.isTransient {
                guard let registered = registry.entity(named: entity.name) else { continue }
                let table = registry.tableName(for: registered)
                guard tables.contains(table) else { continue }
                let column = CoreDataNaming.column(property: attribute.name)
                let existing = try db.columns(in: table).map(\.name)
                guard existing.contains(column) else { continue }
                columns.append(("\(entity.name).\(attribute.name)", table, column))
            }
        }
        guard !columns.isEmpty else { return nil }
        var info = StoreInspection.ExternalData(attributes: columns.map(\.label))
        guard counts else { return info }
        var references = 0, inline = 0, missing = 0
        for (_, table, column) in columns {
            let t = table.quotedSQLIdentifier, c = column.quotedSQLIdentifier
            inline += try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(t) WHERE substr(\(c), 1, 1) = x'01'") ?? 0
            let cursor = try Data.fetchCursor(db, sql: "SELECT \(c) FROM \(t) WHERE substr(\(c), 1, 1) = x'02'")
            while let value = try cursor.next() {
                references += 1
                let name = String(decoding: value.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
                if !FileManager.default.fileExists(atPath: files.externalDataFolder.appendingPathComponent(name).path) {
                    missing += 1
                }
            }
        }
        info.references = references
        info.inline = inline
        info.missingFiles = missing
        return info
    }

    private static func entityWarnings(
        registry: EntityRegistry, metadata: StoreMetadata, tables: Set<String>,
        warnings: inout [String]
    ) {
        let hashes = metadata.versionHashes
        guard metadata.plist != nil else { return }
        let registered = registry.entities.filter { $0.reservedRange == nil }.map(\.name)
        let withoutHash = registered.filter { hashes[$0] == nil }
        if !withoutHash.isEmpty {
            warnings.append("entities in Z_PRIMARYKEY without a version hash in the metadata: \(withoutHash.joined(separator: ", "))")
        }
        let unregistered = hashes.keys.filter { registry.entity(named: $0) == nil }.sorted()
        if !unregistered.isEmpty {
            warnings.append("entities with a version hash but no Z_PRIMARYKEY row: \(unregistered.joined(separator: ", "))")
        }
        let missingTables = Set(registry.roots.filter { $0.reservedRange == nil }.map { registry.tableName(for: $0) })
            .filter { !tables.contains($0) }.sorted()
        if !missingTables.isEmpty {
            warnings.append("entity tables missing from the database: \(missingTables.joined(separator: ", "))")
        }
    }
}
