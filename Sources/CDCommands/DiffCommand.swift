import ArgumentParser
import CDDiff
import Foundation

struct DiffCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two stores: model, schema, metadata and every object.",
        discussion: """
            Compares store A with store B: the model changes in compat's words, tables, columns \
            and indexes added or removed (named by the model), metadata differences, and per \
            entity the objects deleted (only in A), inserted (only in B) and updated (each \
            changed property old → new, relationships by target object, to-many members added \
            and removed, ordered ones by order too). Objects are matched by Z_PK, or by --key; \
            entities renamed between model versions through their renaming identifier. Counts \
            come first, then details up to --limit per entity. Both stores are read in place, \
            read-only. Exits 0 when the stores are the same, 1 when they differ, 2 on trouble.
            """)

    @Argument(help: "Store A, the old one (.sqlite, .storedata, .db, any extension).", completion: .file())
    var storeA: String

    @Argument(help: "Store B, the new one.", completion: .file())
    var storeB: String

    @Argument(
        help: ArgumentHelp("Entities whose objects are compared, with their sub-entities (default: all).", valueName: "entity"),
        completion: ShellCompletion.entityName)
    var entities: [String] = []

    @OptionGroup var modelOptions: ModelOptions

    @Option(name: .long, help: ArgumentHelp("Match ENTITY's objects by these attributes instead of Z_PK; repeatable.", valueName: "Entity=attr[,attr]"))
    var key: [String] = []

    @Option(name: .long, help: "Compare only one part: model, schema (with the metadata) or data.")
    var only: DiffPart?

    @Option(name: .long, help: "Output format: text, json or ndjson.")
    var format: DiffFormat = .text

    @Option(name: .long, parsing: .unconditional, help: "Describe at most this many changed objects per entity (default 20); the counts are always complete.")
    var limit: Int = 20

    @Flag(name: .long, help: "Print inserted and deleted objects with all their values.")
    var values = false

    @Option(
        name: .customLong("as-of-a"),
        help: ArgumentHelp("Read store A as it stood after this commit of its -wal (0: the main file alone).", valueName: "commit"))
    var asOfA: Int?

    @Option(
        name: .customLong("as-of-b"),
        help: ArgumentHelp(
            "Read store B as it stood after this commit of its -wal; with the same store twice, what the commits between did.", valueName: "commit"))
    var asOfB: Int?

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        try requireNotNegative(limit, option: "--limit")
        for (commit, name) in [(asOfA, "--as-of-a"), (asOfB, "--as-of-b")] {
            if let commit, commit < 0 { throw ValidationError("\(name) \(commit): a commit number is 0 or more") }
        }
    }

    func run() throws {
        var options = DiffOptions()
        options.entities = entities
        options.limit = limit
        options.values = values
        if let only { options.parts = [only] }
        for text in key {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            let attributes = parts.count == 2 ? parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : []
            guard parts.count == 2, !parts[0].isEmpty, !attributes.isEmpty, !attributes.contains(where: \.isEmpty) else {
                throw DiffError.malformedKey(text)
            }
            options.keys[parts[0]] = attributes
        }
        let report = try StoreDiffer.compare(
            storeA, storeB, modelPath: modelOptions.model, options: options, trace: sqlDebug.trace, asOf: (asOfA, asOfB))
        switch format {
        case .text: Output.report(DiffText.render(report, limit: limit))
        case .json: Output.write(try DiffJSON.document(report))
        case .ndjson: Output.write(try DiffJSON.lines(report))
        }
        if !report.isEmpty { throw ExitCode(1) }
    }
}

/// `diff --format`.
enum DiffFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, ndjson
}

extension DiffPart: ExpressibleByArgument {}
