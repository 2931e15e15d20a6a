import BeekonDevice
import BeekonNet
import FleetDescription
import FleetEngine
import HTTPTypes

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
    /// Paused: virtual time stands still (`advance` does nothing) until `setPaused(false)`.
    private(set) var paused = false

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

    /// Pauses the fleet or lets it go on. Paused, its virtual clock stands still while the
    /// servers' (the real clock runs on): every answer on its way comes at once, and the devices
    /// hear it at the paused instant; what they send meanwhile waits for the resume. At max warp
    /// a pause only stops time, as the real driver's stops its turns.
    mutating func setPaused(_ paused: Bool) {
        self.paused = paused
        engine.setStandsStill(paused && !maxWarp)
        carryOutEffects()
        guard paused, !maxWarp else { return }
        let answers = arriving.map { (number: $0.number, result: $0.result) } + onWire
        arriving = []
        onWire = []
        for answer in answers.sorted(by: { $0.number < $1.number }) {
            engine.transferFinished(number: answer.number, result: answer.result)
            carryOutEffects()
        }
    }

    /// Runs every event up to and including `instant` (or the run's virtual end, if sooner),
    /// in virtual-time order, and leaves the clock there.
    mutating func advance(to instant: Int64) {
        guard !paused else { return }
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
                // A body cut on the wire (a modelled reset) never reaches the server whole.
                let answer = request.http.abortAfterBytes == nil ? network(request) : .fail(.reset, afterMillis: 0)
                switch answer {
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
            case .recordFormerInstalls(let map):
                RunFiles.writeFormerInstalls(map, engine.options.dataDirectory)
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
