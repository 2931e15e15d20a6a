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
        case .all, .group, .fraction, .state:
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
        // Shown even when no event reaches a device (one not spawned yet has none to take it).
        noteChange(slot)
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
        case .getCurrentLocation(let timeout, let accuracy):
            slots[slot].currentLocationCalls += 1
            feed(
                .getCurrentLocation(
                    requestID: slots[slot].currentLocationCalls, timeoutMillis: timeout, accuracy: accuracy),
                to: slot, at: time)
        case .deleteLocations(let before):
            feed(.deleteLocations(before: before), to: slot, at: time)
        case .shutdown:
            // The SDK's `shutdown()`: the device drops its state holder and says Idle; the store
            // stays. A device not spawned, or whose app is dead, takes no call.
            feed(.shutdown, to: slot, at: time)
        case .gpsJump(let meters, let bearing, let lasting):
            let length = forMillis ?? lasting ?? FleetAction.gpsJumpDefaultMillis
            startJump(slot, meters: meters, bearing: bearing, until: time + length)
        }
    }
}

/// A fault of the fleet file's timeline as the run stands: upcoming, on, or over.
public struct TimelineFaultView: Sendable, Hashable {
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case upcoming, active, done
    }

    /// Its place in the fleet file's `faults:` (from 0), and its line there.
    public var fault: Int
    public var line: Int
    public var action: FleetAction.Name
    /// Which devices, as the fleet file says (`all`, `group: walkers`, `fraction: 0.2`, …).
    public var selector: String
    /// When it starts, and when its `for` ends it (nil without one), virtual Unix ms.
    public var startsAt: Int64
    public var endsAt: Int64?
    public var phase: Phase
    /// Devices it was applied to (nil until it starts).
    public var applied: Int?
    /// Whether it can be ended now (`DELETE /api/v1/faults/{fault}`): on, with an opposite action
    /// its `for` would run.
    public var endable: Bool
    /// When it was ended early through the API, virtual Unix ms.
    public var endedEarlyAt: Int64?

    package init(
        fault: Int, line: Int, action: FleetAction.Name, selector: String, startsAt: Int64, endsAt: Int64?,
        phase: Phase, applied: Int?, endable: Bool, endedEarlyAt: Int64?
    ) {
        self.fault = fault
        self.line = line
        self.action = action
        self.selector = selector
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.phase = phase
        self.applied = applied
        self.endable = endable
        self.endedEarlyAt = endedEarlyAt
    }
}

extension FaultSelector {
    /// As a fleet file writes it.
    public var text: String {
        switch self {
        case .all: "all"
        case .group(let name): "group: \(name)"
        case .fraction(let share, let seed): "fraction: \(share)" + (seed.map { ", seed: \($0)" } ?? "")
        case .ids(let ids): "ids: [\(ids.joined(separator: ", "))]"
        case .state(let pattern): "state: \(pattern)"
        }
    }
}

extension FleetLoop {
    /// The fleet file's timeline at the clock's instant.
    package var timelineView: [TimelineFaultView] {
        let now = metrics.virtualNow
        return fleet.faults.enumerated().map { index, fault in
            let startsAt = startMillis + fault.atMillis
            let ran = metrics.timeline.last { $0.fault == index }
            let endsAt = endedEarly[index] ?? fault.forMillis.map { startsAt + $0 }
            let phase: TimelineFaultView.Phase =
                ran == nil ? .upcoming : (endsAt.map { now < $0 } ?? false) ? .active : .done
            return TimelineFaultView(
                fault: index, line: fault.line, action: fault.action.name, selector: fault.selector.text,
                startsAt: startsAt, endsAt: endsAt, phase: phase, applied: ran?.applied,
                endable: phase == .active && fault.action.undoing != nil && faultsUnderway[index] != nil,
                endedEarlyAt: endedEarly[index])
        }
    }

    /// `DELETE /api/v1/faults/{fault}`: ends a timeline fault now, as its `for` would (its opposite
    /// action on the same devices), as toxiproxy removes a toxic.
    package mutating func endFaultEarly(_ index: Int) throws(FleetControlError) {
        guard fleet.faults.indices.contains(index) else {
            throw FleetControlError(
                .notFound, "the fleet file has no fault \(index) (it has \(fleet.faults.count), from 0)", field: "fault"
            )
        }
        guard let view = timelineView.first(where: { $0.fault == index }), view.endable else {
            throw FleetControlError(
                .conflict,
                "fault \(index) (\(fleet.faults[index].action.name.rawValue)) is not on, or has no end to bring "
                    + "forward (only an action with an opposite and a `for` can be ended)",
                field: "fault")
        }
        let time = metrics.virtualNow
        timers.cancel(.faultEnd(index))
        endedEarly[index] = time
        endFault(index, at: time)
        if let opposite = fleet.faults[index].action.undoing {
            logAction(
                ActionRecord(
                    action: opposite.name, applied: selected(fleet.faults[index].selector, faultIndex: index).count,
                    at: time, source: .admin))
        }
    }
}
