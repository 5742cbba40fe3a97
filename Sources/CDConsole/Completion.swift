import CDModel
import CDRendering
import Foundation

/// What Tab offers: the candidates that replace the text from `start` (a character offset in
/// the line) to the cursor.
package struct Completion: Equatable, Sendable {
    package var start: Int
    package var candidates: [String]
    /// Added after the only candidate: a space after a dot-command that takes arguments.
    package var terminator: String

    package init(start: Int, candidates: [String], terminator: String = "") {
        self.start = start
        self.candidates = candidates
        self.terminator = terminator
    }

    static func none(at cursor: Int) -> Completion { Completion(start: cursor, candidates: []) }

    /// The longest text every candidate starts with.
    package var commonPrefix: String {
        guard var prefix = candidates.first else { return "" }
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }
}

/// Tab completion, a pure function of the line, the cursor and the model held in memory: it never
/// reads the store, so it answers at once even on a store of millions of rows. Only file names
/// (after `.open`, `.output`, `.compat`) come from the file system, through `listDirectory`.
package enum CompletionEngine {
    /// CDQ methods of a query (`motion/cdq/query.rb`, `targeted_query.rb`).
    static let queryMethods = [
        "all", "and", "array", "average", "calculate", "count", "first", "last", "length", "limit",
        "max", "maximum", "min", "minimum", "offset", "or", "size", "sort_by", "sum", "to_a", "where",
    ]
    /// The comparisons of a partial predicate, after `where(:key)`.
    static let comparisonMethods = [
        "begins_with", "between", "contains", "ends_with", "eq", "equal", "ge", "greater_than",
        "greater_than_or_equal", "gt", "in", "include", "le", "less_than", "less_than_or_equal",
        "lt", "matches", "ne", "not_equal",
    ]
    /// Words of the keyword form and of NSPredicate, offered inside a predicate.
    static let predicateWords = [
        "AND", "ANY", "BEGINSWITH", "BETWEEN", "CONTAINS", "ENDSWITH", "IN", "LIKE", "MATCHES", "NOT",
        "OR", "limit", "nil", "offset", "sort by",
    ]

    /// The entries of a directory, each with a trailing `/` when it is one.
    package typealias DirectoryLister = @Sendable (String) -> [String]

    package static let fileSystem: DirectoryLister = { directory in
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        return names.map { name in
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: (directory as NSString).appendingPathComponent(name), isDirectory: &isDirectory)
            return isDirectory.boolValue ? name + "/" : name
        }
    }

    /// Candidates for the text before `cursor` (a character offset) in `line`.
    package static func complete(
        line: String, cursor: Int, model: ManagedObjectModel,
        listDirectory: DirectoryLister = fileSystem
    ) -> Completion {
        let before = Array(line.prefix(cursor))
        let leading = before.prefix { $0 == " " || $0 == "\t" }.count
        if before.dropFirst(leading).first == "." {
            return dotCommand(before, from: leading, model: model, listDirectory: listDirectory)
        }
        return query(before, from: leading, model: model)
    }

    // MARK: Dot-commands

    private static func dotCommand(
        _ before: [Character], from start: Int, model: ManagedObjectModel,
        listDirectory: DirectoryLister
    ) -> Completion {
        let text = before[start...]
        guard let space = text.firstIndex(where: { $0 == " " || $0 == "\t" }) else {
            let typed = String(text)
            let names = matching(DotCommand.all.map(\.name), typed)
            let takesArguments = names.count == 1 && DotCommand.named(names[0])?.arguments.isEmpty == false
            return Completion(start: start, candidates: names, terminator: takesArguments ? " " : "")
        }
        guard let command = DotCommand.named(String(text[..<space])) else { return .none(at: before.count) }
        let argumentsStart = before[space...].firstIndex { $0 != " " && $0 != "\t" } ?? before.count
        let argument = String(before[argumentsStart...])
        let isFirstArgument = !argument.contains(" ")
        switch command.argumentKind {
        case .query:
            return query(before, from: argumentsStart, model: model)
        case .entity where command.name == ".template" && !isFirstArgument:
            return templateKey(before, model: model)
        case _ where !isFirstArgument:
            return .none(at: before.count)
        case .entity:
            return Completion(start: argumentsStart, candidates: matching(model.entities.map(\.name), argument))
        case .format:
            return Completion(start: argumentsStart, candidates: matching(ObjectFormat.allCases.map(\.rawValue), argument))
        case .onOff:
            return Completion(start: argumentsStart, candidates: matching(["off", "on"], argument))
        case .traceLevel:
            return Completion(start: argumentsStart, candidates: matching(["0", "1", "2", "3", "4"], argument))
        case .path:
            return path(argument, at: argumentsStart, listDirectory: listDirectory)
        case .outputTarget:
            var completion = path(argument, at: argumentsStart, listDirectory: listDirectory)
            if "stdout".hasPrefix(argument) { completion.candidates = (["stdout"] + completion.candidates).sorted() }
            return completion
        case .none:
            return .none(at: before.count)
        }
    }

    /// `{key` inside the text of `.template ENTITY "…`: the entity's property names.
    private static func templateKey(_ before: [Character], model: ManagedObjectModel) -> Completion {
        let words = String(before).split(separator: " ", maxSplits: 2)
        guard words.count >= 2, let brace = before.lastIndex(of: "{"), !before[brace...].contains("}") else {
            return .none(at: before.count)
        }
        let typed = String(before[(brace + 1)...])
        let keys = propertyNames(of: String(words[1]), in: model) + LineRenderer.objectKeys.sorted()
        return Completion(start: brace + 1, candidates: matching(keys, typed), terminator: "}")
    }

    private static func path(_ typed: String, at start: Int, listDirectory: DirectoryLister) -> Completion {
        let expanded = typed.hasPrefix("~") ? (typed as NSString).expandingTildeInPath : typed
        let slash = expanded.lastIndex(of: "/")
        let directory = slash.map { String(expanded[...$0]) } ?? ""
        let namePrefix = slash.map { String(expanded[expanded.index(after: $0)...]) } ?? expanded
        let typedDirectory = typed.lastIndex(of: "/").map { String(typed[...$0]) } ?? ""
        let entries = listDirectory(directory.isEmpty ? "." : directory)
            .filter { $0.hasPrefix(namePrefix) && (namePrefix.hasPrefix(".") || !$0.hasPrefix(".")) }
        return Completion(start: start, candidates: entries.map { typedDirectory + $0 }.sorted())
    }

    // MARK: Queries

    /// Completion inside a query input: entity names first, CDQ methods after a dot, keys and
    /// key paths inside calls, strings and predicates, relationships after an object ID.
    private static func query(_ before: [Character], from start: Int, model: ManagedObjectModel) -> Completion {
        let isWordCharacter: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "@" }
        var wordStart = before.count
        while wordStart > start, isWordCharacter(before[wordStart - 1]) { wordStart -= 1 }
        let word = String(before[wordStart...])
        let head = before[start..<wordStart]
        let scan = Scan(head)
        guard let entity = scan.entity(in: before[start...], model: model) else {
            // The entity itself is being typed.
            guard !word.contains("."), head.allSatisfy({ $0 == " " }) else { return .none(at: before.count) }
            return Completion(start: wordStart, candidates: matching(model.entities.map(\.name), word))
        }
        // An object ID: `Task/p3.li` offers Task's relationships.
        if isObjectReference(before[start...]), let dot = word.firstIndex(of: ".") {
            let typed = String(word[word.index(after: dot)...])
            let names = model.lineage(of: entity).flatMap(\.relationships).map(\.name)
            return Completion(
                start: wordStart + word.distance(from: word.startIndex, to: dot) + 1,
                candidates: matching(names, typed))
        }
        if scan.inQuote || scan.lastSignificant == ":" || (scan.depth > 0 && scan.lastSignificant == "(")
            || (scan.depth > 0 && scan.lastSignificant == ",")
        {
            return keyPath(word, at: wordStart, entity: entity, model: model, words: scan.inQuote && scan.quoteIsPredicate)
        }
        if scan.depth == 0 && (scan.lastSignificant == ")" || word.hasPrefix(".") || scan.isChainHead) {
            // A chain: complete the method after the last dot.
            guard let dot = word.lastIndex(of: ".") else { return .none(at: before.count) }
            let typed = String(word[word.index(after: dot)...])
            let methods = scan.lastCallTakesComparison ? comparisonMethods : queryMethods
            return Completion(
                start: wordStart + word.distance(from: word.startIndex, to: dot) + 1,
                candidates: matching(methods, typed))
        }
        if scan.isKeywordForm {
            let keyword = scan.previousWord?.lowercased()
            if scan.afterWhere || keyword == "by" || keyword == "," {
                return keyPath(word, at: wordStart, entity: entity, model: model, words: scan.afterWhere && keyword != "by")
            }
            return Completion(start: wordStart, candidates: matching(["limit", "offset", "sort by", "where"], word))
        }
        return .none(at: before.count)
    }

    /// Whether the input starts with an object ID (`Task/p3`, `x-coredata://…/Task/p3`).
    private static func isObjectReference(_ text: ArraySlice<Character>) -> Bool {
        let first = String(text.prefix { $0 != " " })
        return ObjectReference.parse(String(first.split(separator: ".", maxSplits: 1).first ?? "")) != nil
    }

    /// Key paths through relationships: `author.na` → `author.name`; `words` adds the
    /// predicate's operators and clause keywords.
    private static func keyPath(
        _ typed: String, at start: Int, entity: String, model: ManagedObjectModel,
        words: Bool
    ) -> Completion {
        var steps = typed.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = steps.removeLast()
        var current = entity
        for step in steps {
            guard let relationship = model.lineage(of: current).flatMap(\.relationships).first(where: { $0.name == step }) else {
                return .none(at: start + typed.count)
            }
            current = relationship.destinationEntity
        }
        let prefix = steps.isEmpty ? "" : steps.joined(separator: ".") + "."
        var names = propertyNames(of: current, in: model)
        if steps.isEmpty && words { names += predicateWords }
        return Completion(start: start, candidates: matching(names, last).map { prefix + $0 })
    }

    /// Attribute and relationship names of `entity` and its ancestors, sorted.
    static func propertyNames(of entity: String, in model: ManagedObjectModel) -> [String] {
        Array(Set(model.lineage(of: entity).flatMap(\.properties).map(\.common.name))).sorted()
    }

    private static func matching(_ candidates: [String], _ typed: String) -> [String] {
        Array(Set(candidates.filter { $0.hasPrefix(typed) })).sorted()
    }
}

/// What the text before the word being completed says about where the cursor is: inside quotes
/// or parentheses, after which call, in a chain or in the keyword form.
private struct Scan {
    var depth = 0
    var inQuote = false
    var quoteIsPredicate = false
    var lastSignificant: Character?
    /// The name and argument text of the last complete call at depth 0: `where(:priority)`.
    var lastCall: (name: String, arguments: String)?
    let text: [Character]

    init(_ head: ArraySlice<Character>) {
        text = Array(head)
        var quote: Character?
        var callStart: [Int] = []
        for (index, character) in text.enumerated() {
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
            case "(":
                depth += 1
                callStart.append(index)
            case ")":
                depth = max(0, depth - 1)
                if let open = callStart.popLast(), depth == 0 {
                    var nameStart = open
                    while nameStart > 0, text[nameStart - 1].isLetter || text[nameStart - 1] == "_" { nameStart -= 1 }
                    lastCall = (String(text[nameStart..<open]), String(text[(open + 1)..<index]))
                }
            default:
                break
            }
            if !character.isWhitespace { lastSignificant = character }
        }
        if let quote {
            inQuote = true
            lastSignificant = quote
            // A string that is a whole format string (`where("priority > 2 AND …`) holds a
            // predicate; a string right after `(:` or `('` is a single key.
            let open = text.lastIndex(of: quote) ?? 0
            let inside = text[(open + 1)...]
            quoteIsPredicate = inside.contains(" ")
        }
    }

    /// The entity the input is about: the chain's or keyword form's first name, `cdq('Entity')`'s,
    /// or an object ID's. `nil` while the first name is still being typed.
    func entity(in whole: ArraySlice<Character>, model: ManagedObjectModel) -> String? {
        let line = String(whole)
        if let reference = ObjectReference.parse(
            String(line.prefix { $0 != " " && $0 != "(" })
                .split(separator: ".").first.map(String.init) ?? ""),
            model.entity(named: reference.entity) != nil
        {
            return reference.entity
        }
        let characters = Array(whole)
        var name = String(characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        let typedPastTheName = characters.count > name.count
        if name == "cdq", characters.count > 4 {
            name = String(
                characters.dropFirst(4).drop { $0 == "'" || $0 == "\"" || $0 == ":" }
                    .prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }
        guard !name.isEmpty, typedPastTheName else { return nil }
        return model.entity(named: name) != nil ? name : nil
    }

    /// `Task.` with nothing else before the word: the first method of the chain.
    var isChainHead: Bool {
        !text.contains(" ") && !text.contains("(")
    }

    /// `where(:key)`, `and(:key)`, `or(:key)` just before: a comparison comes next.
    var lastCallTakesComparison: Bool {
        guard lastSignificant == ")", let lastCall, ["where", "and", "or"].contains(lastCall.name) else { return false }
        let argument = lastCall.arguments.trimmingCharacters(in: .whitespaces)
        return (argument.hasPrefix(":") || argument.hasPrefix("'") || argument.hasPrefix("\"")) && !argument.contains(",")
            && !argument.contains(" ") && !argument.contains("=>") && !argument.contains(": ")
    }

    /// `Entity where …` rather than a chain: the first name is followed by a space.
    var isKeywordForm: Bool {
        guard let space = text.firstIndex(of: " ") else { return false }
        return !text[..<space].contains(".") && !text[..<space].contains("(")
    }

    var previousWord: String? {
        let words = String(text).split(whereSeparator: { $0 == " " })
        guard let last = words.last else { return nil }
        return text.last == "," ? "," : String(last)
    }

    /// The cursor is in the predicate of the keyword form (after WHERE, before SORT BY).
    var afterWhere: Bool {
        let words = String(text).lowercased().split(separator: " ").map(String.init)
        guard let position = words.lastIndex(of: "where") else { return false }
        return !words[position...].contains("by")
    }
}
