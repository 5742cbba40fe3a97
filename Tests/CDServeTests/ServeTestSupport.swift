import CDMaintenance
import CDServe
import CDTestSupport
import Foundation
import GRDB
import Hummingbird
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

    /// Runs `body` with a client of a server over `paths` (in process, on a free loopback port),
    /// started with `--model modelPath` when given; `queueLimit` bounds the requests that may
    /// wait for a worker.
    static func withServer<Value: Sendable>(
        _ paths: [URL], modelPath: String? = nil, queryTimeout: Double = 10, idleSessions: Int = 4, queueLimit: Int? = nil,
        _ body: @Sendable (ServeClient) async throws -> Value
    ) async throws -> Value {
        let stores = paths.enumerated().map { ServedStore(number: $0.offset + 1, path: $0.element.path, modelPath: modelPath) }
        let catalog = StoreCatalog(stores: stores, queryTimeout: queryTimeout, idleSessions: idleSessions, queueLimit: queueLimit)
        return try await withClient(catalog, body)
    }

    /// Runs `body` with a client of a server of `catalog`.
    static func withClient<Value: Sendable>(_ catalog: StoreCatalog, _ body: @Sendable (ServeClient) async throws -> Value) async throws -> Value {
        try await LiveServer.with(catalog) { port in try await body(ServeClient(port: port)) }
    }

    /// A copy of the sample store with a million more cars (`Maker 1` to `Maker 1000000`, Z_PK
    /// 1001 on), written as Core Data would (Z_PRIMARYKEY's Z_MAX follows): big enough that a
    /// MATCHES filter over every row takes seconds.
    static func sampleWithAMillionCars() async throws -> URL {
        let big = try Corpus.copyStore(sample)
        let queue = try DatabaseQueue(path: big.path)
        try await queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
                    INSERT INTO ZCAR (Z_PK, Z_ENT, Z_OPT, ZISLIMITEDEDITION, ZMAKER, ZMODEL, ZNUMBERPLATE)
                    SELECT 1000 + i, 1, 1, 0, 'Maker ' || i, 'Model', 'Plate ' || i FROM n;
                    UPDATE Z_PRIMARYKEY SET Z_MAX = 1001000 WHERE Z_ENT = 1;
                    """)
        }
        try queue.close()
        return big
    }

    /// GETs `uri` and returns status, headers and body text.
    static func get(_ client: ServeClient, _ uri: String, method: HTTPRequest.Method = .get, accept: String? = nil) async throws -> Answer {
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

/// A store whose model, and so its model cache and `Z_PRIMARYKEY`, names an entity with what
/// breaks out of an HTML attribute or a list of names (quotes, angle brackets, spaces, an
/// entity reference), in a file whose name does the same: made by `cdstore create` from a
/// model file the test writes, then given objects by `sqlite3` as Core Data inserts them.
///
/// The hostile entity is a sub-entity of `Car`, so its objects live in the plain table ZCAR (a
/// root entity whose table needs quoting is ``OddNameStore``'s, in ServeOddNameTests).
enum HostileStore {
    static let entity = "Evil\" data-x='1'><img src=x onerror=alert(3)> Car &amp;"
    static let file = "Evil\" data-y='2'><b>Store.sqlite"

    /// The model: `Car` (`Z_ENT` 1), its hostile sub-entity (2) and a plain entity (3).
    static var model: String {
        let name = entity.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&apos;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="1">
                <entity name="Car" representedClassName="Car" syncable="YES">
                    <attribute name="maker" optional="YES" attributeType="String"/>
                </entity>
                <entity name="\(name)" representedClassName="HostileCar" parentEntity="Car" syncable="YES"/>
                <entity name="Plain" representedClassName="Plain" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                </entity>
            </model>
            """
    }

    /// Makes the store in a temporary folder of its own, with one car and `objects` objects of
    /// the hostile entity (Z_PK 1 is the car, 2 to `objects` + 1 the others).
    static func make(objects: Int) throws -> URL {
        let folder = try TemporaryDirectory.make()
        let modelFolder = folder.appendingPathComponent("Hostile.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: false)
        try Data(model.utf8).write(to: modelFolder.appendingPathComponent("contents"))
        let store = folder.appendingPathComponent(file)
        let created = CommandRunner.runInProcess(["create", store.path, "--model", modelFolder.path])
        try #require(created.status == 0, "\(created.stderr)")
        try #require(try SQLiteShell.run(store, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT;") == "1|Car|0\n2|\(entity)|1\n3|Plain|0\n")
        try SQLiteShell.run(
            store, "BEGIN;\n" + insert(maker: "a car", ent: 1) + (0..<objects).map { insert(maker: "maker \($0 + 1)", ent: 2) }.joined() + "COMMIT;\n")
        return store
    }

    /// An insert into ZCAR as Core Data makes it: the next key of the hierarchy's root in
    /// `Z_PRIMARYKEY`, `Z_OPT` 1; `ent` 1 is a car, 2 the hostile entity.
    static func insert(maker: String, ent: Int = 2) -> String {
        "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 1;\n"
            + "INSERT INTO ZCAR (Z_PK, Z_ENT, Z_OPT, ZMAKER) VALUES ((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1), \(ent), 1, '\(maker)');\n"
    }

    /// A URL path segment as the server writes one: every byte but ASCII letters, digits and
    /// `-_~` percent-encoded.
    static func segment(_ text: String) -> String {
        text.utf8.map { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-_~".utf8.contains(byte)
                ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }
}
