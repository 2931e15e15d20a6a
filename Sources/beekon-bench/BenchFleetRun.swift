import BeekonNet
import FleetCommandLine
import FleetDescription
import FleetEngine
import FleetRuntime
import Foundation

/// One run of the bench fleet (one 2 km walk, precision preset, high-accuracy fixes each
/// second) against an ingest URL, stores in a folder of their own: what `fleet`, `upload` and
/// `admin` measure.
struct BenchFleetRun {
    var options: BenchFleetOptions
    /// Fixes per batch: syncThreshold and batchSize.
    var threshold: Int
    var gate: BenchGate
    /// Wall-clock seconds the fleet runs.
    var seconds: Double

    /// What a run measured.
    struct Result {
        var metrics: FleetMetrics
        /// CPU seconds of this process over `run` (store preparation and the drain included).
        var cpuSeconds: Double
        /// Readings taken about four times a second while the fleet ran.
        var samples: [Sample]
        /// Virtual ms from the run's start by which every device of the fleet file has spawned
        /// (the last device of the group that starts last, `startAfter` and `spread` included).
        var allSpawnedMillis: Int64 = 0
        /// The fleet's own run time: rates are over this, not preparation nor drain.
        var wallSeconds: Double { max(metrics.realSeconds, 1e-3) }

        /// The last half of the run: the devices have all switched on and filled their first
        /// batches, so its rates are the fleet's steady ones. Nil for a run too short to sample.
        var steadyHalf: Window? {
            guard let last = samples.last, let first = samples.first, last.wall > first.wall else { return nil }
            let middle = samples.first { $0.wall >= (first.wall + last.wall) / 2 } ?? first
            guard last.wall > middle.wall else { return nil }
            return Window(from: middle, to: last)
        }

        /// From the first sample at which every device had spawned (its store was ready before
        /// the clock started) to the last one: the run without store setup, the devices' spread
        /// start nor the drain and teardown. Nil when the run ended before every device spawned.
        var steadyAfterSpawn: Window? {
            BenchFleetRun.window(samples, fromVirtual: (samples.first?.metrics.historyStart ?? 0) + allSpawnedMillis)
        }

        /// From the first sample to the last: the sampled run, store setup and teardown left out.
        var sampledRun: Window? {
            guard let first = samples.first, let last = samples.last, last.wall > first.wall else { return nil }
            return Window(from: first, to: last)
        }
    }

    /// The window from the first sample whose virtual clock stands at `instant` (Unix ms) or
    /// later to the last sample; nil when no sample reached it or no later sample follows it.
    static func window(_ samples: [Sample], fromVirtual instant: Int64) -> Window? {
        guard let start = samples.first(where: { $0.metrics.virtualNow >= instant }), let last = samples.last,
            last.wall > start.wall
        else { return nil }
        return Window(from: start, to: last)
    }

    /// Virtual ms from the run's start until the last device of `groups` spawns: a group's
    /// device `i` of `n` spawns at `startAfter + spread × i / n` (as `FleetLoop.start` schedules it).
    static func allSpawnedMillis(_ groups: [DeviceGroup]) -> Int64 {
        groups.map { group in
            group.startAfterMillis
                + (group.count > 1 ? group.spreadMillis * Int64(group.count - 1) / Int64(group.count) : 0)
        }.max() ?? 0
    }

    /// The wall clock the samples are read on (monotonic seconds).
    static func wallNow() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// One reading: wall clock, this process's CPU, a server's CPU, and the fleet's counters.
    struct Sample {
        var wall: Double
        var cpu: Double
        var serverCPU: Double
        var metrics: Counters

        /// The few figures of `FleetMetrics` the windows read. Not the metrics themselves: a
        /// sample four times a second of their histograms and history held gigabytes by the end
        /// of a 300-s run of 100,000 devices, which the bench then reported as the fleet's RSS.
        struct Counters {
            var virtualNow: Int64
            var realSeconds: Double
            var historyStart: Int64
            /// Uploads answered 2xx.
            var answered: Int
            var acknowledged: Int
            var fixesStored: Int

            init(_ metrics: FleetMetrics) {
                virtualNow = metrics.virtualNow
                realSeconds = metrics.realSeconds
                historyStart = metrics.history.start
                answered = metrics.batchesByOutcome.filter(\.key.isSuccess).values.reduce(0, +)
                acknowledged = metrics.fixes.ledger.acknowledged
                fixesStored = metrics.fixesStored
            }
        }
    }

    /// What happened between two samples.
    struct Window {
        /// Wall clock (`wallNow`) at its start and its end.
        var startWall: Double
        var endWall: Double
        var seconds: Double
        /// Virtual seconds the fleet's clock advanced.
        var virtualSeconds: Double
        /// Uploads answered 2xx.
        var requests: Int
        var fixesUploaded: Int
        var fixesStored: Int
        var cpu: Double
        var serverCPU: Double

        init(from start: Sample, to end: Sample) {
            startWall = start.wall
            endWall = end.wall
            seconds = end.wall - start.wall
            virtualSeconds = Double(end.metrics.virtualNow - start.metrics.virtualNow) / 1000
            requests = end.metrics.answered - start.metrics.answered
            fixesUploaded = end.metrics.acknowledged - start.metrics.acknowledged
            fixesStored = end.metrics.fixesStored - start.metrics.fixesStored
            cpu = end.cpu - start.cpu
            serverCPU = end.serverCPU - start.serverCPU
        }

        /// Cores this process kept busy: CPU seconds over wall seconds.
        var cpuCores: Double { seconds > 0 ? cpu / seconds : 0 }

        /// Virtual seconds the clock advanced per wall second: the warp the fleet kept up.
        var achievedWarp: Double { seconds > 0 ? virtualSeconds / seconds : 0 }
    }

    /// The bench fleet file for devices uploading to `ingest`.
    func yaml(ingest: String) -> String {
        let gateOverrides =
            gate == .everyFix ? "minTimeBetweenLocationsSeconds: 1\n      minDistanceBetweenLocationsMeters: 0" : ""
        return """
            name: bench
            seed: 1
            clock: {warp: \(options.warp)}
            ingest: \(ingest)
            groups:
              - name: bench
                count: \(options.devices)
                platform: {ios: 0.5, android: 0.5}
                route: walk.csv
                pace: walk
                startOffset: random
                spread: \(options.spread)
                config:
                  preset: precision
                  \(gateOverrides)
                  whenStationary: keepTracking
                  sync: {syncThreshold: \(threshold), batchSize: \(max(threshold, 1))}
            """
    }

    /// Writes the walk under `folder` and reads the bench fleet file uploading to `ingest`.
    func fleet(ingest: String, in folder: String) throws -> FleetFile {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var csv = "lat,lon\n"
        for index in 0...40 { csv += "\(51.5 + Double(index) * 0.00045),-0.12\n" }
        try csv.write(toFile: folder + "/walk.csv", atomically: true, encoding: .utf8)
        do throws(FleetFileProblems) {
            return try FleetFile.parse(yaml: yaml(ingest: ingest), file: "bench.yaml", routeFolder: folder)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Writes the walk and the fleet file under `folder`, runs the fleet against `ingest` for
    /// `seconds` of wall time with its stores in `folder/data`, and returns its figures;
    /// `serverCPU` reads the CPU seconds of the server it uploads to, if that is measured.
    func run(ingest: String, in folder: String, serverCPU: () -> Double = { 0 }) throws -> Result {
        let openFiles = FileLimit.raiseToHardLimit()
        let fleet = try fleet(ingest: ingest, in: folder)
        var runOptions = RunOptions(
            dataDirectory: folder + "/data", realDurationMillis: Int64(seconds * 1000),
            routeFolder: folder,
            maxOpenStores: DescriptorBudget.run(
                devices: options.devices, maxConnections: options.maxConnections,
                idleConnections: HTTPTransport.defaultMaxIdleConnections * options.loopCount, adminConnections: nil,
                embeddedReceiver: true  // the 204 server: a socket per connection, as a receiver
            ).openStores(limit: openFiles),
            maxConnections: options.maxConnections)
        runOptions.loops = options.loopCount
        let runtime = try FleetRuntime(fleet: fleet, options: runOptions)
        var samples: [Sample] = []
        let cpuBefore = ProcessTimes.cpuSeconds()
        try runtime.run(progressEverySeconds: 0.25) { metrics in
            samples.append(
                Sample(
                    wall: Self.wallNow(), cpu: ProcessTimes.cpuSeconds(),
                    serverCPU: serverCPU(), metrics: Sample.Counters(metrics)))
        }
        return Result(
            metrics: runtime.metrics, cpuSeconds: ProcessTimes.cpuSeconds() - cpuBefore, samples: samples,
            allSpawnedMillis: Self.allSpawnedMillis(fleet.groups))
    }
}
