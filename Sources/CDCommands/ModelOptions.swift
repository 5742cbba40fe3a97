import ArgumentParser

/// `--model`, declared once for every command that reads stores with a model: the model to read
/// them with where a store has no model cache (or one to prefer to it).
///
/// `trace`, `explain` and `reset --recreate` take a `--model` of their own, worded for what they
/// do with it: name a log's tables, check a pasted dump, create a new store.
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The model to read the store with, for stores without a model cache.", valueName: "path"), completion: .file())
    var model: String?
}

/// `--json`, declared once for every command whose report has a JSON contract (its schema in
/// `schemas/`). `watch` and `history` print a JSON object per line and `model` has `--format`:
/// their `--json` says so.
struct ReportFormatOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the report as JSON (a stable contract for scripts).")
    var json = false
}
