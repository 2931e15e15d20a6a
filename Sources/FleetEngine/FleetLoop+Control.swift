import BeekonDevice
import FleetDescription
import FleetRoutes

/// The fleet control API's side in the loop: each command runs between turns, on the loop's
/// thread, with the same functions the fault timeline uses.
extension FleetLoop {
    // MARK: Spawn and delete

    /// Adds devices (ids assigned now) and queues their spawn at the request's real-time rate.
    /// `newRoutes` holds the routes a spec names that the engine does not have yet, read by the
    /// driver (see `RunFiles.routes(missingFrom:)`).
    package mutating func spawn(_ request: SpawnRequest, newRoutes: [String: Route] = [:]) throws(FleetControlError)
        -> [String]
    {
        let groupIndex: Int
        let count: Int
        switch request.template {
        case .group(let name):
            guard let index = fleet.groups.firstIndex(where: { $0.name == name }) else {
                throw FleetControlError(
                    .notFound,
                    "no group is named \"\(name)\"; groups: \(fleet.groups.map(\.name).joined(separator: ", "))",
                    field: "group")
            }
            groupIndex = index
            count = request.count
        case .spec(let group):
            guard !fleet.groups.contains(where: { $0.name == group.name }) else {
                throw FleetControlError(
                    .conflict, "a group named \"\(group.name)\" exists; give the spec another name", field: "spec.name")
            }
            if (group.config.sync?.url ?? "x").isEmpty && options.ingest == nil && fleet.ingest == nil {
                throw FleetControlError(
                    .badRequest, "the spec uploads, but the run has no ingest URL: give `config.sync.url`",
                    field: "spec.config")
            }
            for path in group.routes where roster.routes[path] == nil {
                guard let route = newRoutes[path] else {
                    throw FleetControlError(.badRequest, "route \"\(path)\" was not read", field: "spec.route")
                }
                roster.routes[path] = route
            }
            var added = group
            added.count = 0
            fleet.groups.append(added)
            groupIndex = fleet.groups.count - 1
            ensureGroupAccount(groupIndex)
            startArrivals(groupIndex, at: metrics.virtualNow)
            count = group.count
        }
        let now = metrics.virtualNow
        let gap = request.ratePerSecond.map { UInt64(1e9 / max($0, 1e-3)) } ?? 0
        var ids: [String] = []
        for offset in 0..<count {
            let index = fleet.groups[groupIndex].count
            fleet.groups[groupIndex].count += 1
            // A stream of its own per place, so admin spawns never shift the file's devices.
            var rng = laterDeviceRNG(salt: 0xAD_5EED, group: groupIndex, index: index)
            guard options.shard.owns(index) else {
                countElsewhere(group: groupIndex, rng: rng)
                continue
            }
            addSlot(group: groupIndex, index: index, spawnAt: now, rng: &rng)
            meetLastingActions(slots.count - 1, at: now)
            roster.spawnQueue.add(slots.count - 1, at: clock.realNow + gap * UInt64(offset))
            ids.append(slots[slots.count - 1].id)
        }
        roster.spawnQueue.sortByDue()
        // (Another shard records the ids of the devices it made.)
        if !ids.isEmpty { rosterChanged.insert(.installIDs) }
        return ids
    }

    /// Spawns the queued devices whose real time has come, until `overBudget`.
    package mutating func spawnDue(realNanos: UInt64, overBudget: () -> Bool = { false }) {
        while let slot = roster.spawnQueue.takeDue(by: realNanos) {
            let time = metrics.virtualNow
            slots[slot].world.setOffAt = time
            spawn(slot, at: time)
            if overBudget() { break }
        }
    }

    /// When the next queued spawn is due, real ns.
    package var nextSpawnRealNanos: UInt64? { roster.spawnQueue.nextDue }

    /// Stops a device and forgets it for listing and selection; its store stays on disk.
    package mutating func delete(_ id: String) throws(FleetControlError) {
        let slot = try liveSlot(id)
        let time = metrics.virtualNow
        if slots[slot].device != nil, slots[slot].os.processAlive { feed(.shutdown, to: slot, at: time) }
        slots[slot].device = nil
        slots[slot].removed = true
        noteChange(slot)
        slots[slot].world.accuracy = nil
        schedule.timers.cancel(.providerTick(slot))
        schedule.timers.cancel(.relaunch(slot))
        schedule.timers.cancel(.significantMoveCheck(slot))
        schedule.timers.cancel(.spawn(slot))
        roster.spawnQueue.remove(slot)
    }

    /// The slot of a listed device, or `notFound`.
    func liveSlot(_ id: String) throws(FleetControlError) -> Int {
        guard let slot = roster.slotsByID[id], !slots[slot].removed else {
            throw FleetControlError(.notFound, "no device is named \"\(id)\"", field: "id")
        }
        return slot
    }

    // MARK: Actions and the clock

    /// Applies an action to the devices a selector picks; an unknown group or id is refused.
    package mutating func act(_ action: FleetAction, on selector: FaultSelector) throws(FleetControlError) -> [String] {
        switch selector {
        case .group(let name) where !fleet.groups.contains(where: { $0.name == name }):
            throw FleetControlError(.notFound, "no group is named \"\(name)\"", field: "selector.group")
        // A fleet split into shards checks ids against the whole fleet before the shards take
        // the command, each acting on its own (`FleetRuntime.apply`).
        case .ids(let ids) where options.shard == .whole:
            if let unknown = ids.first(where: { id in roster.slotsByID[id].map { slots[$0].removed } ?? true }) {
                throw FleetControlError(.notFound, "no device is named \"\(unknown)\"", field: "selector.ids")
            }
        default:
            break
        }
        // Its number, after the timeline's: the fault it may begin, and its fraction's draws.
        let number = faults.numberAPIAction()
        let picked = selected(selector, faultIndex: number)
        let time = metrics.virtualNow
        for slot in picked {
            apply(action, forMillis: nil, to: slot, at: time)
        }
        logAction(ActionRecord(action: action.name, applied: picked.count, at: time, source: .api))
        noteLasting(
            action, relaunchDelay: Self.relaunchDelay(forMillis: nil, action: action), on: selector,
            timelineFault: nil, at: time)
        // A fault begun here is one as the timeline's are; an opposite ends those it covers.
        if action.beginsFault {
            let fault = FaultEntry(
                atMillis: time - clock.startMillis, forMillis: nil, selector: selector, action: action, line: 0)
            faults.apiBegan(number, fault)
            faultBegan(number, fault, source: .api, applied: picked.count, at: time)
        } else {
            endFaults(undoneBy: action, on: selector, at: time)
        }
        return picked.map { slots[$0].id }
    }

    /// Records an action for the admin API's `action` events.
    mutating func logAction(_ record: ActionRecord) {
        publication.log(record)
    }

    /// A device's stored fixes with `from <= timestamp <= to`, oldest first, at most `limit`.
    package func locations(of id: String, from: Int64, to: Int64, limit: Int) throws(FleetControlError) -> [Location] {
        let slot = try liveSlot(id)
        do {
            return Array(try slots[slot].storage.store.history(from: from, to: to).prefix(limit))
        } catch {
            throw FleetControlError(.unavailable, "the store of \(id) cannot be read: \(error)")
        }
    }

    /// Starts the upload statistics the admin API and the page show over from now (as Locust's
    /// reset): counts, latencies and recent seconds. The run's own figures (fix counts, the
    /// thresholds' whole-run values, `/metrics`' counters, the digest) never reset.
    package mutating func resetStatistics() {
        metrics.uploads.resetStatistics(realNanos: clock.realNow, virtual: metrics.virtualNow)
    }

    // MARK: The snapshot

    /// Notes that what `slot` shows (anything in its `DeviceSnapshot`: its state, pending count,
    /// last outcome, histories) may have changed, where it happens: the next publication rewrites
    /// its snapshot and records a change if its listing changed (`recordChanges`), so publishing
    /// and the `devices` live event cost what happened, not a walk over every device.
    mutating func noteChange(_ slot: Int) {
        publication.note(slot)
    }

    /// Brings what is published up to date with the devices noted since the last call (and only
    /// those): their snapshots in the device table, the counts by state, and the change log,
    /// which gains each noted device whose listing changed since it was last recorded. Drivers
    /// call it as they publish; `snapshot()` and `fleetSnapshot` show what it last brought.
    /// The log keeps what a reader polling a few times a second needs (four changes a device,
    /// and a floor); one that falls further behind sees the numbers jump and says its list may
    /// be stale.
    package mutating func recordChanges() {
        // What the closures read, held (not copied) while the publication changes.
        let (slots, groups, installIDs) = (self.slots, fleet.groups, roster.installIDs)
        publication.record(
            count: slots.count, keep: 1024 + 4 * slots.count,
            snapshot: { Self.snapshot($0, in: slots, groups: groups, installIDs: installIDs) },
            listing: { index in
                guard !slots[index].removed else { return nil }
                return DeviceChange.Listed(
                    state: slots[index].listedState, pending: slots[index].device?.pendingUploadCount ?? 0,
                    lastOutcome: slots[index].recent.uploads.last?.outcome)
            })
    }

    /// Everything the admin API reads, around the metrics `published` in the same step: the
    /// devices as the last `recordChanges` left them, shared, not copied.
    package func fleetSnapshot(metrics published: FleetMetrics, paused: Bool, realNanos: UInt64) -> FleetSnapshot {
        var snapshot = FleetSnapshot()
        snapshot.name = fleet.name
        snapshot.seed = seed
        snapshot.startedAt = clock.startMillis
        snapshot.thresholds = thresholdSet
        snapshot.targetDevices = targetDevices
        snapshot.timeline = timelineView
        snapshot.virtualNow = metrics.virtualNow
        snapshot.endsAt = endsAt
        snapshot.warp = clock.warp
        snapshot.paused = paused
        snapshot.deterministic = clock.transferTiming.isModelled
        snapshot.realSecond = realNanos / 1_000_000_000
        snapshot.groups = fleet.groups.map(\.name)
        snapshot.metrics = published
        snapshot.actions = publication.actions.elements
        snapshot.streamEvents = publication.streams.elements
        snapshot.deviceChanges = publication.changes
        snapshot.indexByID = roster.slotsByID
        snapshot.devices = publication.table
        snapshot.devices.now = metrics.virtualNow
        return snapshot
    }

    /// Device `index` as the admin API shows it.
    func deviceSnapshot(_ index: Int) -> DeviceSnapshot {
        Self.snapshot(index, in: slots, groups: fleet.groups, installIDs: roster.installIDs)
    }

    /// Device `index` of `slots`, read field by field in place (`for slot in slots`, or a copy
    /// of its `Device`, would copy every reference it holds); static, so a recording reads the
    /// slots without copying the loop.
    static func snapshot(
        _ index: Int, in slots: [DeviceSlot], groups: [DeviceGroup], installIDs: [String: String]
    ) -> DeviceSnapshot {
        let last = slots[index].recent.uploads.last
        let spawned = slots[index].device != nil
        // The device's instants are on its clock; the admin's on the fleet's (as of its last act).
        let offset = slots[index].os.clock?.offset(at: slots[index].storage.actedAt) ?? 0
        var sync = slots[index].device?.sync.view ?? SyncView(phase: .idle, consecutiveFailures: 0, nextAttemptAt: nil)
        sync.nextAttemptAt = sync.nextAttemptAt.map { $0 - offset }
        var auth =
            slots[index].device?.sync.auth.view(lastRefresh: slots[index].recent.lastRefreshOutcome)
            ?? AuthView(
                state: .none, validUntil: nil, lastRefreshOutcome: slots[index].recent.lastRefreshOutcome,
                breakerOpenUntil: nil)
        auth.validUntil = auth.validUntil.map { $0 - offset }
        auth.breakerOpenUntil = auth.breakerOpenUntil.map { $0 - offset }
        return DeviceSnapshot(
            id: slots[index].id, group: groups[slots[index].group].name, platform: slots[index].identity.platform,
            model: slots[index].identity.model,
            osVersion: slots[index].identity.osVersion.description, sdkVersion: slots[index].identity.sdkVersion,
            installID: installIDs[slots[index].id] ?? "", state: slots[index].listedState,
            alive: slots[index].os.processAlive,
            spawned: spawned, deleted: slots[index].removed,
            permissionGranted: slots[index].os.permissionGranted,
            locationServicesOn: slots[index].os.locationServicesOn, online: slots[index].online,
            sourceAddress: slots[index].sourceAddress,
            pending: slots[index].device?.pendingUploadCount ?? 0, lastOutcome: last?.outcome, lastUploadAt: last?.at,
            latitude: slots[index].world.lastPosition?.latitude, longitude: slots[index].world.lastPosition?.longitude,
            config: slots[index].device?.config,
            sync: sync, auth: auth,
            stateHistory: slots[index].recent.stateHistory.elements, uploads: slots[index].recent.uploads.elements,
            streams: slots[index].recent.streams.elements,
            storeError: slots[index].storage.problem.map {
                DeviceStoreError(cause: $0.cause.rawValue, message: $0.message, since: $0.since)
            }, fixes: slots[index].storage.ledger,
            world: DeviceWorld(
                network: slots[index].link.network, extraLatencyMillis: slots[index].link.extraLatencyMillis,
                timeoutFraction: slots[index].link.timeoutFraction, captivePortal: slots[index].link.portal,
                flapping: slots[index].link.flapping, flapUp: slots[index].link.flap.up,
                doze: slots[index].os.doze == nil || slots[index].identity.platform != .android
                    ? nil : slots[index].os.dozeCycle?.phaseName ?? .active,
                standbyBucket: slots[index].os.standbyBucket, oemKillsPerDay: slots[index].os.oemKillsPerDay,
                clockOffsetMillis: slots[index].os.clock.map { _ in offset }),
            currentLocationCalls: slots[index].recent.currentLocationCalls,
            currentLocation: slots[index].recent.lastCurrentLocation)
    }
}

// Read through the device in place (`slots[i].device?.sync.view`): passing a `SyncEngine` or an
// `AuthSession` as an argument would copy it, every reference it holds retained.
extension SyncEngine {
    /// Where the sync engine is, as the admin API shows it.
    var view: SyncView {
        guard isEnabled else { return SyncView(phase: .off, consecutiveFailures: failures, nextAttemptAt: nil) }
        let shown: SyncView.Phase
        var next: Int64?
        switch phase {
        case .idle: shown = .idle
        case .loading: shown = .loading
        case .sending: shown = .uploading
        case .awaitingRefresh: shown = .awaitingRefresh
        case .backingOff(_, let until):
            shown = .backingOff
            next = until
        case .awaitingNetwork: shown = .awaitingNetwork
        case .suspended: shown = .suspended
        }
        return SyncView(phase: shown, consecutiveFailures: failures, nextAttemptAt: next)
    }
}

extension AuthSession {
    /// The session's state, from what it shows publicly; the tokens stay inside. What the clock
    /// alone changes (a token's expiry, the breaker's end) is left to `AuthView.seen(at:)`, which
    /// every read of the device table applies.
    func view(lastRefresh: TransferOutcome?) -> AuthView {
        guard recipe != nil else {
            return AuthView(state: .none, validUntil: nil, lastRefreshOutcome: lastRefresh, breakerOpenUntil: nil)
        }
        let tokens = persisted?.tokens
        let hasToken = !(tokens?.accessToken?.isEmpty ?? true)
        let state: AuthView.State
        if isRefreshing {
            state = .refreshing
        } else if isDead {
            state = .failed
        } else if !hasToken {
            state = .expired
        } else {
            state = .valid
        }
        return AuthView(
            state: state, validUntil: tokens?.expiresAt, lastRefreshOutcome: lastRefresh,
            breakerOpenUntil: breakerOpenUntil)
    }
}
