import CDTestSupport
import Foundation
import Testing

/// `--help`, README.md and man/cdstore.1 describe every command and option in the same words.
@Suite struct DocumentationTests {
    struct HelpEntry: Sendable, CustomStringConvertible {
        let command: String
        let text: String
        var description: String { "\(command): \(text)" }
    }

    /// Abstracts and option names of every subcommand, from ArgumentParser's own dump.
    static let help: [HelpEntry] = {
        let result = CommandRunner.runInProcess(["--experimental-dump-help"])
        guard let json = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let root = json["command"] as? [String: Any] else { return [] }
        var entries: [HelpEntry] = []
        for command in root["subcommands"] as? [[String: Any]] ?? [] {
            let name = command["commandName"] as? String ?? ""
            guard name != "help" else { continue }
            if let abstract = command["abstract"] as? String { entries.append(HelpEntry(command: name, text: abstract)) }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                if let abstract = argument["abstract"] as? String { entries.append(HelpEntry(command: name, text: abstract)) }
                for option in argument["names"] as? [[String: Any]] ?? [] {
                    guard let optionName = option["name"] as? String, option["kind"] as? String == "long" else { continue }
                    entries.append(HelpEntry(command: name, text: "--" + optionName))
                }
            }
        }
        return entries
    }()

    static func read(_ relativePath: String) -> String {
        (try? String(contentsOf: Corpus.repositoryRoot.appendingPathComponent(relativePath), encoding: .utf8)) ?? ""
    }

    /// The man page source with roff escapes and font changes removed, lines joined.
    static let manText: String = read("man/cdstore.1")
        .replacingOccurrences(of: "\\-", with: "-")
        .replacingOccurrences(of: "\\fB", with: "").replacingOccurrences(of: "\\fI", with: "")
        .replacingOccurrences(of: "\\fR", with: "")

    @Test func helpWasRead() {
        #expect(Self.help.count >= 8)
        #expect(Self.help.contains { $0.command == "inspect" && $0.text == "--no-counts" })
    }

    @Test(arguments: help)
    func readmeSaysTheSame(_ entry: HelpEntry) {
        #expect(Self.read("README.md").contains(entry.text), "README.md lacks: \(entry)")
    }

    @Test(arguments: help)
    func manPageSaysTheSame(_ entry: HelpEntry) {
        #expect(Self.manText.contains(entry.text), "man/cdstore.1 lacks: \(entry)")
    }

    @Test(arguments: ["man/cdstore.1", "man/cdstore-troubleshooting.7"])
    func manPageRendersCleanly(_ page: String) throws {
        let groff = ["/usr/bin/groff", "/usr/local/bin/groff", "/opt/homebrew/bin/groff"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        try #require(groff != nil, "groff is needed to check the man page (Debian: groff-base)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: groff!)
        process.arguments = ["-man", "-Tutf8", "-ww", "-z", Corpus.repositoryRoot.appendingPathComponent(page).path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let warnings = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(warnings.isEmpty, "groff: \(warnings)")
    }
}
