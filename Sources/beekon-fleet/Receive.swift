import ArgumentParser
import FleetKit
import Foundation
import IngestReceiver

/// Runs the reference ingest receiver until SIGINT or SIGTERM.
struct Receive: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the reference Beekon ingest receiver: validate, dedupe and store uploads.",
        discussion: """
            Accepts seed 05 uploads at --path, stores them in a SQLite file (WAL) and answers 2xx \
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

    @Option(help: "Answer the first N uploads of each device with --fail-status.")
    var failFirst: Int?

    @Option(help: "The status for --fail-first (default 503).")
    var failStatus: Int?

    @Option(help: "A Retry-After value added to scripted non-2xx answers.")
    var retryAfter: String?

    @Option(help: "Milliseconds added before every ingest answer.")
    var latencyMs: Int?

    @Option(help: "How long a hung upload is held before its connection is closed, ms (default 120000).")
    var hangMs: Int?

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

    @Option(help: "expires_in of issued tokens, seconds (default 3600).")
    var tokenExpiresIn: Int?

    @Option(help: "Answer token requests with this status instead of a token.")
    var tokenFailStatus: Int?

    @Option(help: "With --token-fail-status: only the first N token requests fail.")
    var tokenFailFirst: Int?

    @Flag(help: "Answer token requests 200 without an access_token.")
    var tokenOmit = false

    @Option(help: "A refresh token accepted as a seed (repeatable; none = accept any).")
    var refreshToken: [String] = []

    @Option(help: "The largest request body accepted, bytes (before gunzip).")
    var maxBodyBytes = 12 << 20

    @Option(help: "Seconds an idle or slow connection is kept.")
    var connectionTimeout = 30

    @Option(help: "Daemon threads (default: one per core).")
    var threads: Int?

    func run() throws {
        StandardOutput.flushEachLine()
        let configuration: IngestReceiverConfiguration
        do throws(IngestReceiverError) {
            configuration = try makeConfiguration()
        } catch {
            throw ValidationError(error.message)
        }
        try FileLimit.ensure(.receive(connectionLimit: configuration.connectionLimit), for: "receive")
        // A start that fails (the port in use) leaves no database it created.
        let databaseExisted = FileManager.default.fileExists(atPath: configuration.databasePath)
        let receiver: IngestReceiver
        do throws(IngestReceiverError) {
            receiver = try IngestReceiver(configuration: configuration)
        } catch {
            if !databaseExisted {
                for suffix in ["", "-wal", "-shm", "-journal"] { unlink(configuration.databasePath + suffix) }
            }
            throw CommandFailure("beekon-fleet receive: \(error.message)")
        }
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let done = DispatchSemaphore(value: 0)
        let interrupts = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { done.signal() }
            source.resume()
            return source
        }
        var banner = "beekon-fleet receive: listening on \(receiver.url)\n"
        banner += "beekon-fleet receive: stats at \(receiver.statsURL)\n"
        if let tokenURL = receiver.tokenURL { banner += "beekon-fleet receive: token endpoint at \(tokenURL)\n" }
        banner += "beekon-fleet receive: database \(configuration.databasePath)\n"
        // Written unbuffered, so a parent process reading a pipe sees the port at once.
        FileHandle.standardOutput.write(Data(banner.utf8))
        done.wait()
        interrupts.forEach { $0.cancel() }
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
            host: host, port: port, databasePath: db, ingestPath: path, statsPath: statsPath,
            maxBodyBytes: maxBodyBytes, connectionTimeoutSeconds: connectionTimeout)
        if let threads { configuration.threads = threads }
        if let rules { try configuration.applyRules(fromFile: rules) }
        if let seed { configuration.script.seed = seed }
        if let mix { configuration.script.mix = try AnswerScript.parseMix(mix) }
        if let failFirst { configuration.script.failFirst = failFirst }
        if let failStatus { configuration.script.failFirstStatus = failStatus }
        if let retryAfter { configuration.script.retryAfter = retryAfter }
        if let latencyMs { configuration.script.latencyMillis = latencyMs }
        if let hangMs { configuration.script.hangMillis = hangMs }
        if storeBeforeFault { configuration.script.storeBeforeFault = true }
        if requireToken { configuration.auth.requireToken = true }
        if !token.isEmpty { configuration.auth.tokens = token }
        if let tokenPath { configuration.tokenEndpoint.path = tokenPath }
        if noTokenEndpoint { configuration.tokenEndpoint.path = nil }
        if let tokenExpiresIn { configuration.tokenEndpoint.expiresIn = tokenExpiresIn }
        if let tokenFailStatus { configuration.tokenEndpoint.failStatus = tokenFailStatus }
        if let tokenFailFirst { configuration.tokenEndpoint.failFirst = tokenFailFirst }
        if tokenOmit { configuration.tokenEndpoint.omitToken = true }
        if !refreshToken.isEmpty { configuration.tokenEndpoint.refreshTokens = refreshToken }
        return try configuration.checked()
    }
}
