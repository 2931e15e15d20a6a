import BeekonDevice
import FleetDescription

/// The world a device is spawned into. Devices the fleet file makes exist (unspawned) from the
/// start, so faults and actions reach their slot's world before they spawn; devices the admin
/// API adds later meet the lasting actions that would have picked them, replayed in order. At
/// spawn, the device is told the world as a relaunched process is.
extension FleetLoop {
    /// Records a lasting action (one of `LastingAction.kind(of:)`) that ran on `selector` at
    /// `time`, if that selector can pick a device added later: `all`, a group, or a timeline
    /// fraction (`faultIndex` given as the fault's place); ids and states name devices there are.
    mutating func noteLasting(
        _ action: FleetAction, relaunchDelay: Int64?, on selector: FaultSelector,
        timelineFault faultIndex: Int?, at time: Int64
    ) {
        guard let (kind, restores) = LastingAction.kind(of: action) else { return }
        switch selector {
        case .all, .group: break
        case .fraction where faultIndex != nil: break
        case .fraction, .ids, .state: return
        }
        let note = LastingAction(
            kind: kind, action: action, selector: selector, faultIndex: faultIndex ?? -1,
            processDown: kind == .process ? (time, relaunchDelay) : nil)
        // Superseded: earlier actions of the kind on devices this one picks too, and kills and
        // reboots every device is back from.
        roster.lasting.removeAll { earlier in
            if let back = earlier.processBackAt, back <= time { return true }
            guard earlier.kind == kind, kind != .process else { return false }
            switch (selector, earlier.selector) {
            case (.all, _): return true
            case (.group(let name), .group(let earlierName)): return name == earlierName
            case (.fraction, .fraction): return selector == earlier.selector && note.faultIndex == earlier.faultIndex
            default: return false
            }
        }
        // Restoring the default with nothing left to undo leaves a later device as it is anyway.
        if restores, !roster.lasting.contains(where: { $0.kind == kind }) { return }
        roster.lasting.append(note)
    }

    /// Gives a device just added (not yet spawned) the world the recorded lasting actions
    /// would have given it had it been there when they ran, in the order they ran.
    mutating func meetLastingActions(_ slot: Int, at time: Int64) {
        for note in roster.lasting where picks(note.selector, faultIndex: note.faultIndex, slot: slot) {
            if let down = note.processDown {
                let outage = self.outage(slot, note.action.name, delayMillis: down.delayMillis, since: down.since)
                if let launch = outage.launch, launch.at <= time { continue }
                // Dead until the relaunch the devices the kill or reboot reached get on this
                // platform; an iOS app waits for a significant move from where it spawns.
                takeDown(slot, outage, at: time)
            } else {
                apply(note.action, forMillis: nil, to: slot, at: time)
            }
        }
    }

    /// Whether `selector` picks device `slot`: the one rule `selected(_:faultIndex:)` also follows.
    func picks(_ selector: FaultSelector, faultIndex: Int, slot: Int) -> Bool {
        guard !slots[slot].removed else { return false }
        switch selector {
        case .all:
            return true
        case .group(let name):
            return fleet.groups[slots[slot].group].name == name
        case .ids(let ids):
            return ids.contains(slots[slot].id)
        case .fraction(let fraction, let given):
            var draw = fractionDraws(seed: given, faultIndex: faultIndex)
                .derived(UInt64(slots[slot].group)).derived(UInt64(slots[slot].identity.indexInGroup))
            return Double.random(in: 0..<1, using: &draw) < fraction
        case .state(let pattern):
            return slots[slot].listedState.matches(pattern)
        }
    }

    /// The draws of a `fraction` selector: a device is picked when the draw of its own stream
    /// (by its group and its place there) is below the fraction, whenever it was made and
    /// whichever shard runs it.
    func fractionDraws(seed given: UInt64?, faultIndex: Int) -> SplitMix64 {
        given.map { SplitMix64(seed: $0) } ?? SplitMix64(seed: seed).derived(UInt64(faultIndex) &+ 0xFA17)
    }

    /// Tells a process that starts (a spawn, a relaunch) the world where it differs from what
    /// a new process assumes (permission granted, location services on, online), as the OS
    /// would answer its first queries.
    mutating func tellWorld(_ slot: Int, at time: Int64) {
        if !slots[slot].os.permissionGranted { feed(.permissionChanged(granted: false), to: slot, at: time) }
        if !slots[slot].os.locationServicesOn { feed(.locationServicesChanged(on: false), to: slot, at: time) }
        if !slots[slot].online { feed(.networkChanged(online: false), to: slot, at: time) }
    }

    /// The app's process dies: the device loses what it held in memory and the OS provider
    /// stops for it; an iOS app starts waiting for a significant move from here. A device not
    /// yet spawned has no process to lose (its spawn calls this).
    mutating func processGone(_ slot: Int, at time: Int64) {
        guard slots[slot].device != nil else { return }
        feed(.processDied, to: slot, at: time)
        slots[slot].os.life += 1
        slots[slot].world.accuracy = nil
        slots[slot].recent.stateHistory.append(StateChange(at: time, state: .dead))
        schedule.timers.cancel(.providerTick(slot))
        watchForSignificantMove(slot, at: time)
    }
}
