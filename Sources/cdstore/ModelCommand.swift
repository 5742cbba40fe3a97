import ArgumentParser
import CDModel
import CDRendering
import CDStore

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show the model cached inside a store, or its version hashes.")

    @Argument(help: "A store file whose model cache (Z_MODELCACHE) is read.")
    var path: String

    @Flag(name: .long, help: "Print the entity version hashes and the model checksum.")
    var hashes = false

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() throws {
        let versions = try ModelSource.versions(at: path)
        if hashes {
            let report = ModelHashReport(versions: versions)
            Output.print(json ? try Output.json(report) : ModelText.renderHashes(report))
        } else {
            Output.print(json ? try Output.json(versions) : ModelText.render(versions))
        }
    }
}
