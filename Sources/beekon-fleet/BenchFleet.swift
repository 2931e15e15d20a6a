import ArgumentParser
import BeekonStore
internal import CMicroHTTPD
import FleetKit
import Foundation
import Synchronization

/// `beekon-fleet bench fleet`: a whole fleet against a loopback server that answers 204 at once.
struct BenchFleet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Run N devices against a loopback 204 server and print throughput, memory and latency.",
        discussion: """
            Starts a libmicrohttpd server on 127.0.0.1 that reads each upload and answers 204, \
            writes a bench fleet (one 2 km walk, precision preset, high-accuracy fixes each \
            second) and runs it for --seconds of wall time at --warp, with device stores in a \
            temporary folder. With --gate every-fix (the default) every OS fix passes the gate and \
            each device uploads every --threshold fixes, so the figures are those of the path \
            fix → store → batch → gzip → POST → acknowledge; with --gate preset the precision \
            preset's own gate (10 s and 30 m) admits a fix about every 20 s of walking, the load \
            of a real fleet, for capacity runs such as 10,000 devices at --warp 1.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    @Option(help: "How many devices.")
    var devices = 1000

    @Option(help: "Virtual seconds per real second.")
    var warp: Double = 60

    @Option(help: "Wall-clock seconds to run.")
    var seconds: Double = 20

    @Option(help: "Most uploads in flight at once.")
    var maxConnections = 256

    @Option(help: "Fixes per batch: each device uploads once this many are pending (syncThreshold).")
    var threshold = 4

    @Option(help: "Devices switch on spread over this much virtual time, e.g. 60s (phones do not all start in the same millisecond).")
    var spread = "60s"

    @Option(help: "Which gate: every-fix (admit each OS fix) or preset (the precision preset's 10 s and 30 m).")
    var gate: BenchGate = .everyFix

    /// The gate the bench fleet's devices use.
    enum BenchGate: String, ExpressibleByArgument, CaseIterable {
        case everyFix = "every-fix"
        case preset
    }

    func validate() throws {
        guard devices >= 1, warp > 0, seconds > 0 else {
            throw ValidationError("--devices, --warp and --seconds must be positive.")
        }
        guard FleetDuration.millis(spread) != nil else {
            throw ValidationError("--spread \"\(spread)\" is not a duration; expected e.g. 0s, 60s or 2m.")
        }
    }

    func run() throws {
        let openFiles = FileLimit.raiseToHardLimit()
        let server = try NoContentServer()
        defer { server.stop() }
        let folder = try BenchFolder(nil)
        defer { folder.remove() }
        let fleet = try Self.makeFleet(
            in: folder, ingestPort: server.port, devices: devices, warp: warp, spread: spread, gate: gate, threshold: threshold)
        let runtime = try FleetRuntime(
            fleet: fleet,
            options: RunOptions(
                dataDirectory: folder.path("data"), realDurationMillis: Int64(seconds * 1000),
                routeFolder: folder.root,
                maxOpenStores: FileLimit.storeBudget(openFiles: openFiles, connections: maxConnections, devices: devices),
                maxConnections: maxConnections))
        let cpuBefore = ProcessTimes.cpuSeconds()
        try runtime.run(progressEverySeconds: 3600)
        let cpu = ProcessTimes.cpuSeconds() - cpuBefore
        let metrics = runtime.metrics
        // Rates over the time the fleet ran, not the store preparation before nor the drain after.
        let wall = max(metrics.realSeconds, 1e-3)
        let rss = Double(ProcessMemory.residentKiB())
        var report = BenchReport(title: "beekon-fleet bench fleet")
        report.add("devices", "devices", Double(metrics.devices), unit: "")
        report.add("warp", "warp", warp, unit: "×")
        report.add("wall_s", "wall time", wall, unit: "s")
        report.add("cpu_s", "CPU time (preparing stores included)", cpu, unit: "s")
        report.add("rss_mib", "RSS", rss / 1024, unit: "MiB")
        report.add("rss_kib_per_device", "RSS per device", rss / Double(max(metrics.devices, 1)), unit: "KiB")
        report.add("admitted_per_s", "fixes admitted and stored", Double(metrics.fixesStored) / wall, unit: "fixes/s")
        report.add("batches_per_s", "batch uploads", Double(metrics.batchesSent) / wall, unit: "batches/s")
        report.add("uploaded_per_s", "fixes acknowledged", Double(metrics.fixesUploaded) / wall, unit: "fixes/s")
        report.add("latency_ms_p50", "upload latency p50", metrics.latency.percentile(0.5), unit: "ms")
        report.add("latency_ms_p99", "upload latency p99", metrics.latency.percentile(0.99), unit: "ms")
        report.add("timer_lateness_ms_p99", "timer lateness p99", metrics.timerLateness.percentile(0.99), unit: "ms")
        report.note("server answered \(server.answered) uploads; store errors: \(metrics.storeErrors)")
        print(report.render(json: json))
    }

    /// The bench fleet: one 2 km walk in `folder`, `devices` precision walkers uploading to
    /// 127.0.0.1:`ingestPort` every `threshold` fixes.
    static func makeFleet(
        in folder: BenchFolder, ingestPort: UInt16, devices: Int, warp: Double, spread: String, gate: BenchGate, threshold: Int
    ) throws -> FleetFile {
        var csv = "lat,lon\n"
        for index in 0...40 { csv += "\(51.5 + Double(index) * 0.00045),-0.12\n" }
        try csv.write(toFile: folder.path("walk.csv"), atomically: true, encoding: .utf8)
        let gateOverrides =
            gate == .everyFix ? "minTimeBetweenLocationsSeconds: 1\n      minDistanceBetweenLocationsMeters: 0" : ""
        let yaml = """
            name: bench
            seed: 1
            clock: {warp: \(warp)}
            ingest: http://127.0.0.1:\(ingestPort)/ingest
            groups:
              - name: bench
                count: \(devices)
                platform: {ios: 0.5, android: 0.5}
                route: walk.csv
                pace: walk
                startOffset: random
                spread: \(spread)
                config:
                  preset: precision
                  \(gateOverrides)
                  whenStationary: keepTracking
                  sync: {syncThreshold: \(threshold), batchSize: \(max(threshold, 1))}
            """
        do throws(FleetFileProblems) {
            return try FleetFile.parse(yaml: yaml, file: "bench.yaml", routeFolder: folder.root)
        } catch {
            throw CommandFailure(error.description)
        }
    }
}

/// CPU seconds this process has used (user + system).
enum ProcessTimes {
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

/// A libmicrohttpd server on 127.0.0.1 that reads each request's body and answers 204: the
/// fastest honest ingest server, so the bench measures the fleet.
final class NoContentServer: Sendable {
    // The daemon pointer as an integer: a pointer is not Sendable, and only init/stop touch it.
    private let daemon: Int
    let port: UInt16
    private let counter = Counter()

    /// Counts answered requests across MHD's threads.
    final class Counter: Sendable {
        let value = Mutex(0)
    }

    var answered: Int { counter.value.withLock { $0 } }

    init() throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var options = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                [
                    MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(socketAddress)),
                    MHD_OptionItem(option: .CONNECTION_LIMIT, value: 16_000, ptr_value: nil),
                    MHD_OptionItem(option: .THREAD_POOL_SIZE, value: 2, ptr_value: nil),
                    MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 4096, ptr_value: nil),
                    MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
                ]
            }
        }
        // Unmanaged, unretained: the counter outlives the daemon, which stop() ends first.
        let context = Unmanaged.passUnretained(counter).toOpaque()
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
        let started = options.withUnsafeMutableBufferPointer { buffer in
            beekon_mhd_start_daemon(UInt32(flags), 0, nil, nil, Self.handle, context, buffer.baseAddress)
        }
        guard let started else { throw CommandFailure("could not start the loopback 204 server") }
        daemon = Int(bitPattern: UnsafeMutableRawPointer(started))
        port = beekon_mhd_daemon_port(started)
        _ = address
    }

    func stop() {
        guard let pointer = UnsafeMutableRawPointer(bitPattern: daemon) else { return }
        MHD_stop_daemon(OpaquePointer(pointer))
    }

    private static let handle: MHD_AccessHandlerCallback = {
        context, connection, _, _, _, _, uploadSize, requestContext in
        guard let requestContext, let uploadSize else { return MHD_Result.NO }
        if requestContext.pointee == nil {
            // The first call carries only the head; mark the request as begun.
            requestContext.pointee = UnsafeMutableRawPointer(bitPattern: 1)
            return MHD_Result.YES
        }
        if uploadSize.pointee > 0 {
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        let counter = Unmanaged<Counter>.fromOpaque(context!).takeUnretainedValue()  // Outlives the daemon.
        counter.value.withLock { $0 += 1 }
        let response = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        let queued = MHD_queue_response(connection, 204, response)
        MHD_destroy_response(response)
        return queued
    }
}
