import ArgumentParser
import BeekonDevice
import FleetCommandLine
import FleetRuntime
import Foundation
import IngestReceiver
import Logging

/// Runs the reference ingest receiver until SIGINT or SIGTERM.
///
/// Its banner (where it listens, its stats, token endpoint and database; one write, which a
/// parent process reads the port from) and its closing summary are its output, on standard
/// output; warnings and detail (every answer, at debug) go to the log, by `--log-level`.
struct Receive: LoggingCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the reference Beekon ingest receiver: validate, dedupe and store uploads.",
        discussion: """
            Takes the Beekon SDK's gzipped JSON uploads at --path, stores them in a SQLite file (WAL) and answers 2xx \
            only after the commit. Answers can be scripted by flags or a rules file (--rules, \
            JSON; flags win) to test clients. GET /stats serves counters as JSON; POST \
            /oauth/token issues tokens for the SDK's AuthConfig refresh. See docs/receiver.md.
            """)

    @Option(help: "The address and port to listen on (port 0 picks a free one).")
    var listen = "127.0.0.1:8081"

    @Option(help: "The SQLite database file (created when missing).")
    var db = "beekon-ingest.db"

    @Option(help: "The ingest path (SyncConfig.url's path).")
    var path = "/ingest"

    @Option(help: "The statistics path (GET, JSON).")
    var statsPath = "/stats"

    @Option(help: "A rules file (JSON) scripting answers, auth and the token endpoint; flags override it.")
    var rules: String?

    @Option(help: "The seed of the status mix's generator.")
    var seed: UInt64?

    @Option(help: "Status mix, ANSWER:PERCENT,…, where ANSWER is a status, hang or close (e.g. 503:10,hang:1).")
    var mix: String?

    @Option(help: "Answer the first N uploads of each device with --fail-status (0…1000000000).")
    var failFirst: String?

    @Option(help: "The status for --fail-first (100…599, default 503).")
    var failStatus: String?

    @Option(help: "A Retry-After value added to scripted non-2xx answers.")
    var retryAfter: String?

    @Option(help: "Milliseconds added before every ingest answer (0…3600000).")
    var latencyMs: String?

    @Option(help: "How long a hung upload is held before its connection is closed, ms (0…86400000, default 120000).")
    var hangMs: String?

    @Flag(help: "Store uploads before a scripted failure, hang or close (a lost 2xx).")
    var storeBeforeFault = false

    @Flag(help: "Answer 401 unless Authorization carries a configured or issued, unexpired token.")
    var requireToken = false

    @Option(help: "An access token always accepted (repeatable).")
    var token: [String] = []

    @Option(help: "The token endpoint's path.")
    var tokenPath: String?

    @Flag(help: "Turn the token endpoint off.")
    var noTokenEndpoint = false

    @Option(help: "expires_in of issued tokens, seconds (1…31536000, default 3600).")
    var tokenExpiresIn: String?

    @Option(help: "Answer token requests with this status instead of a token (100…599).")
    var tokenFailStatus: String?

    @Option(help: "With --token-fail-status: only the first N token requests fail (0…1000000000).")
    var tokenFailFirst: String?

    @Flag(help: "Answer token requests 200 without an access_token.")
    var tokenOmit = false

    @Option(help: "A refresh token accepted as a seed (repeatable; none = accept any).")
    var refreshToken: [String] = []

    @Option(help: "The largest request body accepted, bytes, before gunzip (1024…2^30, default 4 MiB).")
    var maxBodyBytes: String?

    @Option(help: "The most bytes a body may inflate to (1024…2^30, default 4 MiB).")
    var maxInflatedBytes: String?

    @Option(help: "The deepest JSON nesting accepted (3…1000, default 32).")
    var maxJsonDepth: String?

    @Option(help: "The most JSON values in one body (16…100000000, default 100000).")
    var maxJsonElements: String?

    @Option(help: "Request bytes held in memory at once, all connections together; past it, 503 (default 64 MiB).")
    var memoryBudgetBytes: String?

    @Option(help: "Seconds an idle or slow connection is kept (1…3600, default 10).")
    var connectionTimeout: String?

    @Option(help: "The most connections open at once (1…1000000, default 16384).")
    var connectionLimit: String?

    @Option(help: "The most connections from one client address (0 = no cap, default 4096).")
    var perIpConnectionLimit: String?

    @Option(help: "Daemon threads (1…256, default: one per core).")
    var threads: String?

    @OptionGroup var logging: LogLevelOptions

    func run() throws {
        StandardOutput.flushEachLine()
        var configuration: IngestReceiverConfiguration
        do throws(IngestReceiverError) {
            configuration = try makeConfiguration()
        } catch {
            throw ValidationError(error.message)
        }
        // Every connection is a descriptor. The default connection limit is lowered to what the
        // open-file limit allows (a limit libmicrohttpd cannot reach makes it fail accepts instead
        // of queueing them), saying so; one given with --connection-limit must fit, or the start
        // is refused with the numbers.
        let logger = Logger(label: "beekon-fleet receive")
        let openFiles = FileLimit.raiseToHardLimit()
        let fixedPart = DescriptorBudget.receive(connectionLimit: 0).needed
        if connectionLimit == nil, openFiles > 0,
            DescriptorBudget.receive(connectionLimit: configuration.connectionLimit).needed > openFiles,
            openFiles - fixedPart >= 64
        {
            let lowered = openFiles - fixedPart
            logger.warning(
                """
                connection limit lowered from \(configuration.connectionLimit) to \(lowered) \
                (open-file limit \(openFiles); raise it with ulimit -n)
                """
            )
            configuration.connectionLimit = lowered
        }
        logger.debug(
            "limits",
            metadata: [
                "openFiles": "\(openFiles)", "connectionLimit": "\(configuration.connectionLimit)",
                "threads": "\(configuration.threads)", "memoryBudgetBytes": "\(configuration.memoryBudgetBytes)",
            ])
        try FileLimit.ensure(
            .receive(connectionLimit: configuration.connectionLimit), for: "beekon-fleet receive",
            alternatives: " Or give a lower --connection-limit.")
        // A start that fails (the port in use) leaves no database it created.
        let databaseExisted = FileManager.default.fileExists(atPath: configuration.databasePath)
        let receiver: IngestReceiver
        do throws(IngestReceiverError) {
            receiver = try IngestReceiver(configuration: configuration, logger: logger)
        } catch {
            if !databaseExisted {
                for suffix in ["", "-wal", "-shm", "-journal"] { unlink(configuration.databasePath + suffix) }
            }
            throw CommandFailure("beekon-fleet receive: \(error.message)")
        }
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let interrupts = Interrupts()
        var banner = "beekon-fleet receive: listening on \(receiver.url)\n"
        banner += "beekon-fleet receive: stats at \(receiver.statsURL)\n"
        if let tokenURL = receiver.tokenURL { banner += "beekon-fleet receive: token endpoint at \(tokenURL)\n" }
        banner += "beekon-fleet receive: database \(configuration.databasePath)\n"
        // Written unbuffered, so a parent process reading a pipe sees the port at once.
        FileHandle.standardOutput.write(Data(banner.utf8))
        interrupts.wait()
        receiver.stop()
        let stats = receiver.stats()
        print(
            "beekon-fleet receive: stopped. \(stats.requests) requests, \(stats.batchesStored) batches, "
                + "\(stats.fixesStored) fixes, \(stats.devices) devices")
    }

    /// The configuration from the rules file (if any) with the flags over it.
    func makeConfiguration() throws(IngestReceiverError) -> IngestReceiverConfiguration {
        let (host, port) = try IngestReceiverConfiguration.parseListen(listen)
        var configuration = IngestReceiverConfiguration(
            host: host, port: port, databasePath: db, ingestPath: path, statsPath: statsPath)
        typealias Ranges = IngestReceiverConfiguration.Ranges
        let limits: [(String, String?, NumberRange, WritableKeyPath<IngestReceiverConfiguration, Int>)] = [
            ("max-body-bytes", maxBodyBytes, Ranges.maxBodyBytes, \.maxBodyBytes),
            ("max-inflated-bytes", maxInflatedBytes, Ranges.maxInflatedBytes, \.maxInflatedBytes),
            ("max-json-depth", maxJsonDepth, Ranges.maxJSONDepth, \.maxJSONDepth),
            ("max-json-elements", maxJsonElements, Ranges.maxJSONElements, \.maxJSONElements),
            ("memory-budget-bytes", memoryBudgetBytes, Ranges.memoryBudgetBytes, \.memoryBudgetBytes),
            ("connection-timeout", connectionTimeout, Ranges.connectionTimeoutSeconds, \.connectionTimeoutSeconds),
            ("connection-limit", connectionLimit, Ranges.connectionLimit, \.connectionLimit),
            ("per-ip-connection-limit", perIpConnectionLimit, Ranges.perIPConnectionLimit, \.perIPConnectionLimit),
            ("threads", threads, Ranges.threads, \.threads),
        ]
        for (flag, text, range, field) in limits {
            if let value = try Self.read(flag, text, range) { configuration[keyPath: field] = value }
        }
        if let rules { try configuration.applyRules(fromFile: rules) }
        if let seed { configuration.script.seed = seed }
        if let mix { configuration.script.mix = try AnswerScript.parseMix(mix) }
        if let value = try Self.read("fail-first", failFirst, Ranges.count) { configuration.script.failFirst = value }
        if let value = try Self.read("fail-status", failStatus, Ranges.status) {
            configuration.script.failFirstStatus = value
        }
        if let retryAfter { configuration.script.retryAfter = retryAfter }
        if let value = try Self.read("latency-ms", latencyMs, Ranges.latencyMillis) {
            configuration.script.latencyMillis = value
        }
        if let value = try Self.read("hang-ms", hangMs, Ranges.hangMillis) { configuration.script.hangMillis = value }
        if storeBeforeFault { configuration.script.storeBeforeFault = true }
        if requireToken { configuration.auth.requireToken = true }
        if !token.isEmpty { configuration.auth.tokens = token }
        if let tokenPath { configuration.tokenEndpoint.path = tokenPath }
        if noTokenEndpoint { configuration.tokenEndpoint.path = nil }
        if let value = try Self.read("token-expires-in", tokenExpiresIn, Ranges.expiresIn) {
            configuration.tokenEndpoint.expiresIn = value
        }
        if let value = try Self.read("token-fail-status", tokenFailStatus, Ranges.status) {
            configuration.tokenEndpoint.failStatus = value
        }
        if let value = try Self.read("token-fail-first", tokenFailFirst, Ranges.count) {
            configuration.tokenEndpoint.failFirst = value
        }
        if tokenOmit { configuration.tokenEndpoint.omitToken = true }
        if !refreshToken.isEmpty { configuration.tokenEndpoint.refreshTokens = refreshToken }
        return try configuration.checked()
    }

    /// A numeric flag's value read through its range; nil when the flag was not given.
    static func read(_ flag: String, _ text: String?, _ range: NumberRange) throws(IngestReceiverError) -> Int? {
        guard let text else { return nil }
        do {
            return Int(try range.readInteger(text))
        } catch {
            throw IngestReceiverError(.configuration, "--\(flag) \(error)")
        }
    }
}
