import ArgumentParser
import CDMaintenance
import CDRendering
import CDStore

struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a new, empty store for a model, exactly as Core Data would.",
        discussion: """
            Writes the model's tables and indexes, one Z_PRIMARYKEY row per entity, Z_METADATA with \
            the model's version identifiers, entity hashes, digest and checksum and a new store UUID, \
            and the compressed model cache. The store is written under a temporary name and moved \
            into place when complete; an existing file is never overwritten.
            """)

    @Argument(help: "The store file to create; it must not exist.")
    var store: String

    @Option(name: .long, help: ArgumentHelp("The model: .xcdatamodeld, .xcdatamodel, .momd, .mom, a ruby-xcdm schemas folder or a store.", valueName: "path"))
    var model: String

    @Option(name: .long, help: ArgumentHelp("The model version to use (default: the current one).", valueName: "name"))
    var version: String?

    @Option(name: .long, help: ArgumentHelp("The NSPersistenceFrameworkVersion to write (default: \(FrameworkFeatures.defaultVersion)).", valueName: "number"))
    var frameworkVersion: Int = FrameworkFeatures.defaultVersion

    @Flag(name: .long, help: "Print the result as JSON (a stable contract for scripts).")
    var json = false

    func run() throws {
        let chosen = try ModelSource.chooseVersion(try ModelSource.versions(at: model), named: version, path: model)
        let created = try StoreCreator.create(.fresh(model: chosen.model, frameworkVersion: frameworkVersion), at: store)
        Output.print(json ? try Output.json(created) : MaintenanceText.created(created))
    }
}
