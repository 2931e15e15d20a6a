import BeekonDevice
import FleetDescription
import FleetRoutes

extension FleetLoop {
    /// At a device's first spawn its phone starts to doze when still, if its group's `doze:` (or
    /// a `doze` action that came before the spawn) says so and it is an Android phone: the
    /// phone's OS, so it goes on through the app's deaths and reinstalls.
    mutating func startDozing(_ slot: Int, at time: Int64) {
        guard slots[slot].os.dozeCycle == nil, slots[slot].os.doze != nil,
            slots[slot].identity.platform == .android
        else { return }
        slots[slot].os.dozeCycle = DozeCycle()
        lookForDoze(slot, at: time)
    }

    /// A `doze` action: the phone dozes as `doze` says from now (nil: it stops, and an idle
    /// phone's apps have the network back at once).
    mutating func setDoze(_ slot: Int, _ doze: Doze?, at time: Int64) {
        slots[slot].os.doze = doze
        guard slots[slot].os.dozeCycle != nil else {
            if slots[slot].device != nil || slots[slot].os.awaitingOpen { startDozing(slot, at: time) }
            return
        }
        guard doze != nil else {
            schedule.timers.cancel(.doze(slot))
            let wasOnline = slots[slot].online
            slots[slot].os.dozeCycle = nil
            networkMayHaveChanged(slot, wasOnline: wasOnline, at: time)
            return
        }
        schedule.timers.cancel(.doze(slot))
        lookForDoze(slot, at: time)
    }

    /// The doze timer: the phone's motion is looked at, the cycle moves on, the device is told
    /// if its network came or went, and the next look is armed.
    mutating func lookForDoze(_ slot: Int, at time: Int64) {
        guard !slots[slot].removed, let doze = slots[slot].os.doze, var cycle = slots[slot].os.dozeCycle else { return }
        let moving = truePosition(of: slot, at: time).speed > RouteMotion.standingSpeed
        let wasDozing = cycle.dozing
        let wasOnline = slots[slot].online
        let changed = cycle.look(moving: moving, at: time, doze)
        slots[slot].os.dozeCycle = cycle
        if changed {
            if cycle.blocksNetwork, !wasDozing { metrics.dozeIdles += 1 }
            noteChange(slot)
            networkMayHaveChanged(slot, wasOnline: wasOnline, at: time)
        }
        // Out of Doze: location at its own cadence again from now, not at the coarse tick's.
        if wasDozing, !cycle.dozing, slots[slot].world.accuracy != nil, slots[slot].os.processAlive {
            schedule.timers.schedule((), key: .providerTick(slot), at: time)
        }
        schedule.timers.schedule((), key: .doze(slot), at: cycle.nextLook(after: time, doze))
    }
}
