import BeekonDevice
import FleetDescription
import FleetEngine
import Synchronization

/// The fleet control API: what the admin API (and anything else) may do to a running fleet.
///
/// Each command enters the loop through the runtime's inbox, runs between turns on the loop's
/// thread with the functions the fault timeline uses, and answers through `reply`, called on
/// the loop's thread once the snapshot showing its effect is published (so a read right after
/// the answer sees it). Keep `reply` short: hand the answer over and return. Once the run is
/// over, commands are answered at once with `unavailable`.
extension FleetRuntime: FleetControl {
    /// Adds devices (ids assigned now) from a group's template or an inline group; answers their
    /// ids (they appear in the snapshot as they spawn). Every loop takes the command and makes
    /// its own shard's devices among them.
    public func spawn(_ request: SpawnRequest, reply: @escaping @Sendable (Result<[String], FleetControlError>) -> Void)
    {
        let inPlaceOrder: @Sendable ([[String]]) -> [String] = { answers in
            answers.flatMap { $0 }.sorted { FleetLoop.place(of: $0) < FleetLoop.place(of: $1) }
        }
        command(reply, combine: inPlaceOrder) { driver throws(FleetControlError) in
            try driver.engine.spawn(request, newRoutes: RunFiles.routes(for: request, missingFrom: driver.engine))
        }
    }

    /// Stops a device and forgets it for listing and selection; its store stays on disk.
    public func deleteDevice(_ id: String, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void) {
        command(reply, to: [loop(of: id)]) { driver throws(FleetControlError) in try driver.engine.delete(id) }
    }

    /// Applies an action to the devices `selector` picks; answers their ids. An unknown group
    /// or id in the selector is refused (`notFound`, field `selector.group`/`selector.ids`).
    public func apply(
        _ action: FleetAction, to selector: FaultSelector,
        reply: @escaping @Sendable (Result<[String], FleetControlError>) -> Void
    ) {
        // Every loop takes the action (each counts it, and seeds later fractions by the count);
        // ids are checked against the whole fleet first, since each loop knows its own devices.
        if loops > 1, case .ids(let ids) = selector {
            let fleet = snapshot
            if let unknown = ids.first(where: { fleet.device($0) == nil }) {
                reply(
                    .failure(FleetControlError(.notFound, "no device is named \"\(unknown)\"", field: "selector.ids"))
                )
                return
            }
        }
        let inFleetOrder: @Sendable ([[String]]) -> [String] = { answers in
            let fleet = self.snapshot
            return answers.flatMap { $0 }.sorted {
                (fleet.indexByID[$0] ?? .max, $0) < (fleet.indexByID[$1] ?? .max, $1)
            }
        }
        command(reply, combine: inFleetOrder) { driver throws(FleetControlError) in
            try driver.engine.act(action, on: selector)
        }
    }

    /// Sets the warp (virtual seconds per real second, in `FleetClock.warpRange`, or `max`),
    /// pauses or resumes virtual time, and/or brings the fleet to `devices` devices; nil leaves
    /// that one as it is. Every loop sets its clock as of one real instant.
    public func updateFleet(
        warp: Warp?, paused: Bool?, devices: Int?, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void
    ) {
        let at = FleetRuntime.realNanos()
        if loops > 1, let devices {
            do throws(FleetControlError) {
                try FleetControlError.checkWarp(warp)
                try FleetLoop.checkNewDevices(devices, listed: snapshot.metrics.devices)
            } catch {
                reply(.failure(error))
                return
            }
        }
        let shared = loops > 1
        command(reply) { driver throws(FleetControlError) in
            try FleetControlError.checkWarp(warp)
            if let devices { try driver.engine.setFleetDevices(devices) }
            driver.setClock(warp: warp, paused: paused, realNanos: shared ? at : FleetRuntime.realNanos())
        }
    }

    /// A device's stored fixes with `from <= timestamp <= to` (virtual Unix ms), oldest first,
    /// at most `limit`: read from its store on its loop's thread, which owns the store.
    public func locations(
        of id: String, from: Int64, to: Int64, limit: Int,
        reply: @escaping @Sendable (Result<[Location], FleetControlError>) -> Void
    ) {
        command(reply, to: [loop(of: id)]) { driver throws(FleetControlError) in
            try driver.engine.locations(of: id, from: from, to: to, limit: limit)
        }
    }

    /// Ends a fault of the fleet file's timeline now, as its `for` would.
    public func endFault(_ index: Int, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void) {
        command(reply) { driver throws(FleetControlError) in try driver.engine.endFaultEarly(index) }
    }

    /// Starts the upload statistics the admin API shows over from now.
    public func resetStatistics(reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void) {
        command(reply) { driver throws(FleetControlError) in driver.engine.resetStatistics() }
    }

    /// The loop that runs device `id`: its shard's, by its place in its group (loop 0 for an id
    /// that names no place, which answers that there is no such device).
    private func loop(of id: String) -> Int {
        let place = FleetLoop.place(of: id)
        return place == .max ? 0 : shard.loop(owning: place, of: loops)
    }

    /// Runs `body` on every loop (or those in `to`) between turns, and answers once each has
    /// answered (after the snapshot showing its effect): the first refusal, else the answers
    /// combined (by default the first loop's).
    private func command<Answer: Sendable>(
        _ reply: @escaping @Sendable (Result<Answer, FleetControlError>) -> Void, to targets: [Int]? = nil,
        combine: @escaping @Sendable ([Answer]) -> Answer = { $0[0] },
        _ body: @escaping @Sendable (inout RealDriver) throws(FleetControlError) -> Answer
    ) {
        let targets = targets ?? Array(hosts.indices)
        let gather = Gather<Answer>(count: targets.count) { results in
            var answers: [Answer] = []
            for result in results {
                switch result {
                case .success(let answer): answers.append(answer)
                case .failure(let error): return reply(.failure(error))
                }
            }
            reply(.success(combine(answers)))
        }
        for (position, loop) in targets.enumerated() {
            hosts[loop].submit(
                Command(
                    run: { driver in
                        let result: Result<Answer, FleetControlError>
                        do throws(FleetControlError) {
                            result = .success(try body(&driver))
                        } catch {
                            result = .failure(error)
                        }
                        return { gather.deliver(position, result) }
                    },
                    refuse: {
                        gather.deliver(position, .failure(FleetControlError(.unavailable, "the fleet is not running")))
                    }))
        }
    }
}

/// The answers of the loops a command went to, until the last is in.
private final class Gather<Answer: Sendable>: Sendable {
    private let results: Mutex<[Result<Answer, FleetControlError>?]>
    private let done: @Sendable ([Result<Answer, FleetControlError>]) -> Void

    init(count: Int, done: @escaping @Sendable ([Result<Answer, FleetControlError>]) -> Void) {
        results = Mutex(Array(repeating: nil, count: count))
        self.done = done
    }

    /// Loop `position`'s answer; the last one in calls `done` with all of them, in loop order.
    func deliver(_ position: Int, _ result: Result<Answer, FleetControlError>) {
        let all = results.withLock { results -> [Result<Answer, FleetControlError>]? in
            results[position] = result
            let given = results.compactMap { $0 }
            return given.count == results.count ? given : nil
        }
        if let all { done(all) }
    }
}
