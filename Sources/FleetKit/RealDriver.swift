import BeekonNet
import Foundation

/// The real driver: runs the engine on wall time × warp (`FleetClock`), and carries its effects
/// out with libcurl (`HTTPTransport`) and the data folder's files. Confined to the run's thread;
/// `FleetRuntime.run` turns it, and control commands reach it between turns.
struct RealDriver {
    var engine: FleetLoop
    /// Wall time × warp, with pauses: the virtual instant the engine may reach.
    var clock: FleetClock
    let transport: HTTPTransport
    unowned let runtime: FleetRuntime
    /// Real requests made and not yet answered.
    var inFlight = 0
    /// When `clock.json` was last written (real ns) and at what warp.
    var clockWrittenAt: UInt64 = 0
    var clockWrittenWarp = 0.0
    /// The last write of `clock.json` failed (logged once until one succeeds).
    var clockWriteFailing = false

    /// The longest a turn of timers runs before completions and uploads get their turn.
    static let turnNanos: UInt64 = 2_000_000

    init(engine: FleetLoop, transport: HTTPTransport, runtime: FleetRuntime) {
        self.engine = engine
        self.transport = transport
        self.runtime = runtime
        clock = FleetClock(startMillis: 0, warp: engine.warp, realNanos: 0)
    }

    var options: RunOptions { engine.options }

    /// Starts the engine from the wall clock's `now`, then the virtual clock (after every store
    /// is open, so opening them does not make the first timers late).
    mutating func start() {
        engine.realNow = FleetRuntime.realNanos()
        engine.start(wallNow: Int64(Date().timeIntervalSince1970 * 1000))
        carryOutEffects()
        let clockStarts = FleetRuntime.realNanos()
        clock = FleetClock(startMillis: engine.startMillis, warp: engine.warp, realNanos: clockStarts)
        recordClock(stopped: false, realNanos: clockStarts)
    }

    /// One turn: due timers up to `now` (at most `turnNanos` of them), due admin spawns, the
    /// clock record if due, then the requests the turn made, in that order: a `sent_at` is never
    /// later than a record written before it left.
    mutating func turn(until now: Int64, realNanos: UInt64) {
        let turnEnds = realNanos + Self.turnNanos
        let turn = engine.runDue(until: now) { FleetRuntime.realNanos() >= turnEnds }
        // A loop that cannot keep up at this warp drops the lag rather than racing to catch up,
        // so a pause or a lower warp takes effect within a turn whatever the backlog.
        if !turn.caughtUp { engine.metrics.clockLagDroppedMillis += clock.dropLag(reached: turn.reached, realNanos: realNanos) }
        let spawnEnds = FleetRuntime.realNanos() + Self.turnNanos
        engine.spawnDue(realNanos: realNanos) { FleetRuntime.realNanos() >= spawnEnds }
        recordClockIfDue(realNanos: realNanos)
        carryOutEffects()
    }

    /// Hands real answers to the engine.
    mutating func deliver(_ completions: [(number: Int, result: HTTPResult)]) {
        for completion in completions {
            engine.transferFinished(number: completion.number, result: completion.result)
        }
        inFlight -= completions.count
        carryOutEffects()
    }

    /// Carries out what the engine asked for, in order.
    mutating func carryOutEffects() {
        for effect in engine.takeEffects() {
            switch effect {
            case .send(let transfer):
                inFlight += 1
                var http = transfer.http
                http.timeoutMillis = realTimeoutMillis(transfer.kind)
                let runtime = runtime
                transport.submit(http) { result in
                    runtime.inbox.withLock { $0.completions.append((transfer.number, result)) }
                    runtime.wakeup.signal()
                }
            case .recordInstallIDs(let map):
                RunFiles.writeInstallIDs(map, options.dataDirectory)
            case .warn(let line):
                if let sink = options.storeLogSink { sink(line) } else { FileHandle.standardError.write(Data(line.utf8)) }
            case .notice(let line):
                if let sink = options.noticeSink { sink(line) } else { print(line) }
            }
        }
    }

    /// The wall-clock bound on a real request: the SDK's timeout in real time at a warp of at
    /// most 1, plus 5 s, so the virtual timeout always comes first while the clock runs. A
    /// request whose real timeout fires first (the clock paused or slowed meanwhile) still
    /// ends, for the device, at its virtual deadline.
    func realTimeoutMillis(_ kind: FleetRuntime.TransferKind) -> Int {
        Int((Double(FleetLoop.timeoutMillis(kind)) / min(clock.warp, 1)).rounded(.up)) + 5_000
    }

    /// Changes the warp and/or pauses or resumes virtual time from the time reached on: a clock
    /// that ran ahead of the engine drops the lag, so no timer past the time reached fires after
    /// a pause, and a lower warp slows the fleet at once.
    mutating func setClock(warp: Double?, paused: Bool?, realNanos: UInt64) {
        let reached = engine.metrics.virtualNow
        if let warp { engine.metrics.clockLagDroppedMillis += clock.setWarp(warp, realNanos: realNanos, reached: reached) }
        if let paused { engine.metrics.clockLagDroppedMillis += clock.setPaused(paused, realNanos: realNanos, reached: reached) }
        engine.warp = clock.warp
    }

    /// How long to sleep: until the next due timer, a completion, or a stop; at most 100 ms so
    /// the progress line and the duration limit stay on time.
    mutating func realWait() -> UInt64? {
        var waitNanos: UInt64
        // The end of a virtual duration wakes the loop as a timer would, so the run stops on time.
        var wake = engine.nextDeadline()
        if let endsAt = engine.endsAt { wake = min(wake ?? endsAt, endsAt) }
        // Held for a real answer: nothing at or past the hold can happen before it arrives
        // (its completion wakes the loop), so the loop sleeps rather than spins.
        if let hold = engine.answerHold(), let next = wake, next >= hold { wake = nil }
        if let next = wake, let wait = clock.realWait(until: next, from: FleetRuntime.realNanos()) {
            waitNanos = min(wait, 100_000_000)
        } else {
            waitNanos = 100_000_000
        }
        if let spawnAt = engine.nextSpawnRealNanos {
            let current = FleetRuntime.realNanos()
            waitNanos = min(waitNanos, spawnAt > current ? spawnAt - current : 0)
        }
        return waitNanos
    }

    /// The run is over: stores closed, the last clock record written.
    mutating func finish() {
        engine.finish()
        carryOutEffects()
        recordClock(stopped: true, realNanos: FleetRuntime.realNanos())
    }

    // MARK: The clock file

    /// Writes where the clock got to to `clock.json`; a failure is logged once until a write
    /// succeeds again.
    mutating func recordClock(stopped: Bool, realNanos: UInt64) {
        clockWrittenAt = realNanos
        clockWrittenWarp = clock.warp
        if let problem = RunFiles.writeClock(engine.clockRecord(stopped: stopped), options.dataDirectory) {
            if !clockWriteFailing {
                let path = "\(options.dataDirectory)/\(ClockRecord.fileName)"
                engine.effects.append(
                    .warn(
                        "beekon-fleet: cannot record the virtual clock in \(path): \(problem); "
                            + "a run resumed on this data folder may start earlier than this run's latest uploads\n"))
            }
            clockWriteFailing = true
        } else {
            clockWriteFailing = false
        }
    }

    /// Rewrites `clock.json` once `ClockRecord.writeIntervalNanos` have passed since the last
    /// write, or at once when the warp changed (the slack a resume allows for is the recorded
    /// warp's).
    mutating func recordClockIfDue(realNanos: UInt64) {
        guard realNanos >= clockWrittenAt + ClockRecord.writeIntervalNanos || clock.warp != clockWrittenWarp else { return }
        recordClock(stopped: false, realNanos: realNanos)
    }
}
