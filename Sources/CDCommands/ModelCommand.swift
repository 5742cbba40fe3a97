import ArgumentParser
import CDMaintenance
import CDMapping
import CDModel
import CDStore

struct ModelCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show a model from any source: its entities, version hashes, SQL tables or lint findings.",
        discussion: """
            PATH is an .xcdatamodeld bundle (every version), an .xcdatamodel folder (Xcode 4 and \
            later, or the Xcode 3 binary format) or its contents file, a compiled .momd or .mom, a \
            ruby-xcdm schema file or schemas folder (read as data, never run), or a store file (the \
            model cached in its Z_MODELCACHE).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, xcdatamodel, dot, mermaid, svg

        /// The formats that print one version of the model as a file of its own kind.
        var isOneVersion: Bool { self == .xcdatamodel || self == .dot || self == .mermaid || self == .svg }
    }

    @Argument(help: "A model (.xcdatamodeld, .xcdatamodel, .momd, .mom, ruby-xcdm .rb or schemas folder) or a store file.", completion: .file())
    var path: String

    @Option(name: .customLong("version"), help: ArgumentHelp("Only this model version (by name).", valueName: "name"))
    var versionName: String?

    @Flag(name: .long, help: "Print the entity version hashes and the model checksum.")
    var hashes = false

    @Flag(name: .long, help: "Print the tables, columns and indexes Core Data creates for the model.")
    var sql = false

    @Flag(name: .long, help: "Report what momc warns about and the CloudKit model rules (error 134060).")
    var lint = false

    @Flag(name: .long, help: "With --lint, apply the CloudKit rules even if the model is not marked for CloudKit.")
    var cloudkit = false

    @Flag(name: .long, help: "Print JSON (same as --format json).")
    var json = false

    @Option(
        name: .long,
        help:
            "Output format: text, json, xcdatamodel (an editable contents XML of one version), dot, mermaid or svg (a diagram of one version, for Graphviz, for Mermaid or laid out by cdstore)."
    )
    var format: Format = .text

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --sql on a model file, the NSPersistenceFrameworkVersion whose rules apply (default: \(FrameworkFeatures.defaultVersion)).",
            valueName: "number"))
    var frameworkVersion: Int?

    @OptionGroup var sqlDebug: SQLDebugOptions

    @OptionGroup var colorOptions: ColorOptions

    func validate() throws {
        if format.isOneVersion && (hashes || lint || sql || json) {
            throw ValidationError("--format \(format.rawValue) cannot be combined with --hashes, --sql, --lint or --json")
        }
        if [hashes, lint, sql].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --hashes, --sql and --lint")
        }
        if cloudkit && !lint { throw ValidationError("--cloudkit goes with --lint") }
        if frameworkVersion != nil && !sql { throw ValidationError("--framework-version goes with --sql") }
    }

    func run() throws {
        let asJSON = json || format == .json
        if sql {
            let mapping = try ModelSource.mapping(
                at: path, versionName: versionName,
                frameworkVersion: frameworkVersion ?? FrameworkFeatures.defaultVersion,
                frameworkVersionGiven: frameworkVersion != nil, trace: sqlDebug.trace)
            let indexesAfterEachTable = frameworkVersion.map { FrameworkFeatures(version: $0).createsIndexesAfterEachTable } ?? false
            Output.print(asJSON ? try Output.json(mapping) : MappingText.render(mapping, indexesAfterEachTable: indexesAfterEachTable))
            return
        }
        var versions = try ModelSource.versions(at: path, trace: sqlDebug.trace)
        if let versionName {
            versions = [try ModelSource.chooseVersion(versions, named: versionName, path: path)]
        }
        if format.isOneVersion {
            let version = try ModelSource.chooseVersion(versions, named: nil, path: path)
            switch format {
            case .dot: Output.print(ModelDiagram.dot(version))
            case .mermaid: Output.print(ModelDiagram.mermaid(version))
            case .svg: Output.print(ModelDiagram.svg(version))
            default: Output.print(ModelXMLWriter.xml(for: version.model))
            }
        } else if lint {
            let report = LintReport(versions: versions, cloudKit: cloudkit)
            try Output.report(report, json: asJSON, text: LintText.render(report))
            if report.versions.contains(where: { !$0.findings.isEmpty }) { throw ExitCode(1) }
        } else if hashes {
            let report = ModelHashReport(versions: versions)
            try Output.report(report, json: asJSON, text: ModelText.renderHashes(report))
        } else {
            try Output.report(versions, json: asJSON, text: ModelText.render(versions))
        }
    }
}
