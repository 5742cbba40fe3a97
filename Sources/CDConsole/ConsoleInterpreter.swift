import CDBase
import CDDiagnostics
import CDFetch
import CDPredicate
import CDModel
import CDRendering
import CDStore
import Foundation

/// What the console does with its output, changed by dot-commands.
package struct ConsoleSettings: Sendable {
    package var format: ObjectFormat = .description
    /// At most this many objects or rows print, then an "… N more" line; `nil` prints all.
    package var rowLimit: Int?
    /// `to_s` templates by entity name (`.template`).
    package var templates: [String: String] = [:]
    package var timer = false
    /// Print each command before its result (`.echo on`), for transcripts.
    package var echo = false

    package init(rowLimit: Int? = nil) {
        self.rowLimit = rowLimit
    }
}

/// Runs what the user types: dot-commands and query inputs, one line at a time, writing
/// results to the output and problems to the error writer. A failing line never ends the
/// session; ``execute(_:location:)`` reports whether it succeeded.
package final class ConsoleInterpreter {
    package private(set) var session: ConsoleSession
    package var settings: ConsoleSettings
    /// Where results go now: standard output, or the file of `.output`.
    package private(set) var output: ConsoleWriter
    private let standardOutput: ConsoleWriter
    private let errors: ConsoleWriter
    /// Set by `.quit` and `.exit`.
    package private(set) var wantsToQuit = false
    /// Called after `.open` and `.reload` with the new session (the signal handler watches its
    /// connection).
    package var sessionChanged: (ConsoleSession) -> Void = { _ in }

    package init(session: ConsoleSession, output: ConsoleWriter, errors: ConsoleWriter, settings: ConsoleSettings) {
        self.session = session
        self.output = output
        self.standardOutput = output
        self.errors = errors
        self.settings = settings
    }

    /// Runs one line. `location` ("near line 3") goes into error messages of scripts.
    @discardableResult
    package func execute(_ line: String, location: String? = nil) -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        if settings.echo { output.line(line) }
        guard !text.isEmpty, !text.hasPrefix("--"), !text.hasPrefix("#") else { return true }
        let clock = ConsoleClock()
        var succeeded = true
        reloadIfOutdated(before: text)
        do {
            if text.hasPrefix(".") {
                try runDotCommand(text)
            } else {
                try runQuery(text)
            }
        } catch {
            output.flush()
            report(error, location: location)
            succeeded = false
        }
        if settings.timer { output.line(clock.report()) }
        output.flush()
        errors.flush()
        return succeeded
    }

    /// Closes a `.output` file; the console calls it on exit.
    package func finish() {
        output.finish()
        standardOutput.flush()
        errors.flush()
    }

    // MARK: Errors

    private func report(_ error: Error, location: String?) {
        let prefix = "error" + (location.map { " " + $0 } ?? "") + ": "
        if ConsoleSignals.takeInterrupt() {
            errors.line("Interrupted.")
            return
        }
        guard let error = error as? UserFacingError else {
            errors.line(prefix + String(describing: error), style: .error)
            return
        }
        for line in error.renderedLines(prefix: prefix, headline: .message) {
            switch line.part {
            case .message: errors.line(line.text, style: .error)
            case .detail: errors.line(line.text)
            case .hint: errors.line(line.text, style: .secondary)
            }
        }
    }

    // MARK: Queries

    /// The fetch a query input stands for: an object ID (and relationship), or the text of
    /// `cdstore query`.
    func request(for text: String) throws -> FetchRequest {
        if let reference = ObjectReference.parse(text) { return try reference.request(in: session) }
        return try QueryExpression.parse(text)
    }

    private func runQuery(_ text: String) throws {
        let request = try request(for: text)
        guard request.result != .objects else { return try printObjects(request) }
        var rows = ValueRowRenderer(names: [], format: settings.format.valueRowFormat)
        var cap = RowCap(limit: settings.rowLimit)
        try session.store.values(
            request,
            names: { names in
                rows = ValueRowRenderer(names: names, format: settings.format.valueRowFormat)
                output.write(rows.header())
            },
            row: { values in
                try Self.checkInterrupt()
                if cap.admits() { output.write(rows.row(values)) }
            })
        output.write(rows.footer())
        noteHidden(cap.hidden, of: "row")
    }

    /// Objects in the current format, at most ``ConsoleSettings/rowLimit`` of them: the cap
    /// becomes the fetch's limit (the SQL shows it) and a count tells how many more there are.
    private func printObjects(_ request: FetchRequest) throws {
        var fetched = request
        let capsInSQL = settings.rowLimit.map { cap in !request.takesLast && (request.limit ?? Int.max) > cap } ?? false
        if capsInSQL { fetched.limit = settings.rowLimit }
        let printer = ObjectPrinter(
            renderer: renderer(for: request.entity), output: output, notesEmptyResult: !settings.format.isMachineReadable)
        var cap = RowCap(limit: settings.rowLimit)
        try session.runner.objects(
            fetched, countsToMany: settings.format.countsToMany, describe: DescriptionRenderer.logDescription,
            section: { try printer.section($0) },
            object: { object in
                try Self.checkInterrupt()
                if cap.admits() { try printer.object(object) }
            })
        try printer.finish()
        var hidden = cap.hidden
        if capsInSQL, cap.shown == settings.rowLimit {
            hidden = try session.runner.count(request) - cap.shown
        }
        noteHidden(hidden, of: "object")
    }

    /// The `to_s` template of the entity (or its nearest ancestor with one) prints objects in the
    /// description and line formats; the other formats ignore templates.
    private func renderer(for entity: String) -> any ObjectRenderer {
        let template = session.model.lineage(of: entity).lazy.compactMap { self.settings.templates[$0.name] }.first
        let usesTemplate = settings.format == .description || settings.format == .line
        return settings.format.renderer(template: usesTemplate ? template : nil, terminalWidth: output.width)
    }

    private func noteHidden(_ count: Int, of what: String) {
        guard count > 0 else { return }
        let note = "… \(count) more \(what)\(count == 1 ? "" : "s") (.limit 0 shows all)"
        // JSON and CSV stay parseable: the note goes beside them, not into them.
        if settings.format.isMachineReadable { errors.line(note) } else { output.line(note) }
    }

    static func checkInterrupt() throws {
        if ConsoleSignals.interruptPending { throw ConsoleError.interrupted }
    }

    // MARK: Dot-commands

    private func runDotCommand(_ text: String) throws {
        let name = String(text.prefix { !$0.isWhitespace })
        let rest = text.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        guard let command = DotCommand.named(name) else {
            throw ConsoleError.unknownCommand(name: name)
        }
        try command.run(self, DotCommand.Invocation(text: rest, arguments: try Self.words(rest)))
    }

    // The handlers of the dot-commands (DotCommand.all names each one beside its help).

    func openStore(_ arguments: [String]) throws {
        let path = try Self.single(arguments, usage: ".open STORE")
        replaceSession(try ConsoleSession(storePath: path, modelPath: nil, traceLevel: session.trace.level))
    }

    func reload() throws { replaceSession(try session.reloaded()) }

    func quit() { wantsToQuit = true }

    func printModel() { output.report(ModelText.render([modelVersion])) }

    func printHashes() { output.report(ModelText.renderHashes(ModelHashReport(versions: [modelVersion]))) }

    func printHelp() { output.line(DotCommand.helpText) }

    func setTraceLevel(_ arguments: [String]) throws {
        guard let level = Int(try Self.single(arguments, usage: ".trace 0-4")), (0...4).contains(level) else {
            throw ConsoleError.traceLevelOutOfRange
        }
        session.trace.level = level
    }

    func printSQL(_ query: String) throws {
        guard !query.isEmpty else { throw ConsoleError.usage(".sql QUERY") }
        output.line(try session.runner.statement(for: try request(for: query)).text)
    }

    func checkCompatibility(_ arguments: [String]) throws {
        let path = try Self.single(arguments, usage: ".compat MODEL")
        output.report(CompatibilityText.render(try session.store.compatibility(withModelAt: path)))
    }

    func explain(_ arguments: [String]) throws {
        let code = try Self.single(arguments, usage: ".explain CODE")
        guard let explanation = Explanation.of(code: code) else { throw ConsoleError.unknownErrorCode(code) }
        output.report(ExplanationText.render(explanation))
    }

    func setFormat(_ arguments: [String]) throws {
        let value = try Self.single(arguments, usage: ".format NAME")
        guard let format = ObjectFormat(rawValue: value) else {
            throw ConsoleError.unknownFormat(name: value, formats: ObjectFormat.allCases.map(\.rawValue))
        }
        settings.format = format
    }

    func setRowLimit(_ arguments: [String]) throws {
        guard let limit = Int(try Self.single(arguments, usage: ".limit N")), limit >= 0 else {
            throw ConsoleError.rowLimitNotANumber
        }
        settings.rowLimit = limit == 0 ? nil : limit
    }

    /// Takes a new snapshot, and says so, when an app has changed the store in a way the
    /// session's snapshot cannot read past (``StoreSnapshot/isOutdated``: a checkpoint, a new
    /// `-wal`): every later command would fail with "changed while reading" otherwise. Commits
    /// an app only appended to the `-wal` are not seen until `.reload`, as a snapshot promises.
    /// A store that cannot be reopened (deleted, replaced by something else) leaves the old
    /// session in place with a warning, so that `.quit`, `.open` and `.help` still work.
    private func reloadIfOutdated(before text: String) {
        let command = text.split(separator: " ", maxSplits: 1).first.map(String.init)
        guard session.snapshot.isOutdated, command != ".reload", command != ".open" else { return }
        do {
            replaceSession(try session.reloaded())
            errors.line(
                "note: an app changed \(session.storePath) in a way this snapshot cannot read past; took a new one",
                style: .secondary)
        } catch {
            let reason = (error as? UserFacingError)?.message ?? String(describing: error)
            errors.line("warning: the store changed and cannot be opened again: \(reason)", style: .warning)
        }
        errors.flush()
    }

    private func replaceSession(_ replacement: ConsoleSession) {
        session = replacement
        sessionChanged(replacement)
    }

    /// The session's model as a model version: `cache` when it comes from the store.
    private var modelVersion: ModelVersion {
        ModelVersion(
            name: session.modelPath.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "cache", current: true,
            model: session.model)
    }

    func printEntities() throws {
        var table = TextTable([("Entity", .left), ("Parent", .left), ("Table", .left), ("Objects", .right)])
        for entity in session.model.entities {
            let mapped = session.reader.mapping.mappedEntity(named: entity.name)
            let count = mapped == nil ? "-" : grouped(try session.runner.count(FetchRequest(entity: entity.name, result: .count)))
            table.add([entity.name + (entity.isAbstract ? " (abstract)" : ""), entity.parentName ?? "", mapped?.table ?? "-", count])
        }
        output.line(table.render(indent: 0))
    }

    func printSchema(_ entity: String?) throws {
        let entities = try entity.map { [try entityDescription($0)] } ?? session.model.entities
        let mapping = session.reader.mapping
        var blocks: [String] = []
        for description in entities {
            var tables = [mapping.table(forEntity: description.name)?.name].compactMap { $0 }
            for relationship in description.relationships where relationship.isToMany {
                if let join = mapping.joinTable(forRelationship: relationship.name, ofEntity: description.name) {
                    tables.append(join.table)
                }
            }
            let statements = try session.snapshot.read { db in
                try tables.flatMap { table in
                    try String.fetchAll(
                        db, sql: "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type DESC, name",
                        arguments: [table])
                }
            }
            blocks.append(([ModelText.render(entity: description)] + statements.map { $0 + ";" }).joined(separator: "\n"))
        }
        output.line(blocks.joined(separator: "\n\n"))
    }

    private func entityDescription(_ name: String) throws -> EntityDescription {
        guard let description = session.model.entity(named: name) else {
            throw StoreError.unknownEntity(name, mapping: session.reader.mapping, model: session.model)
        }
        return description
    }

    func runRaw(_ sql: String) throws {
        var rows: ValueRowRenderer?
        var cap = RowCap(limit: settings.rowLimit)
        let format = settings.format.valueRowFormat
        try FetchRunner.raw(
            sql, on: session.snapshot,
            columns: { names in
                let renderer = ValueRowRenderer(names: names, format: format)
                output.write(renderer.header())
                rows = renderer
            },
            row: { values in
                try Self.checkInterrupt()
                if cap.admits() { output.write(rows?.row(values) ?? "") }
            })
        output.write(rows?.footer() ?? "")
        noteHidden(cap.hidden, of: "row")
    }

    /// The validation report, narrowed to one entity (and its sub-entities) when one is named.
    func validate(entity: String?) throws {
        var report = try session.store.validation()
        if let entity {
            _ = try entityDescription(entity)
            let family = Set([entity] + Self.descendants(of: entity, in: session.model))
            report.errors = report.errors.filter { family.contains($0.entity) }
            report.integrity = report.integrity.filter { $0.entity.map(family.contains) == true }
        }
        output.report(ValidationText.render(report))
    }

    static func descendants(of entity: String, in model: ManagedObjectModel) -> [String] {
        model.subentities(of: entity).flatMap { [$0.name] + descendants(of: $0.name, in: model) }
    }

    func setTemplate(_ arguments: [String]) throws {
        guard let entity = arguments.first, arguments.count <= 2 else {
            throw ConsoleError.usage(".template ENTITY \"TEXT {key} ...\"")
        }
        let description = try entityDescription(entity)
        guard arguments.count == 2 else {
            settings.templates[entity] = nil
            return
        }
        let template = arguments[1]
        let keys = Set(session.model.lineage(of: entity).flatMap(\.properties).map(\.common.name)).union(LineRenderer.objectKeys)
        let unknown = LineRenderer.placeholders(in: template).filter { !keys.contains($0) }
        if !unknown.isEmpty {
            throw ConsoleError.unknownTemplateKeys(entity: description.name, keys: unknown, known: keys.sorted())
        }
        settings.templates[entity] = template
    }

    func redirect(to target: String) throws {
        output.finish()
        if target == "stdout" || target == "-" {
            output = standardOutput
            return
        }
        let descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            output = standardOutput
            throw ConsoleError.cannotWrite(target: target, reason: String(cString: strerror(errno)))
        }
        output = ConsoleWriter(descriptor: descriptor, closesOnFinish: true)
    }

    func printSettings() {
        let model = session.modelPath ?? "the store's model cache"
        let entities = session.model.entities.count
        let templates = settings.templates.keys.sorted().map { "\($0) \"\(settings.templates[$0] ?? "")\"" }
        output.line(
            """
            store:     \(session.storePath)
            model:     \(model), \(entities) entit\(entities == 1 ? "y" : "ies")
            format:    \(settings.format.rawValue)
            limit:     \(settings.rowLimit.map(String.init) ?? "none")
            trace:     \(session.trace.level)
            output:    \(output === standardOutput ? "stdout" : "file")
            timer:     \(settings.timer ? "on" : "off")
            templates: \(templates.isEmpty ? "none" : templates.joined(separator: ", "))
            """)
    }

    // MARK: Arguments

    /// Splits dot-command arguments on spaces; '…' and "…" quote (with \" and \\ inside "…").
    static func words(_ text: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var hasWord = false
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\" && open == "\"" {
                    escaped = true
                } else {
                    current.append(character)
                }
            } else if character == "\"" || character == "'" {
                quote = character
                hasWord = true
            } else if character.isWhitespace {
                if hasWord { words.append(current) }
                current = ""
                hasWord = false
            } else {
                current.append(character)
                hasWord = true
            }
        }
        if quote != nil { throw ConsoleError.unterminatedQuote }
        if hasWord { words.append(current) }
        return words
    }

    static func single(_ arguments: [String], usage: String) throws -> String {
        guard arguments.count == 1, let argument = arguments.first else { throw ConsoleError.usage(usage) }
        return argument
    }

    static func onOff(_ arguments: [String], usage: String) throws -> Bool {
        switch try single(arguments, usage: usage).lowercased() {
        case "on", "1", "yes": return true
        case "off", "0", "no": return false
        default: throw ConsoleError.usage(usage)
        }
    }
}

/// Counts what a capped result shows and hides.
struct RowCap {
    let limit: Int?
    private(set) var shown = 0
    private(set) var hidden = 0

    init(limit: Int?) {
        self.limit = limit
    }

    /// Whether the next object or row prints; counts it either way.
    mutating func admits() -> Bool {
        if let limit, shown >= limit {
            hidden += 1
            return false
        }
        shown += 1
        return true
    }
}

/// Wall-clock and CPU time of one command, as sqlite3's `.timer on` reports them.
struct ConsoleClock {
    private let start = Date()
    private let usage = ConsoleClock.cpuTimes()

    func report() -> String {
        let now = Self.cpuTimes()
        return String(
            format: "Run Time: real %.3f user %.6f sys %.6f", Date().timeIntervalSince(start),
            now.user - usage.user, now.system - usage.system)
    }

    private static func cpuTimes() -> (user: Double, system: Double) {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }
}
