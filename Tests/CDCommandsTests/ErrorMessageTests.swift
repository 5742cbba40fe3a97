import CDTestSupport
import Foundation
import Testing

/// The errors of the hardening issue: each mistake gets one exact message and exit status
/// instead of a wrong result, a literal placeholder or an SQLite error on the store.
@Suite(.temporaryDirectories) struct ErrorMessageTests {
    /// A copy of a store from `Samples/Stores` (TaskList: entity Task with task_description,
    /// due_date, priority and completed, no relationships; Articles: Author ->> Article).
    static func sample(_ name: String = "TaskList.sqlite") throws -> String {
        let copy = try TemporaryDirectory.make().appendingPathComponent(name)
        try FileManager.default.copyItem(at: Corpus.repositoryRoot.appendingPathComponent("Samples/Stores/\(name)"), to: copy)
        return copy.path
    }

    /// The usage lines ArgumentParser prints under a usage error of `command`.
    static func usage(_ command: String, _ synopsis: String) -> String {
        "Usage: cdstore \(command) \(synopsis)\n  See 'cdstore \(command) --help' for more information.\n"
    }

    static let dumpUsage = usage("dump", "[<options>] <store> [<entities> ...]")

    @Test func unknownTemplateKeyNamesTheProperties() throws {
        let result = CommandRunner.runInProcess(["dump", try Self.sample(), "Task", "--template", "Completed: {complete}"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "cdstore: error: --template {complete}: Task has no property complete; its properties: completed, due_date, priority, task_description\n")
    }

    @Test func templateWithKnownKeysStillPrints() throws {
        let result = CommandRunner.runInProcess(["dump", try Self.sample(), "Task", "--limit", "1", "--template", "{_entity} {priority}"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Task "))
    }

    /// `--limit -1` used to read -1 as an option ("Missing value for '--limit'"); it is a usage
    /// error (64) about the value, in both spellings, for dump and query alike.
    @Test(arguments: [["--limit", "-1"], ["--limit=-1"], ["--offset", "-1"], ["--offset=-1"]])
    func negativeLimitOrOffsetIsRefused(_ option: [String]) throws {
        let name = option[0].split(separator: "=")[0]
        let store = try Self.sample()
        let dump = CommandRunner.runInProcess(["dump", store, "Task"] + option)
        #expect(dump.status == 64)
        #expect(dump.stderr == "cdstore: error: \(name) must be 0 or more, not -1\n" + Self.dumpUsage)
        let query = CommandRunner.runInProcess(["query", store, "--entity", "Task"] + option)
        #expect(query.status == 64)
        #expect(query.stderr == "cdstore: error: \(name) must be 0 or more, not -1\n" + Self.usage("query", "[<options>] <store> [<expression>]"))
    }

    @Test func rawSQLTakesOneStatement() throws {
        let result = CommandRunner.runInProcess(["sql", try Self.sample(), "--raw", "select 1; DELETE FROM ZTASK"])
        #expect(result.status == 2)
        #expect(result.stderr == "cdstore: error: --raw runs exactly one read-only statement; this text holds more than one\n")
    }

    @Test func badRegularExpressionIsAPredicateError() throws {
        let result = CommandRunner.runInProcess(["query", try Self.sample(), "--entity", "Task", "--where", #"task_description MATCHES "(""#])
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                cdstore: error: predicate error at character 25: MATCHES takes an ICU regular expression, and "(" is not a valid one
                  task_description MATCHES "("
                                           ^

                """)
    }

    @Test func predicateTooDeepForSQLiteIsOneLine() throws {
        let predicate = (0..<6000).map { "priority == \($0)" }.joined(separator: " OR ")
        let result = CommandRunner.runInProcess(["query", try Self.sample(), "--entity", "Task", "--where", predicate, "--count"])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "cdstore: error: the predicate is too complex for SQLite (parser stack overflow): list values with IN {…} instead of chaining OR, or split the fetch\n"
        )
    }

    @Test func argumentComparedWithADateMustBeADate() throws {
        let store = try Self.sample()
        let result = CommandRunner.runInProcess(["query", store, "--entity", "Task", "--where", "due_date > %@", "--arg", "not a date"])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "cdstore: error: \"not a date\" is not a date, and due_date is a Date attribute: write a date as 2024-05-31, 2024-05-31T12:00:00 or 2024-05-31T12:00:00+02:00 (UTC without a zone)\n"
        )
        let dated = CommandRunner.runInProcess(["query", store, "--entity", "Task", "--where", "due_date > %@", "--arg", "2000-01-01", "--count"])
        #expect(dated.status == 0, "\(dated.stderr)")
    }

    @Test(arguments: ["sum", "avg"])
    func sumOrAverageOfTextIsRefused(_ function: String) throws {
        let result = CommandRunner.runInProcess(["query", try Self.sample(), "--entity", "Task", "--aggregate", "\(function):task_description"])
        let name = function == "avg" ? "average" : function
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "cdstore: error: \(name):task_description: task_description is a String attribute; \(name) takes a number (min and max also take dates and strings)\n"
        )
    }

    @Test func maximumOfADateIsAllowed() throws {
        let result = CommandRunner.runInProcess(["query", try Self.sample(), "--entity", "Task", "--aggregate", "max:due_date"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func unknownIncludeNamesTheToManyRelationships() throws {
        let tasks = CommandRunner.runInProcess(["dump", try Self.sample(), "Task", "--include", "nothing"])
        #expect(tasks.status == 2)
        #expect(tasks.stderr == "cdstore: error: --include nothing: not a to-many relationship of Task; it has no to-many relationships\n")
        let authors = CommandRunner.runInProcess(["query", try Self.sample("Articles.sqlite"), "--entity", "Author", "--include", "nothing"])
        #expect(authors.status == 2)
        #expect(authors.stderr == "cdstore: error: --include nothing: not a to-many relationship of Author; to-many relationships: articles\n")
    }

    /// An 80 KB predicate is echoed as 60 characters each side of the caret, with … marks.
    @Test func longPredicateIsEchoedAroundTheCaret() throws {
        let filler = String(repeating: "priority == 1 AND ", count: 4500)
        let predicate = filler + "priority === 2 AND " + filler + "completed == YES"
        let result = CommandRunner.runInProcess(["query", try Self.sample(), "--entity", "Task", "--where", predicate])
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("  …") && lines[1].hasSuffix("…") && lines[1].count == 2 + 1 + 120 + 1)
        #expect(lines[1].contains("priority === 2 AND "))
        #expect(lines[2] == "  " + String(repeating: " ", count: 61) + "^")
    }

    /// The table format is left out: its header already shows the fetch ran.
    @Test(arguments: ["description", "expanded", "line"])
    func emptyResultSaysNoObjects(_ format: String) throws {
        let result = CommandRunner.runInProcess(["query", try Self.sample(), "--entity", "Task", "--where", "priority > 100", "--format", format])
        #expect(result.status == 0)
        #expect(result.stdout == "(no objects)\n")
    }

    @Test func emptyResultKeepsMachineReadableForms() throws {
        let store = try Self.sample()
        let json = CommandRunner.runInProcess(["query", store, "--entity", "Task", "--where", "priority > 100", "--format", "json"])
        #expect(json.stdout == "[]\n")
        let ndjson = CommandRunner.runInProcess(["query", store, "--entity", "Task", "--where", "priority > 100", "--format", "ndjson"])
        #expect(ndjson.stdout == "")
    }

    @Test func explainPromptsAtATerminal() {
        let typed = CommandRunner.runInProcess(["explain", "-"], stdin: Data("CoreData: error: (522) I/O error".utf8), stdinIsTerminal: true)
        #expect(typed.stderr.hasPrefix("Paste the error, then press Ctrl-D\n"))
        let piped = CommandRunner.runInProcess(["explain", "-"], stdin: Data("CoreData: error: (522) I/O error".utf8))
        #expect(!piped.stderr.contains("Paste the error"))
    }

    @Test func createRefusesAVersionBelowOne() throws {
        let target = try TemporaryDirectory.make().appendingPathComponent("new.sqlite").path
        let result = CommandRunner.runInProcess(["create", target, "--model", try Self.sample(), "--framework-version", "-5"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("cdstore: error: --framework-version must be 1 or more (default 1522), not -5\nUsage: cdstore create"))
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func createRefusesAnEmptyPath() throws {
        let result = CommandRunner.runInProcess(["create", "", "--model", try Self.sample()])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("cdstore: error: the store path is empty: give the file to create\nUsage: cdstore create"))
    }

    /// Usage errors read like every other error: `cdstore: error:`, ArgumentParser's usage lines
    /// under it, exit 64; help keeps its own text on standard output.
    @Test func usageErrorsUseTheToolPrefix() {
        let result = CommandRunner.runInProcess(["dump"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("cdstore: error: Missing expected argument '<store>'\n"))
        #expect(result.stderr.hasSuffix(Self.dumpUsage))
        let help = CommandRunner.runInProcess(["dump", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: "))
    }
}
