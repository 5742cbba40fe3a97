// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "cdstore",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "cdstore", targets: ["CDStoreTool"]),
        .library(name: "CDStore", targets: ["CDStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        /// What every module shares, on Foundation alone: the user-facing error protocol.
        .target(name: "CDBase"),
        /// The system zlib, for raw DEFLATE (`Z_MODELCACHE`).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        /// Binary property lists and NSKeyedArchiver archives.
        .target(name: "CDArchive", dependencies: [.target(name: "CZlib")]),
        /// The one model type, its loaders and version hashes.
        .target(name: "CDModel", dependencies: [
            "CDArchive",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        /// Safe opening, metadata, entities, model cache and inspection of a store.
        /// GRDBSQLite is SQLite's C API, for reading dump rows in place.
        .target(name: "CDStore", dependencies: [
            "CDArchive", "CDModel",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        /// Fetching: NSPredicate and CDQ-style queries, SQL generation in Core Data's style, the trace.
        .target(name: "CDFetch", dependencies: ["CDModel", "CDStore",
            .product(name: "GRDB", package: "GRDB.swift")]),
        /// Diagnostics: the error catalogue, explanations of pasted errors, validation of a store
        /// against its model, store/model compatibility.
        .target(name: "CDDiagnostics", dependencies: ["CDArchive", "CDModel", "CDStore", "CDFetch",
            .product(name: "GRDB", package: "GRDB.swift")]),
        /// Maintenance that writes stores, safely: create (and fill from JSON), reset (remove a
        /// store whole, or replace it with a fresh one) and clean (checkpoint, orphaned external
        /// data, history, Z_MAX, VACUUM), with backups and lock checks.
        .target(name: "CDMaintenance", dependencies: ["CDArchive", "CDModel", "CDStore", "CDDiagnostics",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        /// The system libedit (`<histedit.h>`): line editing, history and completion for the console.
        /// Debian's libedit-dev installs a pkg-config file; macOS ships the library and header.
        .systemLibrary(name: "CEditLine", path: "Sources/CEditLine", pkgConfig: "libedit",
                       providers: [.apt(["libedit-dev"]), .brew(["libedit"])]),
        /// Human-readable text for reports.
        .target(name: "CDRendering", dependencies: ["CDModel", "CDStore", "CDMaintenance"]),
        /// The interactive console: one session on one private snapshot, dot-commands and queries,
        /// completion from the model in memory, libedit line editing, and script mode.
        .target(name: "CDConsole", dependencies: [
            "CDBase", "CDModel", "CDStore", "CDFetch", "CDRendering", "CDDiagnostics", "CEditLine",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        /// Every command's logic: parse options, call the library modules, write the result.
        .target(name: "CDCommands", dependencies: [
            "CDBase", "CDArchive", "CDModel", "CDStore", "CDRendering", "CDFetch", "CDDiagnostics", "CDMaintenance",
            "CDConsole",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        /// The `cdstore` executable: a `main` that calls CDCommands. Its folder is not `cdstore`,
        /// which differs from `CDStore` only by letter case.
        .executableTarget(name: "CDStoreTool", dependencies: ["CDCommands"]),
        /// Shared by the test targets: the corpus, private copies, checksums, golden files.
        .target(name: "CDTestSupport", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
        ], path: "Tests/CDTestSupport"),
        .testTarget(name: "CDArchiveTests", dependencies: ["CDArchive", "CDTestSupport"]),
        .testTarget(name: "CDModelTests", dependencies: ["CDModel", "CDArchive", "CDStore", "CDTestSupport"]),
        .testTarget(name: "CDStoreTests", dependencies: ["CDStore", "CDModel", "CDTestSupport",
            .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "CDFetchTests", dependencies: ["CDFetch", "CDModel", "CDStore", "CDTestSupport",
            .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "CDRenderingTests", dependencies: ["CDRendering", "CDStore", "CDModel", "CDTestSupport"]),
        .testTarget(name: "CDDiagnosticsTests", dependencies: ["CDDiagnostics", "CDStore", "CDModel", "CDFetch", "CDArchive", "CDTestSupport",
            .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "CDMaintenanceTests", dependencies: ["CDMaintenance", "CDDiagnostics", "CDStore", "CDModel", "CDArchive", "CDRendering", "CDTestSupport",
            .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "CDConsoleTests", dependencies: ["CDConsole", "CDStoreTool", "CDModel", "CDStore", "CDTestSupport"]),
        .testTarget(name: "CDCommandsTests", dependencies: ["CDCommands", "CDStoreTool", "CDTestSupport",
            .product(name: "GRDB", package: "GRDB.swift")]),
    ]
)
