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
        var json = JSONWriter()
        for change in commit.changes {
            json.beginObject()
            json.member("type", change.type.rawValue)
            json.member("entity", change.id.entity)
            json.member("objectID", change.id.uri)
            json.key("transaction")
            if let transaction = commit.transaction {
                json.int(transaction.id)
                json.member("author", transaction.author)
                json.member("date", transaction.date)
            } else {
                json.null()
            }
            if let object = change.object {
                json.key("object")
                values.write(object, to: &json)
            }
            if change.type == .update {
                json.key("changes")
                json.beginObject()
                for property in change.changes {
                    values.beginChange(property.name, old: property.old, new: property.new, to: &json)
                    json.endObject()
                }
                json.endObject()
            }
            if let note = change.note { json.member("note", note) }
            json.endObject()
            json.endLine()
        }
        return json.text
    }
}
