import BeekonDevice
import FleetDescription

extension FleetLoop {
    /// At a device's first spawn its network starts to flap, if its group's `flapping:` (or a
    /// `flapping` action that came before the spawn) says so: the phone's network, not the app's,
    /// so it flaps on while the app is dead or reinstalled.
    mutating func startFlapping(_ slot: Int, at time: Int64) {
        guard !slots[slot].link.flap.running, let flapping = slots[slot].link.flapping else { return }
        slots[slot].link.flap.running = true
        schedule.timers.schedule((), key: .linkFlap(slot), at: time + slots[slot].link.flap.stretch(flapping))
    }

    /// A `flapping` action: the device's network flaps as `flapping` says from now (nil: it stops
    /// flapping and, if its flapping had it down, comes back now). A stretch up is drawn anew
    /// under the new means; a stretch down runs to its end. A device not yet spawned starts at
    /// its spawn.
    mutating func setFlapping(_ slot: Int, _ flapping: Flapping?, at time: Int64) {
        slots[slot].link.flapping = flapping
        guard slots[slot].link.flap.running else {
            // Not flapping yet: a phone spawned (or reinstalled) starts now, one to come at its spawn.
            if slots[slot].device != nil || slots[slot].os.awaitingOpen { startFlapping(slot, at: time) }
            return
        }
        guard let flapping else {
            schedule.timers.cancel(.linkFlap(slot))
            slots[slot].link.flap.running = false
            let wasOnline = slots[slot].online
            if !slots[slot].link.flap.up { slots[slot].link.flap.restore() }
            networkMayHaveChanged(slot, wasOnline: wasOnline, at: time)
            return
        }
        guard slots[slot].link.flap.up else { return }
        schedule.timers.cancel(.linkFlap(slot))
        schedule.timers.schedule((), key: .linkFlap(slot), at: time + slots[slot].link.flap.stretch(flapping))
    }

    /// A stretch of a device's flapping is over: its network drops, hands over or comes back
    /// (the device is told as it is of `networkOffline`/`networkOnline`, unless such a fault
    /// holds the network down anyway), and the next stretch is drawn.
    mutating func flapDue(_ slot: Int, at time: Int64) {
        guard !slots[slot].removed, let flapping = slots[slot].link.flapping else { return }
        let wasOnline = slots[slot].online
        switch slots[slot].link.flap.change(flapping) {
        case .drop:
            metrics.networkDrops += 1
        case .handover:
            metrics.handovers += 1
            // Never without a network, so the SDK is not told it went offline (nor that it came
            // back): what it had out on the old network is reset, its next request leaves from
            // the other address on a new connection (unless a fault or Doze had it offline).
            if slots[slot].online { networkLost(slot, as: .handover, at: time) }
        case .restore:
            break
        }
        networkMayHaveChanged(slot, wasOnline: wasOnline, at: time)
        noteChange(slot)
        schedule.timers.schedule((), key: .linkFlap(slot), at: time + slots[slot].link.flap.stretch(flapping))
    }
}
