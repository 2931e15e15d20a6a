import BeekonDevice
import FleetDescription
import FleetEngine

/// The fleet control API: what the admin API (and anything else) may do to a running fleet.
///
/// Each command enters the loop through the runtime's inbox, runs between turns on the loop's
/// thread with the functions the fault timeline uses, and answers through `reply`, called on
/// the loop's thread once the snapshot showing its effect is published (so a read right after
/// the answer sees it). Keep `reply` short: hand the answer over and return. Once the run is
/// over, commands are answered at once with `unavailable`.
extension FleetRuntime: FleetControl {
    /// Adds devices from a group's template or an inline group; answers their ids, assigned at
    /// once (they appear in the snapshot as they spawn).
    public func spawn(_ request: SpawnRequest, reply: @escaping @Sendable (Result<[String], FleetControlError>) -> Void)
    {
        command(reply) { driver throws(FleetControlError) in
            try driver.engine.spawn(request, newRoutes: RunFiles.routes(for: request, missingFrom: driver.engine))
        }
    }

    /// Stops a device and forgets it for listing and selection; its store stays on disk.
    public func deleteDevice(_ id: String, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void) {
        command(reply) { driver throws(FleetControlError) in try driver.engine.delete(id) }
    }

    /// Applies an action to the devices `selector` picks; answers their ids. An unknown group
    /// or id in the selector is refused (`badRequest`, field `selector.group`/`selector.ids`).
    public func apply(
        _ action: FleetAction, to selector: FaultSelector,
        reply: @escaping @Sendable (Result<[String], FleetControlError>) -> Void
    ) {
        command(reply) { driver throws(FleetControlError) in try driver.engine.act(action, on: selector) }
    }

    /// Sets the warp (virtual seconds per real second, in `FleetClock.warpRange`, or `max`),
    /// pauses or resumes virtual time, and/or brings the fleet to `devices` devices; nil leaves
    /// that one as it is.
    public func updateFleet(
        warp: Warp?, paused: Bool?, devices: Int?, reply: @escaping @Sendable (Result<Void, FleetControlError>) -> Void
    ) {
        command(reply) { driver throws(FleetControlError) in
            try FleetControlError.checkWarp(warp)
            if let devices { try driver.engine.setFleetDevices(devices) }
            driver.setClock(warp: warp, paused: paused, realNanos: FleetRuntime.realNanos())
        }
    }

    /// A device's stored fixes with `from <= timestamp <= to` (virtual Unix ms), oldest first,
    /// at most `limit`: read from its store on the loop's thread, which owns the store.
    public func locations(
        of id: String, from: Int64, to: Int64, limit: Int,
        reply: @escaping @Sendable (Result<[Location], FleetControlError>) -> Void
    ) {
        command(reply) { driver throws(FleetControlError) in
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

    private func command<Answer: Sendable>(
        _ reply: @escaping @Sendable (Result<Answer, FleetControlError>) -> Void,
        _ body: @escaping @Sendable (inout RealDriver) throws(FleetControlError) -> Answer
    ) {
        submit(
            Command(
                run: { driver in
                    let result: Result<Answer, FleetControlError>
                    do throws(FleetControlError) {
                        result = .success(try body(&driver))
                    } catch {
                        result = .failure(error)
                    }
                    return { reply(result) }
                },
                refuse: { reply(.failure(FleetControlError(.unavailable, "the fleet is not running"))) }))
    }
}
