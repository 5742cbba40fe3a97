import ArgumentParser
import CDConsole

struct ConsoleCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Explore a store interactively: queries, dot-commands, completion from the model, history.",
        discussion: """
            The session works on one read-only snapshot of the store, taken at start and again by \
            .reload (or by itself, with a note, when an app checkpoints the store). Type queries as \
            cdstore query takes them, or dot-commands (.help lists them). ~/.cdstorerc (or --init) \
            holds dot-commands run first. \
            When standard input is not a terminal, commands are read line by line and results print \
            without prompts; the exit status is 1 if any command failed.
            """)

    @Argument(help: .storeFile, completion: .file())
    var store: String

    @OptionGroup var modelOptions: ModelOptions

    @Option(
        name: .customLong("init"), help: ArgumentHelp("Run the dot-commands of this file first, instead of ~/.cdstorerc.", valueName: "file"),
        completion: .file())
    var initFile: String?

    @Option(name: .customShort("c"), help: ArgumentHelp("Run this command and exit; repeatable.", valueName: "command"))
    var commands: [String] = []

    @Flag(name: .long, help: "Stop at the first command that fails.")
    var bail = false

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var colorOptions: ColorOptions

    func run() throws {
        let status = try Console.run(
            ConsoleOptions(
                storePath: store, modelPath: modelOptions.model, asOf: asOf.commit, initFile: initFile,
                commands: commands, bail: bail,
                colorsOutput: CommandIO.current.colorsOutput,
                colorsErrors: CommandIO.current.colorsErrors))
        if status != 0 { throw ExitCode(status) }
    }
}
