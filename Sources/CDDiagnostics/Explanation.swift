import CDBase
import CDModel
import CDStore
import Foundation

/// What `cdstore explain` prints: the catalogue entry of one code and, for a pasted dump, what the
/// dump says about this very case. This is the `--json` contract; every key is always present.
package struct Explanation: Sendable, Codable {
    package var code: Int
    package var domain: String
    package var name: String
    /// `false` when the code is not in the catalogue (the rest then comes from its range).
    package var known: Bool
    package var meaning: String
    package var causes: [String]
    package var diagnose: [String]
    package var fixes: [String]
    /// The troubleshooting section title, and the full pointer to it.
    package var section: String
    package var reference: String
    /// Sentences about this case (empty for `explain CODE`).
    package var summary: [String]
    /// The parsed dump (`null` for `explain CODE`).
    @NullEncoded package var finding: ErrorFinding?
    /// Other errors pasted alongside the explained one (a POSIX error next to SQLite lines).
    package var otherErrors: [ErrorFinding]
    /// Every other code the dump mentions: SQLite codes, detailed and underlying errors.
    package var related: [RelatedCode]
    package var truncated: Bool
    /// What `--store`/`--model` found (`null` without them).
    @NullEncoded package var crossCheck: CrossCheck?

    /// The explanation of a code or constant name (1570, 134100, SQLITE_BUSY, an extended SQLite
    /// code), or `nil` when the catalogue does not know it.
    package static func of(code: String) -> Explanation? {
        if let entry = ErrorCatalogue.lookup(code) { return Explanation(entry: entry) }
        if let number = Int(code), let entry = ErrorCatalogue.sqliteExtended(number) { return Explanation(entry: entry) }
        return nil
    }

    /// What to say about a code the catalogue does not know.
    package static func unknownCodeMessage(_ code: String) -> String {
        "unknown error code \"\(code)\": not in cdstore's catalogue (see \(TroubleshootingSection.manPage))"
    }

    /// The explanation of a bare code.
    package init(entry: CatalogueEntry) {
        code = entry.code
        domain = entry.domain.rawValue
        name = entry.name
        known = true
        meaning = entry.meaning
        causes = entry.causes
        diagnose = entry.diagnose
        fixes = entry.fixes
        section = entry.section.rawValue
        reference = entry.section.reference
        summary = []
        finding = nil
        otherErrors = []
        related = []
        truncated = false
        crossCheck = nil
    }

    /// The explanation of a pasted dump: its primary error's entry and the case's details.
    package init(reading: DumpReading) {
        let primary = reading.primary
        let entry = Self.entry(code: primary.code ?? 0, domain: primary.domain)
        self.init(entry: entry)
        known = ErrorCatalogue.entry(code: primary.code ?? 0).map { $0.domain.rawValue == primary.domain } ?? false
        finding = primary
        otherErrors = reading.others
        truncated = reading.truncated
        summary = Self.summary(of: primary)
        // A 1560 or a 256 with an SQLite code is only a wrapper: the causes and fixes that matter
        // are those of its detailed errors or of the SQLite code (errors.md §2, §5.11).
        var inner = primary.detailedErrors.compactMap { $0.code.flatMap(ErrorCatalogue.entry(code:)) }
        if let sqlite = primary.sqliteCode, primary.domain != ErrorDomain.sqlite.rawValue {
            inner.append(Self.entry(code: sqlite, domain: ErrorDomain.sqlite.rawValue))
        }
        for innerEntry in inner {
            causes += innerEntry.causes.filter { !causes.contains($0) }
            fixes += innerEntry.fixes.filter { !fixes.contains($0) }
            diagnose += innerEntry.diagnose.filter { !diagnose.contains($0) }
        }
        if reading.truncated {
            summary.append("The paste is cut short, so some details may be missing.")
        }
        var seen: Set<String> = ["\(domain):\(code)"]
        var related: [RelatedCode] = []
        func add(_ code: Int?, _ domain: String?, via: RelatedCode.Route) {
            guard let code, let domain, seen.insert("\(domain):\(code)").inserted else { return }
            related.append(RelatedCode(code: code, domain: domain, entry: Self.entry(code: code, domain: domain), via: via))
        }
        func walk(_ finding: ErrorFinding, via: RelatedCode.Route) {
            add(finding.code, finding.domain, via: via)
            add(finding.sqliteCode, ErrorDomain.sqlite.rawValue, via: .sqlite)
            finding.detailedErrors.forEach { walk($0, via: .detailed) }
            finding.underlyingErrors.forEach { walk($0, via: .underlying) }
        }
        add(primary.sqliteCode, ErrorDomain.sqlite.rawValue, via: .sqlite)
        primary.detailedErrors.forEach { walk($0, via: .detailed) }
        primary.underlyingErrors.forEach { walk($0, via: .underlying) }
        reading.others.forEach { walk($0, via: .other) }
        self.related = related
    }

    /// The catalogue entry for a code found in a dump; SQLite extended codes fall back to their
    /// primary code, and unknown codes get an entry built from their range.
    static func entry(code: Int, domain: String?) -> CatalogueEntry {
        if let entry = ErrorCatalogue.entry(code: code), entry.domain.rawValue == domain || domain == nil {
            return entry
        }
        if domain == ErrorDomain.sqlite.rawValue, let extended = ErrorCatalogue.sqliteExtended(code) {
            return extended
        }
        if domain == ErrorDomain.posix.rawValue {
            return CatalogueEntry(
                code: code, domain: .posix, name: "POSIX error \(code)",
                meaning: "An operating-system error (errno); the dump's message names it.", message: nil,
                causes: [], diagnose: ["cdstore inspect STORE"], fixes: [], section: .fileErrors)
        }
        let section: TroubleshootingSection
        switch (domain, code) {
        case (ErrorDomain.cocoa.rawValue, 1550..<1700): section = .validation
        case (ErrorDomain.cocoa.rawValue, 134_400..<134_500): section = .cloudKitSetup
        case (ErrorDomain.cocoa.rawValue, 134_000..<135_000): section = .storeOpenSave
        case (ErrorDomain.sqlite.rawValue, _): section = .sqliteOther
        default: section = .fileErrors
        }
        return CatalogueEntry(
            code: code, domain: ErrorDomain(rawValue: domain ?? "") ?? .cocoa, name: "(not in cdstore's catalogue)",
            meaning: "cdstore does not know this code; the message and userInfo of the dump are all there is to go on.",
            message: nil, causes: [], diagnose: ["cdstore inspect STORE"], fixes: [], section: section)
    }

    /// Sentences that describe this very case, from what the dump says.
    static func summary(of finding: ErrorFinding) -> [String] {
        var lines: [String] = []
        let property = [finding.entity, finding.key].compactMap { $0 }.joined(separator: ".")
        let code = finding.code ?? 0
        switch code {
        case 1560:
            lines.append("\(plural(finding.detailedErrors.count, "validation error")) in one save:")
            for detail in finding.detailedErrors { lines.append(contentsOf: summary(of: detail).map { "  " + $0 }) }
        case 1570 where !property.isEmpty:
            lines.append("\(property) is nil, but the model requires a value\(objectClause(finding.object)).")
        case 1550..<1700 where !property.isEmpty:
            let entry = ErrorCatalogue.entry(code: code)
            lines.append(
                "\(property) failed validation (\(entry?.name ?? "code \(code)"))\(objectClause(finding.object))"
                    + (finding.value.map { "; value: \($0)" } ?? "") + ".")
        case 134_100, 134_130:
            if let metadata = finding.metadata {
                var sentence = "The store was written"
                if let version = metadata.frameworkVersion { sentence += " by framework \(version)" }
                if let identifiers = metadata.versionIdentifiers {
                    sentence += " with model version identifiers (\(identifiers.map { "\"\($0)\"" }.joined(separator: ", ")))"
                }
                let names = (Array(metadata.versionHashes.keys) + metadata.truncatedHashes).sorted()
                if !names.isEmpty { sentence += " and entity hashes for \(names.joined(separator: ", "))" }
                lines.append(sentence + ".")
                if let uuid = metadata.storeUUID { lines.append("Store UUID: \(uuid).") }
                if !metadata.truncatedHashes.isEmpty {
                    lines.append("The dump cuts the hashes of \(metadata.truncatedHashes.joined(separator: ", ")); read them from the store with --store.")
                }
            }
            lines.append(
                code == 134_100
                    ? "The model the app opened it with has different entity hashes: find the version that matches with --model."
                    : "No model version in the app has these hashes, so there is nothing to migrate from.")
        case 134_110, 134_120...134_170:
            if let reason = finding.reason { lines.append("Reason: \(reason)") }
            for underlying in finding.underlyingErrors where underlying.entity != nil || underlying.key != nil {
                lines.append(
                    "It failed at \([underlying.entity, underlying.key].compactMap { $0 }.joined(separator: "."))"
                        + (underlying.reason.map { ": \($0)" } ?? "") + ".")
            }
            if finding.entity != nil || finding.key != nil {
                lines.append("It failed at \(property).")
            }
        case 134_140 where !finding.sourceModelEntities.isEmpty:
            lines.append("The store's model (the source) has the entities \(finding.sourceModelEntities.joined(separator: ", ")).")
        case 134_060:
            for rule in finding.cloudKit {
                lines.append("CloudKit rule broken: \(rule.rule)" + (rule.items.isEmpty ? "." : ": \(rule.items.joined(separator: "; "))."))
            }
        case 133_020:
            for conflict in finding.conflicts {
                var sentence = "\(conflict.objectID) changed in the store"
                if let old = conflict.oldVersion, let new = conflict.newVersion {
                    sentence += " (Z_OPT \(old) in the context's snapshot, \(new) in the row)"
                }
                lines.append(sentence + ".")
            }
        default:
            break
        }
        if let sqlite = finding.sqliteCode, finding.domain != ErrorDomain.sqlite.rawValue || sqlite != code {
            let entry = entry(code: sqlite, domain: ErrorDomain.sqlite.rawValue)
            lines.append(
                "SQLite reported \(sqlite) (\(entry.name))" + (finding.sqliteMessage.map { ": '\($0)'" } ?? "")
                    + ". \(entry.meaning)")
        } else if let message = finding.sqliteMessage, finding.domain == ErrorDomain.sqlite.rawValue {
            lines.append("SQLite's text: '\(message)'.")
        }
        if lines.isEmpty, let reason = finding.failureReason ?? finding.reason {
            lines.append("Core Data's explanation: \(reason)")
        }
        if finding.identifiedBy == .message {
            lines.append("The dump carries no error code; it was recognised by its message text.")
        }
        return lines
    }

    private static func objectClause(_ object: ObjectReference?) -> String {
        guard let object else { return "" }
        if object.temporary { return " on an object never saved (temporary ID \(object.uri))" }
        return " on \(object.uri)" + (object.primaryKey.map { " (Z_PK \($0))" } ?? "")
    }
}

/// Another code a dump mentions, with its catalogue entry's name, meaning and section.
package struct RelatedCode: Sendable, Codable {
    package var code: Int
    package var domain: String
    package var name: String
    package var meaning: String
    package var section: String
    /// How it appears.
    package var via: Route

    /// Where in a dump a related code appears; the raw values are the JSON strings.
    package enum Route: String, Sendable, Codable {
        /// An SQLite code in the userInfo.
        case sqlite
        /// In `NSDetailedErrors`.
        case detailed
        /// In an underlying error.
        case underlying
        /// In another error of the same dump.
        case other
    }

    init(code: Int, domain: String, entry: CatalogueEntry, via: Route) {
        self.code = code
        self.domain = domain
        name = entry.name
        meaning = entry.meaning
        section = entry.section.rawValue
        self.via = via
    }
}
