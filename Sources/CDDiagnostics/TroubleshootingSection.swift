/// The sections of the troubleshooting manual page, `man/cdstore-troubleshooting.7`.
///
/// Each raw value is the exact `.SS` title in that page, so an explanation can say where to
/// read on and a test can check that every section it names exists.
package enum TroubleshootingSection: String, Sendable, Codable, CaseIterable {
    case requiredValue = "Required value missing (1570, 1560)"
    case validation = "Other validation failures (1550-1690)"
    case constraint = "Uniqueness constraint violated (1551, 133021, 134111)"
    case denyDelete = "Delete denied (1600)"
    case incompatibleModel = "Model incompatible with the store (134100)"
    case missingSourceModel = "Missing source model (134130)"
    case missingMapping = "Missing mapping model (134140, 134190)"
    case migration = "Migration failed (134110, 134120-134170)"
    case stagedMigration = "Staged migration (134504-134506)"
    case storeType = "Wrong store type or format (134000, 134010)"
    case storeOpenSave = "Store cannot be opened or saved (134020-134091, 134180)"
    case mergeConflict = "Merge conflict (133020)"
    case missingObject = "Object not found in the store (133000)"
    case otherObjectGraph = "Locking, cross-store and history errors (132000, 132010, 133010, 134200, 134301)"
    case cloudKitModel = "CloudKit model rules (134060)"
    case cloudKitSetup = "CloudKit set-up failed (134400)"
    case ioError = "SQLite I/O errors (10, 522, 6922)"
    case locked = "Database is locked (5)"
    case outOfMemory = "Out of memory or disk (7, 13)"
    case corrupt = "Corrupt file or not a database (11, 26)"
    case sqliteOther = "Other SQLite errors (1, 8, 14)"
    case fileErrors = "File errors (4, 256-640)"

    /// The manual page that holds the sections.
    package static let manPage = "cdstore-troubleshooting(7)"

    /// "cdstore-troubleshooting(7), section "…"", the pointer every explanation ends with.
    package var reference: String { "\(Self.manPage), section \"\(rawValue)\"" }
}
