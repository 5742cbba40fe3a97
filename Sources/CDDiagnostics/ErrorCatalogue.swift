import Foundation

/// The error domain a code belongs to.
package enum ErrorDomain: String, Sendable, Codable, CaseIterable {
    case cocoa = "NSCocoaErrorDomain"
    case sqlite = "NSSQLiteErrorDomain"
    case posix = "NSPOSIXErrorDomain"
}

/// One error code: what it is called, what it means, why it usually happens, which cdstore
/// command shows the cause, how to fix it and where the troubleshooting page covers it.
package struct CatalogueEntry: Sendable, Codable, Equatable {
    package let code: Int
    package let domain: ErrorDomain
    /// The SDK constant (`NSValidationMissingMandatoryPropertyError`, `SQLITE_BUSY`).
    package let name: String
    package let meaning: String
    /// Core Data's English `localizedDescription`, with `%{PROPERTY}@` for the property name;
    /// `nil` when none is known (docs/format/errors.md §1). Used to recognise a key in a dump
    /// that lost its userInfo.
    package let message: String?
    package let causes: [String]
    /// cdstore command lines that show the cause (`STORE`, `MODEL` and `Entity` are placeholders).
    package let diagnose: [String]
    package let fixes: [String]
    package let section: TroubleshootingSection
}

/// Every error code of docs/format/errors.md (§1 Core Data's header and the codes outside it, §4
/// SQLite result codes) plus the Foundation file errors Core Data passes through.
///
/// The catalogue is data: `explain CODE` prints an entry, and `explain -` picks entries for the
/// codes it finds in a dump. Codes are unique across domains, so a bare number is enough to
/// look one up.
package enum ErrorCatalogue {
    package static func entry(code: Int) -> CatalogueEntry? { byCode[code] }

    /// Looks up a number (`1570`), a constant name (`NSValidationMissingMandatoryPropertyError`,
    /// `SQLITE_BUSY`, case-insensitive) or a domain-qualified code (`NSSQLiteErrorDomain:5`).
    package static func lookup(_ text: String) -> CatalogueEntry? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let code = Int(trimmed) { return entry(code: code) }
        if let colon = trimmed.lastIndex(of: ":"), let code = Int(trimmed[trimmed.index(after: colon)...]) {
            let domain = String(trimmed[..<colon])
            return entries.first { $0.code == code && $0.domain.rawValue.caseInsensitiveCompare(domain) == .orderedSame }
        }
        return entries.first { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame }
    }

    /// For an SQLite extended result code that is not listed itself (`266`, `1034`): the entry of
    /// its primary code, the low byte (docs/format/errors.md §4).
    package static func sqlitePrimary(of code: Int) -> CatalogueEntry? {
        guard code > 255, code < 65_536, let primary = entry(code: code & 0xFF), primary.domain == .sqlite else { return nil }
        return primary
    }

    /// An entry for an SQLite extended result code that is not listed itself, built from its
    /// primary code's entry (`266` → `SQLITE_IOERR`); `nil` when the low byte is not a listed
    /// SQLite code.
    package static func sqliteExtended(_ code: Int) -> CatalogueEntry? {
        guard entry(code: code) == nil, let primary = sqlitePrimary(of: code) else { return nil }
        return CatalogueEntry(
            code: code, domain: .sqlite, name: "\(primary.name) (extended code \(code) = \(primary.code) + \(code >> 8)·256)",
            meaning: primary.meaning, message: nil, causes: primary.causes, diagnose: primary.diagnose,
            fixes: primary.fixes, section: primary.section)
    }

    private static let byCode: [Int: CatalogueEntry] = Dictionary(entries.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })

    private static func cocoa(
        _ code: Int, _ name: String, _ meaning: String, message: String?, causes: [String],
        diagnose: [String], fixes: [String], _ section: TroubleshootingSection
    ) -> CatalogueEntry {
        CatalogueEntry(
            code: code, domain: .cocoa, name: name, meaning: meaning, message: message, causes: causes,
            diagnose: diagnose, fixes: fixes, section: section)
    }

    private static func sqlite(
        _ code: Int, _ name: String, _ meaning: String, causes: [String],
        diagnose: [String], fixes: [String], _ section: TroubleshootingSection
    ) -> CatalogueEntry {
        CatalogueEntry(
            code: code, domain: .sqlite, name: name, meaning: meaning, message: nil, causes: causes,
            diagnose: diagnose, fixes: fixes, section: section)
    }

    // Shared advice, so entries of one family say the same thing.
    private static let validationDiagnose = [
        "cdstore validate STORE (every row checked against the model's rules, with the offending objects)",
        "cdstore model MODEL --json (the property's optionality, min/max, regex and counts)",
        "cdstore explain - --store STORE (finds the offending rows of a pasted dump)",
    ]
    private static let validationFixes = [
        "Set the property before saving, or give it a default value in the model.",
        "If the rule is wrong, relax it in a new model version (a lightweight migration handles optionality and range changes).",
    ]
    private static let hashDiagnose = [
        "cdstore inspect STORE (the store's entity hashes and version identifiers)",
        "cdstore model MODEL --hashes (every model version's hashes, to compare)",
        "cdstore explain - --store STORE --model MODEL (names the version that wrote the store)",
    ]
    private static let migrationDiagnose = [
        "cdstore inspect STORE (the store's hashes and version identifiers)",
        "cdstore model MODEL --hashes (which bundled version matches the store)",
        "cdstore model STORE --format xcdatamodel (rebuild the source model from the store's cache)",
    ]
    private static let ioDiagnose = [
        "cdstore inspect STORE (files, sizes, -wal and -shm, journal mode)"
    ]
    /// The fix of every migration error while the data do not matter yet (development, the
    /// simulator): `reset` removes the store whole and can put an empty one of the current
    /// version in its place.
    private static let developmentReset =
        "During development, throw the old store away: cdstore reset STORE --dry-run lists what goes, cdstore reset STORE removes the store with its -wal, -shm and support folder (keeping a backup), and --recreate --model MODEL puts an empty store of the current version in its place."

    /// The catalogue, in code order within each domain.
    package static let entries: [CatalogueEntry] = cocoaValidation + cocoaStore + cocoaOther + fileErrors + sqliteCodes

    private static let cocoaValidation: [CatalogueEntry] = [
        cocoa(
            1550, "NSManagedObjectValidationError",
            "A generic validation failure: a custom validate method or a validation predicate rejected a value, or an object points at an invalid object.",
            message: "%{PROPERTY}@ is not valid.",
            causes: [
                "A validation predicate or a validate<Key>: method returned NO.",
                "A relationship points at a deleted or invalid object (\"Dangling reference to an invalid object\").",
            ],
            diagnose: validationDiagnose, fixes: validationFixes, .validation),
        cocoa(
            1551, "NSManagedObjectConstraintValidationError", "A uniqueness constraint was violated when saving.",
            message: "One or more constraints were violated.",
            causes: [
                "Two objects with the same values for a constrained attribute set were saved.", "No merge policy (or the error policy) is set on the context.",
            ],
            diagnose: ["cdstore model MODEL (the entity's uniqueness constraints)", "cdstore dump STORE Entity --sort KEY (look for duplicates)"],
            fixes: ["Set a merge policy such as NSMergeByPropertyObjectTrumpMergePolicy, or de-duplicate before saving."], .constraint),
        cocoa(
            1560, "NSValidationMultipleErrorsError", "Several validation errors at once; each is listed under NSDetailedErrors.",
            message: "Multiple validation errors occurred.",
            causes: ["More than one property or object failed validation in the same save."],
            diagnose: validationDiagnose, fixes: ["Fix each detailed error in turn; the explanation of a pasted 1560 lists them all."], .requiredValue),
        cocoa(
            1570, "NSValidationMissingMandatoryPropertyError", "A property that is not optional is nil when the object is saved.",
            message: "%{PROPERTY}@ is a required value.",
            causes: [
                "The app never set the property on a new object.",
                "A to-one relationship was nilled (its target deleted with a Nullify rule) while it is mandatory.",
                "A model change made the property mandatory while old rows hold NULL.",
            ],
            diagnose: validationDiagnose, fixes: validationFixes, .requiredValue),
        cocoa(
            1580, "NSValidationRelationshipLacksMinimumCountError", "A to-many relationship holds fewer objects than its minimum count.",
            message: "Too few items in %{PROPERTY}@.",
            causes: ["Objects were removed from the relationship, or never added."],
            diagnose: validationDiagnose, fixes: ["Add the missing objects, or lower the minimum count in a new model version."], .validation),
        cocoa(
            1590, "NSValidationRelationshipExceedsMaximumCountError", "A bounded to-many relationship holds more objects than its maximum count.",
            message: "Too many items in %{PROPERTY}@.",
            causes: ["More objects were added than the model allows."],
            diagnose: validationDiagnose, fixes: ["Remove objects, or raise the maximum count in a new model version."], .validation),
        cocoa(
            1600, "NSValidationRelationshipDeniedDeleteError",
            "A delete was refused: the object still has objects in a relationship whose delete rule is Deny.",
            message: "Items cannot be deleted from %{PROPERTY}@.",
            causes: ["The app deleted an object whose Deny relationship is not empty."],
            diagnose: ["cdstore model MODEL (delete rules of the entity's relationships)", "cdstore dump STORE Entity (which related objects remain)"],
            fixes: ["Delete or reassign the related objects first, or change the delete rule."], .denyDelete),
        cocoa(
            1610, "NSValidationNumberTooLargeError", "A number is above the attribute's maximum.", message: "%{PROPERTY}@ is too large.",
            causes: ["The value exceeds the maximum set in the model."], diagnose: validationDiagnose, fixes: validationFixes, .validation),
        cocoa(
            1620, "NSValidationNumberTooSmallError", "A number is below the attribute's minimum.", message: "%{PROPERTY}@ is too small.",
            causes: ["The value is under the minimum set in the model."], diagnose: validationDiagnose, fixes: validationFixes, .validation),
        cocoa(
            1630, "NSValidationDateTooLateError", "A date is after the attribute's maximum.", message: "%{PROPERTY}@ is too late.",
            causes: ["The date exceeds the maximum set in the model."], diagnose: validationDiagnose, fixes: validationFixes, .validation),
        cocoa(
            1640, "NSValidationDateTooSoonError", "A date is before the attribute's minimum.", message: "%{PROPERTY}@ is too soon.",
            causes: ["The date is earlier than the minimum set in the model."], diagnose: validationDiagnose, fixes: validationFixes, .validation),
        cocoa(
            1650, "NSValidationInvalidDateError", "A date does not pass the attribute's rules.", message: "%{PROPERTY}@ is invalid.",
            causes: ["The date fails a validation rule of the model."], diagnose: validationDiagnose, fixes: validationFixes, .validation),
        cocoa(
            1660, "NSValidationStringTooLongError", "A string is longer than the attribute's maximum length.", message: "%{PROPERTY}@ is too long.",
            causes: ["The text exceeds the maximum length set in the model."], diagnose: validationDiagnose, fixes: validationFixes, .validation),
        cocoa(
            1670, "NSValidationStringTooShortError", "A string is shorter than the attribute's minimum length.", message: "%{PROPERTY}@ is too short.",
            causes: ["The text (often an empty string) is under the minimum length."], diagnose: validationDiagnose, fixes: validationFixes, .validation),
        cocoa(
            1680, "NSValidationStringPatternMatchingError", "A string does not match the attribute's regular expression.", message: "%{PROPERTY}@ is invalid.",
            causes: ["The text fails the regular expression set in the model."], diagnose: validationDiagnose, fixes: validationFixes, .validation),
        cocoa(
            1690, "NSValidationInvalidURIError", "A URI attribute holds a value that cannot be written as a string.", message: nil,
            causes: ["An invalid URL was assigned to a URI attribute."], diagnose: validationDiagnose, fixes: ["Assign a well-formed URL."], .validation),
    ]

    private static let cocoaStore: [CatalogueEntry] = [
        cocoa(
            134000, "NSPersistentStoreInvalidTypeError", "The store type, file format or version is unknown.",
            message: "Failed to save. Unknown store type, format, or version.",
            causes: ["The file is not a store of the requested type, or was written by a newer framework."],
            diagnose: ["cdstore inspect STORE (store type and framework version in the metadata)"],
            fixes: ["Open the file with the store type it was written with; check the app is not older than the store."], .storeType),
        cocoa(
            134010, "NSPersistentStoreTypeMismatchError", "The file's format does not match the store type the app asked for.",
            message: "The store type is inconsistent with the data format.",
            causes: ["An XML or binary store opened as SQLite, or the other way round.", "The metadata's NSStoreType differs from the requested type."],
            diagnose: ["cdstore inspect STORE (NSStoreType and the SQLite header)"],
            fixes: ["Pass the store type the file was written with, or migrate the store to the new type."], .storeType),
        cocoa(
            134020, "NSPersistentStoreIncompatibleSchemaError", "The database refused a save: a table or column is missing, or the file is not writable.",
            message: "The model configuration used to open the store is incompatible with the one that was used to create the store.",
            causes: [
                "The schema was changed outside Core Data, or the configuration differs from the one that created the store.",
                "The file or its folder is read-only.",
            ],
            diagnose: ["cdstore model STORE --sql (the tables the cached model expects)", "cdstore inspect STORE"],
            fixes: ["Open the store with the configuration that created it; make the file and its folder writable."], .storeOpenSave),
        cocoa(
            134030, "NSPersistentStoreSaveError", "A save failed for a reason the store did not classify.", message: "An error occurred while saving.",
            causes: ["An underlying SQLite or file error; see NSUnderlyingError or NSSQLiteErrorDomain."],
            diagnose: ioDiagnose, fixes: ["Look at the underlying error and explain it in turn."], .storeOpenSave),
        cocoa(
            134040, "NSPersistentStoreIncompleteSaveError", "One or more stores failed during a save.", message: "Save operation could not be completed.",
            causes: ["A store of the coordinator could not write; the details are in userInfo."],
            diagnose: ioDiagnose, fixes: ["Explain the nested errors; check free space and permissions."], .storeOpenSave),
        cocoa(
            134050, "NSPersistentStoreSaveConflictsError", "A save found merge conflicts nobody resolved.", message: nil,
            causes: ["Another context or process changed the same objects, and no merge policy is set."],
            diagnose: ["cdstore dump STORE Entity (the rows' current values)"],
            fixes: ["Set a merge policy on the context, or refresh objects before changing them."], .mergeConflict),
        cocoa(
            134060, "NSCoreDataError", "A general Core Data error; with CloudKit, the model breaks a CloudKit rule (listed in NSLocalizedFailureReason).",
            message: "A Core Data error occurred.",
            causes: [
                "A non-optional attribute without a default, a mandatory relationship, a relationship without an inverse, an ordered relationship, a Deny rule, a uniqueness constraint or an unsupported attribute type in a CloudKit-synced model."
            ],
            diagnose: ["cdstore model MODEL --lint --cloudkit (the same rules, checked statically)"],
            fixes: ["Change the model as each finding says (make the attribute optional or give it a default, add the inverse, …) in a new model version."],
            .cloudKitModel),
        cocoa(
            134070, "NSPersistentStoreOperationError", "A store operation failed.", message: "An error occurred in the persistent store.",
            causes: ["An underlying SQLite or file error."], diagnose: ioDiagnose, fixes: ["Explain the underlying error."], .storeOpenSave),
        cocoa(
            134080, "NSPersistentStoreOpenError", "The store could not be opened.", message: "An error occurred while opening the persistent store.",
            causes: ["The file is missing, unreadable, locked, corrupt or not a store.", "The same store was added twice to one coordinator."],
            diagnose: ioDiagnose + ["cdstore explain - (paste the whole log: the underlying SQLite code says why)"],
            fixes: ["Fix the underlying cause; add each store once."], .storeOpenSave),
        cocoa(
            134090, "NSPersistentStoreTimeoutError", "No connection to the store within the time set by NSPersistentStoreTimeoutOption.",
            message: "A timeout error occurred while connecting to the persistent store.",
            causes: ["Another process holds a lock on the database for too long."], diagnose: ioDiagnose,
            fixes: ["Close other programs that have the store open (viewers, a second app instance); raise the timeout."], .storeOpenSave),
        cocoa(
            134091, "NSPersistentStoreUnsupportedRequestTypeError", "A store received a request type it does not support.", message: nil,
            causes: ["A batch request sent to an in-memory, XML or custom store, which only SQLite supports."],
            diagnose: ["cdstore inspect STORE (the store type)"],
            fixes: ["Use the request only with SQLite stores, or fetch and change objects one by one."], .storeOpenSave),
        cocoa(
            134100, "NSPersistentStoreIncompatibleVersionHashError",
            "The entity version hashes in the store's metadata do not match the model used to open it: the store was written by another model version.",
            message:
                "The managed object model version used to open the persistent store is incompatible with the one that was used to create the persistent store.",
            causes: [
                "The model was edited without adding a new model version.", "Automatic migration is off (NSMigratePersistentStoresAutomaticallyOption = 0).",
                "An older build of the app opens a store written by a newer one.",
            ],
            diagnose: [
                "cdstore compat STORE --model MODEL (the version that wrote the store, what changed, and whether the store opens once automatic migration is on)"
            ] + hashDiagnose,
            fixes: ["Add a model version instead of editing the shipped one, and turn on automatic migration with inferred mapping.", developmentReset],
            .incompatibleModel),
        cocoa(
            134110, "NSMigrationError", "The migration failed; reason and NSUnderlyingError say where (entity, attribute, SQL error).",
            message: "An error occurred during persistent store migration.",
            causes: [
                "A mandatory destination attribute has no value for existing rows.", "A table or column the migration expects is missing (\"no such table\").",
                "The store was copied without its -wal.",
            ],
            diagnose: ["cdstore compat STORE --model MODEL (the new mandatory attribute or relationship, and how many rows lack a value)"]
                + migrationDiagnose + ["cdstore query STORE --entity Entity --where 'key == nil' --count (rows with NULL in the named attribute)"],
            fixes: [
                "Give the new mandatory attribute a default value, or make it optional.", "Migrate a copy that includes the -wal and -shm files.",
                developmentReset,
            ], .migration),
        cocoa(
            134111, "NSMigrationConstraintViolationError", "A migration produced rows that violate a uniqueness constraint.", message: nil,
            causes: ["Existing rows have duplicate values for an attribute set that the new version constrains."],
            diagnose: ["cdstore dump STORE Entity --sort KEY (find the duplicates)", "cdstore model MODEL (the new constraints)"],
            fixes: ["De-duplicate the data in a custom migration step before adding the constraint."], .constraint),
        cocoa(
            134120, "NSMigrationCancelledError", "The migration was cancelled before it finished.",
            message: "Persistent store migration was cancelled before completion.",
            causes: ["The migration manager was cancelled, or the app was stopped during migration."], diagnose: migrationDiagnose,
            fixes: ["Run the migration again on the original store (the destination is a temporary file)."], .migration),
        cocoa(
            134130, "NSMigrationMissingSourceModelError", "No model version in the app matches the store's hashes, so there is nothing to migrate from.",
            message: "Persistent store migration failed, missing source managed object model.",
            causes: ["The model version that wrote the store was deleted or edited after shipping.", "The store comes from a newer build of the app."],
            diagnose: [
                "cdstore compat STORE --model MODEL (confirms that no version has the store's hashes, and diffs the model cached in the store against the current version)"
            ]
                + hashDiagnose + ["cdstore model STORE --format xcdatamodel (rebuild the missing source version from the store's cache)"],
            fixes: ["Put the original model version back into the .xcdatamodeld (rebuild it from the store's cache if it is lost).", developmentReset],
            .missingSourceModel),
        cocoa(
            134140, "NSMigrationMissingMappingModelError", "No mapping model between the store's version and the current one, and none could be inferred.",
            message: "Persistent store migration failed, missing mapping model.",
            causes: [
                "The change is not lightweight (a type change, a split entity) and no .xcmappingmodel covers it.",
                "NSInferMappingModelAutomaticallyOption is off.", "A mapping model exists but its source or destination hashes are stale.",
            ],
            diagnose: [
                "cdstore compat STORE --model MODEL --options migrate (whether a mapping model connects the store's version to the current one; without --options, whether inference would do it)"
            ] + migrationDiagnose,
            fixes: [
                "Add a mapping model for the pair of versions, or split the change into lightweight steps.",
                "If compat finds the change inferable, pass NSInferMappingModelAutomaticallyOption.", developmentReset,
            ], .missingMapping),
        cocoa(
            134150, "NSMigrationManagerSourceStoreError", "The migration could not read the source store.",
            message: "Persistent store migration failed, there was a problem with the source persistent store.",
            causes: ["The source store is corrupt, locked or incomplete (copied without its -wal)."], diagnose: ioDiagnose,
            fixes: ["Check the store with inspect; migrate a complete copy."], .migration),
        cocoa(
            134160, "NSMigrationManagerDestinationStoreError", "The migration could not write the destination store.",
            message: "Persistent store migration failed, there was a problem with the destination persistent store.",
            causes: ["No space or no write permission next to the store (the destination is a hidden sibling file)."], diagnose: ioDiagnose,
            fixes: ["Free disk space; make the store's folder writable; remove stale .migrationdestination files."], .migration),
        cocoa(
            134170, "NSEntityMigrationPolicyError", "A custom entity migration policy failed.",
            message: "Persistent store migration failed while processing entity migration policy.",
            causes: ["The NSEntityMigrationPolicy subclass threw or returned NO."], diagnose: migrationDiagnose,
            fixes: ["Debug the policy with the named entity; check the values it reads from the source rows."], .migration),
        cocoa(
            134180, "NSSQLiteError", "A general SQLite error; the SQLite code is in NSSQLiteErrorDomain.", message: "An SQLite error occurred.",
            causes: ["See the SQLite code: locked, I/O error, corrupt file, full disk."], diagnose: ioDiagnose,
            fixes: ["Explain the SQLite code (cdstore explain CODE)."], .storeOpenSave),
        cocoa(
            134190, "NSInferredMappingModelError", "The inferred mapping model could not be created.", message: nil,
            causes: ["The change between the versions is not lightweight, or renaming identifiers are ambiguous."],
            diagnose: ["cdstore compat STORE --model MODEL (the change inference cannot handle, and what fixes it)"] + migrationDiagnose,
            fixes: ["Add an explicit mapping model, or make the change lightweight.", developmentReset], .missingMapping),
        cocoa(
            134200, "NSExternalRecordImportError", "External records (Spotlight) could not be imported.", message: nil,
            causes: ["A Spotlight external record file is unreadable or stale."], diagnose: ["cdstore inspect STORE"],
            fixes: ["Remove the external records folder so it is rebuilt."], .otherObjectGraph),
        cocoa(
            134301, "NSPersistentHistoryTokenExpiredError", "The history token given to a history request is no longer valid.", message: nil,
            causes: ["The history was purged past the token, or the store was replaced."], diagnose: ["cdstore inspect STORE (persistent history rows)"],
            fixes: ["Drop the saved token and refetch everything once."], .otherObjectGraph),
        cocoa(
            134400, "(no public constant)", "CloudKit mirroring could not be set up, for example without an iCloud account.", message: nil,
            causes: [
                "No iCloud account is signed in (CKAccountStatusNoAccount), or the account is temporarily unavailable.",
                "The container identifier or entitlements are wrong.",
            ],
            diagnose: ["cdstore inspect STORE (CloudKit mirroring tables)"],
            fixes: ["Sign in to iCloud on the device or simulator; check the CloudKit container and entitlements."], .cloudKitSetup),
        cocoa(
            134504, "NSManagedObjectModelReferenceNotFoundError", "A staged migration refers to a model version that cannot be found or loaded.", message: nil,
            causes: ["A model reference's checksum matches no compiled model in the bundle."],
            diagnose: ["cdstore model MODEL --hashes (each version's checksum)", "cdstore inspect STORE (the store's checksum)"],
            fixes: ["Ship the referenced model version; use the checksum of the compiled model."], .stagedMigration),
        cocoa(
            134505, "NSStagedMigrationFrameworkVersionMismatchError", "The store's metadata does not support staged migration.", message: nil,
            causes: ["The store was written by a framework too old for staged migration."], diagnose: ["cdstore inspect STORE (framework version)"],
            fixes: ["Migrate the store once with a classic (lightweight) migration first."], .stagedMigration),
        cocoa(
            134506, "NSStagedMigrationBackwardMigrationError", "A staged migration would go backwards, to an older model version.", message: nil,
            causes: ["An older build opens a store already migrated by a newer one."], diagnose: hashDiagnose,
            fixes: ["Open the store with the newest model; never ship a downgrade path."], .stagedMigration),
        cocoa(
            134097, "(private)", "A derived attribute's key path failed validation (framework behaviour, unverified).", message: nil,
            causes: ["A derived attribute's derivation expression refers to a key path that does not exist."],
            diagnose: ["cdstore model MODEL (each derived attribute's derivation)"],
            fixes: ["Correct the derivation expression."], .validation),
    ]

    private static let cocoaOther: [CatalogueEntry] = [
        cocoa(
            132000, "NSManagedObjectContextLockingError", "A managed object context lock could not be taken.",
            message: "Could not acquire a lock in a managed object context.",
            causes: ["A context was used from a thread or queue it does not belong to."], diagnose: [],
            fixes: ["Use perform/performAndWait for every access; run with -com.apple.CoreData.ConcurrencyDebug 1."], .otherObjectGraph),
        cocoa(
            132010, "NSPersistentStoreCoordinatorLockingError", "A persistent store coordinator lock could not be taken.",
            message: "Could not acquire a lock in a managed persistent store coordinator.",
            causes: ["Concurrent use of one coordinator outside its contexts' queues."], diagnose: [],
            fixes: ["Access the coordinator through contexts and their queues only."], .otherObjectGraph),
        cocoa(
            133000, "NSManagedObjectReferentialIntegrityError", "An object ID points at a row that is not in the store (\"could not fulfill a fault\").",
            message: "Attempt to access an object not found in store.",
            causes: [
                "The object was deleted (by another context or process) while a fault to it was kept.",
                "An ID from another store, or from before a store reset, was used.",
            ],
            diagnose: ["cdstore dump STORE Entity (is the row still there?)", "cdstore inspect STORE (Z_MAX: a key above it was never allocated)"],
            fixes: ["Merge deletions into every context; refetch instead of keeping faults across saves."], .missingObject),
        cocoa(
            133010, "NSManagedObjectExternalRelationshipError", "A saved object relates to an object in another store.",
            message: "Cannot save objects with references outside of their own stores.",
            causes: ["Two objects in different stores (configurations) were related directly."],
            diagnose: ["cdstore model MODEL (configurations and their entities)"],
            fixes: ["Keep related entities in the same configuration; use a fetched property or an ID across stores."], .otherObjectGraph),
        cocoa(
            133020, "NSManagedObjectMergeError", "A merge conflict could not be resolved: the row changed since the object was read (conflictList).",
            message: "Could not merge changes.",
            causes: ["Two contexts (or processes) changed the same object; the default merge policy refuses to pick one."],
            diagnose: ["cdstore dump STORE Entity (the row's current values, next to the snapshot in the dump)"],
            fixes: ["Set a merge policy (for example NSMergeByPropertyObjectTrumpMergePolicy) and merge saves into other contexts."], .mergeConflict),
        cocoa(
            133021, "NSManagedObjectConstraintMergeError", "A merge failed because several objects break a uniqueness constraint.", message: nil,
            causes: ["New objects duplicate existing rows on a constrained attribute set, with the error merge policy."],
            diagnose: ["cdstore model MODEL (uniqueness constraints)", "cdstore dump STORE Entity"],
            fixes: ["Set a merge policy that resolves constraint conflicts."], .constraint),
    ]

    private static let fileErrors: [CatalogueEntry] = [
        cocoa(
            4, "NSFileNoSuchFileError", "A file that was expected does not exist.", message: nil,
            causes: ["The store's folder or the model file is missing."], diagnose: ioDiagnose,
            fixes: ["Create the folder before adding the store; check the model is in the bundle."], .fileErrors),
        cocoa(
            256, "NSFileReadUnknownError", "A file could not be read, for a reason given in userInfo (often an SQLite code).", message: nil,
            causes: ["The store could not be opened; NSSQLiteErrorDomain or NSUnderlyingError has the real cause."], diagnose: ioDiagnose,
            fixes: ["Explain the SQLite code in the same dump."], .fileErrors),
        cocoa(
            257, "NSFileReadNoPermissionError", "No permission to read a file.", message: nil,
            causes: ["The store lives outside the app's container, or data protection locks it."], diagnose: ioDiagnose,
            fixes: ["Keep the store inside the app's container; choose a data protection class that allows background access."], .fileErrors),
        cocoa(
            260, "NSFileReadNoSuchFileError", "The file to read does not exist.", message: nil,
            causes: ["The store path is wrong (a simulator or container UUID changed), or the file was deleted."], diagnose: ioDiagnose,
            fixes: ["Rebuild the path from the container at run time, never store absolute paths."], .fileErrors),
        cocoa(
            512, "NSFileWriteUnknownError", "A file could not be written.", message: nil,
            causes: ["The folder is missing or not writable."], diagnose: ioDiagnose, fixes: ["Create the folder and check its permissions."], .fileErrors),
        cocoa(
            513, "NSFileWriteNoPermissionError", "No permission to write a file.", message: nil,
            causes: ["The store is in the read-only app bundle (a seed database opened in place)."], diagnose: ioDiagnose,
            fixes: ["Copy a seed store (with its -wal and -shm) into Application Support before opening it."], .fileErrors),
        cocoa(
            640, "NSFileWriteOutOfSpaceError", "The disk is full.", message: nil,
            causes: ["No space left for the store, its -wal or a migration copy (which needs about the store's size again)."], diagnose: ioDiagnose,
            fixes: ["Free space; migrations need room for a second copy of the store."], .fileErrors),
    ]

    private static let sqliteCodes: [CatalogueEntry] = [
        sqlite(
            1, "SQLITE_ERROR", "A generic SQL error, such as \"no such table\" or \"no such column\".",
            causes: ["The schema does not match what Core Data expects (a table missing during migration)."],
            diagnose: ["cdstore model STORE --sql (the tables the cached model expects)", "cdstore inspect STORE"],
            fixes: ["Migrate a complete store (with -wal); never change a store's schema outside Core Data."], .sqliteOther),
        sqlite(
            5, "SQLITE_BUSY", "\"database is locked\": another connection holds a lock on the database.",
            causes: ["A database viewer or a second process has the store open while the app writes.", "A long write transaction in another process."],
            diagnose: ["cdstore inspect STORE (reads a private copy, so it never takes a lock on the original)"],
            fixes: ["Close the viewer or the other process; read stores through a copy."], .locked),
        sqlite(
            7, "SQLITE_NOMEM", "SQLite ran out of memory.",
            causes: ["A huge fetch or batch in a memory-constrained process."], diagnose: ioDiagnose,
            fixes: ["Fetch in batches (fetchBatchSize), save and reset the context periodically."], .outOfMemory),
        sqlite(
            8, "SQLITE_READONLY", "A write was attempted on a read-only database.",
            causes: ["The store is in a read-only location or opened with NSReadOnlyPersistentStoreOption."], diagnose: ioDiagnose,
            fixes: ["Move the store to a writable folder."], .sqliteOther),
        sqlite(
            10, "SQLITE_IOERR", "A disk I/O error; extended codes (10 + n·256) say which operation failed.",
            causes: ["Data protection locked the file while the device was locked.", "The file was removed or replaced under the open connection."],
            diagnose: ioDiagnose,
            fixes: ["Use a data protection class that allows background access; never delete a store while it is open."], .ioError),
        sqlite(
            11, "SQLITE_CORRUPT", "The database image is malformed.",
            causes: ["The store was copied without its -wal (or with a -wal from another copy).", "A crash during a write without a journal."],
            diagnose: ["cdstore inspect STORE (journal mode and whether a -wal is present)"],
            fixes: ["Copy the store together with its -wal and -shm, or checkpoint before copying."], .corrupt),
        sqlite(
            13, "SQLITE_FULL", "The disk is full.",
            causes: ["No room for the store, its -wal or a migration copy."], diagnose: ioDiagnose, fixes: ["Free disk space."], .outOfMemory),
        sqlite(
            14, "SQLITE_CANTOPEN", "The database file could not be opened.",
            causes: ["The folder does not exist or is not writable (SQLite also needs to create -wal and -shm)."], diagnose: ioDiagnose,
            fixes: ["Create the folder; make it writable."], .sqliteOther),
        sqlite(
            26, "SQLITE_NOTADB", "\"file is not a database\": the file is not SQLite, or is encrypted.",
            causes: ["A corrupt or truncated file; an encrypted store opened without its key; an XML or binary store opened as SQLite."],
            diagnose: ["cdstore inspect STORE (checks the SQLite header)"],
            fixes: ["Restore the store from a backup, or delete it and start over."], .corrupt),
        sqlite(
            522, "SQLITE_IOERR_SHORT_READ", "A read returned fewer bytes than asked (10 + 2·256); Core Data prints it as 'not an error'.",
            causes: ["The file was truncated or replaced while open; seen in simulators and unit tests that delete stores between runs."], diagnose: ioDiagnose,
            fixes: ["Remove the store with its -wal and -shm only while it is closed; reset the simulator."], .ioError),
        sqlite(
            6922, "SQLITE_IOERR_VNODE", "Apple's extended I/O error (10 + 27·256): the file was deleted or replaced under an open connection.",
            causes: ["The store was deleted or replaced while a coordinator still had it open."], diagnose: ioDiagnose,
            fixes: ["Remove the store from the coordinator before deleting or replacing it (or use destroyPersistentStore)."], .ioError),
    ]
}
