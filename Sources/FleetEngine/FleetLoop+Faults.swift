import BeekonDevice
import FleetDescription

extension FleetLoop {
    /// The devices a selector picks, in index order (deleted ones never, unspawned ones too);
    /// `fraction` without a seed is a seeded choice per fault (`faultIndex`), see `fractionDraws`.
    func selected(_ selector: FaultSelector, faultIndex: Int) -> [Int] {
        switch selector {
        case .ids(let ids):
            let wanted = Set(ids)
            return slots.indices.filter { !slots[$0].removed && wanted.contains(slots[$0].id) }
        case .fraction(let fraction, let given):
            // One pass over the draws, rather than `picks` redrawing from the start per device.
            var draws = fractionDraws(seed: given, faultIndex: faultIndex)
            return slots.indices.filter { _ in Double.random(in: 0..<1, using: &draws) < fraction }.filter {
                !slots[$0].removed
            }
        case .all, .group, .state:
            return slots.indices.filter { picks(selector, faultIndex: faultIndex, slot: $0) }
        }
    }

    mutating func applyFault(_ index: Int, at time: Int64) {
        let fault = fleet.faults[index]
        let picked = selected(fault.selector, faultIndex: index)
        for slot in picked {
            apply(fault.action, forMillis: fault.forMillis, to: slot, at: time)
        }
        logAction(ActionRecord(action: fault.action.name, applied: picked.count, at: time, source: .timeline))
        metrics.timeline.append(
            TimelineFault(
                fault: index, action: fault.action.name, startedAt: time,
                endsAt: fault.forMillis.map { time + $0 }, applied: picked.count))
        noteLasting(
            fault.action, relaunchDelay: Self.relaunchDelay(forMillis: fault.forMillis, action: fault.action),
            on: fault.selector, timelineFault: index, at: time)
        if let length = fault.forMillis, fault.action.undoing != nil {
            timers.schedule((), key: .faultEnd(index), at: time + length)
            noteFaultBegan(index, at: time)
        }
    }

    mutating func endFault(_ index: Int, at time: Int64) {
        let fault = fleet.faults[index]
        guard let opposite = fault.action.undoing else { return }
        for slot in selected(fault.selector, faultIndex: index) {
            apply(opposite, forMillis: nil, to: slot, at: time)
        }
        noteLasting(opposite, relaunchDelay: nil, on: fault.selector, timelineFault: index, at: time)
        noteFaultEnded(index, at: time)
    }

    /// One action on one device: the world changes (permission, network, process) or an SDK
    /// call is made. The admin API calls this too.
    package mutating func apply(_ action: FleetAction, forMillis: Int64?, to slot: Int, at time: Int64) {
        switch action {
        case .revokePermission, .grantPermission:
            let granted = action == .grantPermission
            slots[slot].permissionGranted = granted
            feed(.permissionChanged(granted: granted), to: slot, at: time)
        case .locationServicesOff, .locationServicesOn:
            let on = action == .locationServicesOn
            slots[slot].locationServicesOn = on
            feed(.locationServicesChanged(on: on), to: slot, at: time)
        case .osError:
            feed(.osError(recoveryMillis: forMillis ?? 5000), to: slot, at: time)
        case .background, .foreground:
            feed(.appStateChanged(background: action == .background), to: slot, at: time)
        case .networkOffline, .networkOnline:
            let online = action == .networkOnline
            slots[slot].online = online
            feed(.networkChanged(online: online), to: slot, at: time)
            if !online { networkLost(slot, at: time) }
        case .kill, .reboot:
            let delay = Self.relaunchDelay(forMillis: forMillis, action: action)
            takeDown(
                slot, ProcessOutage.plan(action.name, platform: slots[slot].platform, delayMillis: delay, since: time),
                at: time)
        case .latency(let millis):
            slots[slot].extraLatencyMillis = millis
        case .timeouts(let fraction):
            slots[slot].timeoutFraction = fraction
        case .start:
            feed(.start, to: slot, at: time)
        case .stop:
            feed(.stop, to: slot, at: time)
        case .sync:
            feed(.sync, to: slot, at: time)
        case .configure(let config):
            feed(.configure(resolvedConfig(config)), to: slot, at: time)
        case .setExtras(let extras):
            feed(.setExtras(filled(extras, slot: slot)), to: slot, at: time)
        case .addGeofences(let geofences):
            feed(.addGeofences(geofences), to: slot, at: time)
        case .removeGeofences(let ids):
            feed(.removeGeofences(ids), to: slot, at: time)
        }
    }
}
