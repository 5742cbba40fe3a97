import CDTestSupport
import Foundation
import Testing

/// man/cdstore.1 is the full reference: every command has its entry in COMMANDS, in the words of
/// `--help` (its abstract, its arguments and long options); README.md's command table names every
/// command with its abstract and points to that entry.
@Suite struct DocumentationTests {
    struct HelpEntry: Sendable, CustomStringConvertible {
        let command: String
        let text: String
        var description: String { "\(command): \(text)" }
    }

    /// Each subcommand's abstract, and its arguments' abstracts and long option names, from
    /// ArgumentParser's own dump of the command tree.
    static let help: [HelpEntry] = {
        let result = CommandRunner.runInProcess(["--experimental-dump-help"])
        guard let json = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            let root = json["command"] as? [String: Any]
        else { return [] }
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

    /// The subcommands, in `--help`'s order.
    static let subcommands: [String] = help.reduce(into: []) { names, entry in
        if names.last != entry.command { names.append(entry.command) }
    }

    /// The commands that take `--sql-debug`.
    static let sqlDebugCommands: Set<String> = Set(help.filter { $0.text == "--sql-debug" }.map(\.command))

    /// Options every command (or every SQL-logging command) shares: the man page gives them once,
    /// under OPTIONS, instead of in each command's entry.
    static let commonOptionTexts: Set<String> = [
        "--help", "Show help information.", "The same, spelled as an Xcode scheme's launch argument.",
        "--color", "When to colour the output: auto (on a terminal, unless NO_COLOR is set), always or never.",
    ]

    static func read(_ relativePath: String) -> String {
        (try? String(contentsOf: Corpus.repositoryRoot.appendingPathComponent(relativePath), encoding: .utf8)) ?? ""
    }

    /// roff source with escapes and font changes removed.
    static func plain(_ roff: some StringProtocol) -> String {
        String(roff).replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\&", with: "")
            .replacingOccurrences(of: "\\(dq", with: "\"")
            .replacingOccurrences(of: "\\fB", with: "").replacingOccurrences(of: "\\fI", with: "")
            .replacingOccurrences(of: "\\fR", with: "").replacingOccurrences(of: "\\fP", with: "")
    }

    static let manSource = read("man/cdstore.1")

    /// The source lines of a `.SH` section of man/cdstore.1, without its heading.
    static func manSection(_ title: String) -> [Substring] {
        let lines = manSource.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == ".SH \(title)" || $0 == ".SH \"\(title)\"" }) else { return [] }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix(".SH ") } ?? lines.endIndex
        return Array(lines[(start + 1)..<end])
    }

    /// Each command's entry in COMMANDS, as plain text: from the `.TP` and `.BI "name ..."` that
    /// start it to the start of the next command's entry. An entry that lacks its `.TP` (and so
    /// runs into the paragraph before it) is not found.
    static let commandEntries: [String: String] = {
        let lines = manSection("COMMANDS")
        func command(startingAt index: Int) -> String? {
            guard index > 0, lines[index - 1] == ".TP" else { return nil }
            return subcommands.first { lines[index].hasPrefix(".BI \"\($0) ") }
        }
        let starts = lines.indices.compactMap { index in command(startingAt: index).map { (index, $0) } }
        var entries: [String: String] = [:]
        for (position, (index, name)) in starts.enumerated() {
            let end = position + 1 < starts.count ? starts[position + 1].0 - 1 : lines.endIndex
            entries[name] = plain(lines[index..<end].joined(separator: "\n"))
        }
        return entries
    }()

    /// Lower-case words of a text, for "does this section name that command": whitespace-separated
    /// tokens of letters only once punctuation around them is cut, so "journal_mode=wal" names
    /// no `wal` command.
    static func words(_ text: String) -> Set<String> {
        Set(
            text.split(whereSeparator: \.isWhitespace).map { $0.trimmingCharacters(in: CharacterSet.letters.inverted) }
                .filter { !$0.isEmpty && $0.allSatisfy(\.isLetter) && $0 == $0.lowercased() })
    }

    @Test func helpWasRead() {
        #expect(Self.subcommands.count >= 15)
        #expect(Self.help.contains { $0.command == "inspect" && $0.text == "--no-counts" })
        #expect(Self.sqlDebugCommands == ["inspect", "model", "dump", "query", "sql", "validate", "compat", "clean", "diff"])
    }

    @Test(arguments: subcommands)
    func everyCommandHasItsEntryUnderCommands(_ name: String) {
        #expect(Self.commandEntries[name] != nil, "man/cdstore.1 has no .TP entry for \(name) in COMMANDS")
    }

    @Test(arguments: help)
    func manPageSaysTheSame(_ entry: HelpEntry) throws {
        if Self.commonOptionTexts.contains(entry.text) {
            #expect(Self.plain(Self.manSection("OPTIONS").joined(separator: "\n")).contains(entry.text), "OPTIONS lacks: \(entry)")
        } else {
            let text = try #require(Self.commandEntries[entry.command], "no entry for \(entry.command)")
            // Options shared with another command may be described there: "As for dump." Their
            // names must still be listed in this command's entry.
            let referenced = entry.text.hasPrefix("--") ? [] : text.matches(of: /As for\s+(?:\.BR?\s+)?(\w+)/).map { String($0.output.1) }
            let described = text.contains(entry.text) || referenced.contains { Self.commandEntries[$0]?.contains(entry.text) == true }
            #expect(described, "the entry of \(entry.command) in man/cdstore.1 lacks: \(entry.text)")
        }
    }

    /// SQL DEBUG LOG and the `--sql-debug` item of OPTIONS name exactly the commands that take it.
    @Test(arguments: ["SQL DEBUG LOG", "OPTIONS"])
    func sqlDebugCommandsAreListed(_ title: String) {
        let section = Self.plain(Self.manSection(title).joined(separator: " "))
        let named = Set(Self.subcommands).intersection(Self.words(section))
        #expect(named == Self.sqlDebugCommands, "\(title) names \(named.sorted())")
    }

    /// README.md's table row for the command: `| \`cdstore NAME …\` | abstract | [cdstore(1) › NAME](man/cdstore.1) |`.
    @Test(arguments: subcommands)
    func readmeTablePointsToTheManPage(_ name: String) throws {
        let rows = Self.read("README.md").split(separator: "\n").filter { $0.hasPrefix("| `cdstore \(name)") }
        let row = try #require(rows.count == 1 ? rows.first : nil, "README.md needs one command-table row for \(name)")
        let abstract = try #require(Self.help.first { $0.command == name }?.text)
        #expect(row.contains("| \(abstract) |"), "README.md's row for \(name) lacks its --help abstract")
        #expect(row.contains("[cdstore(1) › \(name)](man/cdstore.1)"), "README.md's row for \(name) does not point to its man page entry")
    }

    /// serve's URL scheme: every page in Route.swift's doc comment is in README.md's route list
    /// in the same words, and has its entry under serve in man/cdstore.1 (`.BI /stores/ store /model`).
    @Test func serveRoutesAreDocumented() {
        let routes = Self.read("Sources/CDServe/Route.swift").split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("///     /") ? String(line.dropFirst(8)) : nil
        }
        #expect(routes.count >= 12)
        let readme = Self.read("README.md")
        let manEntries = Set(
            Self.manSource.split(separator: "\n").compactMap { line -> String? in
                line.hasPrefix(".B /") ? String(line.dropFirst(3)) : line.hasPrefix(".BI /") ? String(line.dropFirst(4)) : nil
            })
        for route in routes {
            #expect(readme.contains("\n" + route + "\n"), "README.md's route list lacks \(route)")
            guard let path = route.split(separator: " ").first, !path.hasPrefix("/-/") else { continue }
            let roff = path.replacingOccurrences(of: "{", with: " ").replacingOccurrences(of: "}", with: " ").trimmingCharacters(in: .whitespaces)
            #expect(manEntries.contains(roff), "man/cdstore.1 has no entry .BI \(roff) for \(route)")
        }
    }

    /// The macOS and Swift versions the README promises are Package.swift's: `platforms` and the
    /// tools version, stated there once.
    @Test func readmeStatesPackageSwiftsPlatforms() throws {
        let manifest = Self.read("Package.swift")
        let macOS = try #require(manifest.firstMatch(of: /\.macOS\(\.v(\d+)\)/)?.1)
        let tools = try #require(manifest.firstMatch(of: /swift-tools-version:(\d+\.\d+)/)?.1)
        let readme = Self.read("README.md")
        #expect(readme.contains("builds with Swift \(tools) or later, on Linux and on macOS \(macOS) or later"))
        #expect(readme.firstMatch(of: /macOS 1\d or later/)?.0 == "macOS \(macOS) or later")
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
