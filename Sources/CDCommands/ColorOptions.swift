import ArgumentParser
import CDBase

/// `--color auto|always|never`, on every command: ArgumentParser has no options that subcommands
/// inherit, so each command takes this group and says so with ``ChoosesColor``.
struct ColorOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "When to colour the output: auto (on a terminal, unless NO_COLOR is set), always or never.",
            valueName: "when"))
    var color: ColorMode = .auto

    /// The last `--color` value of a command line that may not parse, read without
    /// ArgumentParser, so that a usage error follows the choice too; nil when none is given
    /// (before a `--` that ends the options) or the value is not a mode.
    static func mode(in arguments: [String]) -> ColorMode? {
        var mode: ColorMode?
        var remaining = arguments.prefix { $0 != "--" }[...]
        while let argument = remaining.popFirst() {
            if argument == "--color", let value = remaining.popFirst() {
                mode = ColorMode(rawValue: value) ?? mode
            } else if argument.hasPrefix("--color=") {
                mode = ColorMode(rawValue: String(argument.dropFirst("--color=".count))) ?? mode
            }
        }
        return mode
    }
}

extension ColorMode: ExpressibleByArgument {}

/// A command that takes ``ColorOptions``; ``CommandLineEntry`` reads its choice before running it.
protocol ChoosesColor {
    var colorOptions: ColorOptions { get }
}
