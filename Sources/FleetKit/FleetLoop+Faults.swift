import BeekonDevice

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
            apply(fault.action, params: fault.params, forMillis: fault.forMillis, to: slot, at: time)
        }
        logAction(ActionRecord(action: fault.action.rawValue, applied: picked.count, at: time, source: .timeline))
        noteLasting(
            fault.action, params: fault.params,
            relaunchDelay: Self.relaunchDelay(forMillis: fault.forMillis, params: fault.params),
            on: fault.selector, timelineFault: index, at: time)
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
        noteLasting(opposite, params: params, relaunchDelay: nil, on: fault.selector, timelineFault: index, at: time)
    }

    /// The action (and its parameters) that ends a lasting fault; nil for those that end by
    /// themselves (`osError` recovers, `kill` and `reboot` relaunch as `ProcessOutage` says).
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
            if action == .networkOffline { networkLost(slot, at: time) }
        case .kill, .reboot:
            let delay = Self.relaunchDelay(forMillis: forMillis, params: params)
            takeDown(
                slot, ProcessOutage.plan(action, platform: slots[slot].platform, delayMillis: delay, since: time),
                at: time)
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
}
