import CDMaintenance
import CDRendering
import CDTestSupport
import Foundation
import Testing

/// A small W3C WebDriver client for the browser tests: ChromeDriver on a free port, one headless
/// Chromium session, and the commands the tests need, as plain JSON over HTTP
/// (web-ui-and-logs.md §3). ``withSession(_:)`` starts both, runs the body, and ends the session,
/// stops the driver and removes the browser's profile on every way out.
enum WebDriver {
    /// The driver, from `CHROMEDRIVER` or the usual places.
    static let driverPath: String? = firstExecutable([
        ProcessInfo.processInfo.environment["CHROMEDRIVER"], "/usr/bin/chromedriver", "/usr/local/bin/chromedriver", "/opt/homebrew/bin/chromedriver",
    ])

    /// The browser ChromeDriver starts: Debian's wrapper, or a Chrome it finds on its own (macOS).
    static let browserPath: String? = [
        "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/Applications/Google Chrome.app", "/Applications/Chromium.app",
    ].first { FileManager.default.fileExists(atPath: $0) }

    static func firstExecutable(_ candidates: [String?]) -> String? {
        candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var isAvailable: Bool { driverPath != nil && browserPath != nil }

    /// What becomes of the browser tests on this machine.
    enum Decision: Equatable {
        case run
        /// Not run, and not a failure: a developer's machine without the browser.
        case skip
        /// Each test fails with this message.
        case fail(String)
    }

    /// The browser tests run where the driver and the browser are found; where either is
    /// missing they are skipped, except under `CI=true` (CI installs chromium and
    /// chromium-driver in `.ci/run`), where they fail with ``missingMessage`` saying what is
    /// missing: a green CI must not hide browser tests that never ran.
    static func decision(driver: String?, browser: String?, environment: [String: String]) -> Decision {
        if driver != nil && browser != nil { return .run }
        guard environment["CI"] == "true" else { return .skip }
        let missing = [driver == nil ? "chromedriver" : nil, browser == nil ? "chromium" : nil].compactMap { $0 }
        return .fail("CI=true and \(missing.joined(separator: " and ")) not found: \(missingMessage)")
    }

    /// The decision for this machine and environment.
    static let decision = decision(driver: driverPath, browser: browserPath, environment: ProcessInfo.processInfo.environment)

    /// Why the browser tests cannot run.
    static let missingMessage =
        "the browser tests need chromium and chromedriver (Debian: apt-get install chromium chromium-driver; or set CHROMEDRIVER to the driver)"

    /// A WebDriver error reply, or a driver that did not start.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts ChromeDriver and a headless Chromium session, runs `body`, then deletes the
    /// session, stops the driver and the browser and removes their folders, whether `body`
    /// returned or threw.
    static func withSession<Value>(_ body: (Session) async throws -> Value) async throws -> Value {
        guard let driverPath, isAvailable else { throw Failure(description: missingMessage) }
        let folder = try TemporaryDirectory.make()
        let profile = folder.appendingPathComponent("profile", isDirectory: true)
        let driver = try Driver(path: driverPath, folder: folder)
        var session: Session?
        do {
            let created = try await Session.create(driver: driver.url, profile: profile)
            session = created
            let value = try await body(created)
            try await created.delete()
            session = nil
            try driver.stop(profile: profile)
            return value
        } catch {
            try? await session?.delete()
            // A browser that did not start says why only in the driver's log.
            let log = session == nil ? (try? String(contentsOf: folder.appendingPathComponent("chromedriver.log"), encoding: .utf8)) : nil
            try? driver.stop(profile: profile)
            if let log { throw Failure(description: "\(error); chromedriver's log ends: \(log.suffix(1500))") }
            throw error
        }
    }

    /// A running `chromedriver --port=0`, its output and log in the test's `folder`.
    ///
    /// The browser's temporary folder (`TMPDIR`) is a short one directly under /tmp, not the
    /// test's: Chromium puts its single-instance socket there, a Unix socket path is limited to
    /// about 100 bytes, and with a longer folder Chromium stops at once ("Socket path too long",
    /// which chromedriver reports as "Chrome instance exited").
    final class Driver: @unchecked Sendable {
        private let process: SpawnedProcess
        private let temporary: URL
        let url: URL

        init(path: String, folder: URL) throws {
            temporary = URL(fileURLWithPath: "/tmp/cdstore-chromium-\(UUID().uuidString.prefix(8))", isDirectory: true)
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
            let output = folder.appendingPathComponent("chromedriver.out")
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = temporary.path
            // The toolchain's libraries, on the test's library path, are not the browser's.
            environment["LD_LIBRARY_PATH"] = nil
            do {
                process = try SpawnedProcess(
                    executable: path, arguments: ["--port=0", "--log-path=" + folder.appendingPathComponent("chromedriver.log").path],
                    environment: environment, output: output)
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                throw error
            }
            // "ChromeDriver was started successfully on port N." names the port.
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline && process.isRunning {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                if let range = text.range(of: "started successfully on port ") {
                    let digits = text[range.upperBound...].prefix { $0.isNumber }
                    if let port = Int(digits), let driver = URL(string: "http://127.0.0.1:\(port)") {
                        url = driver
                        return
                    }
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            process.stop()
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(description: "chromedriver did not start: \(text.prefix(500))")
        }

        /// Stops the driver, then any browser process still running on `profile` (a browser the
        /// driver could not end must not outlive the test), and removes the browser's
        /// temporary folder.
        func stop(profile: URL?) throws {
            process.stop()
            if let profile { Self.killBrowsers(using: profile) }
            try FileManager.default.removeItem(at: temporary)
        }

        /// Processes whose command line names `profile` (ours alone: the folder is unique).
        private static func killBrowsers(using profile: URL) {
            #if os(Linux)
                let marker = Data(("--user-data-dir=" + profile.path).utf8)
                for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                    guard let pid = Int32(entry), let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                        commandLine.range(of: marker) != nil
                    else { continue }
                    kill(pid, SIGKILL)
                }
            #endif
        }
    }

    /// An element reference in a session.
    struct Element: Sendable {
        /// The W3C web element identifier key.
        static let key = "element-6066-11e4-a52e-4f735466cecf"
        let session: Session
        let reference: String

        var json: JSONValue { .object([(Self.key, .string(reference))]) }

        func text() async throws -> String {
            try await session.command("GET", "element/\(reference)/text").string ?? ""
        }

        /// The attribute as written in the HTML, or nil.
        func attribute(_ name: String) async throws -> String? {
            try await session.command("GET", "element/\(reference)/attribute/\(name)").string
        }

        /// The DOM property (`value` of an input as typed, `hidden`, …).
        func property(_ name: String) async throws -> JSONValue {
            try await session.command("GET", "element/\(reference)/property/\(name)")
        }

        func click() async throws {
            _ = try await session.command("POST", "element/\(reference)/click", .object([]))
        }

        func clear() async throws {
            _ = try await session.command("POST", "element/\(reference)/clear", .object([]))
        }

        /// Types `text` as key presses (`\u{E007}` is Enter).
        func type(_ text: String) async throws {
            _ = try await session.command("POST", "element/\(reference)/value", .object([("text", .string(text))]))
        }

        func find(_ css: String) async throws -> Element {
            try session.element(try await session.command("POST", "element/\(reference)/element", Session.locator(css)))
        }

        func findAll(_ css: String) async throws -> [Element] {
            try (try await session.command("POST", "element/\(reference)/elements", Session.locator(css)).array ?? []).map(session.element)
        }
    }

    /// One browser session.
    struct Session: Sendable {
        let driver: URL
        let id: String

        static func create(driver: URL, profile: URL) async throws -> Session {
            var arguments = [
                "--headless=new", "--disable-gpu", "--window-size=1280,800", "--hide-scrollbars", "--disable-dev-shm-usage",
                "--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--user-data-dir=" + profile.path,
            ]
            // Chromium refuses to start as root inside its sandbox.
            if geteuid() == 0 { arguments.append("--no-sandbox") }
            let options: JSONValue = .object([("args", .array(arguments.map(JSONValue.string)))])
            let capabilities: JSONValue = .object([
                (
                    "alwaysMatch",
                    .object([
                        ("browserName", .string("chrome")), ("goog:chromeOptions", options),
                        ("goog:loggingPrefs", .object([("browser", .string("ALL")), ("performance", .string("ALL"))])),
                        // An alert stays open, so a test can see one (``alertText()``).
                        ("unhandledPromptBehavior", .string("ignore")),
                        ("timeouts", .object([("implicit", .number("0")), ("pageLoad", .number("60000")), ("script", .number("30000"))])),
                    ])
                )
            ])
            let reply = try await WebDriver.request(driver, "POST", "session", .object([("capabilities", capabilities)]))
            guard let id = reply["sessionId"]?.string else { throw Failure(description: "no session id in \(reply)") }
            return Session(driver: driver, id: id)
        }

        func delete() async throws {
            _ = try await WebDriver.request(driver, "DELETE", "session/\(id)", nil)
        }

        /// A command on this session; returns the reply's `value`.
        func command(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
            try await WebDriver.request(driver, method, "session/\(id)/\(path)", body ?? (method == "POST" ? .object([]) : nil))
        }

        static func locator(_ css: String) -> JSONValue {
            .object([("using", .string("css selector")), ("value", .string(css))])
        }

        func element(_ value: JSONValue) throws -> Element {
            guard let reference = value[Element.key]?.string else { throw Failure(description: "not an element: \(value)") }
            return Element(session: self, reference: reference)
        }

        /// Loads `url` and waits for it (WebDriver's navigation waits for the load event).
        func navigate(to url: String) async throws {
            _ = try await command("POST", "url", .object([("url", .string(url))]))
        }

        func currentURL() async throws -> String {
            try await command("GET", "url").string ?? ""
        }

        func title() async throws -> String {
            try await command("GET", "title").string ?? ""
        }

        func find(_ css: String) async throws -> Element {
            try element(try await command("POST", "element", Self.locator(css)))
        }

        func findAll(_ css: String) async throws -> [Element] {
            try (try await command("POST", "elements", Self.locator(css)).array ?? []).map(element)
        }

        /// Polls for `css` until it appears (implicit waits are 0): for what a script adds.
        func waitFor(_ css: String, seconds: Double = 10) async throws -> Element {
            let deadline = Date().addingTimeInterval(seconds)
            while true {
                if let first = try await findAll(css).first { return first }
                guard Date() < deadline else { throw Failure(description: "no element \(css) after \(seconds) s on \(try await currentURL())") }
                await BlockingWork.pause(milliseconds: 100)
            }
        }

        /// Runs `script` (a function body; `arguments[i]` are `arguments`) and returns its
        /// result; a returned Promise is awaited.
        func execute(_ script: String, _ arguments: [JSONValue] = []) async throws -> JSONValue {
            try await command("POST", "execute/sync", .object([("script", .string(script)), ("args", .array(arguments))]))
        }

        /// Clicks `element` and waits until the browser has loaded another URL.
        func clickAndWait(_ element: Element) async throws {
            let before = try await currentURL()
            try await element.click()
            try await waitForNavigation(from: before)
        }

        /// Waits until the browser has left `url` and loaded the next page.
        func waitForNavigation(from url: String) async throws {
            let deadline = Date().addingTimeInterval(60)
            while true {
                let now = try await currentURL()
                if now != url, try await execute("return document.readyState").string == "complete" { return }
                guard Date() < deadline else { throw Failure(description: "\(url) led to no other page") }
                await BlockingWork.pause(milliseconds: 50)
            }
        }

        /// The viewport as a PNG.
        func screenshot() async throws -> Data {
            guard let text = try await command("GET", "screenshot").string, let data = Data(base64Encoded: text) else {
                throw Failure(description: "the screenshot is not base64")
            }
            return data
        }

        /// The text of an open alert, confirm or prompt; nil when there is none.
        func alertText() async throws -> String? {
            do {
                return try await command("GET", "alert/text").string ?? ""
            } catch let failure as Failure where failure.description.hasPrefix("no such alert") {
                return nil
            }
        }

        /// ChromeDriver's log of `type` (`browser`: the console; `performance`: DevTools events)
        /// since the last read.
        func log(_ type: String) async throws -> [JSONValue] {
            try await command("POST", "se/log", .object([("type", .string(type))])).array ?? []
        }
    }

    /// One HTTP request to the driver, made with curl (swift-corelibs-foundation's URLSession
    /// failed ChromeDriver's new-session reply with "Failed writing header"); a WebDriver error
    /// becomes a ``Failure`` that starts with the error code (`no such element: …`). curl runs
    /// and is waited for off the concurrency pool (``BlockingWork``): the browser it waits on
    /// waits in turn on the in-process server, which needs the pool to answer.
    static func request(_ driver: URL, _ method: String, _ path: String, _ body: JSONValue?) async throws -> JSONValue {
        let url = driver.appendingPathComponent(path).absoluteString
        let bodyText = body?.jsonText
        let (status, text) = try await BlockingWork.run { try curl(method, url, body: bodyText) }
        guard let reply = try? JSONValue(parsing: text), let value = reply["value"] else {
            throw Failure(description: "\(method) /\(path): HTTP \(status), not a WebDriver reply: \(text.prefix(300))")
        }
        if status != 200 || value["error"] != nil {
            let code = value["error"]?.string ?? "HTTP \(status)"
            throw Failure(description: "\(code): \(value["message"]?.string ?? "") (\(method) /\(path))")
        }
        return value
    }

    /// curl's HTTP status and body for one request, blocking until curl ends.
    private static func curl(_ method: String, _ url: String, body: String?) throws -> (status: Int, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["curl", "-s", "--max-time", "120", "-X", method, "-w", "\n%{http_code}"]
        if body != nil { arguments += ["-H", "Content-Type: application/json; charset=utf-8", "--data-binary", "@-"] }
        process.arguments = arguments + [url]
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        if let body { input.fileHandleForWriting.write(Data(body.utf8)) }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var text = String(decoding: data, as: UTF8.self)
        let status = Int(text.split(separator: "\n").last ?? "") ?? 0
        if let newline = text.lastIndex(of: "\n") { text = String(text[..<newline]) }
        return (status, text)
    }
}

extension JSONValue {
    /// The value as JSON text, for request bodies.
    var jsonText: String {
        var json = JSONWriter()
        write(to: &json)
        return json.text
    }

    private func write(to json: inout JSONWriter) {
        switch self {
        case .null: json.null()
        case .bool(let value): json.bool(value)
        case .number(let number): json.raw(number)
        case .string(let string): json.string(string)
        case .array(let items):
            json.beginArray()
            for item in items { item.write(to: &json) }
            json.endArray()
        case .object(let members):
            json.beginObject()
            for member in members {
                json.key(member.key)
                member.value.write(to: &json)
            }
            json.endObject()
        }
    }
}
