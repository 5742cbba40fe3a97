import Foundation

/// Which files of a store's `_EXTERNAL_DATA` folder its rows refer to (store-format.md §9).
///
/// `validate` records each value while it checks the objects; `clean` reads the whole store
/// with ``scan(_:)``. A file in the folder that no row refers to is an orphan; a reference to a
/// file that is not there is missing. Hidden files (a leading dot) are never orphans: they are
/// not Core Data's.
package struct ExternalDataInventory: Sendable {
    /// References to absent files of one attribute (`entity.key`).
    package struct MissingFiles: Sendable {
        package let entity: String
        package let key: String
        package var count: Int
        /// The first few, as "object URI → file name".
        package var examples: [String]
    }

    /// The file names rows refer to.
    package private(set) var referencedFiles: Set<String> = []
    /// Missing files by `entity.key`.
    package private(set) var missingFiles: [String: MissingFiles] = [:]
    private let exampleLimit: Int

    package init(exampleLimit: Int = 5) {
        self.exampleLimit = exampleLimit
    }

    /// Notes `value` of `object`'s property `key` when it is a reference to an external file.
    package mutating func record(_ value: ObjectValue, key: String, of object: StoredObject) {
        guard case .externalReference(let file, let exists) = value else { return }
        referencedFiles.insert(file)
        guard !exists else { return }
        let name = object.id.entity + "." + key
        var entry = missingFiles[name] ?? MissingFiles(entity: object.id.entity, key: key, count: 0, examples: [])
        entry.count += 1
        if entry.examples.count < exampleLimit { entry.examples.append(object.id.uri + " → " + file) }
        missingFiles[name] = entry
    }

    /// Files in `folder` that no recorded row refers to, sorted by name.
    package func orphans(in folder: URL) -> [String] {
        let onDisk = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return onDisk.filter { !$0.hasPrefix(".") && !referencedFiles.contains($0) }.sorted()
    }

    /// Reads every object of the store and records its external references.
    package static func scan(_ reader: ObjectReader) throws -> ExternalDataInventory {
        var inventory = ExternalDataInventory()
        try reader.read(
            ObjectQuery(), section: { _ in },
            object: { object in
                for (name, value) in object.values { inventory.record(value, key: name, of: object) }
            })
        return inventory
    }
}
