import BeekonDevice
import BeekonNet
import Foundation

/// A request as the simulated network sees it.
struct SimulatedRequest {
    /// The transfer's number (the order the fleet sent it in, from 1).
    var number: Int
    /// The device that sent it.
    var device: String
    /// An upload (with its batch id) or a token refresh.
    var kind: FleetRuntime.TransferKind
    /// When it was sent, virtual Unix ms.
    var sentAt: Int64
    /// The request as a real driver would make it (the body before gzip).
    var http: HTTPRequest
}

/// How the simulated network answers a request, on virtual time.
enum SimulatedAnswer {
    /// The server answers `status` after `afterMillis` virtual ms.
    case respond(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], afterMillis: Int64 = 0)
    /// The connection fails (`refused`, `reset`, `dns`, `tls`) after `afterMillis` virtual ms.
    case fail(NetworkFailure, afterMillis: Int64 = 0)
    /// No answer ever comes: the SDK's timeout answers.
    case hang

    /// 200 with an empty body at once.
    static let ok = SimulatedAnswer.respond(status: 200)
}

/// The simulated driver: runs the fleet engine on virtual time alone, with no sockets, no
/// sleeps and no wall clock. Time jumps from one event to the next (a timer, an answer, an
/// admin spawn's turn); transfers are answered by `network`, a function of the request, after
/// the virtual latency it gives. At one instant, timers fire before answers are heard (an
/// answer due exactly at the SDK's timeout is a timeout). Stores are the engine's usual SQLite
/// files in the run's data folder. Tests drive it with `advance(to:)` and `command(_:)` and
/// assert exact virtual timestamps.
struct SimulatedFleet {
    var engine: FleetLoop
    let network: (SimulatedRequest) -> SimulatedAnswer
    /// Answers on their way, in the order they are due (ties in the order they were sent).
    private var arriving: [(at: Int64, number: Int, result: HTTPResult)] = []
    /// Every request sent, in order.
    private(set) var sent: [SimulatedRequest] = []
    /// Lines the engine wrote for standard error and standard output.
    private(set) var warnings: [String] = []
    private(set) var notices: [String] = []

    /// A fleet over `fleet` with `options` (its data folder, warp, timing), answered by `network`,
    /// started at `wallNow` (Unix ms; what `clock.start: now` means here).
    init(
        fleet: FleetFile, options: RunOptions, wallNow: Int64 = 1_781_510_400_000,
        network: @escaping (SimulatedRequest) -> SimulatedAnswer
    ) throws(RunError) {
        engine = try FleetLoop(fleet: fleet, options: options)
        self.network = network
        engine.start(wallNow: wallNow)
        carryOutEffects()
    }

    /// Virtual now, Unix ms.
    var now: Int64 { engine.metrics.virtualNow }

    /// The real time a driver at the run's warp would read at `virtual`, ns from the start (what
    /// the engine's real-time pacing, such as admin spawn rates, counts in).
    private func realNanos(at virtual: Int64) -> UInt64 {
        UInt64(max(0, Double(virtual - engine.startMillis) / engine.warp * 1_000_000))
    }

    /// The virtual instant a driver at the run's warp reaches at the real reading `real`.
    private func virtualInstant(atReal real: UInt64) -> Int64 {
        engine.startMillis + Int64((Double(real) / 1_000_000 * engine.warp).rounded(.up))
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
            engine.realNow = realNanos(at: instant)
            engine.runDue(until: instant)
            engine.spawnDue(realNanos: engine.realNow)
            carryOutEffects()
            while let answer = arriving.first, answer.at <= instant {
                arriving.removeFirst()
                engine.transferFinished(number: answer.number, result: answer.result)
                carryOutEffects()
            }
        } while (engine.nextDeadline() ?? .max) <= instant || (arriving.first?.at ?? .max) <= instant
    }

    /// Runs an admin command (the engine's control API) at the current virtual instant.
    mutating func command<Answer>(_ body: (inout FleetLoop) throws(FleetControlError) -> Answer) throws(FleetControlError) -> Answer {
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
                    number: transfer.number, device: transfer.http.connectionKey, kind: transfer.kind, sentAt: now,
                    http: transfer.http)
                sent.append(request)
                let result: HTTPResult
                let after: Int64
                switch network(request) {
                case .respond(let status, let headers, let body, let millis):
                    after = millis
                    result = .response(status: status, headers: headers, body: body, latencyMillis: serverMillis(millis))
                case .fail(let failure, let millis):
                    after = millis
                    result = .failed(kind: failure, message: "simulated \(failure.rawValue)", latencyMillis: serverMillis(millis))
                case .hang:
                    continue
                }
                // Modelled timing decides the answer's instant itself; the answer is in at once.
                let at: Int64
                if case .modelled = engine.options.transferTiming { at = now } else { at = now + max(0, after) }
                let place = arriving.firstIndex { $0.at > at } ?? arriving.endIndex
                arriving.insert((at, transfer.number, result), at: place)
            case .recordInstallIDs(let map):
                RunFiles.writeInstallIDs(map, engine.options.dataDirectory)
            case .warn(let line):
                warnings.append(line)
            case .notice(let line):
                notices.append(line)
            }
        }
    }

    /// The server's own time for an answer `millis` virtual ms after the send, at the run's warp.
    private func serverMillis(_ millis: Int64) -> Double {
        Double(max(0, millis)) / engine.warp
    }
}
