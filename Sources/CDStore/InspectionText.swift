import CDBase
import CDModel
import Foundation

/// The human-readable report of `cdstore inspect`.
package enum InspectionText {
    /// The whole report: files, SQLite header, metadata, model cache, entities, extras, warnings.
    package static func render(_ inspection: StoreInspection) -> String {
        [
            "Store: \(inspection.path)",
            files(inspection),
            sqlite(inspection.sqlite),
            metadata(inspection.metadata),
            modelCache(inspection.modelCache),
            entities(inspection.entities),
            extras(inspection.extras),
            warnings(inspection.warnings),
        ].joined(separator: "\n\n")
    }

    private static func files(_ inspection: StoreInspection) -> String {
        var table = TextTable([("ROLE", .left), ("FILE", .left), ("BYTES", .right), ("", .left)])
        for file in inspection.files {
            var note = ""
            if let frames = file.walFrames {
                note = frames == 0 ? "nothing to checkpoint" : plural(frames, "frame") + " not yet checkpointed"
                if let uncommitted = file.walUncommittedFrames, uncommitted > 0 {
                    note += ", \(plural(uncommitted, "uncommitted frame")) ignored"
                }
            }
            table.add([file.role.rawValue, (file.path as NSString).lastPathComponent, grouped(file.size), note])
        }
        var lines = ["Files", table.render()]
        if let support = inspection.supportFolder {
            lines.append(
                "  support folder: \((support.path as NSString).lastPathComponent)/ (\(plural(support.externalDataFiles, "external-data file")), \(grouped(support.externalDataBytes)) bytes)"
            )
        } else {
            lines.append("  support folder: none")
        }
        return lines.joined(separator: "\n")
    }

    private static func sqlite(_ info: StoreInspection.SQLiteInfo) -> String {
        keyValues(
            "SQLite",
            [
                ("page size", grouped(info.pageSize)),
                ("pages", grouped(info.pageCount)),
                ("journal mode", info.journalMode + (info.walHeader ? " (WAL header)" : "")),
                ("auto_vacuum", info.autoVacuum),
                ("encoding", info.encoding),
            ])
    }

    private static func metadata(_ info: StoreInspection.MetadataInfo) -> String {
        guard info.plistPresent else {
            return keyValues("Metadata", [("store UUID", info.storeUUID ?? "none"), ("plist", "NULL")])
        }
        var pairs: [(String, String)] = [
            ("store UUID", info.storeUUID ?? "none"),
            ("store type", info.storeType ?? "none"),
            ("framework version", info.frameworkVersion.map(String.init) ?? "none"),
        ]
        if let maximum = info.maximumFrameworkVersion { pairs.append(("maximum framework", String(maximum))) }
        pairs.append(("version identifiers", "(" + info.versionIdentifiers.map { "\"\($0)\"" }.joined(separator: ", ") + ")"))
        pairs.append(("hashes version", info.versionHashesVersion.map(String.init) ?? "none"))
        pairs.append(("hashes digest", verdict(info.hashesDigest, info.hashesDigestMatches)))
        pairs.append(("model checksum", verdict(info.checksum, info.checksumMatches)))
        if let level = info.autoVacuumLevel { pairs.append(("auto-vacuum level", level)) }
        var text = keyValues("Metadata", pairs)
        let names = info.versionHashes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        if !names.isEmpty {
            var hashes = TextTable(columns: 2)
            for name in names {
                hashes.add([name, info.versionHashes[name].flatMap(Data.init(hexDigits:))?.coreDataDescription ?? "?"])
            }
            text += "\n  version hashes:\n" + hashes.render(indent: 4, header: false)
        }
        if !info.otherKeys.isEmpty {
            text += "\n  other keys:"
            for key in info.otherKeys.keys.sorted() {
                text += "\n    \(key) = \(info.otherKeys[key]!)"
            }
        }
        return text
    }

    private static func verdict(_ value: String?, _ matches: Bool?) -> String {
        guard let value else { return "none" }
        switch matches {
        case true?: return value + " (matches)"
        case false?: return value + " (MISMATCH)"
        case nil: return value
        }
    }

    private static func modelCache(_ info: StoreInspection.ModelCacheInfo) -> String {
        guard info.present else {
            return "Model cache\n  none (Z_MODELCACHE appeared with framework 754; pass the app's model to read this store)"
        }
        if let error = info.error { return "Model cache\n  unreadable: \(error)" }
        var lines = ["Model cache"]
        lines.append(
            "  \(plural(info.entityCount ?? 0, "entity", "entities")), \(grouped(info.inflatedSize ?? 0)) bytes (\(grouped(info.compressedSize ?? 0)) compressed)"
        )
        switch info.hashesMatch {
        case true?: lines.append("  hashes recomputed from the cache match the metadata")
        case false?:
            lines.append("  hashes recomputed from the cache DIFFER from the metadata:")
            for mismatch in info.mismatches {
                lines.append(
                    "    \(mismatch.entity): metadata \(mismatch.metadataHash.map { String($0.prefix(16)) } ?? "none"), cache \(mismatch.cacheHash.map { String($0.prefix(16)) } ?? "none")"
                )
            }
        case nil: lines.append("  no metadata hashes to compare with")
        }
        return lines.joined(separator: "\n")
    }

    private static func entities(_ entities: [StoreInspection.EntityInfo]) -> String {
        guard !entities.isEmpty else { return "Entities\n  none" }
        var table = TextTable([("Z_ENT", .right), ("ENTITY", .left), ("TABLE", .left), ("ROWS", .right), ("Z_MAX", .right)])
        for entity in entities {
            var name = String(repeating: "  ", count: entity.depth) + entity.name
            if entity.isAbstract == true { name += " (abstract)" }
            if let reserved = entity.reserved { name += " (\(reserved.rawValue))" }
            let rows = entity.tableExists ? (entity.rows.map(grouped) ?? "-") : "no table"
            table.add([String(entity.ent), name, entity.table, rows, entity.max.map(grouped) ?? ""])
        }
        return "Entities\n" + table.render()
    }

    private static func extras(_ extras: StoreInspection.Extras) -> String {
        var lines = ["Extras"]
        if let history = extras.history {
            let parts = [
                history.transactions.map { plural($0, "transaction") },
                history.changes.map { plural($0, "change") },
                history.strings.map { plural($0, "string") },
            ].compactMap { $0 }
            lines.append("  persistent history: " + (parts.isEmpty ? "tables present" : parts.joined(separator: ", ")))
        } else {
            lines.append("  persistent history: none")
        }
        if extras.cloudKitTables.isEmpty {
            lines.append("  CloudKit mirroring: none")
        } else {
            lines.append(
                "  CloudKit mirroring: "
                    + extras.cloudKitTables.map { table in
                        table.name + (table.rows.map { " (\(grouped($0)))" } ?? "")
                    }.joined(separator: ", "))
        }
        if let external = extras.externalData {
            var text = "  external storage: " + external.attributes.joined(separator: ", ")
            if let references = external.references, let inline = external.inline {
                text += "; \(plural(references, "file reference")), \(plural(inline, "inline value"))"
                if let missing = external.missingFiles, missing > 0 { text += ", \(grouped(missing)) missing" }
            }
            lines.append(text)
        } else {
            lines.append("  external storage: none")
        }
        if !extras.rtreeIndexTables.isEmpty {
            lines.append("  R-tree index tables: " + extras.rtreeIndexTables.joined(separator: ", "))
        }
        if !extras.otherTables.isEmpty {
            lines.append("  other tables: " + extras.otherTables.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    private static func warnings(_ warnings: [String]) -> String {
        guard !warnings.isEmpty else { return "Warnings\n  none" }
        return "Warnings\n" + warnings.map { "  - " + $0 }.joined(separator: "\n")
    }

    private static func keyValues(_ title: String, _ pairs: [(String, String)]) -> String {
        var table = TextTable(columns: 2)
        for (key, value) in pairs { table.add([key + ":", value]) }
        return title + "\n" + table.render(header: false, separator: " ")
    }
}
