import BeekonDevice
import BeekonNet
import FleetDescription
import FleetEngine
import Foundation
import Logging
import Synchronization

/// Runs a fleet: one event loop, or several (`RunOptions.loops`), each owning a shard of the
/// devices (`Shard`) with their stores, emulated OS and timers, on a thread of its own (the first
/// on the thread that calls `run()`); HTTP runs on each loop's transport thread and comes back
/// through the loop's inbox. The loops share one virtual clock: one start, one warp, and every
/// command reaches each at one real instant. What they publish is merged into the one fleet the
/// admin API shows (`SnapshotMerger`).
public final class FleetRuntime: Sendable {
    /// A control command: runs on a loop's thread between turns and returns its answer, which
    /// is delivered after the snapshot that shows its effect is published; `refuse` answers it
    /// when the loop is not running.
    struct Command: Sendable {
        var run: @Sendable (inout RealDriver) -> @Sendable () -> Void
        var refuse: @Sendable () -> Void
    }

    public typealias TransferKind = FleetEngine.TransferKind

    /// Each loop's inbox, wakeup and published snapshot, by shard.
    let hosts: [LoopHost]
    /// The loops' snapshots as one fleet's, the parts' sequences it was merged from, and the last
    /// merged (unused with one loop, whose snapshot is the fleet's).
    private let merged: Mutex<(merger: SnapshotMerger, from: [UInt64], snapshot: FleetSnapshot)>
    private let files: SharedRunFiles
    private nonisolated(unsafe) var engines: [FleetLoop]?  // only run()'s thread touches them, and takes them once
    private let running = Mutex(false)
    /// Where the run's drivers log what the engine reports (store errors, refused SDK calls) and
    /// their own news (the clock file, debug detail). The engine itself never logs.
    let logger: Logger

    /// The part of the fleet this process runs (`run --shard`): the whole fleet unless split
    /// over processes; its loops split it again.
    public let shard: Shard

    /// The run starts with modelled transfer timing (`--deterministic`, `clock.deterministic`,
    /// max warp), so its digest depends on the requests alone, not on the machine's speed.
    public let startsModelled: Bool

    /// Prepares a run: reads the routes, opens nothing yet. With more than one loop
    /// (`options.loops`), loop i runs shard i of them, with its share of the open stores and
    /// connections.
    public init(fleet: FleetFile, options: RunOptions, logger: Logger = Logger(label: "beekon-fleet")) throws {
        do throws(NumberProblem) {
            _ = try RunOptions.loopsRange.check(Double(options.loops))
        } catch {
            throw RunError(description: "loops \(error)")
        }
        let routes = try RunFiles.routes(of: fleet, folder: options.routeFolder)
        let installIDs = RunFiles.readInstallIDs(options.dataDirectory)
        let formerInstalls = RunFiles.readFormerInstalls(options.dataDirectory)
        let previousClock = try RunFiles.readClock(options.dataDirectory)
        var engines: [FleetLoop] = []
        for shard in options.shard.split(options.loops) {
            var part = options
            part.shard = shard
            if options.loops > 1 {
                part.maxOpenStores = max(1, options.maxOpenStores / options.loops)
                part.maxConnections = options.maxConnections == 0 ? 0 : max(1, options.maxConnections / options.loops)
            }
            engines.append(
                try FleetLoop(
                    fleet: fleet, options: part, routes: routes, installIDs: installIDs, formerInstalls: formerInstalls,
                    previousClock: previousClock,
                    stores: SQLiteShelf(dataDirectory: part.dataDirectory, maxOpen: part.maxOpenStores)))
        }
        if let addresses = engines[0].sourceAddresses {
            // Refused before anything runs: otherwise every request would fail on the wire.
            if let problem = SourceAddressCheck.problem(
                addresses: addresses.all, servers: Self.servers(of: fleet, ingest: options.ingest))
            {
                throw RunError(description: "source addresses: " + problem)
            }
        }
        shard = options.shard
        startsModelled = engines[0].clock.transferTiming.isModelled
        self.engines = engines
        hosts = engines.map { _ in LoopHost() }
        merged = Mutex((SnapshotMerger(shards: engines.count), [], FleetSnapshot()))
        files = SharedRunFiles(directory: options.dataDirectory, loops: engines.count)
        self.logger = logger
    }

    /// How many loops run the fleet.
    public var loops: Int { hosts.count }

    /// The latest metrics, safe from any thread.
    public var metrics: FleetMetrics { snapshot.metrics }

    /// The latest snapshot of the fleet (devices, stats, clock), safe from any thread; published
    /// a few times a second and after every control command (with several loops, merged from
    /// their latest when one of them published since the last read).
    public var snapshot: FleetSnapshot {
        guard hosts.count > 1 else { return hosts[0].published.withLock { $0 } }
        // The parts are read under the merger's lock, so two readers never merge an older set
        // after a newer one.
        return merged.withLock { merged in
            let parts = hosts.map { host in host.published.withLock { $0 } }
            // Nothing is shown (sequence 0) until every loop has published: a fleet half there is
            // not the fleet.
            guard parts.allSatisfy({ $0.sequence > 0 }) else { return FleetSnapshot() }
            let sequences = parts.map(\.sequence)
            guard sequences != merged.from else { return merged.snapshot }
            var snapshot = merged.merger.merge(parts)
            snapshot.sequence = merged.snapshot.sequence &+ 1
            merged.from = sequences
            merged.snapshot = snapshot
            return snapshot
        }
    }

    /// Every server the fleet's devices talk to (upload and token endpoints), as host and port.
    static func servers(of fleet: FleetFile, ingest: String?) -> [(host: String, port: Int)] {
        var urls = Set<String>()
        for group in fleet.groups {
            if let url = fleet.ingestURL(of: group.config, given: ingest) { urls.insert(url) }
            if let url = group.config.sync?.auth?.refreshURL { urls.insert(url) }
        }
        return urls.sorted().compactMap { text in
            guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty else { return nil }
            return (host, url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))
        }
    }

    /// Where the run is: `starting` until `run()` has opened the stores and every loop published
    /// its first snapshot (so a health check never passes before the API has a fleet to show),
    /// `running` while its loops take commands, `stopping` once it has been asked to stop or its
    /// duration is over.
    public var phase: RunPhase {
        guard running.withLock({ $0 }), hosts.allSatisfy({ $0.published.withLock { $0.sequence } > 0 }) else {
            return .starting
        }
        return hosts.contains { $0.inbox.withLock { $0.finished || $0.stopRequested } } ? .stopping : .running
    }

    /// Asks the run to stop at its next step; safe from any thread and from a signal handler's
    /// dispatch source.
    public func stop() {
        for host in hosts { host.stop() }
    }

    /// Runs until `stop()`, the real or virtual duration, whichever comes first, on the calling
    /// thread (and one more thread per loop past the first), and says which ended it. `progress`
    /// is called about every `progressEverySeconds` with the metrics.
    @discardableResult
    public func run(progressEverySeconds: Double = 5, progress: (FleetMetrics) -> Void = { _ in }) throws -> RunEnd {
        let first = running.withLock { started in
            defer { started = true }
            return !started
        }
        guard first, let engines = engines.take() else {
            throw RunError(description: "this fleet already ran")
        }
        var transports: [HTTPTransport] = []
        defer { for transport in transports { transport.shutdown() } }
        for engine in engines {
            transports.append(
                // The connection cap is the driver's (`ConnectionCap`), so the engine knows what
                // never went on the wire.
                try HTTPTransport(
                    maxConcurrentTransfers: 0, caFile: engine.options.caFile,
                    insecure: engine.options.insecure, http2: engine.offersHTTP2))
        }
        let drivers = engines.indices.map { index in
            DriverBox(
                RealDriver(
                    engine: engines[index], transport: transports[index], host: hosts[index], files: files,
                    loopIndex: index, logger: logger))
        }
        // One start for every loop: the newest row any store holds bounds it, every store is
        // prepared (the loops side by side), then the clocks start at one real instant.
        for box in drivers { box.earlier = box.driver.engine.openEarlierStores() }
        let newestStored = drivers.compactMap(\.earlier.newest).max()
        for box in drivers { box.earlier.newest = newestStored }
        // With a start barrier (`--start-at`) the run starts as if the wall clock were there, so
        // every shard of a `clock.start: now` fleet has one virtual start.
        let startAt = drivers[0].driver.engine.options.startAt
        let wallNow = startAt ?? Self.wallMillis()
        DispatchQueue.concurrentPerform(iterations: drivers.count) { index in
            drivers[index].driver.start(wallNow: wallNow, earlier: drivers[index].earlier)
        }
        if let startAt { holdUntil(startAt) }
        let clockStarts = Self.realNanos()
        for box in drivers { box.driver.startClock(realNanos: clockStarts) }
        let others = DispatchGroup()
        var ends = [RunEnd](repeating: .stopped, count: drivers.count)
        let otherEnds = Mutex(ends)
        for index in drivers.indices.dropFirst() {
            let box = drivers[index]
            let host = hosts[index]
            others.enter()
            let thread = Thread { [self] in
                let end = turnLoop(&box.driver, host: host, started: clockStarts, progressEverySeconds: nil) { _ in }
                otherEnds.withLock { $0[index] = end }
                others.leave()
            }
            thread.name = "beekon-loop-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
        ends[0] = turnLoop(
            &drivers[0].driver, host: hosts[0], started: clockStarts, progressEverySeconds: progressEverySeconds,
            progress: progress)
        others.wait()
        ends[1...] = otherEnds.withLock { $0 }[1...]
        // The reproducible end is named when the loops ended differently (one reached the
        // virtual end just as another's wall-clock limit came).
        return ends.first { if case .virtualTimeLimit = $0 { true } else { false } } ?? ends[0]
    }

    /// Turns one loop until a stop, the run's real or virtual duration, then lets its uploads on
    /// the wire finish and closes its stores. `progress` is called about every
    /// `progressEverySeconds` with the fleet's metrics (by the first loop only: nil elsewhere).
    private func turnLoop(
        _ driver: inout RealDriver, host: LoopHost, started: UInt64, progressEverySeconds: Double?,
        progress: (FleetMetrics) -> Void
    ) -> RunEnd {
        var lastProgress = started
        var lastPublished = started
        var runSeconds = 0.0
        publish(&driver, host: host, runSeconds: 0)
        var end = RunEnd.stopped
        while true {
            let (completions, commandsWaiting, stopRequested) = host.takeInbox()
            driver.engine.clock.realNow = Self.realNanos()
            driver.deliver(completions)
            if stopRequested { break }
            // At max warp, commands wait until every device stands at one instant.
            let commands = commandsWaiting && driver.engine.readyForCommands() ? host.takeCommands() : []
            let answers = commands.map { $0.run(&driver) }
            let realNow = Self.realNanos()
            var now = driver.reachable(realNanos: realNow)
            var ended: RunEnd?
            // A virtual duration ends once every timer before it has fired, however far behind
            // the loop is, so what a run produces does not depend on how fast the machine is.
            // It is checked first: when both limits fall in one turn, the reproducible one is named.
            if let limit = driver.engine.virtualDurationMillis, let endsAt = driver.engine.endsAt {
                // (A turn cut short by its budget may have reached the end with timers there still to fire.)
                if driver.engine.metrics.virtualNow >= endsAt, (driver.engine.nextDeadline() ?? .max) > endsAt {
                    ended = .virtualTimeLimit(millis: limit)
                }
                now = min(now, endsAt)
            }
            if ended == nil, let limit = driver.engine.options.realDurationMillis,
                realNow - started >= UInt64(limit) * 1_000_000
            {
                ended = .wallClockLimit(millis: limit)
            }
            if let ended {
                end = ended
                // Commands that just ran are answered, after the snapshot that shows them.
                if !answers.isEmpty { publish(&driver, host: host, runSeconds: runSeconds) }
                for answer in answers { answer() }
                break
            }
            runSeconds = Double(realNow - started) / 1e9
            driver.turn(until: now, realNanos: realNow)
            // Published a few times a second, not every turn: a device that changes often is then
            // rewritten once per publication, not once per event.
            if realNow - lastPublished >= 100_000_000 || !answers.isEmpty {
                lastPublished = realNow
                publish(&driver, host: host, runSeconds: runSeconds)
            }
            for answer in answers { answer() }
            if let every = progressEverySeconds, Double(realNow - lastProgress) / 1e9 >= every {
                lastProgress = realNow
                progress(metrics)
            }
            if let waitNanos = driver.realWait(), waitNanos > 0 {
                _ = host.wakeup.wait(timeout: .now() + .nanoseconds(Int(waitNanos)))
            }
        }
        // Let uploads already on the wire finish (up to 10 s), so rows the server took are
        // acknowledged now rather than sent again by the next run. Nothing new is sent.
        let drainDeadline = Self.realNanos() + 10_000_000_000
        host.finish()
        driver.engine.draining = true
        repeat {
            driver.deliver(host.takeInbox().completions)
            // Answers in but not yet heard (modelled time, injected latency) are heard now.
            driver.engine.deliverHeldAnswers()
            driver.carryOutEffects()
            if driver.cap.inFlight > 0 { _ = host.wakeup.wait(timeout: .now() + .milliseconds(50)) }
        } while driver.cap.inFlight > 0 && Self.realNanos() < drainDeadline
        driver.finish()
        publish(&driver, host: host, runSeconds: runSeconds)
        return end
    }

    /// Publishes the loop's snapshot with its metrics, the devices that changed since the last
    /// publication brought up to date (and only those: see `FleetLoop.recordChanges`).
    private func publish(_ driver: inout RealDriver, host: LoopHost, runSeconds: Double) {
        var metrics = driver.engine.snapshot()
        metrics.realSeconds = runSeconds
        var snapshot = driver.engine.fleetSnapshot(
            metrics: metrics, paused: driver.clock.isPaused, realNanos: Self.realNanos())
        snapshot.warp = driver.reportedWarp
        snapshot.maxWarp = driver.maxWarp
        host.published.withLock { published in
            snapshot.sequence = published.sequence &+ 1
            published = snapshot
        }
    }

    /// Waits until the wall clock reaches `startAt` (Unix ms), or the run is asked to stop; says
    /// so when it is already past by more than a second (the run then starts behind the shards
    /// that were on time, by that much real time).
    private func holdUntil(_ startAt: Int64) {
        let late = Self.wallMillis() - startAt
        if late > 1000 {
            let text =
                "the start barrier (--start-at \(Timestamp.text(unixMillis: startAt))) had passed "
                + "\(FleetDuration.text(millis: late)) before the stores were ready: this run starts now, behind "
                + "shards that started on time"
            logger.warning("\(text)")
            return
        }
        while !hosts.contains(where: { $0.inbox.withLock { $0.stopRequested } }) {
            let left = startAt - Self.wallMillis()
            guard left > 0 else { return }
            usleep(useconds_t(min(left, 100) * 1000))
        }
    }

    /// The wall clock, Unix ms: what a driver reads where the engine is given "now".
    public static func wallMillis() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    static func realNanos() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }
}

/// A loop's driver, handed to the thread that turns it (and only that one touches it after).
private final class DriverBox: @unchecked Sendable {  // one thread at a time: made on run()'s, then its loop's alone
    var driver: RealDriver
    /// Its engine's stores from an earlier run, opened before the start.
    var earlier = FleetLoop.EarlierStores()
    init(_ driver: RealDriver) { self.driver = driver }
}
