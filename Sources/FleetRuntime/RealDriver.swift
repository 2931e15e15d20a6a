import BeekonDevice
import BeekonNet
import FleetDescription
import FleetEngine
import Logging

/// The real driver: runs the engine on wall time × warp (`FleetClock`), and carries its effects
/// out with libcurl (`HTTPTransport`) and the data folder's files. Confined to the run's thread;
/// `FleetRuntime.run` turns it, and control commands reach it between turns.
struct RealDriver {
    var engine: FleetLoop
    /// Wall time × warp, with pauses: the virtual instant the engine may reach.
    var clock: FleetClock
    let transport: HTTPTransport
    /// Its loop's inbox and wakeup, where answers come back.
    let host: LoopHost
    /// The data folder's files every loop of the run writes (`devices.json`, `clock.json`).
    let files: SharedRunFiles
    /// Its loop's index in the run (its shard's): loop 0 alone prints the run's notices, which
    /// every loop's engine makes alike.
    let loopIndex: Int
    /// Where the engine's log effects and the driver's own news go.
    let logger: Logger
    /// The requests on the wire and those the fleet's connection cap holds back.
    var cap: ConnectionCap
    /// When `clock.json` was last written (real ns) and at what warp, and whether that write
    /// failed (said once until one succeeds).
    var clockWrites = (at: UInt64(0), warp: 0.0, failing: false)
    /// `--warp max`: virtual time jumps to the next event once the due work is done, rather
    /// than following the wall clock (until a warp is set through the control API).
    var maxWarp: Bool
    /// At max warp: the instant `clock.json` was last written as, which no device passes before
    /// the next is written (see `recordHorizon`).
    var horizon: Int64 = .min
    /// At max warp: the last turn did all it could, so the loop waits for an answer, a command
    /// or a stop (see `realWait`).
    var stalled = false
    /// At max warp: where it began, to report the rate reached (virtual ms, real ns).
    var maxSince: (virtual: Int64, real: UInt64) = (0, 0)
    /// The run's pace over its last real seconds, read about once a second (`samplePace`).
    var paceMeter = PaceMeter(realNanos: 0, virtualMillis: 0, warp: nil)

    /// How far ahead of the time reached a max-warp run records its clock: an hour, so a week
    /// costs 168 writes, and a resume after a SIGKILL starts at most an hour later than it needs.
    static let horizonMillis: Int64 = 3_600_000

    /// At max warp, how far past the earliest pending event any device may run (virtual ms): a
    /// minute, which is more than the virtual time a real round trip takes at max warp (a
    /// 100 ms answer is about 40 virtual s at 7 virtual hours a minute), while a command, which
    /// waits until every device stands at one instant, waits for at most a minute of fleet work.
    static let lookaheadMillis: Int64 = 60_000

    /// The longest a turn of timers runs before completions and uploads get their turn.
    static let turnNanos: UInt64 = 2_000_000

    /// What committing a waiting row costs, real ns: measured at each turn's end (a moving
    /// average), so a turn stops early enough for its commits to fit in it. Starts at 10 µs.
    var commitNanosPerRow: UInt64 = 10_000

    init(
        engine: FleetLoop, transport: HTTPTransport, host: LoopHost, files: SharedRunFiles, loopIndex: Int,
        logger: Logger
    ) {
        self.engine = engine
        self.transport = transport
        self.host = host
        self.files = files
        self.loopIndex = loopIndex
        self.logger = logger
        cap = ConnectionCap(limit: engine.options.maxConnections)
        clock = FleetClock(startMillis: 0, warp: engine.clock.warp, realNanos: 0)
        maxWarp = engine.clock.startsAtMaxWarp
        self.engine.schedule.setLookahead(maxWarp || self.engine.clock.transferTiming.isModelled)
    }

    /// Each device waits for its own answers rather than the whole fleet for every answer: at max
    /// warp, and at any warp with modelled timing, where a device's modelled answer instant waits
    /// for its real answer (`LoopSchedule.lookahead`). No device's request ever waits on another's.
    mutating func updateLookahead() {
        let on = maxWarp || engine.clock.transferTiming.isModelled
        if engine.schedule.lookahead != on { engine.schedule.setLookahead(on) }
    }

    var options: RunOptions { engine.options }

    /// Starts the engine from the wall clock's `now` (Unix ms) and its `earlier` stores, bounded
    /// by the newest row any store of the fleet holds (see `FleetLoop.openEarlierStores`), with
    /// every device made and every store prepared; `startClock` then starts the virtual clock
    /// (after every store is ready, so preparing them does not make the first timers late).
    mutating func start(wallNow: Int64, earlier: FleetLoop.EarlierStores) {
        engine.clock.realNow = FleetRuntime.realNanos()
        engine.start(wallNow: wallNow, earlier: earlier)
        carryOutEffects()
    }

    /// Starts the virtual clock at real instant `clockStarts`, the same for every loop of the run.
    mutating func startClock(realNanos clockStarts: UInt64) {
        clock = FleetClock(startMillis: engine.clock.startMillis, warp: engine.clock.warp, realNanos: clockStarts)
        maxSince = (engine.clock.startMillis, clockStarts)
        paceMeter = PaceMeter(
            realNanos: clockStarts, virtualMillis: engine.clock.startMillis, warp: maxWarp ? nil : clock.warp)
        engine.metrics.pace = paceMeter.pace
        recordClock(stopped: false, realNanos: clockStarts)
        logger.debug(
            "the virtual clock starts",
            metadata: [
                "at": "\(Timestamp.text(unixMillis: engine.clock.startMillis))",
                "warp": "\(maxWarp ? "max" : String(format: "%g", engine.clock.warp))", "seed": "\(engine.seed)",
                "devices": "\(engine.slots.count)", "maxOpenStores": "\(options.maxOpenStores)",
                "maxConnections": "\(options.maxConnections)", "timing": "\(engine.clock.transferTiming)",
            ])
    }

    /// The virtual instant this turn may run to: the clock's reading, never an answer instant
    /// whose real answer is not in yet; at max warp, the run's end (each device stops short of
    /// its own outstanding answers: `LoopSchedule.lookahead`), or with nothing scheduled, where the
    /// clock stands.
    mutating func reachable(realNanos: UInt64) -> Int64 {
        let reached = engine.metrics.virtualNow
        if maxWarp {
            guard !clock.isPaused else { return reached }
            guard engine.nextDeadline() != nil else { return max(reached, engine.endsAt ?? reached) }
            return engine.endsAt ?? .max
        }
        // Modelled transfers run with lookahead: each device stops short of its own answer
        // instants (`updateLookahead`), so the clock itself never holds for an answer.
        return clock.now(realNanos: realNanos)
    }

    /// The warp to report: as set, or at max warp the rate reached since it began.
    var reportedWarp: Double {
        guard maxWarp else { return clock.warp }
        let real = Double(FleetRuntime.realNanos() &- maxSince.real) / 1e9
        guard real > 0 else { return clock.warp }
        return Double(engine.metrics.virtualNow - maxSince.virtual) / 1000 / real
    }

    /// One turn: due timers up to `now` (at most `turnNanos` of them), due admin spawns, the
    /// clock record if due, then the requests the turn made, in that order: a `sent_at` is never
    /// later than a record written before it left.
    mutating func turn(until now: Int64, realNanos: UInt64) {
        let turnEnds = realNanos + Self.turnNanos
        var now = now
        if maxWarp {
            // From the earliest pending event (or where the clock stands, with none): the clock
            // record's horizon, and how far devices may run past it.
            let pending = engine.nextDeadline()
            let next = max(engine.metrics.virtualNow, pending ?? engine.metrics.virtualNow)
            now = min(now, recordHorizon(from: next, realNanos: realNanos))
            if pending != nil { now = min(now, next + Self.lookaheadMillis) }
        }
        // The rows the turn leaves waiting are written at its end: their commits count against it.
        let perRow = commitNanosPerRow
        let turn = engine.runDue(until: now) { FleetRuntime.realNanos() + UInt64($0) * perRow >= turnEnds }
        // Stalled: every event up to `now` that could fire did; the next waits for an answer.
        stalled = turn.caughtUp && (engine.nextDeadline().map { $0 <= now } ?? true)
        // A loop that cannot keep up at this warp drops the lag rather than racing to catch up,
        // so a pause or a lower warp takes effect within a turn whatever the backlog.
        if !turn.caughtUp, !maxWarp {
            // With lookahead the turn reports the frontier (devices waiting for answers stand
            // behind it); the fleet's own pace is the furthest device's.
            let reached = engine.schedule.lookahead ? max(turn.reached, engine.schedule.reachedMillis) : turn.reached
            engine.metrics.clockLagDroppedMillis += clock.dropLag(reached: reached, realNanos: realNanos)
        }
        let spawnEnds = FleetRuntime.realNanos() + Self.turnNanos
        engine.spawnDue(realNanos: realNanos) { FleetRuntime.realNanos() >= spawnEnds }
        if !maxWarp { recordClockIfDue(realNanos: realNanos) }
        samplePaceIfDue(realNanos: realNanos)
        commitWaitingRows()
        carryOutEffects()
    }

    /// Commits the rows the turn left waiting, and learns from it what a row's commit costs.
    mutating func commitWaitingRows() {
        let waiting = engine.rowsWaiting
        guard waiting > 0 else { return }
        let began = FleetRuntime.realNanos()
        engine.commitWaitingRows()
        let measured = (FleetRuntime.realNanos() - began) / UInt64(waiting)
        commitNanosPerRow = (commitNanosPerRow * 7 + measured) / 8
    }

    /// Reads the pace once `PaceMeter.readingIntervalNanos` have passed since the last reading:
    /// the virtual time reached and the timers' lateness since then (`FleetMetrics.pace`).
    mutating func samplePaceIfDue(realNanos: UInt64) {
        guard let last = paceMeter.lastRealNanos, realNanos >= last + PaceMeter.readingIntervalNanos else { return }
        paceMeter.record(
            PaceMeter.Reading(
                realNanos: realNanos, virtualMillis: paceMillis,
                lateness: engine.schedule.takeRecentTimerLateness(),
                answerLagMillis: maxWarp ? 0 : paceMillis - engine.metrics.virtualNow))
        engine.metrics.pace = paceMeter.pace
    }

    /// The virtual time the fleet's own pace is read from: the clock's frontier, or with lookahead
    /// at a warp the furthest device (those waiting for answers stand behind: the server's pace).
    var paceMillis: Int64 {
        engine.schedule.lookahead && !maxWarp
            ? max(engine.metrics.virtualNow, engine.schedule.reachedMillis) : engine.metrics.virtualNow
    }

    /// A new setting of the clock (warp, max warp, pause) starts a new pace window from the time
    /// reached, so the time before it never counts against it.
    mutating func restartPace(realNanos: UInt64) {
        let warp = maxWarp ? nil : clock.warp
        let current = engine.metrics.pace
        guard warp != current.warp || clock.isPaused != current.paused else { return }
        _ = engine.schedule.takeRecentTimerLateness()
        paceMeter.restart(
            realNanos: realNanos, virtualMillis: paceMillis, warp: warp, paused: clock.isPaused)
        engine.metrics.pace = paceMeter.pace
    }

    /// Hands real answers to the engine.
    mutating func deliver(_ completions: [(number: Int, result: HTTPResult)]) {
        engine.clock.wallMillis = FleetRuntime.wallMillis()
        for completion in completions {
            logger.trace(
                "transfer finished",
                metadata: ["transfer": "\(completion.number)", "result": "\(Self.summary(completion.result))"])
            engine.transferFinished(number: completion.number, result: completion.result)
        }
        cap.ended(completions.count)
        releaseHeld()
        carryOutEffects()
    }

    /// Puts held requests on the wire while the connection cap has room, oldest first.
    mutating func releaseHeld() {
        while let (transfer, waited) = cap.release(realNanos: FleetRuntime.realNanos()) {
            engine.putOnWire(transfer.number, waitedMillis: waited)
            submit(transfer)
        }
    }

    /// Hands a request to the transport, named by its transfer number so it can be cancelled.
    mutating func submit(_ transfer: OutgoingTransfer) {
        cap.sent()
        var http = transfer.http
        http.timeoutMillis = realTimeoutMillis(transfer.kind)
        // The uplink's pace is on the virtual clock: real bytes leave warp times faster, and at
        // max warp as fast as they can (the modelled time is heard either way).
        http.maxSendBytesPerSecond = maxWarp ? nil : http.maxSendBytesPerSecond.map { Int(Double($0) * clock.warp) }
        let host = host
        transport.submit(http, id: transfer.number) { result in host.completed(transfer.number, result) }
    }

    /// Carries out what the engine asked for, in order.
    mutating func carryOutEffects() {
        for effect in engine.takeEffects() {
            switch effect {
            case .send(let transfer):
                // The fleet's own cap: beyond it a request waits here, where the engine knows it
                // is not on the wire (a device that gives up on it hears it was never sent).
                if cap.mustHold {
                    engine.holdBack(transfer.number)
                    cap.hold(transfer, realNanos: FleetRuntime.realNanos())
                } else {
                    submit(transfer)
                }
            case .cancel(let number, let onWire):
                if onWire { transport.cancel(id: number) } else { cap.cancelHeld(number) }
            case .recordInstallIDs(let map):
                // Without the map a resumed run would give these devices new install ids, and
                // their stores' pending fixes would never be sent: said every time it fails.
                if let problem = files.recordInstallIDs(map, loop: loopIndex) {
                    let path = "\(options.dataDirectory)/devices.json"
                    let consequence = "a run resumed on this data folder would not find these devices' stores"
                    logger.error("cannot record the devices' install ids in \(path): \(problem); \(consequence)")
                }
            case .recordFormerInstalls(let map):
                if let problem = files.recordFormerInstalls(map, loop: loopIndex) {
                    let path = "\(options.dataDirectory)/\(RunFiles.formerInstallsFile)"
                    let consequence = "verify would not read those installs' stores"
                    logger.error(
                        "cannot record the install ids reinstalls replaced in \(path): \(problem); \(consequence)")
                }
            case .log(let line):
                logger.log(level: line.level, "\(line.message)")
            case .notice(let line):
                guard loopIndex == 0 else { continue }
                if let sink = options.noticeSink { sink(line) } else { print(line) }
            }
        }
    }

    /// A request's end in a few words, for the log: `200 in 3.2 ms`, `timeout after 30000.0 ms`.
    static func summary(_ result: HTTPResult) -> String {
        switch result {
        case .response(let response, _, let millis): String(format: "%d in %.1f ms", response.status.code, millis)
        case .failed(let kind, _, let millis): kind.rawValue + String(format: " after %.1f ms", millis)
        }
    }

    /// The wall-clock bound on a real request. Modelled: the SDK's timeout in real seconds, so a
    /// server that does not answer within it is the server's timeout at any warp. As answered:
    /// the SDK's timeout in real time at a warp of at most 1, plus 5 s, so the device's virtual
    /// timeout (which cancels the request) comes first while the clock runs; a request whose real
    /// timeout fires first (the clock paused or slowed meanwhile) still ends, for the device, at
    /// its virtual deadline.
    func realTimeoutMillis(_ kind: FleetRuntime.TransferKind) -> Int {
        if let bound = options.realTimeoutMillis { return bound }
        if engine.clock.transferTiming.isModelled { return Int(FleetLoop.timeoutMillis(kind)) }
        return Int((Double(FleetLoop.timeoutMillis(kind)) / min(clock.warp, 1)).rounded(.up)) + 5_000
    }

    /// Changes the warp and/or pauses or resumes virtual time from the time reached on: a clock
    /// that ran ahead of the engine drops the lag, so no timer past the time reached fires after
    /// a pause, and a lower warp slows the fleet at once. `max` starts max warp from the time
    /// reached (with modelled timing from then on); a rate ends it.
    mutating func setClock(warp setting: Warp?, paused: Bool?, realNanos: UInt64) {
        defer {
            engine.setStandsStill(clock.isPaused && !maxWarp)
            restartPace(realNanos: realNanos)
        }
        let reached = engine.metrics.virtualNow
        switch setting {
        case .max? where !maxWarp:
            // Every device stands at the time reached (commands run between turns); from there
            // each runs on until it needs an answer, and the next turn records a horizon.
            maxWarp = true
            engine.useModelledTiming()
            updateLookahead()
            maxSince = (reached, realNanos)
            horizon = .min
            stalled = false
        case .rate(let warp)? where maxWarp:
            // A warp set leaves max warp: the wall clock takes over from the time reached (every
            // device stands there: commands run once they do, `readyForCommands`).
            maxWarp = false
            let wasPaused = clock.isPaused
            clock = FleetClock(startMillis: reached, warp: warp, realNanos: realNanos)
            if paused ?? wasPaused { clock.setPaused(true, realNanos: realNanos) }
            engine.setWarp(clock.warp)
            updateLookahead()
            recordClock(stopped: false, realNanos: realNanos)
            return
        default:
            break
        }
        if maxWarp {
            // The wall clock is not followed: a pause only stops the turns.
            if let paused { clock.setPaused(paused, realNanos: realNanos) }
            return
        }
        if let warp = setting?.rate {
            engine.metrics.clockLagDroppedMillis += clock.setWarp(warp, realNanos: realNanos, reached: reached)
        }
        if let paused {
            engine.metrics.clockLagDroppedMillis += clock.setPaused(paused, realNanos: realNanos, reached: reached)
        }
        engine.setWarp(clock.warp)
        updateLookahead()
    }

    /// How long to sleep: until the next due timer, a completion, or a stop; at most 100 ms so
    /// the progress line and the duration limit stay on time.
    mutating func realWait() -> UInt64? {
        if maxWarp, !clock.isPaused {
            // Due work waits for nothing; waiting for real answers or with nothing left to do, the
            // loop sleeps until a completion, a command, a stop or a paced admin spawn wakes it.
            guard stalled else { return 0 }
            let current = FleetRuntime.realNanos()
            return min(100_000_000, engine.nextSpawnRealNanos.map { $0 > current ? $0 - current : 0 } ?? .max)
        }
        var waitNanos: UInt64
        // The end of a virtual duration wakes the loop as a timer would, so the run stops on time.
        var wake = engine.nextDeadline()
        if let endsAt = engine.endsAt { wake = min(wake ?? endsAt, endsAt) }
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
        write(engine.clockRecord(stopped: stopped), realNanos: realNanos)
    }

    /// Writes `record` to `clock.json` and notes when and at what warp; a failed write is said
    /// once until a write succeeds again.
    private mutating func write(_ record: ClockRecord, realNanos: UInt64) {
        clockWrites.at = realNanos
        clockWrites.warp = clock.warp
        let path = "\(options.dataDirectory)/\(ClockRecord.fileName)"
        guard let problem = files.recordClock(record, loop: loopIndex) else {
            clockWrites.failing = false
            logger.trace(
                "recorded the virtual clock",
                metadata: [
                    "reached": "\(Timestamp.text(unixMillis: record.reachedMillis))", "stopped": "\(record.stopped)",
                    "path": "\(path)",
                ])
            return
        }
        if !clockWrites.failing {
            let consequence = "a run resumed on this data folder may start earlier than this run's latest uploads"
            logger.error("cannot record the virtual clock in \(path): \(problem); \(consequence)")
        }
        clockWrites.failing = true
    }

    /// At max warp, before a turn whose earliest pending event is `next`: the instant no device
    /// may pass in it. Once `next` is within half `horizonMillis` of the recorded horizon, records
    /// a new one `horizonMillis` past it. The record says the clock reached the horizon, which
    /// nothing the run stamps passes before the next write: a resume after a SIGKILL starts after
    /// it, however far the clock jumped between writes.
    mutating func recordHorizon(from next: Int64, realNanos: UInt64) -> Int64 {
        if next + Self.horizonMillis / 2 > horizon {
            horizon = next + Self.horizonMillis
            write(ClockRecord(reachedMillis: horizon, warp: engine.clock.warp, stopped: false), realNanos: realNanos)
        }
        return horizon
    }

    /// Rewrites `clock.json` once `ClockRecord.writeIntervalNanos` have passed since the last
    /// write, or at once when the warp changed (the slack a resume allows for is the recorded
    /// warp's).
    mutating func recordClockIfDue(realNanos: UInt64) {
        guard realNanos >= clockWrites.at + ClockRecord.writeIntervalNanos || clock.warp != clockWrites.warp else {
            return
        }
        recordClock(stopped: false, realNanos: realNanos)
    }
}
