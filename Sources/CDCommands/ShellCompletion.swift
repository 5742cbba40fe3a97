import ArgumentParser
import CDMapping
import CDSession
import Foundation

/// What a shell offers on Tab for the commands' arguments, in the scripts
/// `cdstore --generate-completion-script bash|zsh|fish` writes.
///
/// Paths complete as file names. Entity names are read from the store named earlier on the
/// command line when the user presses Tab: the shell runs `cdstore ---completion …`, which opens
/// the store read-only through a ``StoreSession``, like every other read, and prints the names.
enum ShellCompletion {
    /// The entity names of the store named earlier on the line; nothing when no word before the
    /// cursor opens as a store.
    static let entityName = CompletionKind.custom { words, index, _ in
        entityNames(words: words, completing: index)
    }

    /// The entities of the first word before `index` that opens as a Core Data store, skipping the
    /// program and command names and options. Any error yields no candidates: a completion must
    /// never print a message into the user's command line.
    static func entityNames(words: [String], completing index: Int) -> [String] {
        let earlier = words.prefix(max(0, min(index, words.count))).dropFirst(2)
        for word in earlier where !word.hasPrefix("-") {
            if let names = entityNames(ofStoreAt: path(fromShellWord: word)) { return names }
        }
        return []
    }

    /// The names of the store's own entities (Core Data's history and CloudKit entities left
    /// out), or nil when `path` is not a readable store. A file that is not SQLite is refused
    /// from its header, so the other words of a line cost next to nothing.
    static func entityNames(ofStoreAt path: String) -> [String]? {
        try? StoreSession(storePath: path, modelPath: nil).entityNames()
    }

    /// The path a shell word stands for. The shells pass the words as typed, so quotes and
    /// backslash escapes are removed here, and a leading `~` is the home folder.
    static func path(fromShellWord word: String, home: String? = ProcessInfo.processInfo.environment["HOME"]) -> String {
        enum Quote { case none, single, double }
        var quote = Quote.none
        var text = ""
        var characters = word.makeIterator()
        while let character = characters.next() {
            switch (quote, character) {
            case (.none, "'"): quote = .single
            case (.none, "\""): quote = .double
            case (.single, "'"), (.double, "\""): quote = .none
            case (.none, "\\"):
                if let escaped = characters.next() { text.append(escaped) }
            case (.double, "\\"):
                // Inside double quotes a backslash escapes only these; elsewhere it is itself.
                guard let next = characters.next() else { text.append(character); break }
                if !"$`\"\\".contains(next) { text.append(character) }
                text.append(next)
            default: text.append(character)
            }
        }
        if let home, word == "~" || word.hasPrefix("~/") {
            return home + text.dropFirst()
        }
        return text
    }
}
