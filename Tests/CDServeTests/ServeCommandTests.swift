import CDMaintenance
import CDTestSupport
import Foundation
import Testing

/// `cdstore serve` as a user runs it: the built executable on a copy, its URL read from its
/// output, pages fetched with curl over a real socket, then Ctrl-C (SIGINT) and SIGTERM, which
/// must end it with status 0 and nothing written.
@Suite(.temporaryDirectories) struct ServeCommandTests {
    /// A running `cdstore serve`, its URL, and what it wrote to standard error.
    final class Server: @unchecked Sendable {
        let process = Process()
        let output = Pipe()
        let errors = Pipe()
        private(set) var url = ""

        /// Starts `cdstore serve arguments…` in `directory` (the test's own by default).
        init(_ arguments: [String], in directory: URL? = nil) throws {
            let executable = try #require(CommandRunner.executable)
            process.executableURL = executable
            process.arguments = ["serve"] + arguments
            if let directory { process.currentDirectoryURL = directory }
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // The first line is the URL; give a loaded machine a minute to print it.
            var line = Data()
            let deadline = Date().addingTimeInterval(60)
            while !line.contains(UInt8(ascii: "\n")) && Date() < deadline && process.isRunning {
                line.append(output.fileHandleForReading.availableData)
            }
            let text = String(decoding: line, as: UTF8.self)
            url = text.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init) ?? ""
        }

        /// Sends `signal` and waits for the exit status.
        func stop(_ signal: Int32) -> (status: Int32, stderr: String) {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    /// `curl` on `url`: status and body.
    static func curl(_ url: String, method: String = "GET") throws -> (status: Int, body: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "-X", method, "-w", "\n%{http_code}", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let status = Int(text.split(separator: "\n").last ?? "") ?? 0
        return (status, String(text.dropLast(String(status).count + 1)))
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func servesOverASocketAndStopsCleanly(_ signal: Int32) throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let before = try Checksums.of(directory: copy.deletingLastPathComponent())
        let server = try Server([copy.path, "--port", "0"])
        #expect(server.url.hasPrefix("http://127.0.0.1:") && server.url.hasSuffix("/"), "\(server.url)")
        let store = try Self.curl(server.url + "stores/1.json")
        #expect(store.status == 200)
        #expect(try ServeHarness.problems(store.body, schema: "serve-store.schema.json") == [])
        let page = try Self.curl(server.url + "stores/SampleModel_V2/entities/Car?sort=maker:desc")
        #expect(page.status == 200 && page.body.contains("<table class=\"objects\">"))
        #expect(try Self.curl(server.url, method: "POST").status == 405)
        let stopped = server.stop(signal)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr == "")
        #expect(try Checksums.of(directory: copy.deletingLastPathComponent()) == before)
    }

    @Test func anAddressOtherThanLoopbackIsSaidOutLoud() throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let server = try Server([copy.path, "--port", "0", "--host", "0.0.0.0"])
        #expect(server.url.hasPrefix("http://0.0.0.0:"))
        let stopped = server.stop(SIGINT)
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("cdstore: warning: listening on 0.0.0.0: other machines that reach it can read these stores"))
    }

    @Test func badArgumentsAreOneLineErrorsBeforeListening() throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let cases: [([String], String)] = [
            ([], "give at least one store file, or --find"),
            ([copy.path, "--port", "70000"], "--port takes 0 to 65535"),
            ([copy.path, "--query-timeout", "0"], "--query-timeout must be more than 0"),
            ([copy.deletingLastPathComponent().appendingPathComponent("missing.sqlite").path, "--port", "0"], "missing.sqlite: no such file"),
        ]
        for (arguments, message) in cases {
            let result = CommandRunner.runInProcess(["serve"] + arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout == "")
        }
    }

    /// `serve` shows each store's path as the command line gave it: relative stays relative on
    /// the stores page, in its JSON and on the store page; the store page's JSON keeps the
    /// absolute path the store resolved to in `inspection.path` (inspect's schema).
    @Test func storesShowTheirPathAsGiven() throws {
        let copy = try Corpus.copyStore(ServeHarness.sample)
        let folder = copy.deletingLastPathComponent()
        let given = "../" + folder.lastPathComponent + "/SampleModel_V2.sqlite"
        let resolved = copy.resolvingSymlinksInPath().path
        let server = try Server([given, "--port", "0"], in: folder)
        let list = try Self.curl(server.url + ".json"), listPage = try Self.curl(server.url)
        let store = try Self.curl(server.url + "stores/1.json"), storePage = try Self.curl(server.url + "stores/1")
        let stopped = server.stop(SIGINT)
        #expect(stopped.status == 0 && stopped.stderr == "", "\(stopped.stderr)")
        #expect([list, listPage, store, storePage].map(\.status) == [200, 200, 200, 200])
        #expect(try ServeHarness.problems(list.body, schema: "serve-stores.schema.json") == [])
        #expect(try ServeHarness.problems(store.body, schema: "serve-store.schema.json") == [])
        #expect(try JSONValue(parsing: list.body)["stores"]?.array?.first?["path"]?.string == given)
        #expect(listPage.body.contains("<td>\(given)</td>"))
        #expect(storePage.body.contains("<dt>Path</dt><dd><span title=\"\(resolved)\">\(given)</span></dd>"))
        #expect(try JSONValue(parsing: store.body)["inspection"]?["path"]?.string == resolved)
    }
}
