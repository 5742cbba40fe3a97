import CDConsole
import CDTestSupport
import Foundation
import Testing

/// The manual page describes every dot-command in the words of `.help`, and the README's console
/// transcript is real.
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

    /// README.md's console section shows a session fed on standard input: the script after
    /// `$ cat session.txt`, the command that runs it on a sample store, and its output. Running
    /// that script on a copy of that store prints exactly that output.
    @Test(.temporaryDirectories) func readmeTranscriptIsWhatTheConsolePrints() throws {
        let lines = Self.read("README.md").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "$ cat session.txt"), "README.md has no console transcript")
        let run = try #require(lines[start...].firstIndex { $0.hasPrefix("$ cdstore console Samples/Stores/") })
        let end = try #require(lines[run...].firstIndex(of: "```"))
        let words = lines[run].split(separator: " ").map(String.init)
        #expect(words.dropFirst(4) == ["<", "session.txt", "2>&1"])
        let store = try TranscriptTests.sample(String(words[3].dropFirst("Samples/Stores/".count)))
        let result = try TranscriptTests.transcript(store: store, script: lines[(start + 1)..<run].joined(separator: "\n") + "\n")
        #expect(result.text == lines[(run + 1)..<end].joined(separator: "\n") + "\n")
        #expect(result.status == 1, "the session ends with an error, so the console exits with 1")
    }

    @Test func troubleshootingHasTheConsoleRecipes() {
        let page = Self.read("man/cdstore-troubleshooting.7")
        for recipe in [".explain 1570", ".compat App.xcdatamodeld", "Where did my rows go?"] {
            #expect(page.contains(recipe))
        }
    }
}
