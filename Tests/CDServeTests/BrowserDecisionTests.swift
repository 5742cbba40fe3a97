import CDTestSupport
import Foundation
import Testing

/// Whether the browser tests run, are skipped or fail (``WebDriver/decision(driver:browser:environment:)``),
/// decided for every case without installing or removing anything: a missing chromium or
/// chromedriver is a failure that says what to install under `CI=true`, a skip elsewhere.
@Suite(.temporaryDirectories) struct BrowserDecisionTests {
    @Test func aMissingBrowserFailsUnderCIAndIsSkippedElsewhere() {
        let driver = "/usr/bin/chromedriver", browser = "/usr/bin/chromium"
        for environment in [[:], ["CI": "true"], ["CI": "false"]] {
            #expect(WebDriver.decision(driver: driver, browser: browser, environment: environment) == .run, "\(environment)")
        }
        let cases: [(String?, String?, String)] = [(nil, browser, "chromedriver"), (driver, nil, "chromium"), (nil, nil, "chromedriver and chromium")]
        for (foundDriver, foundBrowser, missing) in cases {
            #expect(WebDriver.decision(driver: foundDriver, browser: foundBrowser, environment: [:]) == .skip, "\(missing)")
            #expect(WebDriver.decision(driver: foundDriver, browser: foundBrowser, environment: ["CI": "false", "PATH": "/usr/bin"]) == .skip, "\(missing)")
            let decided = WebDriver.decision(driver: foundDriver, browser: foundBrowser, environment: ["CI": "true"])
            #expect(decided == .fail("CI=true and \(missing) not found: " + WebDriver.missingMessage))
        }
        #expect(WebDriver.missingMessage.contains("apt-get install chromium chromium-driver"))
    }

    /// The machine's own decision is the function's on what is installed here, and a driver
    /// is found only where an executable file is.
    @Test func theMachinesDecisionIsTheFunctionsOnWhatIsInstalled() throws {
        let environment = ProcessInfo.processInfo.environment
        #expect(WebDriver.decision == WebDriver.decision(driver: WebDriver.driverPath, browser: WebDriver.browserPath, environment: environment))
        let folder = try TemporaryDirectory.make()
        let plain = folder.appendingPathComponent("chromedriver")
        try Data("#!/bin/sh\n".utf8).write(to: plain)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: plain.path)
        #expect(WebDriver.firstExecutable([nil, folder.appendingPathComponent("missing").path, plain.path]) == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plain.path)
        #expect(WebDriver.firstExecutable([nil, folder.appendingPathComponent("missing").path, plain.path]) == plain.path)
    }
}
