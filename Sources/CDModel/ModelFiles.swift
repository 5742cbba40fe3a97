import CDArchive
import CDBase
import Foundation

/// Loads every version a model file or bundle holds: `.xcdatamodeld`, `.xcdatamodel`, a bare
/// `contents` file, `.momd` and `.mom` (docs/format/model-format.md §1, §3), and ruby-xcdm
/// schemas: one `.rb` file or a folder of them (§7).
public enum ModelFiles {
    /// The kinds of path this reader understands, by name and layout.
    public static func canRead(_ url: URL) -> Bool {
        ["xcdatamodeld", "xcdatamodel", "momd", "mom", "rb"].contains(url.pathExtension) || url.lastPathComponent == "contents"
            || RubyXcdmSchemaReader.isSchemasFolder(url)
    }

    /// Every version the model file, bundle or schema folder at `url` holds, each flagged current
    /// as its source marks it; a single file (`.mom`, `.xcdatamodel`, `contents`, `.rb`) is one
    /// current version.
    public static func versions(at url: URL) throws -> [ModelVersion] {
        switch url.pathExtension {
        case "xcdatamodeld": return try sourceBundle(url)
        case "xcdatamodel": return [ModelVersion(name: url.deletingPathExtension().lastPathComponent, current: true, model: try sourceVersion(url))]
        case "momd": return try compiledBundle(url)
        case "mom": return [ModelVersion(name: url.deletingPathExtension().lastPathComponent, current: true, model: try compiledModel(url))]
        // Schemas are read in the current Xcode style (no Xcode version; see RubyXcdmSchemaReader).
        case "rb": return [try RubyXcdmSchemaReader.version(fromSchemaAt: url)]
        default:
            if RubyXcdmSchemaReader.isSchemasFolder(url) {
                return try RubyXcdmSchemaReader.versions(inSchemasFolder: url)
            }
            guard url.lastPathComponent == "contents" else { throw ModelError.notAModel(path: url.path, reason: "not a model file") }
            let name = url.deletingLastPathComponent().deletingPathExtension().lastPathComponent
            return [ModelVersion(name: name, current: true, model: try xml(url))]
        }
    }

    /// Version names sort the way Finder shows them: "Model", "Model 2", …, "Model 10".
    static func finderOrder(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: [.numeric, .caseInsensitive]) == .orderedAscending
    }

    private static func sourceBundle(_ url: URL) throws -> [ModelVersion] {
        let names = try versionNames(in: url, extension: "xcdatamodel")
        guard !names.isEmpty else { throw ModelError.noVersion(bundle: url.path, kind: "xcdatamodel") }
        let current = currentVersionName(url)
        return try names.map { name in
            let isCurrent = current.map { $0 == name } ?? (names.count == 1)
            return ModelVersion(name: name, current: isCurrent, model: try sourceVersion(url.appendingPathComponent(name + ".xcdatamodel")))
        }
    }

    /// `.xccurrentversion` names the current version directory, extension included (§1).
    private static func currentVersionName(_ bundle: URL) -> String? {
        guard let data = try? Data(contentsOf: bundle.appendingPathComponent(".xccurrentversion")),
            let plist = try? PropertyList.decode(data),
            let name = plist["_XCCurrentVersionName"]?.stringValue
        else { return nil }
        return name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
    }

    private static func sourceVersion(_ url: URL) throws -> ManagedObjectModel {
        let contentsFile = url.appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contentsFile.path) { return try xml(contentsFile) }
        if LegacyElementsReader.isLegacyBundle(url) {
            do {
                return try LegacyElementsReader.model(fromBundleAt: url)
            } catch let error as ModelError {
                throw ModelError.legacyUnreadable(bundle: url.path, reason: error.message)
            }
        }
        throw ModelError.noContents(bundle: url.path)
    }

    private static func xml(_ url: URL) throws -> ManagedObjectModel {
        do {
            return try XMLModelReader.model(fromXML: try read(url))
        } catch let error as ModelError {
            throw error.inFile(url.path)
        }
    }

    /// `.omo` files use an undocumented layout; Core Data itself falls back to the `.mom` (§3.1).
    private static func compiledBundle(_ url: URL) throws -> [ModelVersion] {
        let names = try versionNames(in: url, extension: "mom")
        guard !names.isEmpty else { throw ModelError.noVersion(bundle: url.path, kind: "mom") }
        var current: String?
        if let data = try? Data(contentsOf: url.appendingPathComponent("VersionInfo.plist")),
            let info = try? PropertyList.decode(data)
        {
            current = info["NSManagedObjectModel_CurrentVersionName"]?.stringValue
        }
        return try names.map { name in
            let isCurrent = current.map { $0 == name } ?? (names.count == 1)
            return ModelVersion(name: name, current: isCurrent, model: try compiledModel(url.appendingPathComponent(name + ".mom")))
        }
    }

    private static func compiledModel(_ url: URL) throws -> ManagedObjectModel {
        do {
            return try ArchivedModelReader.model(fromArchive: try read(url))
        } catch let error as ModelError {
            throw error.inFile(url.path)
        }
    }

    private static func read(_ url: URL) throws -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw ModelError.unreadable(
                path: url.path, reason: "cannot read (\(FileManager.default.fileExists(atPath: url.path) ? "permission denied" : "no such file"))")
        }
    }

    /// Names (without extension) of the versions in a bundle, in Finder order.
    private static func versionNames(in bundle: URL, extension pathExtension: String) throws -> [String] {
        try contents(of: bundle).filter { $0.hasSuffix("." + pathExtension) }
            .map { String($0.dropLast(pathExtension.count + 1)) }
            .sorted(by: finderOrder)
    }

    private static func contents(of directory: URL) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw ModelError.unreadable(path: directory.path, reason: "cannot list the bundle")
        }
    }
}
