import CDTestSupport
import Foundation
import Testing

/// CONTRIBUTING.md's "How it is built" table names, for every module, exactly the modules
/// `Package.swift` lets it use, so the picture of the layers cannot drift from the build.
@Suite struct ModuleGraphTests {
    /// Each source target of `Package.swift` with the targets it depends on.
    static func packageGraph() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        // `name:` may follow on the next line, as swift-format breaks a long declaration.
        let declaration = try Regex(#"(?m)^\s+\.(target|executableTarget|systemLibrary|testTarget)\(\s*name: "([A-Za-z]+)""#)
        let matches = manifest.matches(of: declaration)
        let names = Set(matches.compactMap { $0.output[2].substring.map(String.init) })
        var graph: [String: Set<String>] = [:]
        for (index, match) in matches.enumerated() where match.output[1].substring != "testTarget" {
            guard let name = match.output[2].substring.map(String.init) else { continue }
            let end = index + 1 < matches.count ? matches[index + 1].range.lowerBound : manifest.endIndex
            let body = manifest[match.range.upperBound..<end]
            let quoted = body.matches(of: try Regex(#""([A-Za-z]+)""#)).compactMap { $0.output[1].substring.map(String.init) }
            graph[name] = Set(quoted.filter { names.contains($0) && $0 != name && $0 != "CDTestSupport" })
        }
        graph["CDTestSupport"] = nil
        return graph
    }

    /// The CONTRIBUTING.md table's rows: module → the modules in its "Uses" column.
    static func documentedGraph() throws -> [String: Set<String>] {
        let text = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("CONTRIBUTING.md"), encoding: .utf8)
        var graph: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `CD") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let module = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let uses = cells[2] == "—" ? [] : cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            graph[module] = Set(uses)
        }
        return graph
    }

    @Test func contributingTableIsPackageSwift() throws {
        let package = try Self.packageGraph()
        let documented = try Self.documentedGraph()
        #expect(package.count == 22)
        // The C modules (two system libraries and the read-only VFS) have no row of their own:
        // they appear in the Uses column.
        let described = package.filter { !["CZlib", "CEditLine", "CReadOnlyVFS"].contains($0.key) }
        #expect(documented == described)
    }
}
