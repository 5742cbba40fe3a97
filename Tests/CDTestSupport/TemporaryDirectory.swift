import Foundation
import Testing

/// Temporary folders for tests, all under one root per test process, `cdstore-test-run-<pid>` in
/// the system's temporary directory, so that a run never leaves folders behind and never looks at
/// another process' folders. The name deliberately does not start with `cdstore-tests-`, the
/// prefix of the folders earlier versions of these tests left behind: cleaning those up
/// (`rm -rf /tmp/cdstore-tests-*`) while tests run must not remove a live root.
///
/// A folder from ``make()`` belongs to the scope it was made in (``withScope(_:)`` or the
/// ``TemporaryDirectoriesTrait`` of the test) and is removed when that scope ends, even when the
/// test throws. Making one outside a scope is an error rather than a silent leak.
///
/// Setting up the root also points the process' `TMPDIR` at it: the private copies the tool makes
/// while a command runs (`cdstore-<UUID>`, in this process and in the `cdstore` processes tests
/// start, which inherit the environment) then land there too, and the audit at exit covers them.
/// (Not on Apple platforms, where Foundation's temporary directory does not follow `TMPDIR`.)
public enum TemporaryDirectory {
    /// The process' root, created on first use and removed when the process exits.
    public static let root: URL = {
        let systemTemporary = FileManager.default.temporaryDirectory
        let root = systemTemporary.appendingPathComponent("cdstore-test-run-\(getpid())", isDirectory: true)
        // A folder of this name can only be left over by an earlier process that had the same id.
        try? FileManager.default.removeItem(at: root)
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            fatalError("cannot create the tests' temporary root \(root.path): \(error)")
        }
        setenv("TMPDIR", root.path, 1)
        atexit { TemporaryDirectory.auditAtExit() }
        return root
    }()

    /// The folder of the innermost scope, where ``make()`` creates folders.
    @TaskLocal private static var currentScope: URL?

    /// A new empty folder, removed when the current scope ends. Throws outside a scope: give the
    /// test's suite the ``TemporaryDirectoriesTrait`` (`@Suite(.temporaryDirectories)`).
    public static func make() throws -> URL {
        guard let scope = currentScope else { throw OutsideScopeError() }
        let url = scope.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `body` in a new scope and removes every folder made in it when it returns or throws.
    public static func withScope<Result>(_ body: () throws -> Result) throws -> Result {
        let scope = try makeScopeFolder()
        defer { remove(scope) }
        return try $currentScope.withValue(scope, operation: body)
    }

    /// Runs `body` in a new scope and removes every folder made in it when it returns or throws.
    public static func withScope(_ body: () async throws -> Void) async throws {
        let scope = try makeScopeFolder()
        defer { remove(scope) }
        try await $currentScope.withValue(scope, operation: body)
    }

    private static func makeScopeFolder() throws -> URL {
        let scope = (currentScope ?? root).appendingPathComponent("scope-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scope, withIntermediateDirectories: true)
        return scope
    }

    private static func remove(_ scope: URL) {
        do {
            try FileManager.default.removeItem(at: scope)
        } catch {
            Issue.record("cannot remove the temporary folder \(scope.path): \(error)")
        }
    }

    /// The check that the whole run left the temporary directory as it found it. It runs at exit
    /// because only then has every test, and every command a test started, finished; tests run in
    /// parallel, so no test can know that. Anything left fails the run, and the root is removed.
    private static func auditAtExit() {
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
        try? FileManager.default.removeItem(at: root)
        guard !leftovers.isEmpty else { return }
        FileHandle.standardError.write(
            Data(
                """
                error: the tests left \(leftovers.count) item(s) in \(root.path) (now removed): \
                \(leftovers.prefix(20).joined(separator: ", "))

                """.utf8))
        _exit(EXIT_FAILURE)
    }

    /// ``TemporaryDirectory/make()`` was called outside a scope, where nothing would remove the folder.
    struct OutsideScopeError: Error, CustomStringConvertible {
        var description: String {
            "TemporaryDirectory.make() outside a scope: add .temporaryDirectories to the suite, or use TemporaryDirectory.withScope"
        }
    }
}

/// Gives each test (each case of a parameterized test) its own ``TemporaryDirectory`` scope, so
/// the folders it makes, store copies included, are removed when it ends, even when it throws.
/// On a suite it applies to every test inside.
public struct TemporaryDirectoriesTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Sets up the root while the run is being planned, before any test starts, so that the
    /// `TMPDIR` change is in place for every command the tests run.
    public func prepare(for test: Test) async throws {
        _ = TemporaryDirectory.root
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await TemporaryDirectory.withScope(function)
    }
}

extension Trait where Self == TemporaryDirectoriesTrait {
    /// Each test gets its own temporary scope, removed when it ends (``TemporaryDirectoriesTrait``).
    public static var temporaryDirectories: Self { Self() }
}
