import CDMaintenance
import CDServe
import CDTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Running the server in process on copies of corpus stores, and reading its answers.
enum ServeHarness {
    static let schemas = Corpus.repositoryRoot.appendingPathComponent("schemas", isDirectory: true)

    /// The corpus stores the tests serve: a small one with an entity hierarchy and a
    /// many-to-many, and a Photos library with 60+ entities, a -wal and persistent history.
    static let sample = "cdplus-samplemodel/SampleModel_V2.sqlite"
    static let photos = "osxphotos-photos-14.6.0/Photos.sqlite"

    /// Copies of `stores` (with their sidecars) in the test's temporary scope.
    static func copies(_ stores: [String]) throws -> [URL] {
        try stores.map { try Corpus.copyStore($0) }
    }

    /// Runs `body` with a client of a server over `paths` (Hummingbird's in-memory router test:
    /// no socket), started with `--model modelPath` when given.
    static func withServer<Value: Sendable>(
        _ paths: [URL], modelPath: String? = nil, queryTimeout: Double = 10, idleSessions: Int = 4,
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let stores = paths.enumerated().map { ServedStore(number: $0.offset + 1, path: $0.element.path, modelPath: modelPath) }
        let app = ServeServer.application(catalog: StoreCatalog(stores: stores, queryTimeout: queryTimeout, idleSessions: idleSessions))
        return try await app.test(.router, body)
    }

    /// GETs `uri` and returns status, headers and body text.
    static func get(_ client: any TestClientProtocol, _ uri: String, method: HTTPRequest.Method = .get, accept: String? = nil) async throws -> Answer {
        var headers: HTTPFields = [:]
        if let accept { headers[.accept] = accept }
        return try await client.execute(uri: uri, method: method, headers: headers) { response in
            Answer(status: response.status.code, headers: response.headers, body: String(buffer: response.body))
        }
    }

    struct Answer: Sendable {
        var status: Int
        var headers: HTTPFields
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.name.canonicalName == name.lowercased() }?.value
        }

        var json: JSONValue {
            get throws { try JSONValue(parsing: body) }
        }
    }

    /// Problems of `text` against `schema` (empty when it conforms).
    static func problems(_ text: String, schema: String) throws -> [String] {
        try JSONSchemaValidator(file: schema, in: schemas).problems(in: JSONValue(parsing: text))
    }

    /// The security headers every answer carries, error pages included.
    static func expectSecurityHeaders(_ answer: Answer, _ uri: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let policy = answer.header("Content-Security-Policy") ?? ""
        #expect(
            policy.contains("default-src 'self'") && policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"), "\(uri): CSP \(policy)",
            sourceLocation: sourceLocation)
        #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(uri)", sourceLocation: sourceLocation)
        #expect(answer.header("Referrer-Policy") == "no-referrer", "\(uri)", sourceLocation: sourceLocation)
    }
}

extension JSONValue {
    /// The member `key` of an object.
    subscript(_ key: String) -> JSONValue? { members?[key] }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var integer: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }
}
