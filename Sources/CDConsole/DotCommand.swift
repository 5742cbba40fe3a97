/// The console's dot-commands, with sqlite3's names where sqlite3 has one: each one's usage,
/// help, completion and handler side by side (as sqlite3's shell keeps each dot-command's usage
/// beside its code), so `.help`, completion and dispatch read one table and a command cannot be
/// listed without being run. The help text here is what `.help` prints and what the manual page
/// repeats word for word.
package struct DotCommand: Sendable {
    /// The name with its dot, `.schema`.
    package let name: String
    /// The arguments as `.help` shows them, `[ENTITY]`.
    package let arguments: String
    package let help: String
    /// What completes the first argument.
    let argumentKind: ArgumentKind
    /// Runs the command on the interpreter.
    let run: @Sendable (ConsoleInterpreter, Invocation) throws -> Void

    /// What follows the command's name: the text as typed and its words (quotes removed).
    struct Invocation {
        let text: String
        let arguments: [String]
    }

    /// What an argument names, for completion.
    enum ArgumentKind: Sendable {
        case none, path, entity, format, onOff, traceLevel, query, outputTarget
    }

    /// Every dot-command, in the order `.help` lists them.
    package static let all: [DotCommand] = [
        DotCommand(
            name: ".help", arguments: "", help: "Show this list of dot-commands.", argumentKind: .none,
            run: { console, _ in console.printHelp() }),
        DotCommand(
            name: ".open", arguments: "STORE", help: "Close the store and open STORE, on a new snapshot.",
            argumentKind: .path,
            run: { console, input in try console.openStore(input.arguments) }),
        DotCommand(
            name: ".reload", arguments: "", help: "Take a fresh snapshot of the store, to see what the app wrote since.",
            argumentKind: .none,
            run: { console, _ in try console.reload() }),
        DotCommand(
            name: ".entities", arguments: "", help: "List the entities with their parent, table and number of objects.",
            argumentKind: .none,
            run: { console, _ in try console.printEntities() }),
        DotCommand(
            name: ".schema", arguments: "[ENTITY]",
            help: "Show an entity's properties and the SQL of its tables; every entity without ENTITY.",
            argumentKind: .entity,
            run: { console, input in try console.printSchema(input.arguments.first) }),
        DotCommand(
            name: ".model", arguments: "", help: "Show the whole model: entities, properties, fetch requests, configurations.",
            argumentKind: .none,
            run: { console, _ in console.printModel() }),
        DotCommand(
            name: ".hashes", arguments: "", help: "Show the entity version hashes and the model checksum.",
            argumentKind: .none,
            run: { console, _ in console.printHashes() }),
        DotCommand(
            name: ".trace", arguments: "0-4", help: "Log what Core Data's SQLDebug level 1-4 prints for each request; 0 stops.",
            argumentKind: .traceLevel,
            run: { console, input in try console.setTraceLevel(input.arguments) }),
        DotCommand(
            name: ".sql", arguments: "QUERY", help: "Show the SQL and bound values of a query without running it.",
            argumentKind: .query,
            run: { console, input in try console.printSQL(input.text) }),
        DotCommand(
            name: ".raw", arguments: "SELECT ...", help: "Run read-only SQL on the snapshot and print its rows.",
            argumentKind: .none,
            run: { console, input in
                guard !input.text.isEmpty else { throw ConsoleError.usage(".raw SELECT ...") }
                try console.runRaw(input.text)
            }),
        DotCommand(
            name: ".validate", arguments: "[ENTITY]",
            help: "Check the objects against the model's rules, and the store's integrity.", argumentKind: .entity,
            run: { console, input in try console.validate(entity: input.arguments.first) }),
        DotCommand(
            name: ".compat", arguments: "MODEL",
            help: "Tell whether the current version of MODEL opens the store, and if not the error and the fix.",
            argumentKind: .path,
            run: { console, input in try console.checkCompatibility(input.arguments) }),
        DotCommand(
            name: ".explain", arguments: "CODE", help: "Explain a Core Data error code such as 1570 or 134100.",
            argumentKind: .none,
            run: { console, input in try console.explain(input.arguments) }),
        DotCommand(
            name: ".format", arguments: "NAME",
            help: "Print objects as description, line, table, expanded, json, ndjson or csv.", argumentKind: .format,
            run: { console, input in try console.setFormat(input.arguments) }),
        DotCommand(
            name: ".template", arguments: "ENTITY [\"TEXT {key} ...\"]",
            help: "Set ENTITY's to_s, a line per object with {key} placeholders; without TEXT, remove it.",
            argumentKind: .entity,
            run: { console, input in try console.setTemplate(input.arguments) }),
        DotCommand(
            name: ".limit", arguments: "N", help: "Show at most N objects or rows, then an \"... N more\" line; 0 shows all.",
            argumentKind: .none,
            run: { console, input in try console.setRowLimit(input.arguments) }),
        DotCommand(
            name: ".output", arguments: "FILE|stdout", help: "Write results to FILE, or to standard output again.",
            argumentKind: .outputTarget,
            run: { console, input in try console.redirect(to: try ConsoleInterpreter.single(input.arguments, usage: ".output FILE|stdout")) }),
        DotCommand(
            name: ".timer", arguments: "on|off", help: "Show how long each command took.", argumentKind: .onOff,
            run: { console, input in console.settings.timer = try ConsoleInterpreter.onOff(input.arguments, usage: ".timer on|off") }),
        DotCommand(
            name: ".echo", arguments: "on|off", help: "Print each command before its result.", argumentKind: .onOff,
            run: { console, input in console.settings.echo = try ConsoleInterpreter.onOff(input.arguments, usage: ".echo on|off") }),
        DotCommand(
            name: ".show", arguments: "", help: "Show the store, the model and the current settings.", argumentKind: .none,
            run: { console, _ in console.printSettings() }),
        DotCommand(
            name: ".quit", arguments: "", help: "Leave the console (also .exit and Ctrl-D).", argumentKind: .none,
            run: { console, _ in console.quit() }),
        DotCommand(
            name: ".exit", arguments: "", help: "Leave the console.", argumentKind: .none,
            run: { console, _ in console.quit() }),
    ]

    package static func named(_ name: String) -> DotCommand? {
        all.first { $0.name == name }
    }

    /// The text of `.help`: usage and help, aligned.
    package static var helpText: String {
        let usages = all.map { $0.arguments.isEmpty ? $0.name : $0.name + " " + $0.arguments }
        let width = usages.map(\.count).max() ?? 0
        var lines = zip(usages, all).map { usage, command in
            usage.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + command.help
        }
        lines.append("")
        lines.append("Anything else is a query, as cdstore query takes it: a CDQ chain (Task.where(:priority).gt(1)),")
        lines.append("Entity where PREDICATE [sort by KEY [desc]] [limit N], a bare entity name, Task.count,")
        lines.append("Task.sum(:priority), an object ID (Task/p3) or a relationship of one (Task/p3.list).")
        return lines.joined(separator: "\n")
    }
}
