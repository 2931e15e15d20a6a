import BeekonDevice
import BeekonNet
import FleetDescription
import FleetEngine
import Foundation
import HTTPTypes
import Synchronization

/// A request as the simulated network sees it.
public struct SimulatedRequest: Sendable {
    /// The transfer's number (the order the fleet sent it in, from 1).
    public var number: Int
    /// The device that sent it.
    public var device: String
    /// An upload (with its batch id) or a token refresh.
    public var kind: FleetRuntime.TransferKind
    /// When it was sent, virtual Unix ms.
    public var sentAt: Int64
    /// The request as a real driver would make it (the body before gzip).
    public var http: OutboundRequest
}

/// How the simulated network answers a request, on virtual time.
public enum SimulatedAnswer: Sendable {
    /// The server answers `status` after `afterMillis` virtual ms.
    case respond(status: Int, headers: HTTPFields = [:], body: [UInt8] = [], afterMillis: Int64 = 0)
    /// The connection fails (`refused`, `reset`, `dns`, `tls`) after `afterMillis` virtual ms.
    case fail(NetworkFailure, afterMillis: Int64 = 0)
    /// No answer ever comes: the SDK's timeout answers.
    case hang

    /// 200 with an empty body at once.
    public static let ok = SimulatedAnswer.respond(status: 200)
}

/// The simulated driver: runs the fleet engine on virtual time alone, with no sockets, no
/// sleeps and no wall clock. Time jumps from one event to the next (a timer, an answer, an
/// admin spawn's turn); transfers are answered by `network`, a function of the request, after
/// the virtual latency it gives. At one instant, timers fire before answers are heard (an
/// answer due exactly at the SDK's timeout is a timeout). Stores are the engine's usual SQLite
/// files in the run's data folder. Tests drive it with `advance(to:)` and `command(_:)` and
/// assert exact virtual timestamps.
package struct SimulatedFleet {
    package var engine: FleetLoop
    let network: (SimulatedRequest) -> SimulatedAnswer
    /// The real time a driver at the run's warp would read, ns from the start: what the
    /// engine's real-time pacing (admin spawn rates, rates per real second) counts in. Never
    /// paused: the simulated driver waits for nothing.
    private var clock: FleetClock
    /// Answers on their way, in the order they are due (ties in the order they were sent).
    private var arriving: [(at: Int64, number: Int, result: HTTPResult)] = []
    /// With lookahead (`advanceAhead`): real answers not yet handed over, in the order sent.
    private var onWire: [(number: Int, result: HTTPResult)] = []
    /// Every request sent, in order.
    private(set) var sent: [SimulatedRequest] = []
    /// What the engine asked to log, and the lines it wrote for standard output.
    private(set) var logged: [FleetLogLine] = []
    private(set) var notices: [String] = []
    /// Max warp, as the snapshot shows it (the run's warp, or one the control API set).
    private(set) var maxWarp: Bool

    /// A fleet over `fleet` with `options` (its data folder, warp, timing), answered by `network`,
    /// started at `wallNow` (Unix ms; what `clock.start: now` means here).
    package init(
        fleet: FleetFile, options: RunOptions, wallNow: Int64 = 1_781_510_400_000,
        network: @escaping (SimulatedRequest) -> SimulatedAnswer
    ) throws(RunError) {
        engine = try FleetLoop(fleet: fleet, options: options)
        maxWarp = engine.clock.startsAtMaxWarp
        self.network = network
        engine.start(wallNow: wallNow)
        clock = FleetClock(startMillis: engine.clock.startMillis, warp: engine.clock.warp, realNanos: 0)
        carryOutEffects()
    }

    /// Virtual now, Unix ms.
    var now: Int64 { engine.metrics.virtualNow }

    /// The first virtual instant at which a driver at the run's warp has read `real`.
    private func virtualInstant(atReal real: UInt64) -> Int64 {
        let instant = clock.now(realNanos: real)
        return clock.realNanos(reaching: instant) >= real ? instant : instant + 1
    }

    /// Sets the warp from the current instant on (real time read so far stays as it was): a rate
    /// ends max warp; `max` begins it, which here, where time moves only when the test says,
    /// means modelled transfer timing from now on.
    mutating func setWarp(_ warp: Warp) {
        switch warp {
        case .rate(let rate):
            maxWarp = false
            clock.setWarp(rate, realNanos: clock.realNanos(reaching: now))
            engine.setWarp(clock.warp)
        case .max:
            maxWarp = true
            engine.useModelledTiming()
            // Modelled answers are in at once (see `carryOutEffects`): so are those on their way.
            arriving = arriving.map { (now, $0.number, $0.result) }
        }
    }

    /// Runs every event up to and including `instant` (or the run's virtual end, if sooner),
    /// in virtual-time order, and leaves the clock there.
    mutating func advance(to instant: Int64) {
        let target = min(instant, engine.endsAt ?? .max)
        while true {
            var next = engine.nextDeadline() ?? .max
            if let answer = arriving.first { next = min(next, answer.at) }
            if let spawnAt = engine.nextSpawnRealNanos { next = min(next, virtualInstant(atReal: spawnAt)) }
            guard next <= target else { break }
            step(to: next)
        }
        step(to: max(target, now))
    }

    /// Runs `millis` of virtual time.
    mutating func advance(byMillis millis: Int64) {
        advance(to: now + millis)
    }

    /// Everything due at `instant`: timers, then admin spawns, then answers, until nothing more
    /// is due there.
    private mutating func step(to instant: Int64) {
        repeat {
            engine.clock.realNow = clock.realNanos(reaching: instant)
            engine.runDue(until: instant)
            engine.spawnDue(realNanos: engine.clock.realNow)
            carryOutEffects()
            while let answer = arriving.first, answer.at <= instant {
                arriving.removeFirst()
                engine.transferFinished(number: answer.number, result: answer.result)
                carryOutEffects()
            }
        } while (engine.nextDeadline() ?? .max) <= instant || (arriving.first?.at ?? .max) <= instant
    }

    /// Runs to `instant` as the real driver runs at max warp: devices run ahead of one another's
    /// outstanding answers (`LoopSchedule.lookahead`, modelled timing), turns are cut short at
    /// random, and real answers come back between turns, a few at a time, in an order `rng`
    /// draws (a hang comes back as the real request's own timeout). Each of `commands` is asked
    /// for after its turn number and runs once every device stands at one instant
    /// (`readyForCommands`); returns the instants they ran at. What each device does must not
    /// depend on any of this: tests compare it with `advance(to:)`.
    mutating func advanceAhead(
        to instant: Int64, rng: inout SplitMix64, commands: [(afterTurn: Int, run: (inout FleetLoop) -> Void)] = []
    ) -> [Int64] {
        engine.schedule.setLookahead(true)
        defer { engine.schedule.setLookahead(false) }
        var ranAt: [Int64] = []
        var turn = 0
        while true {
            if ranAt.count < commands.count, turn >= commands[ranAt.count].afterTurn, engine.readyForCommands() {
                ranAt.append(now)
                commands[ranAt.count - 1].run(&engine)
                carryOutEffects()
            }
            engine.runDue(until: instant) { _ in rng.next() % 3 == 0 }
            carryOutEffects()
            turn += 1
            if !onWire.isEmpty {
                for _ in 0..<Int(rng.next() % UInt64(onWire.count) + 1) {
                    let answer = onWire.remove(at: Int(rng.next() % UInt64(onWire.count)))
                    engine.transferFinished(number: answer.number, result: answer.result)
                    carryOutEffects()
                }
            }
            if onWire.isEmpty, ranAt.count == commands.count, (engine.nextDeadline() ?? .max) > instant { break }
        }
        return ranAt
    }

    /// Runs an admin command (the engine's control API) at the current virtual instant.
    mutating func command<Answer>(_ body: (inout FleetLoop) throws(FleetControlError) -> Answer)
        throws(FleetControlError) -> Answer
    {
        let answer = try body(&engine)
        carryOutEffects()
        return answer
    }

    /// Runs to the run's virtual end (`--for`, else the fleet file's `duration`) and ends the run
    /// there, as the real driver does at its virtual-time limit; returns that instant. A run
    /// with no virtual end is left as it is (nil).
    @discardableResult
    mutating func runToEnd() -> Int64? {
        guard let end = engine.endsAt else { return nil }
        advance(to: end)
        finish()
        return end
    }

    /// Ends the run: answers already due but held are heard, stores are closed.
    mutating func finish() {
        engine.draining = true
        engine.deliverHeldAnswers()
        engine.finish()
        carryOutEffects()
        _ = RunFiles.writeClock(engine.clockRecord(stopped: true), engine.options.dataDirectory)
    }

    private mutating func carryOutEffects() {
        for effect in engine.takeEffects() {
            switch effect {
            case .send(let transfer):
                let request = SimulatedRequest(
                    number: transfer.number, device: transfer.http.connectionKey, kind: transfer.kind,
                    sentAt: transfer.sentAt,
                    http: transfer.http)
                sent.append(request)
                let result: HTTPResult
                let after: Int64
                switch network(request) {
                case .respond(let status, let headers, let body, let millis):
                    after = millis
                    result = .response(
                        HTTPResponse(status: .init(code: status), headerFields: headers), body: body,
                        latencyMillis: serverMillis(millis))
                case .fail(let failure, let millis):
                    after = millis
                    result = .failed(
                        kind: failure, message: "simulated \(failure.rawValue)", latencyMillis: serverMillis(millis))
                case .hang:
                    // Timed as answered, no answer ever comes. Modelled, the real driver's request
                    // ends at its wall-clock bound (which no virtual instant waits on here), and
                    // the device hears its own timeout at its deadline.
                    guard case .modelled = engine.clock.transferTiming else { continue }
                    after = 0
                    result = .failed(kind: .timeout, message: "simulated hang", latencyMillis: 0)
                }
                if engine.schedule.lookahead {
                    onWire.append((transfer.number, result))
                    continue
                }
                // Modelled timing decides the answer's instant itself; the answer is in at once.
                let at: Int64
                if case .modelled = engine.clock.transferTiming { at = now } else { at = now + max(0, after) }
                let place = arriving.firstIndex { $0.at > at } ?? arriving.endIndex
                arriving.insert((at, transfer.number, result), at: place)
            case .cancel(let number, _):
                // Closed on the wire: its end, come or to come, is the cancellation (at once).
                let cancelled = HTTPResult.failed(kind: .cancelled, message: "cancelled", latencyMillis: 0)
                arriving.removeAll { $0.number == number }
                onWire.removeAll { $0.number == number }
                arriving.insert((now, number, cancelled), at: arriving.firstIndex { $0.at > now } ?? arriving.endIndex)
            case .recordInstallIDs(let map):
                RunFiles.writeInstallIDs(map, engine.options.dataDirectory)
            case .log(let line):
                logged.append(line)
            case .notice(let line):
                notices.append(line)
            }
        }
    }

    /// The server's own time for an answer `millis` virtual ms after the send, at the run's warp.
    private func serverMillis(_ millis: Int64) -> Double {
        Double(max(0, millis)) / engine.clock.warp
    }
}

/// The simulated driver behind the control API (`FleetControl`), for tests of what drives a
/// fleet (the admin API, the page): commands run at once at the current virtual instant, and
/// virtual time moves only when the test says (`advance`). Thread-safe; the fleet's answers
/// come from `network`, a function of the request.
public final class SimulatedRuntime: FleetControl {
    private let fleet: Mutex<SimulatedFleet>
    private let published = Mutex(FleetSnapshot())
    private let state = Mutex((paused: false, finished: false))

    /// A started fleet over `fleet` with `options` (its data folder and routes), answered by `network`.
    public init(
        fleet file: FleetFile, options: RunOptions, network: @escaping @Sendable (SimulatedRequest) -> SimulatedAnswer
    ) throws {
        fleet = Mutex(try SimulatedFleet(fleet: file, options: options, network: network))
        publish()
    }

    public var snapshot: FleetSnapshot { published.withLock { $0 } }

    public var phase: RunPhase { state.withLock { $0.finished } ? .stopping : .running }

    /// Its engine's part of the fleet.
    public var shard: Shard { fleet.withLock { $0.engine.options.shard } }

    /// Virtual now, Unix ms.
    public var now: Int64 { fleet.withLock { $0.now } }

    /// Every request the fleet sent, in order.
    public var sent: [SimulatedRequest] { fleet.withLock { $0.sent } }

    /// Runs `millis` of virtual time (none while paused) and publishes the snapshot.
    public func advance(byMillis millis: Int64) {
        guard !state.withLock({ $0.paused || $0.finished }) else { return }
        fleet.withLock { $0.advance(byMillis: millis) }
        publish()
    }

    /// Ends the run; later commands are refused as `unavailable`.
    public func finish() {
        guard
            !state.withLock({ state in
                defer { state.finished = true }
                return state.finished
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
            if let paused { self.state.withLock { $0.paused = paused } }
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
        guard !state.withLock({ $0.finished }) else {
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
        let paused = state.withLock { $0.paused }
        let snapshot = fleet.withLock { fleet in
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
