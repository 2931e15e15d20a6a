import BeekonDevice
import FleetDescription
import FleetEngine
import Synchronization

/// The simulated driver behind the control API (`FleetControl`), for tests of what drives a
/// fleet (the admin API, the page): commands run at once at the current virtual instant, and
/// virtual time moves only when the test says (`advance`). Thread-safe; the fleet's answers
/// come from `network`, a function of the request.
public final class SimulatedRuntime: FleetControl {
    private let fleet: Mutex<SimulatedFleet>
    private let published = Mutex(FleetSnapshot())
    private let finished = Mutex(false)

    /// A started fleet over `fleet` with `options` (its data folder and routes), answered by `network`.
    public init(
        fleet file: FleetFile, options: RunOptions, network: @escaping @Sendable (SimulatedRequest) -> SimulatedAnswer
    ) throws {
        fleet = Mutex(try SimulatedFleet(fleet: file, options: options, network: network))
        publish()
    }

    public var snapshot: FleetSnapshot { published.withLock { $0 } }

    public var phase: RunPhase { finished.withLock { $0 } ? .stopping : .running }

    /// Its engine's part of the fleet.
    public var shard: Shard { fleet.withLock { $0.engine.options.shard } }

    /// Virtual now, Unix ms.
    public var now: Int64 { fleet.withLock { $0.now } }

    /// Every request the fleet sent, in order.
    public var sent: [SimulatedRequest] { fleet.withLock { $0.sent } }

    /// Runs `millis` of virtual time (none while paused) and publishes the snapshot.
    public func advance(byMillis millis: Int64) {
        guard !finished.withLock({ $0 }) else { return }
        fleet.withLock { $0.advance(byMillis: millis) }
        publish()
    }

    /// Ends the run; later commands are refused as `unavailable`.
    public func finish() {
        guard
            !finished.withLock({ finished in
                defer { finished = true }
                return finished
            })
        else { return }
        fleet.withLock { $0.finish() }
        publish()
    }

    public func spawn(_ request: SpawnRequest, reply: @escaping @Sendable (Result<[String], FleetControlError>) -> Void)
    {
        command(reply) { fleet throws(FleetControlError) in
            let newRoutes = try RunFiles.routes(for: request, missingFrom: fleet.engine)
            return try fleet.command { (engine) throws(FleetControlError) in
                try engine.spawn(request, newRoutes: newRoutes)
            }
        }
    }

    public func deleteDevice(_ id: String, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void) {
        command(reply) { fleet throws(FleetControlError) in
            try fleet.command { (engine) throws(FleetControlError) in try engine.delete(id) }
        }
    }

    public func apply(
        _ action: FleetAction, to selector: FaultSelector,
        reply: @escaping @Sendable (Result<[String], FleetControlError>) -> Void
    ) {
        command(reply) { fleet throws(FleetControlError) in
            try fleet.command { (engine) throws(FleetControlError) in
                try engine.act(action, on: selector)
            }
        }
    }

    public func updateFleet(
        warp: Warp?, paused: Bool?, devices: Int?, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void
    ) {
        command(reply) { fleet throws(FleetControlError) in
            try FleetControlError.checkWarp(warp)
            if let devices {
                try fleet.command { (engine) throws(FleetControlError) in try engine.setFleetDevices(devices) }
            }
            if let warp { fleet.setWarp(warp) }
            if let paused { fleet.setPaused(paused) }
        }
    }

    public func locations(
        of id: String, from: Int64, to: Int64, limit: Int,
        reply: @escaping @Sendable (Result<[Location], FleetControlError>) -> Void
    ) {
        command(reply) { fleet throws(FleetControlError) in
            try fleet.engine.locations(of: id, from: from, to: to, limit: limit)
        }
    }

    public func endFault(_ index: Int, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void) {
        command(reply) { fleet throws(FleetControlError) in
            try fleet.command { (engine) throws(FleetControlError) in try engine.endFaultEarly(index) }
        }
    }

    public func resetStatistics(reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void) {
        command(reply) { fleet throws(FleetControlError) in fleet.engine.resetStatistics() }
    }

    /// Runs a command at the current virtual instant, publishes, then answers.
    private func command<Answer: Sendable>(
        _ reply: @escaping @Sendable (Result<Answer, FleetControlError>) -> Void,
        _ body: (inout SimulatedFleet) throws(FleetControlError) -> Answer
    ) {
        guard !finished.withLock({ $0 }) else {
            reply(.failure(FleetControlError(.unavailable, "the fleet is not running")))
            return
        }
        let result: Result<Answer, FleetControlError> = fleet.withLock { fleet in
            do throws(FleetControlError) {
                return .success(try body(&fleet))
            } catch {
                return .failure(error)
            }
        }
        publish()
        reply(result)
    }

    private func publish() {
        let snapshot = fleet.withLock { fleet in
            let paused = fleet.paused
            var metrics = fleet.engine.snapshot()
            // The real time a driver at the run's warp would have run for (rates per second).
            metrics.realSeconds = Double(fleet.engine.clock.realNow) / 1e9
            // No wall to keep up with: the warp set, its pace unmeasured.
            metrics.pace = FleetPace(warp: fleet.maxWarp ? nil : fleet.engine.clock.warp)
            metrics.pace.paused = paused
            var snapshot = fleet.engine.fleetSnapshot(
                metrics: metrics, paused: paused, realNanos: fleet.engine.clock.realNow)
            snapshot.maxWarp = fleet.maxWarp
            return snapshot
        }
        published.withLock { current in
            let sequence = current.sequence &+ 1
            current = snapshot
            current.sequence = sequence
        }
    }
}
