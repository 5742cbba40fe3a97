import ArgumentParser

/// `--as-of`, declared once for every read command that can read a store as it stood after one
/// commit of its `-wal` (``StoreSnapshot/init(path:trace:keepingThisVersion:asOf:)``).
struct AsOfOptions: ParsableArguments {
    @Option(
        name: .customLong("as-of"),
        help: ArgumentHelp("Read the store as it stood after this commit of its -wal (0: the main file alone); cdstore wal lists them.", valueName: "commit"))
    var commit: Int?

    func validate() throws {
        if let commit, commit < 0 { throw ValidationError("--as-of \(commit): a commit number is 0 or more") }
    }
}
