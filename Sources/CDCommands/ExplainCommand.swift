import ArgumentParser
import CDBase
import CDDiagnostics
import Foundation

struct ExplainCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain a Core Data error code, or a pasted error dump: its entity, key, object and store version.",
        discussion: """
            CODE is a number (1570, 134100, 522), an SDK constant (NSValidationMissingMandatoryPropertyError, \
            SQLITE_BUSY) or - to read a pasted NSError description or Core Data console log from standard \
            input. Every explanation names its section of cdstore-troubleshooting(7).
            """)

    @Argument(help: ArgumentHelp("An error code or constant name, or - to read an error dump from standard input.", valueName: "code"))
    var code: String?

    @Option(name: .long, help: ArgumentHelp("The error dump itself, instead of standard input.", valueName: "text"))
    var text: String?

    @OptionGroup var format: ReportFormatOptions

    @Option(
        name: .long, help: ArgumentHelp("A store to check the dump against: the offending rows, its UUID and hashes.", valueName: "store"), completion: .file())
    var store: String?

    @Option(name: .long, help: ArgumentHelp("A model to check the dump against: which version wrote the store.", valueName: "path"), completion: .file())
    var model: String?

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        if code == nil && text == nil { throw ValidationError("give an error code, - (read standard input) or --text") }
        if code != nil && text != nil { throw ValidationError("give either an error code or - or --text, not both") }
        if let code, code != "-", store != nil || model != nil {
            throw ValidationError("--store and --model check a pasted dump; use them with - or --text, not with code \(code)")
        }
    }

    func run() throws {
        let explanation: Explanation
        if let code, code != "-" {
            explanation = try explain(code: code)
        } else {
            let dump = text ?? readPastedDump()
            guard !dump.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ExplainInputError.emptyInput
            }
            guard let reading = ErrorDumpParser.parse(dump) else {
                throw ExplainInputError.noCoreDataError
            }
            var result = Explanation(reading: reading)
            if store != nil || model != nil {
                result.crossCheck = try CrossChecker.check(reading.primary, storePath: store, modelPath: model)
            }
            explanation = result
        }
        try Output.report(explanation, json: format.json, text: ExplanationText.render(explanation))
    }

    /// Standard input to its end, after a hint on the error stream when a person types it.
    private func readPastedDump() -> String {
        let io = CommandIO.current
        if io.inputIsTerminal { try? io.error.write("Paste the error, then press Ctrl-D\n") }
        return String(decoding: io.input.readToEnd(), as: UTF8.self)
    }

    private func explain(code: String) throws -> Explanation {
        guard let explanation = Explanation.of(code: code) else { throw ExplainInputError.unknownCode(code) }
        return explanation
    }
}

/// An error code or pasted dump that `explain` has nothing to say about (exit status 2).
enum ExplainInputError: UserFacingError, Equatable {
    /// Nothing but white space was pasted.
    case emptyInput
    /// The pasted text holds no error dump or log line that cdstore recognises.
    case noCoreDataError
    /// The code is not in cdstore's catalogue.
    case unknownCode(String)

    var message: String {
        switch self {
        case .emptyInput: return "the input is empty: paste an error dump (Error Domain=… Code=… or a CoreData: error: line)"
        case .noCoreDataError:
            return
                "no Core Data error found in the input: expected text such as Error Domain=NSCocoaErrorDomain Code=1570 … or CoreData: error: (522) I/O error …"
        case .unknownCode(let code): return Explanation.unknownCodeMessage(code)
        }
    }
}
