// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "cdstore",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cdstore", targets: ["CDStoreTool"]),
        /// The library for reading stores from other Swift code: models, archives, predicates and
        /// safe read-only access to a store. Every other module uses `package` access: it serves
        /// this package's commands and is not promised as API.
        .library(name: "CDStore", targets: ["CDBase", "CDPredicate", "CDArchive", "CDModel", "CDMapping", "CDStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        /// What every module shares, on Foundation alone: the user-facing error protocol, the
        /// text helpers of every report (tables, plurals, grouped numbers, dates and numbers) and
        /// the one `JSONEncoder` configuration of Codable reports.
        .target(name: "CDBase"),
        /// NSPredicate format strings (one tree, tokenizer, parser, formatter and evaluator), Core
        /// Data's date values read from ISO-8601 text, and the lexing shared by the query syntaxes
        /// (a character cursor, Ruby string escapes).
        .target(name: "CDPredicate", dependencies: ["CDBase"]),
        /// The system zlib, for raw DEFLATE (`Z_MODELCACHE`).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        /// Binary property lists and NSKeyedArchiver archives.
        .target(name: "CDArchive", dependencies: ["CDBase", .target(name: "CZlib")]),
        /// The one model type, its loaders and version hashes.
        .target(
            name: "CDModel",
            dependencies: [
                "CDBase", "CDArchive", "CDPredicate",
            ]),
        /// The exact SQLite layout Core Data gives a model (tables, columns, indexes, and the
        /// framework versions' rules), predicted or checked against a store's schema, with the
        /// naming rule in one place; pure: no SQLite.
        .target(name: "CDMapping", dependencies: ["CDBase", "CDModel", "CDPredicate"]),
        /// A SQLite VFS that reads a store in place without writing a byte: read-only files,
        /// no locks, the WAL index in process memory instead of the `-shm`.
        .target(name: "CReadOnlyVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
        /// A store's write-ahead log as a history of commits (`wal`), and each commit as object
        /// changes (`wal --changes`).
        .target(
            name: "CDWAL",
            dependencies: ["CDBase", "CDMapping", "CDStore", "CDSession", "CDDiff", "CDChanges", "CDRendering", .product(name: "GRDB", package: "GRDB.swift")]),
        /// Gives freed heap memory back to the system (glibc's `malloc_trim`, which Swift's Glibc
        /// module does not export), for `serve` after it closes idle stores.
        .target(name: "CMemory"),
        /// Safe opening, metadata, entities, model cache and inspection of a store.
        /// GRDBSQLite is SQLite's C API, for reading dump rows in place.
        .target(
            name: "CDStore",
            dependencies: [
                "CDBase", "CDArchive", "CDModel", "CDMapping", "CDPredicate", "CReadOnlyVFS",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        /// Finding stores on disk: a folder walk and a page reader for the few tables it needs,
        /// with the simulator device and container of each store.
        .target(name: "CDFinder", dependencies: ["CDBase", "CDArchive"]),
        /// Changes to a store: persistent history, snapshot comparison, following a live store.
        .target(
            name: "CDChanges",
            dependencies: [
                "CDBase", "CDModel", "CDMapping", "CDStore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        /// Fetching: NSPredicate and CDQ-style queries, SQL generation in Core Data's style, the trace.
        /// GRDBSQLite is SQLite's C API, for Core Data's string functions to read their arguments in place.
        .target(
            name: "CDFetch",
            dependencies: [
                "CDBase", "CDModel", "CDMapping", "CDStore", "CDPredicate",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        /// Reading an app's own SQL debug log (`trace`): every capture form, statement shapes,
        /// the model's names, fault storms, table scans, large fetches, saves.
        .target(
            name: "CDTrace",
            dependencies: [
                "CDBase", "CDModel", "CDMapping", "CDStore", "CDFetch",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        /// Diagnostics: the error catalogue, explanations of pasted errors, validation of a store
        /// against its model, store/model compatibility.
        .target(
            name: "CDDiagnostics",
            dependencies: [
                "CDBase", "CDArchive", "CDModel", "CDMapping", "CDStore", "CDPredicate",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        /// Maintenance that writes stores, safely: create (and fill from JSON), reset (remove a
        /// store whole, or replace it with a fresh one) and clean (checkpoint, orphaned external
        /// data, history, Z_MAX, VACUUM), with backups and lock checks.
        .target(
            name: "CDMaintenance",
            dependencies: [
                "CDBase", "CDArchive", "CDModel", "CDMapping", "CDStore", "CDDiagnostics", "CDPredicate",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        /// Comparing two stores: models, schemas, metadata and objects, entity by entity, as a
        /// merge of ordered scans. GRDBSQLite is SQLite's C API, for comparing values in place.
        .target(
            name: "CDDiff",
            dependencies: [
                "CDBase", "CDModel", "CDMapping", "CDStore", "CDChanges", "CDDiagnostics", "CDRendering", "CDSession",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        /// The system libedit (`<histedit.h>`): line editing, history and completion for the console.
        /// Debian's libedit-dev installs a pkg-config file; macOS ships the library and header.
        .systemLibrary(
            name: "CEditLine", path: "Sources/CEditLine", pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]),
        /// One store opened for reading as every front end opens it (snapshot, model, SQL log),
        /// with the operations the front ends share.
        .target(name: "CDSession", dependencies: ["CDBase", "CDModel", "CDMapping", "CDStore", "CDFetch", "CDDiagnostics", "CDChanges"]),
        /// The object renderers: the output formats of `dump` and `query`, and the one JSON writer.
        .target(
            name: "CDRendering",
            dependencies: [
                "CDBase", "CDArchive", "CDStore",
            ]),
        /// The interactive console: one session on one private snapshot, dot-commands and queries,
        /// completion from the model in memory, libedit line editing, and script mode.
        .target(
            name: "CDConsole",
            dependencies: [
                "CDBase", "CDModel", "CDStore", "CDFetch", "CDPredicate", "CDRendering", "CDDiagnostics", "CDSession", "CEditLine",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        /// The web front end of `serve`: routes, HTML pages and their JSON twins over store sessions,
        /// with the embedded stylesheet and script. Hummingbird is the HTTP server.
        .target(
            name: "CDServe",
            dependencies: [
                "CDBase", "CDModel", "CDStore", "CDFetch", "CDPredicate", "CDRendering", "CDSession", "CDDiagnostics", "CDChanges", "CDDiff",
                "CMemory",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            resources: [.embedInCode("Static/cdstore.css"), .embedInCode("Static/cdstore.js")]),
        /// Every command's logic: parse options, call the library modules, write the result.
        .target(
            name: "CDCommands",
            dependencies: [
                "CDBase", "CDArchive", "CDModel", "CDMapping", "CDStore", "CDRendering", "CDFetch", "CDDiagnostics", "CDMaintenance",
                "CDPredicate", "CDFinder", "CDChanges", "CDConsole", "CDSession", "CDTrace", "CDDiff", "CDServe", "CDWAL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        /// The `cdstore` executable: a `main` that calls CDCommands. Its folder is not `cdstore`,
        /// which differs from `CDStore` only by letter case.
        .executableTarget(name: "CDStoreTool", dependencies: ["CDCommands"]),
        /// Shared by the test targets: the corpus, private copies, checksums, golden files,
        /// running commands in-process or as the built executable, and the object graphs and
        /// random predicates of the differential fetch tests.
        .target(
            name: "CDTestSupport",
            dependencies: [
                "CDBase", "CDCommands", "CDMaintenance", "CDPredicate", "CDModel", "CDMapping", "CDStore", "CDFetch",
                .product(name: "GRDB", package: "GRDB.swift"),
            ], path: "Tests/CDTestSupport"),
        .testTarget(name: "CDTestSupportTests", dependencies: ["CDTestSupport", "CDMaintenance", "CDPredicate"]),
        .testTarget(name: "CDBaseTests", dependencies: ["CDBase", "CDTestSupport"]),
        .testTarget(name: "CDPredicateTests", dependencies: ["CDPredicate", "CDTestSupport"]),
        .testTarget(name: "CDArchiveTests", dependencies: ["CDArchive", "CDTestSupport"]),
        .testTarget(name: "CDModelTests", dependencies: ["CDModel", "CDPredicate", "CDArchive", "CDStore", "CDTestSupport"]),
        .testTarget(
            name: "CDStoreTests",
            dependencies: [
                "CDBase", "CDStore", "CDModel", "CDMapping", "CDArchive", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDMappingTests",
            dependencies: [
                "CDMapping", "CDModel", "CDArchive", "CDStore", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDFetchTests",
            dependencies: [
                "CDFetch", "CDPredicate", "CDModel", "CDMapping", "CDStore", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDRenderingTests",
            dependencies: [
                "CDBase", "CDRendering", "CDStore", "CDModel", "CDArchive", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDDiagnosticsTests",
            dependencies: [
                "CDBase", "CDDiagnostics", "CDPredicate", "CDStore", "CDModel", "CDArchive", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDMaintenanceTests",
            dependencies: [
                "CDBase", "CDMaintenance", "CDPredicate", "CDDiagnostics", "CDMapping", "CDStore", "CDModel", "CDArchive", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDFinderTests",
            dependencies: [
                "CDFinder", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDTraceTests",
            dependencies: [
                "CDTrace", "CDStore", "CDModel", "CDFetch", "CDSession", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDChangesTests",
            dependencies: [
                "CDChanges", "CDMapping", "CDStore", "CDModel", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDWALTests",
            dependencies: [
                "CDWAL", "CDBase", "CDStore", "CDDiff", "CDRendering", "CDMaintenance", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "CDSessionTests", dependencies: ["CDSession", "CDFetch", "CDModel", "CDPredicate", "CDStore", "CDTestSupport"]),
        .testTarget(
            name: "CDDiffTests",
            dependencies: [
                "CDDiff", "CDChanges", "CDStore", "CDModel", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "CDConsoleTests", dependencies: ["CDConsole", "CDStoreTool", "CDModel", "CDStore", "CDTestSupport"]),
        .testTarget(
            name: "CDServeTests",
            dependencies: [
                "CDServe", "CDDiff", "CDStoreTool", "CDSession", "CDFetch", "CDPredicate", "CDStore", "CDModel", "CDMaintenance",
                "CDRendering", "CDTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CDCommandsTests",
            dependencies: [
                "CDBase", "CDCommands", "CDStoreTool", "CDArchive", "CDFetch", "CDMaintenance", "CDModel", "CDStore", "CDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ]
)
