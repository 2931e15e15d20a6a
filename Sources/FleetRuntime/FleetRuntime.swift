import BeekonDevice
import BeekonNet
import BeekonStore
import FleetDescription
import FleetEngine
import Foundation
import Logging
import Synchronization

/// Runs a fleet: one event loop owns every device, its store, its emulated OS and its timers,
/// on the thread that calls `run()`; HTTP runs on the transport's own thread and comes back
/// through an inbox. Virtual time comes from one `FleetClock`.
public final class FleetRuntime: Sendable {
    /// Work that crosses threads: transfer completions, control commands and a stop request.
    struct Inbox {
        /// Real requests that ended: transfer number and result.
        var completions: [(number: Int, result: HTTPResult)] = []
        var commands: [Command] = []
        var stopRequested = false
        /// The run is over: commands are refused at once.
        var finished = false
    }

    /// A control command: runs on the loop's thread between turns and returns its answer, which
    /// is delivered after the snapshot that shows its effect is published; `refuse` answers it
    /// when the fleet is not running.
    struct Command: Sendable {
        var run: @Sendable (inout RealDriver) -> @Sendable () -> Void
        var refuse: @Sendable () -> Void
    }

    public typealias TransferKind = FleetEngine.TransferKind

    let inbox = Mutex(Inbox())
    let wakeup = DispatchSemaphore(value: 0)
    private let published = Mutex(FleetMetrics())
    private let publishedSnapshot = Mutex(FleetSnapshot())
    private nonisolated(unsafe) var loop: FleetLoop?  // only run()'s thread touches it, and takes it once
    private let running = Mutex(false)
    /// Where the run's driver logs what the engine reports (store errors, refused SDK calls) and
    /// its own news (the clock file, debug detail). The engine itself never logs.
    let logger: Logger

    /// The run starts with modelled transfer timing (`--deterministic`, `clock.deterministic`,
    /// max warp), so its digest depends on the requests alone, not on the machine's speed.
    public let startsModelled: Bool

    /// Prepares a run: reads the routes, opens nothing yet.
    public init(fleet: FleetFile, options: RunOptions, logger: Logger = Logger(label: "beekon-fleet")) throws {
        let engine = try FleetLoop(fleet: fleet, options: options)
        startsModelled = engine.transferTiming.isModelled
        loop = engine
        self.logger = logger
    }

    /// The latest metrics, safe from any thread.
    public var metrics: FleetMetrics { published.withLock { $0 } }

    /// The latest snapshot of the fleet (devices, stats, clock), safe from any thread; published
    /// a few times a second and after every control command.
    public var snapshot: FleetSnapshot { publishedSnapshot.withLock { $0 } }

    /// Where the run is: `starting` until `run()` has opened the stores and published the first
    /// snapshot (so a health check never passes before the API has a fleet to show), `running`
    /// while its loop takes commands, `stopping` once it has been asked to stop or its duration
    /// is over.
    public var phase: RunPhase {
        guard running.withLock({ $0 }), publishedSnapshot.withLock({ $0.sequence }) > 0 else { return .starting }
        return inbox.withLock { $0.finished || $0.stopRequested } ? .stopping : .running
    }

    /// Asks the run to stop at its next step; safe from any thread and from a signal handler's
    /// dispatch source.
    public func stop() {
        inbox.withLock { $0.stopRequested = true }
        wakeup.signal()
    }

    /// Runs until `stop()`, the real or virtual duration, whichever comes first, on the calling
    /// thread, and says which ended it. `progress` is called about every `progressEverySeconds`
    /// with the metrics.
    @discardableResult
    public func run(progressEverySeconds: Double = 5, progress: (FleetMetrics) -> Void = { _ in }) throws -> RunEnd {
        let first = running.withLock { started in
            defer { started = true }
            return !started
        }
        guard first, let engine = loop.take() else {
            throw RunError(description: "this fleet already ran")
        }
        let transport = try HTTPTransport(
            maxConcurrentTransfers: engine.options.maxConnections, caFile: engine.options.caFile,
            insecure: engine.options.insecure)
        defer { transport.shutdown() }
        var driver = RealDriver(engine: engine, transport: transport, runtime: self, logger: logger)
        driver.start()
        let started = Self.realNanos()
        var lastProgress = started
        var lastPublished = started
        var runSeconds = 0.0
        publish(&driver, runSeconds: 0)
        var end = RunEnd.stopped
        while true {
            let (completions, commandsWaiting, stopRequested) = takeInbox()
            driver.engine.realNow = Self.realNanos()
            driver.deliver(completions)
            if stopRequested { break }
            // At max warp, commands wait until every device stands at one instant.
            let commands = commandsWaiting && driver.engine.readyForCommands() ? takeCommands() : []
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
                if !answers.isEmpty { publish(&driver, runSeconds: runSeconds) }
                for answer in answers { answer() }
                break
            }
            runSeconds = Double(realNow - started) / 1e9
            driver.turn(until: now, realNanos: realNow)
            // Published a few times a second, not every turn: a device that changes often is then
            // rewritten once per publication, not once per event.
            if realNow - lastPublished >= 100_000_000 || !answers.isEmpty {
                lastPublished = realNow
                publish(&driver, runSeconds: runSeconds)
            }
            for answer in answers { answer() }
            if Double(realNow - lastProgress) / 1e9 >= progressEverySeconds {
                lastProgress = realNow
                progress(metrics)
            }
            if let waitNanos = driver.realWait(), waitNanos > 0 {
                _ = wakeup.wait(timeout: .now() + .nanoseconds(Int(waitNanos)))
            }
        }
        // Let uploads already on the wire finish (up to 10 s), so rows the server took are
        // acknowledged now rather than sent again by the next run. Nothing new is sent.
        let drainDeadline = Self.realNanos() + 10_000_000_000
        let refused = inbox.withLock { box in
            box.finished = true
            defer { box.commands = [] }
            return box.commands
        }
        for transfer in refused { transfer.refuse() }
        driver.engine.draining = true
        repeat {
            driver.deliver(takeInbox().completions)
            // Answers in but not yet heard (modelled time, injected latency) are heard now.
            driver.engine.deliverHeldAnswers()
            driver.carryOutEffects()
            if driver.inFlight > 0 { _ = wakeup.wait(timeout: .now() + .milliseconds(50)) }
        } while driver.inFlight > 0 && Self.realNanos() < drainDeadline
        driver.finish()
        publish(&driver, runSeconds: runSeconds)
        return end
    }

    /// Takes the completions that arrived, and says whether commands wait and a stop was asked for.
    private func takeInbox() -> (
        completions: [(number: Int, result: HTTPResult)], commandsWaiting: Bool, stopRequested: Bool
    ) {
        inbox.withLock { box in
            let taken = (box.completions, !box.commands.isEmpty, box.stopRequested)
            box.completions = []
            return taken
        }
    }

    /// Takes the commands that arrived.
    private func takeCommands() -> [Command] {
        inbox.withLock { box in
            defer { box.commands = [] }
            return box.commands
        }
    }

    /// Queues a command for the loop and wakes it; refuses it at once when the run is over.
    func submit(_ command: Command) {
        let accepted = inbox.withLock { box in
            guard !box.finished else { return false }
            box.commands.append(command)
            return true
        }
        if accepted { wakeup.signal() } else { command.refuse() }
    }

    /// Publishes the metrics and the snapshot, with the devices that changed since the last
    /// publication brought up to date (and only those: see `FleetLoop.recordChanges`).
    private func publish(_ driver: inout RealDriver, runSeconds: Double) {
        var metrics = driver.engine.snapshot()
        metrics.realSeconds = runSeconds
        published.withLock { $0 = metrics }
        var snapshot = driver.engine.fleetSnapshot(
            metrics: metrics, paused: driver.clock.isPaused, realNanos: Self.realNanos())
        snapshot.warp = driver.reportedWarp
        snapshot.maxWarp = driver.maxWarp
        snapshot.sequence = publishedSnapshot.withLock { $0.sequence } &+ 1
        publishedSnapshot.withLock { $0 = snapshot }
    }

    static func realNanos() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }
}
