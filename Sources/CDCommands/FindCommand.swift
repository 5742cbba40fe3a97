import ArgumentParser
import CDFinder
import Foundation

struct FindCommand: ParsableCommand, ChoosesColor {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "List every Core Data store under folders, with its simulator device, app and model version.",
        discussion: """
            Without PATH, searches where simulators and apps keep their data on macOS \
            (CoreSimulator devices, the old iPhone Simulator folder, ~/Library/Containers, \
            ~/Library/Group Containers, ~/Library/Application Support), elsewhere the current \
            directory. A store is any SQLite file with Z_METADATA and Z_PRIMARYKEY, whatever its \
            name. Only the header, metadata and entity table are read, page by page, without \
            copying or opening the store with SQLite: nothing is written. Folders that cannot be \
            read are counted in the summary.
            """)

    @Argument(help: ArgumentHelp("Folders (or files) to search.", valueName: "path"), completion: .file())
    var paths: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only stores in the container of this app, extension or app group.", valueName: "bundle-id"))
    var app: String?

    @Option(name: .long, help: "Order: modified (newest first), size (largest first) or path.")
    var sort: FindSort = .modified

    @OptionGroup var format: ReportFormatOptions

    @OptionGroup var colorOptions: ColorOptions

    func run() throws {
        let roots = paths.isEmpty ? StoreFinder.defaultRoots() : paths
        let progress = ProgressLine()
        let report = StoreFinder.find(roots: roots, app: app, sort: sort, progress: progress.isEnabled ? progress.show : nil)
        progress.clear()
        try Output.report(report, json: format.json, text: FindText.render(report))
    }
}

extension FindSort: ExpressibleByArgument {}

/// A progress line on standard error, only on a terminal and only once a scan has run for a
/// second, so quick scans and redirected output stay clean.
private final class ProgressLine: @unchecked Sendable {
    let isEnabled = isatty(2) == 1
    private let start = Date()
    private let lock = NSLock()
    private var shown = false

    func show(_ progress: FindProgress) {
        guard Date().timeIntervalSince(start) > 1 else { return }
        lock.lock()
        defer { lock.unlock() }
        shown = true
        let text = "\rscanned \(progress.folders) folders, \(progress.files) files, \(progress.stores) stores…"
        FileHandle.standardError.write(Data(text.utf8))
    }

    func clear() {
        lock.lock()
        defer { lock.unlock() }
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
