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
        noteLasting(
            fault.action, relaunchDelay: Self.relaunchDelay(forMillis: fault.forMillis, action: fault.action),
            on: fault.selector, timelineFault: index, at: time)
        faultBegan(index, fault, source: .timeline, applied: picked.count, at: time)
    }

    /// A fault began, from the timeline or the API: it joins the run's timeline and, when its
    /// opposite ends it, it is underway (until its `for` or the API ends it) and its drain is
    /// measured from its start. One path for both sources, so they are listed and drained alike.
    mutating func faultBegan(_ number: Int, _ fault: FaultEntry, source: ActionSource, applied: Int, at time: Int64) {
        metrics.timeline.append(
            TimelineFault(
                fault: number, source: source, action: fault.action.name, startedAt: time,
                endsAt: fault.forMillis.map { time + $0 }, applied: applied))
        guard fault.action.endsByOpposite else { return }
        if let length = fault.forMillis {
            schedule.timers.schedule((), key: .faultEnd(number), at: time + length)
        }
        measureDrains(at: time)
        noteFaultBegan(number, at: time)
    }

    /// Fault `number` (see `TimelineFault.fault`) as a timeline entry writes it, and its source.
    func faultEntry(_ number: Int) -> (entry: FaultEntry, source: ActionSource)? {
        faults.entry(number)
    }

    /// A fault's `for` is over, or the API ends it: its opposite runs on the devices it picks.
    mutating func endFault(_ number: Int, at time: Int64) {
        guard case (let fault, let source)? = faultEntry(number), let opposite = fault.action.undoing else { return }
        for slot in selected(fault.selector, faultIndex: number) {
            apply(opposite, forMillis: nil, to: slot, at: time)
        }
        // (The API's fractions are not replayed on later devices: see `act`.)
        noteLasting(
            opposite, relaunchDelay: nil, on: fault.selector, timelineFault: source == .timeline ? number : nil,
            at: time)
        noteFaultEnded(number, at: time)
    }

    /// An action applied through the API that undoes faults underway ends each whose devices it
    /// reached, all of them: those its selector covers (`FaultSelector.covers`, decided on the
    /// selectors alone, so every shard ends the same faults). Its devices were just given it.
    mutating func endFaults(undoneBy action: FleetAction, on selector: FaultSelector, at time: Int64) {
        for number in faults.drains.underway.keys.sorted() {
            guard let fault = faultEntry(number)?.entry, fault.action.undoing == action,
                selector.covers(fault.selector)
            else { continue }
            schedule.timers.cancel(.faultEnd(number))
            faults.endEarly(number, at: time)
            noteFaultEnded(number, at: time)
        }
    }

    /// One action on one device: the world changes (permission, network, process) or an SDK
    /// call is made. The admin API calls this too.
    package mutating func apply(_ action: FleetAction, forMillis: Int64?, to slot: Int, at time: Int64) {
        // Shown even when no event reaches a device (one not spawned yet has none to take it).
        noteChange(slot)
        switch action {
        case .revokePermission, .grantPermission:
            let granted = action == .grantPermission
            slots[slot].os.permissionGranted = granted
            feed(.permissionChanged(granted: granted), to: slot, at: time)
        case .locationServicesOff, .locationServicesOn:
            let on = action == .locationServicesOn
            slots[slot].os.locationServicesOn = on
            feed(.locationServicesChanged(on: on), to: slot, at: time)
        case .osError:
            feed(.osError(recoveryMillis: forMillis ?? 5000), to: slot, at: time)
        case .background, .foreground:
            feed(.appStateChanged(background: action == .background), to: slot, at: time)
        case .networkOffline, .networkOnline:
            // Back only if its flapping and Doze let it be.
            let wasOnline = slots[slot].online
            slots[slot].os.online = action == .networkOnline
            networkMayHaveChanged(slot, wasOnline: wasOnline, at: time)
        case .kill, .reboot:
            let delay = Self.relaunchDelay(forMillis: forMillis, action: action)
            takeDown(slot, outage(slot, action.name, delayMillis: delay, since: time), at: time)
        case .latency(let millis):
            slots[slot].link.extraLatencyMillis = millis
        case .timeouts(let fraction):
            slots[slot].link.timeoutFraction = fraction
        case .captivePortal(let answer):
            slots[slot].link.portal = answer == .off ? nil : answer
        case .networkProfile(let spec):
            slots[slot].link.network = spec.resolved(over: fleet.groups[slots[slot].group].network)
        case .standbyBucket(let bucket):
            slots[slot].os.standbyBucket = bucket ?? fleet.groups[slots[slot].group].standbyBucket
        case .doze(let spec):
            setDoze(slot, spec.resolved(over: fleet.groups[slots[slot].group].doze), at: time)
        case .oemKills(let kills):
            setOEMKills(slot, kills ?? fleet.groups[slots[slot].group].oemKills, at: time)
        case .flapping(let spec):
            setFlapping(slot, spec.resolved(over: fleet.groups[slots[slot].group].flapping), at: time)
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
            slots[slot].recent.currentLocationCalls += 1
            feed(
                .getCurrentLocation(
                    requestID: slots[slot].recent.currentLocationCalls, timeoutMillis: timeout, accuracy: accuracy),
                to: slot, at: time)
        case .deleteLocations(let before):
            feed(.deleteLocations(before: before), to: slot, at: time)
        case .shutdown:
            // The SDK's `shutdown()`: the device drops its state holder and says Idle; the store
            // stays. A device not spawned, or whose app is dead, takes no call.
            feed(.shutdown, to: slot, at: time)
        case .reinstall(let openAfter):
            reinstall(slot, openAfterMillis: openAfter, at: time)
        case .upgrade(let sdkVersion):
            upgrade(slot, sdkVersion: sdkVersion, at: time)
        case .gpsJump(let meters, let bearing, let lasting):
            let length = forMillis ?? lasting ?? FleetAction.gpsJumpDefaultMillis
            startJump(slot, meters: meters, bearing: bearing, until: time + length)
        case .clockJump(let millis):
            var clock = slots[slot].os.clock ?? DeviceClock(offset: 0, at: time)
            clock.jump(by: millis, at: time)
            slots[slot].os.clock = clock
        case .clockOffset(let millis):
            var clock = slots[slot].os.clock ?? DeviceClock(offset: 0, at: time)
            clock.set(offset: millis, at: time)
            slots[slot].os.clock = clock
        }
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

extension FaultSelector {
    /// Whether every device `other` picks is one this picks too, decided on the selectors alone:
    /// `all` covers any; a group its group; ids a subset of theirs; a seeded fraction the same
    /// seed's smaller ones (a device is picked when its draw is below the fraction). A `state`
    /// picks by what devices are when it runs, and a fraction without a seed draws anew for each
    /// action, so neither covers another selector.
    func covers(_ other: FaultSelector) -> Bool {
        switch (self, other) {
        case (.all, _): true
        case (.group(let mine), .group(let theirs)): mine == theirs
        case (.ids(let mine), .ids(let theirs)): Set(theirs).isSubset(of: mine)
        case (.fraction(let mine, let seed?), .fraction(let theirs, let theirSeed?)):
            seed == theirSeed && theirs <= mine
        default: false
        }
    }
}

extension FleetLoop {
    /// The fleet file's timeline, then the faults the API began, at the clock's instant.
    package var timelineView: [TimelineFaultView] {
        let now = metrics.virtualNow
        return faults.numbers.compactMap { number in
            guard case (let fault, let source)? = faultEntry(number) else { return nil }
            let startsAt = clock.startMillis + fault.atMillis
            let ran = metrics.timeline.last { $0.fault == number }
            let endsAt = faults.endedEarlyAt(number) ?? fault.forMillis.map { startsAt + $0 }
            // On until its end; one its opposite ends, until then, whether or not it has a `for`.
            let on = faults.isUnderway(number) || endsAt.map { now < $0 } ?? false
            let phase: TimelineFaultView.Phase = ran == nil ? .upcoming : on ? .active : .done
            return TimelineFaultView(
                fault: number, source: source, line: source == .timeline ? fault.line : nil, action: fault.action.name,
                selector: fault.selector.text, startsAt: startsAt, endsAt: endsAt, phase: phase, applied: ran?.applied,
                endable: faults.isUnderway(number), endedEarlyAt: faults.endedEarlyAt(number))
        }
    }

    /// `DELETE /api/v1/faults/{fault}`: ends a fault now, the timeline's or the API's, as a `for`
    /// would (its opposite action on the same devices), as toxiproxy removes a toxic.
    package mutating func endFaultEarly(_ number: Int) throws(FleetControlError) {
        guard let fault = faultEntry(number)?.entry else {
            throw FleetControlError(
                .notFound,
                "no fault \(number): the fleet file has \(fleet.faults.count) (from 0), and the API's are numbered "
                    + "after them (see GET /api/v1/faults)",
                field: "fault")
        }
        guard faults.isUnderway(number), let opposite = fault.action.undoing else {
            throw FleetControlError(
                .conflict,
                "fault \(number) (\(fault.action.name.rawValue)) is not on, or has no end to bring forward (only a "
                    + "fault with an opposite action can be ended)",
                field: "fault")
        }
        let time = metrics.virtualNow
        schedule.timers.cancel(.faultEnd(number))
        faults.endEarly(number, at: time)
        endFault(number, at: time)
        logAction(
            ActionRecord(
                action: opposite.name, applied: selected(fault.selector, faultIndex: number).count, at: time,
                source: .api))
    }
}
