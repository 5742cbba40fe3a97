import ArgumentParser
import CDBase
import CDChanges
import CDRendering
import CDStore
import Foundation

struct WatchCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow a store while an app writes to it: each commit's inserts, updates (old and new values) and deletes.",
        discussion: """
            Polls the store's files; when they change, reads a fresh private read-only copy and \
            reports what each commit did: inserted objects in Core Data's description form, \
            updated objects with every changed attribute as old → new, deleted objects. Uses the \
            persistent history when the store keeps it, otherwise compares Z_PK and Z_OPT of each \
            watched entity between two copies. The app is never disturbed: no lock is held between \
            polls, nothing is checkpointed or written. A large store is copied on every poll that \
            sees a change. Ctrl-C stops and removes the copies.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @Argument(help: ArgumentHelp("Entities to watch, with their sub-entities (default: all).", valueName: "entity"), completion: ShellCompletion.entityName)
    var entities: [String] = []

    @OptionGroup var modelOptions: ModelOptions

    @Option(name: .long, help: ArgumentHelp("Seconds between polls (default 1).", valueName: "seconds"))
    var interval: Double = 1

    @Flag(name: .long, help: "Print one JSON object per change, one per line.")
    var json = false

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        guard interval >= 0.05, interval <= 3600 else { throw ValidationError("--interval must be between 0.05 and 3600 seconds") }
    }

    func run() throws {
        let stop = StopSignal()
        let watcher = try StoreWatcher(path: store, entities: entities, modelPath: modelOptions.model)
        let method = watcher.usesHistory ? "persistent history" : "comparing snapshots"
        Output.message("Watching \(store) (\(method)), every \(ValueText.number(interval)) s; Ctrl-C stops.")
        var lastProblem: String?
        while !stop.isSet {
            do {
                for commit in try watcher.poll() {
                    Output.write(json ? WatchText.jsonLines(commit) : WatchText.render(commit))
                }
                lastProblem = nil
            } catch {
                // A copy taken while the app checkpoints can be unreadable; the next poll retries.
                let problem = "\(error)"
                if problem != lastProblem {
                    Output.message("cdstore: warning: \(problem); retrying")
                }
                lastProblem = problem
            }
            stop.wait(seconds: interval)
        }
    }
}

/// Set by Ctrl-C (SIGINT) or SIGTERM, so the watch loop ends normally and every private copy is
/// removed on the way out instead of being left in the temporary folder.
final class StopSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.set() }
            source.resume()
            sources.append(source)
        }
    }

    var isSet: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    func set() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps for `seconds` or until the signal comes.
    func wait(seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        while !stopped, condition.wait(until: deadline) {}
        condition.unlock()
    }
}

/// The text and JSON-lines forms of watched commits.
enum WatchText {
    static func render(_ commit: WatchedCommit) -> String {
        let counts = ChangeType.allCases.map { type in plural(commit.changes.filter { $0.type == type }.count, type.rawValue) }
        var lines = [
            (commit.transaction.map(HistoryText.summary)
                ?? "Commit seen \(ValueText.isoDate(Date().timeIntervalSinceReferenceDate.rounded(.down))) — " + counts.joined(separator: ", "))
        ]
        var describer = DescriptionRenderer()
        for change in commit.changes {
            switch change.type {
            case .insert, .delete:
                let verb = change.type == .insert ? "inserted" : "deleted"
                if let object = change.object {
                    lines.append(
                        "  \(verb) "
                            + describer.render(object).trimmingCharacters(in: .newlines)
                            .replacingOccurrences(of: "\n", with: "\n  "))
                } else {
                    lines.append("  \(verb) \(change.id.uri)")
                }
            case .update:
                lines.append("  updated \(change.id.uri)" + (change.note.map { " (\($0))" } ?? ""))
                for property in change.changes {
                    lines.append("    \(property.name): \(DescriptionRenderer.changeText(property.old)) → \(DescriptionRenderer.changeText(property.new))")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func jsonLines(_ commit: WatchedCommit) -> String {
        let values = JSONValues()
        return commit.changes.map { change in
            var fields = [
                "\"type\":\(JSONValues.string(change.type.rawValue))",
                "\"entity\":\(JSONValues.string(change.id.entity))",
                "\"objectID\":\(JSONValues.string(change.id.uri))",
                "\"transaction\":" + (commit.transaction.map { String($0.id) } ?? "null"),
            ]
            if let transaction = commit.transaction {
                fields.append("\"author\":" + (transaction.author.map(JSONValues.string) ?? "null"))
                fields.append("\"date\":" + (transaction.date.map(JSONValues.string) ?? "null"))
            }
            if let object = change.object { fields.append("\"object\":" + values.object(object)) }
            if change.type == .update {
                let entries = change.changes.map { property in
                    JSONValues.string(property.name) + ":{\"old\":" + (property.old.flatMap(values.json) ?? "null")
                        + ",\"new\":" + (property.new.flatMap(values.json) ?? "null") + "}"
                }
                fields.append("\"changes\":{" + entries.joined(separator: ",") + "}")
            }
            if let note = change.note { fields.append("\"note\":" + JSONValues.string(note)) }
            return "{" + fields.joined(separator: ",") + "}\n"
        }.joined()
    }
}
