import ArgumentParser
import BeekonDevice
import BeekonNet
import FleetAdmin
import FleetCommandLine
import FleetEngine
import FleetRuntime
import Foundation

/// `beekon-bench admin`: admin API latency while a fleet runs.
struct BenchAdmin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Measure admin API latency (p50/p99/max) with a fleet running against a loopback 204 server.",
        discussion: """
            Runs --devices bench devices at --warp against an in-process server that answers 204, \
            starts the admin server on 127.0.0.1 (port 0), waits until every device is spawned, then \
            sends --requests requests one after another over loopback (libcurl) to each of \
            GET /api/v1/fleet, GET /api/v1/devices?limit=100, GET /api/v1/stats, GET /metrics \
            and POST /api/v1/fleet/actions (networkOnline to all: harmless), timing each from \
            submit to answer. Target: p99 at most 50 ms.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    @OptionGroup var fleet: BenchFleetOptions

    /// `--requests`.
    static let requestsRange = NumberRange.integer(1...1_000_000, unit: "requests")

    @Option(help: "Requests per endpoint, 1 to 1000000.", transform: FlagNumber.integer(requestsRange))
    var requests = 300

    func run() throws {
        let openFiles = FileLimit.raiseToHardLimit()
        let server = try NoContentServer()
        defer { server.stop() }
        let folder = try BenchFolder(nil)
        defer { folder.remove() }
        let devices = fleet.devices
        let benchFleet = try BenchFleetRun(options: fleet, threshold: 4, gate: .preset, seconds: 0)
            .fleet(ingest: "http://127.0.0.1:\(server.port)/ingest", in: folder.root)
        let runtime = try FleetRuntime(
            fleet: benchFleet,
            options: RunOptions(
                dataDirectory: folder.path("data"), routeFolder: folder.root,
                maxOpenStores: DescriptorBudget.run(
                    devices: devices, maxConnections: fleet.maxConnections,
                    idleConnections: HTTPTransport.defaultMaxIdleConnections,
                    adminConnections: AdminServer.connectionLimit, embeddedReceiver: true
                ).openStores(limit: openFiles),
                maxConnections: fleet.maxConnections))
        let admin: AdminServer
        do throws(AdminError) {
            admin = try AdminServer(runtime: runtime, configuration: AdminConfiguration(port: 0))
        } catch {
            throw CommandFailure(error.message)
        }
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = try? runtime.run(progressEverySeconds: 3600)
            finished.signal()
        }
        thread.start()
        defer {
            admin.stop()
            runtime.stop()
            finished.wait()
        }
        // Every device spawned (the group spreads them over 60 s of virtual time).
        let deadline = Date().addingTimeInterval(120)
        while runtime.snapshot.devices.filter(\.spawned).count < devices, Date() < deadline { usleep(50_000) }
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let base = "http://127.0.0.1:\(admin.port)"
        let action = Array(#"{"action": "networkOnline", "selector": {"all": true}}"#.utf8)
        let targets: [(key: String, label: String, request: OutboundRequest, status: Int)] = [
            (
                "fleet", "GET /api/v1/fleet",
                OutboundRequest(url: base + "/api/v1/fleet", method: .get, connectionKey: "bench"), 200
            ),
            (
                "devices", "GET /api/v1/devices?limit=100",
                OutboundRequest(url: base + "/api/v1/devices?limit=100", method: .get, connectionKey: "bench"), 200
            ),
            (
                "stats", "GET /api/v1/stats",
                OutboundRequest(url: base + "/api/v1/stats", method: .get, connectionKey: "bench"), 200
            ),
            (
                "metrics", "GET /metrics",
                OutboundRequest(url: base + "/metrics", method: .get, connectionKey: "bench"), 200
            ),
            (
                "action", "POST /api/v1/fleet/actions",
                OutboundRequest(
                    url: base + "/api/v1/fleet/actions", headerFields: [.contentType: "application/json"], body: action,
                    connectionKey: "bench"), 202
            ),
        ]
        var report = BenchReport(title: "beekon-bench admin")
        report.add("devices", "devices", Double(runtime.snapshot.metrics.devices), unit: "")
        report.add("warp", "warp", fleet.warp, unit: "×")
        for target in targets {
            var latency = LatencyHistogram()
            var failures = 0
            for _ in 0..<requests {
                let started = DispatchTime.now().uptimeNanoseconds
                let done = DispatchSemaphore(value: 0)
                let status = StatusBox()
                transport.submit(target.request) { result in
                    status.value = result.status ?? 0
                    done.signal()
                }
                done.wait()
                latency.record(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
                if status.value != target.status { failures += 1 }
            }
            report.add("\(target.key)_p50_ms", "\(target.label) p50", latency.percentile(0.5), unit: "ms")
            report.add("\(target.key)_p99_ms", "\(target.label) p99", latency.percentile(0.99), unit: "ms")
            report.add("\(target.key)_max_ms", "\(target.label) max", latency.max, unit: "ms")
            if failures > 0 {
                report.note("\(target.label): \(failures) of \(requests) answers were not \(target.status)")
            }
        }
        let metrics = runtime.metrics
        report.note(
            "\(requests) requests per endpoint, one at a time; the fleet meanwhile: \(metrics.batchesSent) uploads, "
                + "timer lateness p99 \(String(format: "%.1f", metrics.timerLateness.percentile(0.99))) ms")
        print(report.render(json: json))
    }
}

/// A status handed from the transport's thread to the waiting one (the semaphore orders them).
private final class StatusBox: @unchecked Sendable {  // Written before `signal()`, read after `wait()`.
    var value = 0
}
