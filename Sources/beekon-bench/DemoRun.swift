import BeekonNet
import FleetCommandLine
import FleetDescription
import FleetEngine
import FleetRuntime
import Foundation
import IngestReceiver

/// The demo fleet as the benchmarks run it: scaled, its clock fixed, on a bench folder of its
/// own, against the reference receiver in-process.
enum DemoRun {
    /// The demo fleet (`fleets/demo.yaml`) scaled to `devices`, starting at
    /// `BenchMaxWarp.startMillis` so runs compare; and where it was read from.
    static func fleet(devices: Int) throws -> (fleet: FleetFile, path: String) {
        let path = try DefaultFleet.locate()
        var fleet: FleetFile
        do throws(FleetFileProblems) {
            fleet = try FleetFile.load(path: path)
        } catch {
            throw CommandFailure(error.description)
        }
        BenchMaxWarp.scale(&fleet, to: devices)
        fleet.clock.start = BenchMaxWarp.startMillis
        return (fleet, path)
    }

    /// A run of `demo` in `folder` at `warp` for `virtualDuration`, its descriptors checked for
    /// `command`, against a receiver started in the same folder answering `latencyMillis` late;
    /// the receiver is the caller's to stop.
    static func start(
        _ demo: (fleet: FleetFile, path: String), devices: Int, in folder: BenchFolder, warp: Warp,
        virtualDuration: Int64, latencyMillis: Int = 0, thresholds: [Threshold] = [], for command: String
    ) throws -> (FleetRuntime, IngestReceiver) {
        let idle = HTTPTransport.defaultMaxIdleConnections
        let maxConnections = 256
        let budget = DescriptorBudget.run(
            devices: devices, maxConnections: maxConnections, idleConnections: idle, adminConnections: nil,
            embeddedReceiver: true)
        let openFiles = try FileLimit.ensure(budget, for: command)
        let receiver = try EmbeddedReceiver.start(
            dataDirectory: folder.root,
            connections: DescriptorBudget.receiverConnections(
                devices: devices, maxConnections: maxConnections, idleConnections: idle),
            latencyMillis: latencyMillis)
        var options = RunOptions(
            dataDirectory: folder.root, ingest: receiver.url, warp: warp, virtualDurationMillis: virtualDuration,
            routeFolder: URL(fileURLWithPath: demo.path).deletingLastPathComponent().path,
            maxOpenStores: budget.openStores(limit: openFiles), maxConnections: maxConnections)
        options.thresholds = thresholds
        do {
            return (try FleetRuntime(fleet: demo.fleet, options: options), receiver)
        } catch {
            receiver.stop()
            throw CommandFailure("\(error)")
        }
    }
}
