// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "beekon-fleet",
    products: [
        .executable(name: "beekon-fleet", targets: ["beekon-fleet"]),
        .executable(name: "beekon-bench", targets: ["beekon-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // C libraries from Debian, each behind a module map and a shim of fixed-arity wrappers.
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),

        // The one HTTP message type, swift-http-types' `HTTPRequest`/`HTTPResponse`/`HTTPFields`,
        // with what every side needs of it: a request to a URL kept exactly as written, and
        // fields described with their secrets redacted. Pure.
        .target(name: "HTTPMessage", dependencies: [.product(name: "HTTPTypes", package: "swift-http-types")]),
        // The SDK's behaviour, pure: no I/O, no clock reads, no ambient randomness.
        .target(
            name: "BeekonDevice",
            dependencies: ["HTTPMessage", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // The one SQLite wrapper: connection, statement, error; the store and the receiver share it.
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        // One SQLite store per device.
        .target(name: "BeekonStore", dependencies: ["SQLite", "BeekonDevice"]),
        // HTTP over libcurl and gzip over zlib.
        .target(
            name: "BeekonNet",
            dependencies: [
                "CCurl", "CZlib", "HTTPMessage", .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        // Routes and motion: route files (GPX, GeoJSON, CSV), a device's motion along one, and the
        // emulated OS location provider. Pure apart from reading a route file when asked.
        .target(name: "FleetRoutes", dependencies: ["BeekonDevice", "JSON"]),
        // The fleet description: the fleet file's values, its YAML reader and the action table.
        .target(
            name: "FleetDescription",
            dependencies: [
                "FleetRoutes", "BeekonDevice", .product(name: "Yams", package: "Yams"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        // The engine on virtual time: devices, timers, transfers, faults, snapshots. It reads no
        // clock and opens no socket or file: what to log and send leaves as effects its drivers
        // carry out; its device stores, whose answers the SDK needs at once, come from its driver
        // (`StoreShelf`). Latency percentiles from HdrHistogram.
        .target(
            name: "FleetEngine",
            dependencies: [
                "FleetDescription", "FleetRoutes", "BeekonDevice", "BeekonStore", "BeekonNet", "HTTPMessage",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]),
        // The drivers, which touch the world: the real one on the wall clock (HTTP, SQLite stores,
        // the data folder's files, the log) and the simulated one (virtual time alone, same files).
        .target(
            name: "FleetRuntime",
            dependencies: [
                "FleetEngine", "FleetDescription", "FleetRoutes", "BeekonDevice", "BeekonStore", "BeekonNet",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The one libmicrohttpd wrapper: a daemon with suspend/resume, deferred answers and streams.
        .target(
            name: "MicroHTTP",
            dependencies: ["CMicroHTTPD", "HTTPMessage", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // The one JSON parser: strict, bounded, non-recursive; each reader builds its own tree.
        .target(name: "JSON"),
        // The reference ingest server: validates, dedupes and stores uploads; scriptable answers.
        .target(
            name: "IngestReceiver",
            dependencies: [
                "MicroHTTP", "BeekonDevice", "SQLite", "BeekonNet", "JSON",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The run report: its JSON, CSV and HTML, the figure bodies it shares with the admin API,
        // the JSON encoding with its key style, and the schema builder. No HTTP.
        .target(
            name: "FleetReport",
            dependencies: [
                "FleetDescription", "FleetEngine", "FleetRuntime", "BeekonDevice", "BeekonNet", "BeekonStore",
                "ServerTruth",
            ]),
        // `verify`: what every device was told, joined with the rows the server's store holds.
        .target(
            name: "ServerTruth",
            dependencies: ["BeekonDevice", "BeekonStore", "FleetDescription", "FleetEngine", "SQLite"]),
        // The admin server: REST API v1, live events, metrics and the page from web/.
        .target(
            name: "FleetAdmin",
            dependencies: [
                "FleetReport", "MicroHTTP", "FleetDescription", "FleetEngine", "FleetRuntime", "BeekonDevice",
                "BeekonStore", "JSON", "HTTPMessage",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Yams", package: "Yams"), .product(name: "Logging", package: "swift-log"),
            ]),

        // What both executables share, once: numeric flags read through their ranges, the
        // open-file limit, the demo fleet, the in-process receiver, the log level and log handler.
        .target(
            name: "FleetCommandLine",
            dependencies: [
                "BeekonDevice", "BeekonStore", "FleetDescription", "FleetEngine", "FleetRuntime", "IngestReceiver",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        .executableTarget(
            name: "beekon-fleet",
            dependencies: [
                "BeekonDevice", "BeekonNet", "FleetDescription", "FleetEngine", "FleetRuntime", "IngestReceiver",
                "FleetReport", "FleetAdmin", "FleetCommandLine", "ServerTruth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The benchmarks, kept out of the shipped binary. `upload` and `hostile` run the
        // `beekon-fleet` beside it as their receiver: an executable dependency is built, not linked.
        .executableTarget(
            name: "beekon-bench",
            dependencies: [
                "beekon-fleet", "BeekonDevice", "BeekonStore", "BeekonNet", "FleetDescription", "FleetEngine",
                "FleetRuntime", "MicroHTTP", "IngestReceiver", "FleetReport",
                "FleetAdmin", "FleetCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),

        .testTarget(
            name: "BeekonDeviceTests",
            dependencies: ["BeekonDevice", "HTTPMessage", .product(name: "HTTPTypes", package: "swift-http-types")]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(
            name: "ServerTruthTests",
            dependencies: ["ServerTruth", "BeekonDevice", "BeekonStore", "FleetDescription", "FleetEngine"]),
        .testTarget(
            name: "BeekonStoreTests",
            dependencies: ["BeekonStore", "BeekonDevice", "SQLite", "FleetTestSupport", "beekon-store-probe"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "FleetTestSupport"]),
        .testTarget(
            name: "BeekonNetTests",
            dependencies: [
                "BeekonNet", "MicroHTTP", "HTTPMessage", .product(name: "HTTPTypes", package: "swift-http-types"),
                "beekon-net-probe",
            ]),
        // What the test targets share, once: a workspace with a route and a fleet file, a temporary
        // folder, the simulated ingest, the receiver on loopback and its harness, child runs of the
        // built executables, and the made-up snapshots the report and the admin API are both held to.
        .target(
            name: "FleetTestSupport",
            dependencies: [
                "BeekonDevice", "BeekonNet", "FleetDescription", "FleetEngine", "FleetReport", "FleetRuntime",
                "HTTPMessage", "IngestReceiver", "SQLite", .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/FleetTestSupport"),
        .testTarget(name: "FleetRoutesTests", dependencies: ["FleetRoutes", "BeekonDevice"]),
        .testTarget(
            name: "FleetDescriptionTests",
            dependencies: [
                "FleetDescription", "FleetEngine", "FleetRoutes", "FleetRuntime", "BeekonDevice", "BeekonNet",
                "BeekonStore", "FleetTestSupport", "beekon-fleet",
            ]),
        .testTarget(
            name: "FleetEngineTests",
            dependencies: [
                "FleetEngine", "FleetDescription", "FleetRuntime", "BeekonDevice", "BeekonNet", "BeekonStore",
                "HTTPMessage", "FleetTestSupport", .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .testTarget(
            name: "FleetRuntimeTests",
            dependencies: [
                "FleetRuntime", "FleetEngine", "FleetDescription", "BeekonDevice", "IngestReceiver", "FleetTestSupport",
                "ServerTruth", "BeekonStore", "SQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]),
        // The executables run as child processes (`ChildRun`), and the bench's figures.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "beekon-fleet", "beekon-bench", "beekon-store-probe", "FleetDescription", "FleetEngine",
                "FleetRuntime", "BeekonDevice", "BeekonNet", "BeekonStore", "HTTPMessage", "IngestReceiver",
                "FleetTestSupport", .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .testTarget(
            name: "IngestReceiverTests",
            dependencies: [
                "IngestReceiver", "BeekonDevice", "BeekonNet", "SQLite", "HTTPMessage", "FleetTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        // The run report, its CSV, HTML and summary, and the figure bodies, without a server.
        .testTarget(
            name: "FleetReportTests",
            dependencies: [
                "FleetReport", "FleetEngine", "FleetTestSupport", "ServerTruth", "FleetDescription", "BeekonNet",
            ]),
        .testTarget(
            name: "FleetAdminTests",
            dependencies: [
                "FleetAdmin", "FleetReport", "FleetDescription", "FleetEngine", "FleetRuntime", "IngestReceiver",
                "BeekonDevice", "BeekonNet", "MicroHTTP", "HTTPMessage", "FleetTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Yams", package: "Yams"), .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]),
        .testTarget(
            name: "FleetCommandLineTests",
            dependencies: ["FleetCommandLine", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "MicroHTTPTests",
            dependencies: [
                "MicroHTTP", "BeekonNet", "HTTPMessage", .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .testTarget(name: "CShimTests", dependencies: ["CSQLite", "CZlib", "CCurl", "CMicroHTTPD"]),

        // A child process for the crash-durability test: writes fixes, then waits to be killed.
        .executableTarget(
            name: "beekon-store-probe", dependencies: ["BeekonStore", "BeekonDevice"],
            path: "Tests/StoreProbe"),
        // A child process for the descriptor-exhaustion test: uploads with every descriptor taken.
        .executableTarget(name: "beekon-net-probe", dependencies: ["BeekonNet"], path: "Tests/NetProbe"),
    ],
    swiftLanguageModes: [.v6]
)
