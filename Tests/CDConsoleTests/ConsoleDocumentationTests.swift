import CDConsole
import CDTestSupport
import Foundation
import Testing

/// The manual page and the README describe every dot-command in the words of `.help`.
@Suite struct ConsoleDocumentationTests {
    static func read(_ relativePath: String) -> String {
        (try? String(contentsOf: Corpus.repositoryRoot.appendingPathComponent(relativePath), encoding: .utf8)) ?? ""
    }

    /// The man page source with roff escapes and font changes removed, lines joined.
    static let manText = read("man/cdstore.1")
        .replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\&", with: "")
        .replacingOccurrences(of: "\\(dq", with: "\"")
        .replacingOccurrences(of: "\\fB", with: "").replacingOccurrences(of: "\\fI", with: "")
        .replacingOccurrences(of: "\\fR", with: "")

    @Test(arguments: DotCommand.all.map(\.name))
    func manPageDocumentsTheDotCommand(_ name: String) throws {
        let command = try #require(DotCommand.named(name))
        // The usage is set as `.BI ".name " "ARGUMENTS"`: name and arguments in two quoted words.
        let usage = command.arguments.isEmpty ? ".B " + command.name : ".BI \"" + command.name + " \" \"" + command.arguments + "\""
        #expect(Self.manText.contains(usage), "man/cdstore.1 lacks the usage of \(name): \(usage)")
        #expect(Self.manText.contains(command.help), "man/cdstore.1 lacks the help of \(name): \(command.help)")
    }

    @Test func readmeShowsTheHelp() {
        #expect(Self.read("README.md").contains(DotCommand.helpText))
    }

    @Test func troubleshootingHasTheConsoleRecipes() {
        let page = Self.read("man/cdstore-troubleshooting.7")
        for recipe in [".explain 1570", ".compat App.xcdatamodeld", "Where did my rows go?"] {
            #expect(page.contains(recipe))
        }
    }
}
