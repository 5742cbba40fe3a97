import CDDiagnostics
import CDTestSupport
import Foundation
import Testing

/// The catalogue covers every code of ../shared/reference/errors.md (docs/format/errors.md), and every section it names exists in
/// the troubleshooting page.
@Suite struct CatalogueTests {
    struct ListedCode: Sendable, CustomStringConvertible {
        let code: Int
        let name: String?
        let table: String
        var description: String { "\(table): \(code) \(name ?? "")" }
    }

    static let errorsMarkdown: String? = try? String(
        contentsOf: Corpus.root.deletingLastPathComponent().appendingPathComponent("reference/errors.md"), encoding: .utf8)

    /// The code tables of §1.1, §1.2, §1.3 and §4: every row whose first cell is a number.
    static let listed: [ListedCode] = {
        guard let text = errorsMarkdown else { return [] }
        var result: [ListedCode] = []
        var heading = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") { heading = String(line) }
            guard heading.hasPrefix("### 1.") || heading.hasPrefix("## 4."), line.hasPrefix("| ") else { continue }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = cells.first, let code = Int(first) else { continue }
            let second = cells.count > 1 ? cells[1] : ""
            let name = second.firstMatch(of: /`([A-Za-z_]+)`/).map { String($0.output.1) }
            result.append(ListedCode(code: code, name: name, table: heading))
        }
        return result
    }()

    @Test func referenceWasRead() throws {
        try #require(Self.errorsMarkdown != nil, "../shared/reference/errors.md is needed beside the corpus")
        #expect(Self.listed.count >= 55)
        #expect(Self.listed.contains { $0.code == 6922 && $0.name == "SQLITE_IOERR_VNODE" })
    }

    @Test(arguments: listed)
    func everyListedCodeIsCatalogued(_ listed: ListedCode) throws {
        let entry = try #require(ErrorCatalogue.entry(code: listed.code), "missing from the catalogue: \(listed)")
        if let name = listed.name { #expect(entry.name == name) }
        #expect(!entry.meaning.isEmpty)
        #expect(!entry.causes.isEmpty)
        #expect(!entry.fixes.isEmpty)
    }

    @Test func codesAreUnique() {
        #expect(Set(ErrorCatalogue.entries.map(\.code)).count == ErrorCatalogue.entries.count)
    }

    @Test func lookupByNumberNameAndDomain() {
        #expect(ErrorCatalogue.lookup("1570")?.name == "NSValidationMissingMandatoryPropertyError")
        #expect(ErrorCatalogue.lookup("sqlite_busy")?.code == 5)
        #expect(ErrorCatalogue.lookup("NSSQLiteErrorDomain:522")?.name == "SQLITE_IOERR_SHORT_READ")
        #expect(ErrorCatalogue.lookup("NSCocoaErrorDomain:522") == nil)
        #expect(ErrorCatalogue.lookup("99999") == nil)
        #expect(ErrorCatalogue.sqliteExtended(266)?.section == .ioError)
        #expect(ErrorCatalogue.sqliteExtended(1570) == nil)
    }

    /// The store/model errors `compat` predicts say which compat command shows them, and that
    /// `reset` (dry run first) clears them during development.
    @Test(arguments: [134100, 134110, 134130, 134140, 134190])
    func migrationErrorsPointToCompatAndReset(_ code: Int) throws {
        let entry = try #require(ErrorCatalogue.entry(code: code))
        #expect(entry.diagnose.contains { $0.hasPrefix("cdstore compat STORE --model MODEL") })
        let fixes = entry.fixes.joined(separator: " ")
        #expect(fixes.contains("cdstore reset STORE --dry-run"))
        #expect(fixes.contains("cdstore reset STORE removes"))
    }

    /// The troubleshooting page has a `.SS` for every section the catalogue points to.
    @Test(arguments: TroubleshootingSection.allCases)
    func sectionExistsInTheManPage(_ section: TroubleshootingSection) throws {
        let page = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("man/cdstore-troubleshooting.7"), encoding: .utf8)
        let titles = page.split(separator: "\n").filter { $0.hasPrefix(".SS ") }
            .map { $0.dropFirst(4).replacingOccurrences(of: "\"", with: "").replacingOccurrences(of: "\\-", with: "-") }
        #expect(titles.contains(section.rawValue), "man/cdstore-troubleshooting.7 lacks .SS \"\(section.rawValue)\"")
    }
}
