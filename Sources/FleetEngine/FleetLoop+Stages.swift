import BeekonDevice
import FleetDescription

extension FleetLoop {
    /// The stages' timer: the group's device count is brought to what its stages want now, and
    /// the timer set for the next change.
    mutating func followStages(_ group: Int, at time: Int64) {
        guard let plan = roster.groupTargets.plan(group) else { return }
        setDevices(group, to: plan.target(at: time), at: time)
        if let next = plan.nextChange(after: time) {
            schedule.timers.schedule((), key: .stage(group), at: next)
        }
    }

    /// Group `group`'s new installs (`arrivals:`) start arriving after `start`.
    mutating func startArrivals(_ group: Int, at start: Int64) {
        guard let arrivals = fleet.groups[group].arrivals else { return }
        roster.groupTargets.setArrivals(
            group, ArrivalProcess(arrivals, seed: seed, group: group, start: start))
        if let first = roster.groupTargets.nextArrival(group, after: start) {
            schedule.timers.schedule((), key: .arrival(group), at: first)
        }
    }

    /// The arrivals' timer: a new install of group `group` (a new place, its own id, install id
    /// and store) is made and spawned now, on the shard that owns its place, and the next one's
    /// instant drawn. (A group with arrivals follows no stages or day of load: its new places
    /// would fall among those they stop and start again.)
    mutating func arrive(_ group: Int, at time: Int64) {
        roster.groupTargets.arrived(group)
        if makeNextPlace(group, salt: ArrivalProcess.salt, at: time) {
            rosterChanged.insert(.installIDs)
        }
        if let next = roster.groupTargets.nextArrival(group, after: time) {
            schedule.timers.schedule((), key: .arrival(group), at: next)
        }
    }

    /// `PATCH /api/v1/fleet {"devices": N}`: the fleet at N devices now, shared over the groups by
    /// the counts the fleet file gave them (as `run --devices`); any stages end here. New devices
    /// go through the admin's spawn queue (as `POST /api/v1/devices`), so the loop makes them
    /// between turns, within its budget, rather than thousands in one command. More than
    /// `SpawnRequest.countRange`'s most new devices at once is refused (409).
    package mutating func setFleetDevices(_ devices: Int) throws(FleetControlError) {
        let time = metrics.virtualNow
        // A fleet split into shards is checked as a whole, before the shards take the command
        // (`FleetRuntime.updateFleet`), so every shard takes it or none does.
        if options.shard == .whole { try Self.checkNewDevices(devices, listed: slots.count { !$0.removed }) }
        for group in roster.groupTargets.endStages() {
            schedule.timers.cancel(.stage(group))
        }
        let weights = roster.groupTargets.shares(groups: fleet.groups.count)
        for (group, count) in FleetFile.shares(of: devices, weights: weights, minimum: 0).enumerated() {
            setDevices(group, to: count, at: time, queued: true)
        }
    }

    /// Refuses a fleet of `devices` devices where `listed` are listed (running or standing by)
    /// when it would make more than `SpawnRequest.countRange`'s most new devices at once.
    package static func checkNewDevices(_ devices: Int, listed: Int) throws(FleetControlError) {
        let most = Int(SpawnRequest.countRange.upper)
        guard devices - listed <= most else {
            // A count the API takes, refused for where the fleet stands now: a conflict, as a busy loop is.
            throw FleetControlError(
                .conflict,
                "devices \(devices) would make \(devices - listed) new devices at once; at most \(most) "
                    + "a command (\(listed + most) now): scale up in steps",
                field: "devices")
        }
    }

    /// Brings group `group` to `target` running devices: stopped ones start again first (lowest
    /// index first), then new ones are made and spawned; or the newest running ones stop (the SDK's
    /// `stop()`, which still uploads what they hold) and stand by. Only a live app is stopped or
    /// started (an app whose process is dead has no one to call it; it counts as running).
    mutating func setDevices(_ group: Int, to target: Int, at time: Int64, queued: Bool = false) {
        roster.groupTargets.set(group, to: target)
        let fleetTarget = target
        // This shard's part: its places among the group's first `target`.
        let target = options.shard.share(of: fleetTarget)
        var running: [Int] = []
        var standing: [Int] = []
        var stoppable: [Int] = []
        for slot in slots.indices where slots[slot].group == group && !slots[slot].removed {
            let live = slots[slot].os.processAlive && slots[slot].device != nil
            if slots[slot].standingBy {
                if live { standing.append(slot) }
            } else {
                running.append(slot)
                if live { stoppable.append(slot) }
            }
        }
        if running.count > target {
            for slot in stoppable.suffix(running.count - target).reversed() {
                feed(.stop, to: slot, at: time)
                slots[slot].standingBy = true
                noteChange(slot)
            }
            return
        }
        var wanted = target - running.count
        for slot in standing.prefix(wanted) {
            slots[slot].standingBy = false
            feed(.start, to: slot, at: time)
            noteChange(slot)
            wanted -= 1
        }
        // New places up to the target at least (every shard passes over the same ones), and on
        // until this shard has the devices it wants: with devices deleted, past the target.
        var made = false
        while wanted > 0 || fleet.groups[group].count < fleetTarget {
            // A stream of its own per place, drawn where the stages put it: the same every run.
            if makeNextPlace(group, salt: 0x57A6E, at: time, queued: queued, wanted: wanted > 0) {
                wanted -= 1
                made = true
            }
        }
        if made { rosterChanged.insert(.installIDs) }
    }

    /// Group `group`'s next place, with its stream keyed by `salt`, group and place
    /// (`laterDeviceRNG`): made here when `wanted` and this shard owns it (spawned at `time`, or
    /// queued for the admin's spawn queue), else counted as made elsewhere. Whether it was made here.
    mutating func makeNextPlace(
        _ group: Int, salt: UInt64, at time: Int64, queued: Bool = false, wanted: Bool = true
    ) -> Bool {
        let index = fleet.groups[group].count
        fleet.groups[group].count += 1
        var rng = laterDeviceRNG(salt: salt, group: group, index: index)
        guard options.shard.owns(index), wanted else {
            countElsewhere(group: group, rng: rng)
            return false
        }
        addSlot(group: group, index: index, spawnAt: time, rng: &rng)
        let slot = slots.count - 1
        meetLastingActions(slot, at: time)
        if queued {
            roster.spawnQueue.add(slot, at: clock.realNow)
        } else {
            spawn(slot, at: time)
        }
        return true
    }

    /// The devices the stages or the API want now, over every group that has a target; nil when
    /// none has.
    package var targetDevices: Int? { roster.groupTargets.total }
}
