import BeekonDevice

extension FleetLoop {
    /// The devices a selector picks, in index order (deleted ones never); `fraction` without
    /// a seed is a seeded choice per fault (`faultIndex`).
    func selected(_ selector: FaultSelector, faultIndex: Int) -> [Int] {
        let live = slots.indices.filter { !slots[$0].removed }
        switch selector {
        case .all:
            return live
        case .group(let name):
            return live.filter { fleet.groups[slots[$0].group].name == name }
        case .ids(let ids):
            let wanted = Set(ids)
            return live.filter { wanted.contains(slots[$0].id) }
        case .fraction(let fraction, let given):
            var rng = given.map { SplitMix64(seed: $0) } ?? SplitMix64(seed: seed).derived(UInt64(faultIndex) &+ 0xFA17)
            return slots.indices.filter { _ in Double.random(in: 0..<1, using: &rng) < fraction }.filter { !slots[$0].removed }
        case .state(let pattern):
            return live.filter { FaultSelector.state(slots[$0].listedState, matches: pattern) }
        }
    }

    mutating func applyFault(_ index: Int, at time: Int64) {
        let fault = fleet.faults[index]
        let picked = selected(fault.selector, faultIndex: index)
        for slot in picked {
            apply(fault.action, params: fault.params, forMillis: fault.forMillis, to: slot, at: time)
        }
        logAction(ActionRecord(action: fault.action.rawValue, applied: picked.count, at: time, source: .timeline))
        if let length = fault.forMillis, Self.undoing(fault.action) != nil {
            timers.schedule((), key: .faultEnd(index), at: time + length)
        }
    }

    mutating func endFault(_ index: Int, at time: Int64) {
        let fault = fleet.faults[index]
        guard let (opposite, params) = Self.undoing(fault.action) else { return }
        for slot in selected(fault.selector, faultIndex: index) {
            apply(opposite, params: params, forMillis: nil, to: slot, at: time)
        }
    }

    /// The action (and its parameters) that ends a lasting fault; nil for those that end by
    /// themselves (`osError` recovers, `kill` and `reboot` relaunch).
    static func undoing(_ action: FaultAction) -> (FaultAction, FaultParams)? {
        var none = FaultParams()
        switch action {
        case .revokePermission: return (.grantPermission, none)
        case .locationServicesOff: return (.locationServicesOn, none)
        case .background: return (.foreground, none)
        case .networkOffline: return (.networkOnline, none)
        case .latency:
            none.latencyMillis = 0
            return (.latency, none)
        case .timeouts:
            none.timeoutFraction = 0
            return (.timeouts, none)
        default: return nil
        }
    }

    /// One action on one device: the world changes (permission, network, process) or an SDK
    /// call is made. The admin API calls this too.
    mutating func apply(_ action: FaultAction, params: FaultParams, forMillis: Int64?, to slot: Int, at time: Int64) {
        switch action {
        case .revokePermission, .grantPermission:
            slots[slot].permissionGranted = action == .grantPermission
            feed(.permissionChanged(granted: action == .grantPermission), to: slot, at: time)
        case .locationServicesOff, .locationServicesOn:
            slots[slot].locationServicesOn = action == .locationServicesOn
            feed(.locationServicesChanged(on: action == .locationServicesOn), to: slot, at: time)
        case .osError:
            feed(.osError(recoveryMillis: forMillis ?? 5000), to: slot, at: time)
        case .background, .foreground:
            feed(.appStateChanged(background: action == .background), to: slot, at: time)
        case .networkOffline, .networkOnline:
            slots[slot].online = action == .networkOnline
            feed(.networkChanged(online: action == .networkOnline), to: slot, at: time)
        case .kill, .reboot:
            guard slots[slot].processAlive else { return }
            feed(.processDied, to: slot, at: time)
            slots[slot].processAlive = false
            slots[slot].accuracy = nil
            slots[slot].stateHistory.append(StateChange(at: time, state: "dead"))
            timers.cancel(.providerTick(slot))
            timers.schedule((), key: .relaunch(slot), at: time + (forMillis ?? params.relaunchAfterMillis ?? 60_000))
        case .latency:
            slots[slot].extraLatencyMillis = params.latencyMillis ?? 0
        case .timeouts:
            slots[slot].timeoutFraction = params.timeoutFraction ?? 0
        case .start:
            feed(.start, to: slot, at: time)
        case .stop:
            feed(.stop, to: slot, at: time)
        case .sync:
            feed(.sync, to: slot, at: time)
        case .configure:
            if let config = params.config { feed(.configure(resolvedConfig(config)), to: slot, at: time) }
        case .setExtras:
            if let extras = params.extras { feed(.setExtras(filled(extras, slot: slot)), to: slot, at: time) }
        case .addGeofences:
            if let geofences = params.geofences { feed(.addGeofences(geofences), to: slot, at: time) }
        case .removeGeofences:
            if let ids = params.geofenceIDs { feed(.removeGeofences(ids), to: slot, at: time) }
        }
    }

    /// A killed app comes back with what its store holds.
    mutating func relaunch(_ slot: Int, cause: RelaunchCause, at time: Int64) {
        guard !slots[slot].processAlive else { return }
        slots[slot].processAlive = true
        do {
            let restored = try slots[slot].store.readDeviceState()
            let pending = try slots[slot].store.pendingCount()
            feed(.processRelaunched(cause, restored: restored, pendingFixes: pending), to: slot, at: time)
            // The relaunched process sees the world as it is now.
            if !slots[slot].permissionGranted { feed(.permissionChanged(granted: false), to: slot, at: time) }
            if !slots[slot].locationServicesOn { feed(.locationServicesChanged(on: false), to: slot, at: time) }
            if !slots[slot].online { feed(.networkChanged(online: false), to: slot, at: time) }
        } catch {
            // Relaunched when the store writes again.
            slots[slot].processAlive = false
            reportStoreError(error, slot: slot, at: time, resume: .relaunch(cause))
        }
    }
}
