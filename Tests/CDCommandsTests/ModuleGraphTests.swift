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
        #expect(package.count == 24)
        // The C modules (two system libraries, the read-only VFS and the memory shim) have no row
        // of their own: they appear in the Uses column.
        let described = package.filter { !["CZlib", "CEditLine", "CReadOnlyVFS", "CMemory"].contains($0.key) }
        #expect(documented == described)
    }

    /// Files that say what they hold: no source file grows past 600 lines, where a second type or
    /// concern starts to hide in it (split it into `Type+Aspect.swift` files instead).
    @Test func noSourceFileIsOver600Lines() throws {
        let root = Corpus.repositoryRoot
        let paths = FileManager.default.enumerator(atPath: root.appendingPathComponent("Sources").path)?.allObjects as? [String] ?? []
        let swiftFiles = paths.filter { $0.hasSuffix(".swift") }
        #expect(swiftFiles.count > 100)
        for path in swiftFiles {
            let text = try String(contentsOf: root.appendingPathComponent("Sources").appendingPathComponent(path), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            #expect(lines <= 600, "Sources/\(path) has \(lines) lines")
        }
    }

    /// The test oracle (`ObjectGraphEvaluator`) lives in test support, which no product uses.
    @Test func theOracleIsInNoProduct() throws {
        let manifest = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let products = manifest.matches(of: try Regex(#"\.(library|executable)\(name: "[^"]+", targets: \[([^\]]*)\]"#))
        #expect(products.count == 2)
        for product in products {
            #expect(!String(product.output[0].substring ?? "").contains("CDTestSupport"))
        }
        let sources = FileManager.default.enumerator(atPath: Corpus.repositoryRoot.appendingPathComponent("Sources").path)?.allObjects as? [String] ?? []
        #expect(!sources.contains { $0.hasSuffix("ObjectGraphEvaluator.swift") || $0.hasSuffix("ObjectGraphQuirks.swift") })
    }
}
