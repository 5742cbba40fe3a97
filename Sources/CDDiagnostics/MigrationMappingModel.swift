import CDArchive
import CDBase
import CDModel
import CDStore
import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What a mapping model says about the two model versions it connects.
///
/// A compiled `.cdm` records, per entity mapping, the version hashes of its source and destination
/// entities (docs/format/model-format.md §3.4). An Xcode `.xcmappingmodel` document is a Core Data
/// XML store whose one `XDDEVMAPPINGMODEL` object holds the paths of both `.xcdatamodel`s; it
/// also archives both models (`sourcemodeldata`, `destinationmodeldata`), but as Xcode's
/// design-time `XDPMModel` class, which cdstore does not decode, so there the path names the version.
package struct MigrationMappingModel: Sendable, Equatable {
    /// The `.cdm` file or `.xcmappingmodel` folder.
    package var path: String
    /// The version name in the source model's path (`Model2` for `…/Model2.xcdatamodel`), if recorded.
    package var sourcePathVersion: String?
    package var destinationPathVersion: String?
    /// Entity name → version hash of each side; empty when the file records none.
    package var sourceHashes: [String: Data]
    package var destinationHashes: [String: Data]

    package init(
        path: String, sourcePathVersion: String? = nil, destinationPathVersion: String? = nil,
        sourceHashes: [String: Data] = [:], destinationHashes: [String: Data] = [:]
    ) {
        self.path = path
        self.sourcePathVersion = sourcePathVersion
        self.destinationPathVersion = destinationPathVersion
        self.sourceHashes = sourceHashes
        self.destinationHashes = destinationHashes
    }

    /// The version of `versions` this mapping starts from: by hashes when recorded (a `.cdm` holds
    /// only the hashes of the entities it maps, so those must agree), else by the path's name.
    package func sourceVersion(in versions: [ModelVersion]) -> String? {
        Self.version(hashes: sourceHashes, pathName: sourcePathVersion, in: versions)
    }

    package func destinationVersion(in versions: [ModelVersion]) -> String? {
        Self.version(hashes: destinationHashes, pathName: destinationPathVersion, in: versions)
    }

    static func version(hashes: [String: Data], pathName: String?, in versions: [ModelVersion]) -> String? {
        if !hashes.isEmpty {
            let matching = versions.filter { version in
                let own = VersionHashes.entityHashes(of: version.model)
                return hashes.allSatisfy { own[$0.key] == $0.value }
            }
            if let match = matching.first { return match.name }
        }
        return pathName.flatMap { name in versions.first { $0.name == name }?.name }
    }
}

/// Finds and reads mapping models (`.cdm`, `.xcmappingmodel`).
package enum MigrationMappingModelReader {
    /// Why a mapping model could not be read. One line, for the user, naming the file.
    package enum Failure: UserFacingError, Equatable, Sendable {
        /// Nothing can be read at `path`.
        case noSuchFile(path: String)
        /// The `.cdm` file is not a keyed archive; `reason` is the archive reader's error.
        case notCompiledMappingModel(path: String, reason: String)
        /// The `.cdm` archive names no entity mapping with version hashes.
        case noEntityMappings(path: String)
        /// `xcmapping.xml` is not XML; `reason` is the parser's error when it gave one.
        case notMappingDocument(path: String, reason: String?)

        package var message: String {
            switch self {
            case .noSuchFile(let path): return StoreError.fileNotFound(path: path).message
            case .notCompiledMappingModel(let path, let reason): return "\(path): not a compiled mapping model (\(reason))"
            case .noEntityMappings(let path): return "\(path): no entity mappings with version hashes"
            case .notMappingDocument(let path, let reason): return "\(path): not a mapping model document (\(reason ?? "unreadable XML"))"
            }
        }
    }

    /// Mapping models next to the model at `modelURL` (in the same folder) and, for a bundle
    /// folder (`.xcdatamodeld`, `.momd`), inside it, where Xcode compiles `.cdm` files. Sorted by path.
    package static func find(near modelURL: URL) -> [URL] {
        var folders = [modelURL.deletingLastPathComponent()]
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: modelURL.path, isDirectory: &isDirectory), isDirectory.boolValue {
            folders.append(modelURL)
        }
        let found = folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { $0.hasSuffix(".cdm") || $0.hasSuffix(".xcmappingmodel") }
                .map { folder.appendingPathComponent($0).standardizedFileURL }
        }
        return Array(Set(found)).sorted { $0.path < $1.path }
    }

    /// Reads a `.cdm` file or an `.xcmappingmodel` folder (or its `xcmapping.xml`).
    package static func read(at url: URL) throws -> MigrationMappingModel {
        if url.pathExtension == "cdm" {
            return try readCompiled(url)
        }
        let document = url.lastPathComponent == "xcmapping.xml" ? url : url.appendingPathComponent("xcmapping.xml")
        guard let data = FileManager.default.contents(atPath: document.path) else {
            throw Failure.noSuchFile(path: document.path)
        }
        let fields = try MigrationMappingDocument.parse(data, path: document.path)
        let folder = url.lastPathComponent == "xcmapping.xml" ? url.deletingLastPathComponent() : url
        return MigrationMappingModel(
            path: folder.path,
            sourcePathVersion: fields.values["sourcemodelpath"].map(versionName(ofPath:)),
            destinationPathVersion: fields.values["destinationmodelpath"].map(versionName(ofPath:)))
    }

    /// `…/Model 2.xcdatamodel` → `Model 2`.
    static func versionName(ofPath path: String) -> String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        return last.hasSuffix(".xcdatamodel") ? String(last.dropLast(".xcdatamodel".count)) : last
    }

    /// Every archived object with an entity name and version hash on either side is an entity
    /// mapping (an added entity has no source, a removed one no destination).
    static func readCompiled(_ url: URL) throws -> MigrationMappingModel {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw Failure.noSuchFile(path: url.path)
        }
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data)
        } catch {
            throw Failure.notCompiledMappingModel(path: url.path, reason: "\(error)")
        }
        var info = MigrationMappingModel(path: url.path)
        for object in archive.objects {
            if let name = archive.decode(object["NSSourceEntityName"]).text,
                let hash = archive.decode(object["NSSourceEntityVersionHash"]).bytes
            {
                info.sourceHashes[name] = hash
            }
            if let name = archive.decode(object["NSDestinationEntityName"]).text,
                let hash = archive.decode(object["NSDestinationEntityVersionHash"]).bytes
            {
                info.destinationHashes[name] = hash
            }
        }
        guard !info.sourceHashes.isEmpty || !info.destinationHashes.isEmpty else {
            throw Failure.noEntityMappings(path: url.path)
        }
        return info
    }
}

private extension ArchivedValue {
    var text: String? { if case .string(let s) = self { return s } else { return nil } }
    var bytes: Data? { if case .data(let d) = self { return d } else { return nil } }
}

/// The `<attribute name="…">value</attribute>` fields of the mapping-model object in an
/// `xcmapping.xml` document (the first occurrence of each name wins: the model paths occur once).
struct MigrationMappingDocument {
    var values: [String: String] = [:]

    static func parse(_ data: Data, path: String) throws -> MigrationMappingDocument {
        let delegate = Collector()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else {
            throw MigrationMappingModelReader.Failure.notMappingDocument(path: path, reason: parser.parserError.map { "\($0)" })
        }
        return MigrationMappingDocument(values: delegate.values)
    }

    private final class Collector: NSObject, XMLParserDelegate {
        static let wanted: Set<String> = ["sourcemodelpath", "destinationmodelpath"]
        var values: [String: String] = [:]
        var current: String?
        var text = ""

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            if elementName == "attribute", let name = attributes["name"], Self.wanted.contains(name), values[name] == nil {
                current = name
                text = ""
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if current != nil { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            if elementName == "attribute", let name = current {
                values[name] = text.trimmingCharacters(in: .whitespacesAndNewlines)
                current = nil
            }
        }
    }
}
