import BeekonDevice
import BeekonStore
import FleetDescription
import FleetRoutes

/// The fleet engine: devices, stores, timers, transfers in flight, faults, the world and metrics,
/// advanced only by what its driver tells it, on the virtual clock: `start`, `runDue(until:)`
/// (timers), `transferFinished` (an answer), `spawnDue` and the control commands. What it wants
/// done in the world comes out as `FleetEffect`s (`takeEffects()`); its stores come from the
/// driver's `StoreShelf`. It never reads a clock, opens a file or touches a socket: the real
/// driver (`FleetRuntime`) maps wall time × warp onto its clock and carries effects out with
/// libcurl and files, the simulated one (`SimulatedFleet`) answers transfers from a function of
/// the request on virtual time alone.
package struct FleetLoop {
    /// The fleet file, with the groups the admin API added.
    package var fleet: FleetFile
    package let options: RunOptions
    package let seed: UInt64
    /// The warp, transfer timing, the run's start and the driver's real clocks (see `LoopClock`).
    package var clock: LoopClock
    /// The timers and how far a turn may go (see `LoopSchedule`).
    package var schedule = LoopSchedule()
    package var slots: [DeviceSlot] = []
    /// Who the devices are and who is to come (see `DeviceRoster`).
    package internal(set) var roster: DeviceRoster
    /// The stores, their waiting rows and their errors (see `LoopStorage`).
    var storage: LoopStorage
    /// What the driver is to carry out, oldest first.
    var effects: [FleetEffect] = []
    /// Which of the roster's files changed since the driver last took effects: each is recorded
    /// once a step, however many devices changed in it (a copy of the whole map per device, for
    /// a reinstall of 30,000 devices, would be 30,000 copies held at once).
    var rosterChanged = RosterFiles()
    package var metrics = FleetMetrics()
    /// The devices, actions and stream values published to the admin API (see `Publication`).
    var publication = Publication()
    /// The transfers the devices wait for, and those they stopped waiting for (see `TransferBook`).
    var transfers = TransferBook()
    /// The timeline's faults and the API's, and the drains after them (see `FaultBook`).
    var faults: FaultBook
    /// The run is over and its driver drains what is on the wire: devices send nothing new.
    package var draining = false

    /// An engine over what the driver read: the routes the fleet file names, the install ids an
    /// earlier run on the data folder made (and those its reinstalls replaced), and its clock
    /// record. Refuses a warp, run length or missing ingest URL it cannot run with.
    package init(
        fleet: FleetFile, options: RunOptions, routes: [String: Route], installIDs: [String: String],
        formerInstalls: [String: [String]] = [:], previousClock: ClockRecord?, stores: any StoreShelf
    ) throws(RunError) {
        self.fleet = fleet
        faults = FaultBook(timeline: fleet.faults)
        self.options = options
        seed = options.seed ?? fleet.seed
        clock = try LoopClock(options: options, fleet: fleet, previousClock: previousClock)
        if let length = options.virtualDurationMillis {
            do throws(NumberProblem) {
                _ = try FleetDuration.runLengthRange.check(Double(length))
            } catch {
                throw RunError(description: "virtual duration \(error)")
            }
        }
        storage = LoopStorage(stores: stores)
        roster = DeviceRoster(installIDs: installIDs, formerInstalls: formerInstalls, routes: routes)
        if fleet.needsIngestURL, options.ingest == nil,
            let group = fleet.groups.first(where: { $0.config.sync?.url.isEmpty == true })
        {
            throw RunError(
                description:
                    "group \"\(group.name)\" uploads, but no ingest URL is set: "
                    + "give `ingest:` in the fleet file or `--ingest URL`"
            )
        }
    }

    /// How many rows wait for their commit, across the fleet.
    package var rowsWaiting: Int { storage.commits.rowsWaiting }

    /// What the run is checked against: the options' thresholds and the fleet file's.
    package var thresholdSet: ThresholdSet {
        ThresholdSet(given: options.thresholds + fleet.thresholds, strict: options.strictThresholds)
    }

    /// The run's length on the virtual clock, ms: `--for` over the fleet file's `duration`; nil
    /// runs until stopped.
    /// The local addresses devices' connections leave from: `run --source-addresses`, else the
    /// fleet file's `network.sourceAddresses`; nil leaves the choice to the system.
    package var sourceAddresses: SourceAddresses? { options.sourceAddresses ?? fleet.network.sourceAddresses }
    /// Whether HTTPS connections offer HTTP/2: `run --http2`, else the fleet file's `network.http2`.
    package var offersHTTP2: Bool { (options.http2 ?? fleet.network.http2) == .auto }
    package var virtualDurationMillis: Int64? { options.virtualDurationMillis ?? fleet.durationMillis }

    /// When the run ends on the virtual clock, Unix ms; nil without a virtual duration.
    package var endsAt: Int64? { virtualDurationMillis.map { clock.startMillis + $0 } }

    /// Takes what the driver is to carry out.
    package mutating func takeEffects() -> [FleetEffect] {
        // Nothing leaves before the rows it follows are in their stores.
        commitWaitingRows()
        // The devices' files before anything that follows from them.
        var recorded: [FleetEffect] = []
        if rosterChanged.contains(.installIDs) { recorded.append(.recordInstallIDs(roster.installIDs)) }
        if rosterChanged.contains(.formerInstalls) { recorded.append(.recordFormerInstalls(roster.formerInstalls)) }
        rosterChanged = []
        defer { effects = [] }
        return recorded.isEmpty ? effects : recorded + effects
    }

    // MARK: Start and stop

    /// Whether the data folder holds an earlier run: devices it made, or its clock file.
    var resumesEarlierRun: Bool { !roster.installIDs.isEmpty || clock.previousClock != nil }

    /// Makes every device of the fleet file and schedules its spawn and the fault timeline, from
    /// the instant `RunStart` picks (`wallNow`, Unix ms, stands for `now`).
    package mutating func start(wallNow: Int64) {
        start(wallNow: wallNow, earlier: openEarlierStores())
    }

    /// The stores of an earlier run on the data folder that a loop opened before its start, by
    /// device id (`openEarlierStores`), and the newest row they hold.
    package struct EarlierStores {
        var stores: [String: any DeviceStorage] = [:]
        package var newest: Int64?

        package init() {}
    }

    /// On a folder an earlier run used, opens this loop's devices' stores (for `start`) with the
    /// newest row they hold, which bounds where the clock may start. Each is opened once for the
    /// whole start (the slot takes it over), so this costs one index lookup per non-empty table.
    /// Loops that share a fleet start from the newest of all of theirs.
    package func openEarlierStores() -> EarlierStores {
        var earlier = EarlierStores()
        guard resumesEarlierRun else { return earlier }
        for (groupIndex, group) in fleet.groups.enumerated() {
            for index in 0..<group.count where options.shard.owns(index) {
                let id = Self.deviceID(group: group.name, index: index)
                guard let installID = roster.installIDs[id] else { continue }
                let store = makeStore(installID: installID, group: groupIndex)
                earlier.stores[id] = store
                // A store that fails here fails again in `start`, where the failure is reported.
                if let stamped = try? store.newestTimestamp() {
                    // Stamped on the phone's clock: the latest true instant it can have been.
                    let newest = latestTrueInstant(stampedAt: stamped, group: groupIndex, index: index)
                    earlier.newest = max(earlier.newest ?? newest, newest)
                }
            }
        }
        return earlier
    }

    /// The latest true instant a row device `index` of group `group` stamped `stamped` on its
    /// clock can have been stored at: the reading less the least offset its clock can have had
    /// (in a group with Android phones, at most 0: a GNSS fix carries satellite time). Without a
    /// `deviceClock`, `stamped`.
    func latestTrueInstant(stampedAt stamped: Int64, group: Int, index: Int) -> Int64 {
        Self.latestTrueInstant(stampedAt: stamped, group: group, index: index, fleet: fleet, seed: seed)
    }

    /// `latestTrueInstant(stampedAt:group:index:)` for the device with id `deviceID` of `fleet`
    /// run with `seed`, before any engine is made (`DataFolder.resumeStart`); `stamped` for an id
    /// the fleet has no group for.
    package static func latestTrueInstant(
        stampedAt stamped: Int64, deviceID: String, fleet: FleetFile, seed: UInt64
    ) -> Int64 {
        let place = place(of: deviceID)
        guard place != .max, let dash = deviceID.lastIndex(of: "-"),
            let group = fleet.groups.firstIndex(where: { $0.name == deviceID[..<dash] })
        else { return stamped }
        return latestTrueInstant(stampedAt: stamped, group: group, index: place, fleet: fleet, seed: seed)
    }

    /// `latestTrueInstant(stampedAt:group:index:)` for `fleet` run with `seed`.
    static func latestTrueInstant(
        stampedAt stamped: Int64, group: Int, index: Int, fleet: FleetFile, seed: UInt64
    ) -> Int64 {
        guard let spec = fleet.groups[group].deviceClock else { return stamped }
        var draws = DeviceClock.draws(seed: seed, group: group, index: index)
        let clock = DeviceClock(spec: spec, origin: 0, draws: &draws)
        var least = clock.leastOffset(span: Int64(FleetDuration.range.upper))
        // An Android phone of the group may have stamped a GNSS fix on true time (offset 0).
        if fleet.groups[group].platforms.contains(where: { $0.platform == .android && $0.weight > 0 }) {
            least = min(least, 0)
        }
        let (instant, overflow) = stamped.subtractingReportingOverflow(least)
        return overflow ? .max : instant
    }

    /// `start(wallNow:)` with this loop's `earlier` stores, the clock bounded by `earlier.newest`:
    /// the newest row any store of the fleet holds.
    package mutating func start(wallNow: Int64, earlier: EarlierStores) {
        let known = earlier.stores
        let newestStored = earlier.newest
        clock.runStart = RunStart.resolve(
            configured: options.clockStart ?? fleet.clock.start, wallNow: wallNow, earlierRun: resumesEarlierRun,
            record: clock.previousClock,
            newestStored: newestStored)
        metrics.virtualNow = clock.startMillis
        metrics.history = RunHistory(start: clock.startMillis)
        schedule.reachedMillis = clock.startMillis
        var rng = SplitMix64(seed: seed)
        roster.groupTargets = GroupTargets(
            groups: fleet.groups, stages: fleet.groupStages, daily: fleet.groupDaily, start: clock.startMillis)
        roster.recentCapacity = DeviceRoster.recentCapacity(devices: roster.groupTargets.weights.reduce(0, +))
        // Every group's accounts exist before a device touches them (the admin API's new groups
        // get theirs when added), so the per-fix paths index them directly.
        if !fleet.groups.isEmpty { ensureGroupAccount(fleet.groups.count - 1) }
        for (groupIndex, group) in fleet.groups.enumerated() {
            startArrivals(groupIndex, at: clock.startMillis + group.startAfterMillis)
            // A group with stages starts with none: they make its devices as they want them.
            if roster.groupTargets.plan(groupIndex) != nil {
                fleet.groups[groupIndex].count = 0
                schedule.timers.schedule((), key: .stage(groupIndex), at: clock.startMillis + group.startAfterMillis)
                continue
            }
            for index in 0..<group.count {
                var deviceRNG = SplitMix64(seed: rng.next())
                // Another shard's device still takes its draw and its platform's turn.
                guard options.shard.owns(index) else {
                    countElsewhere(group: groupIndex, rng: deviceRNG)
                    continue
                }
                let spread = group.count > 1 ? group.spreadMillis * Int64(index) / Int64(group.count) : 0
                let spawnAt = clock.startMillis + group.startAfterMillis + spread
                let store = known[Self.deviceID(group: group.name, index: index)]
                addSlot(group: groupIndex, index: index, spawnAt: spawnAt, rng: &deviceRNG, store: store)
                schedule.timers.schedule((), key: .spawn(slots.count - 1), at: spawnAt)
            }
        }
        rosterChanged.insert(.installIDs)
        // Make every store before the clock starts (a new one from a template, without opening
        // it; an existing one opened for its counts): a thousand made at the first instant
        // would make every timer late.
        for slot in slots.indices {
            do {
                try slots[slot].storage.store.prepare()
            } catch {
                reportStoreError(error, slot: slot, at: clock.startMillis)
            }
            settleLedger(slot, at: clock.startMillis)
        }
        // The timeline counts from this run's start, so a resumed run plays it again from there.
        for (index, fault) in fleet.faults.enumerated() {
            schedule.timers.schedule((), key: .fault(index), at: clock.startMillis + fault.atMillis)
        }
        if let notice = clock.runStart.notice { effects.append(.notice(notice)) }
    }

    /// The model of the `index`th device of `platform` in a group: its platform's share of the
    /// group's `model:` list round-robin, else the platform's table (`PhoneModels`).
    static func model(platform: Platform, index: Int, given: [String]) -> String {
        let choices = PhoneModels.choices(for: platform, given: given)
        return choices[index % choices.count]
    }

    /// The id of device `index` (from 0) of group `group`: `walkers-0001`.
    static func deviceID(group: String, index: Int) -> String {
        "\(group)-\(String(format: "%04d", index + 1))"
    }

    /// A device's place in its group, read back from its id (`walkers-0012` is place 11);
    /// `Int.max` for an id that names no place.
    package static func place(of id: String) -> Int {
        guard let dash = id.lastIndex(of: "-"), let number = Int(id[id.index(after: dash)...]), number > 0 else {
            return .max
        }
        return number - 1
    }

    /// The store of the device with `installID` in group `group` (opened on first use).
    func makeStore(installID: String, group: Int) -> any DeviceStorage {
        storage.stores.store(installID: installID, syncEnabled: fleet.groups[group].config.sync != nil)
    }

    /// Makes device `index` of group `group` (its platform, route, start offset, install id and
    /// store, all drawn from `rng`) and appends its slot; the caller schedules its spawn. `store`
    /// is the device's store when the caller already made it.
    mutating func addSlot(
        group groupIndex: Int, index: Int, spawnAt: Int64, rng deviceRNG: inout SplitMix64,
        store: (any DeviceStorage)? = nil
    ) {
        let group = fleet.groups[groupIndex]
        let id = Self.deviceID(group: group.name, index: index)
        let (platform, turn) = takePlatformTurn(group: groupIndex, rng: &deviceRNG)
        let route = roster.routes[group.routes[index % group.routes.count]]!
        let fraction: Double
        switch group.startOffset {
        case .fraction(let value): fraction = value
        case .random: fraction = Double.random(in: 0..<1, using: &deviceRNG)
        }
        let timing: RouteMotion.Timing
        // A named pace is the travel mode the activity recognizer reports while moving.
        var travelMode: Pace?
        switch group.pace {
        case .routeTimes(let factor): timing = .routeTimes(factor: factor)
        case .pace(let pace, let factor):
            travelMode = pace
            timing = .speed(
                metersPerSecond: pace.metersPerSecond * factor, dwellEveryMeters: group.dwell?.everyMeters ?? 0,
                dwellSeconds: group.dwell?.seconds ?? 0)
        case .metersPerSecond(let speed):
            timing = .speed(
                metersPerSecond: speed, dwellEveryMeters: group.dwell?.everyMeters ?? 0,
                dwellSeconds: group.dwell?.seconds ?? 0)
        }
        let installID = roster.installID(for: id, at: spawnAt, rng: &deviceRNG)
        let store = store ?? makeStore(installID: installID, group: groupIndex)
        var os = PhoneOS()
        os.doze = group.doze
        os.standbyBucket = group.standbyBucket
        if let spec = group.deviceClock {
            var draws = DeviceClock.draws(seed: seed, group: groupIndex, index: index)
            os.clock = DeviceClock(spec: spec, origin: clock.startMillis, draws: &draws)
        }
        roster.slotsByID[id] = slots.count
        let deviceSeed = deviceRNG.next()
        slots.append(
            DeviceSlot(
                id: id, group: groupIndex, seed: deviceSeed,
                identity: PhoneIdentity(
                    indexInGroup: index, platform: platform,
                    model: Self.model(platform: platform, index: turn, given: group.models),
                    osVersion: group.osVersions.value(for: platform, index: turn, defaults: OSVersions.table(platform)),
                    sdkVersion: group.sdkVersions.value(for: platform, index: turn, defaults: SDKVersions.default)),
                device: nil,
                world: PhoneWorld(
                    provider: OSProvider(profile: group.provider, seed: deviceRNG.next()),
                    motion: RouteMotion(
                        route: route, timing: timing, loops: group.loops, startFraction: fraction,
                        travelMode: travelMode),
                    setOffAt: spawnAt),
                os: os,
                link: LinkFaults(
                    rng: SplitMix64(seed: deviceRNG.next()), network: group.network, flapping: group.flapping,
                    deviceSeed: deviceSeed),
                addresses: sourceAddresses.map {
                    let ordinal = roster.groupTargets.shares(groups: groupIndex).reduce(0, +) + index
                    return ($0.address(ordinal: ordinal), $0.cellularAddress(ordinal: ordinal))
                } ?? (nil, nil),
                storage: SlotStorage(store: store),
                recent: RecentActivity(capacity: roster.recentCapacity)))
        let identity = slots[slots.count - 1].identity
        slots[slots.count - 1].os.oemKillsPerDay =
            group.oemKills?.killsPerDay(platform: identity.platform, model: identity.model) ?? 0
        noteChange(slots.count - 1)
    }

    /// A device's platform (the first draw of its stream `rng`) and its place among the devices
    /// of that platform its group has made so far, counted.
    mutating func takePlatformTurn(group groupIndex: Int, rng: inout SplitMix64) -> (Platform, Int) {
        let group = fleet.groups[groupIndex]
        let weights = group.platforms.reduce(0) { $0 + $1.weight }
        var pick = Double.random(in: 0..<max(weights, 1e-9), using: &rng)
        var platform = group.platforms[0].platform
        for entry in group.platforms {
            if pick < entry.weight {
                platform = entry.platform
                break
            }
            pick -= entry.weight
        }
        return (platform, roster.takeTurn(group: groupIndex, platform: platform))
    }

    /// Another shard's device of group `group`, with stream `rng`, is made: it takes its
    /// platform's turn here too, so the devices this shard makes get the models, OS releases and
    /// SDK versions they get in the whole fleet.
    mutating func countElsewhere(group: Int, rng: SplitMix64) {
        var rng = rng
        _ = takePlatformTurn(group: group, rng: &rng)
    }

    /// The stream of the device at `index` in group `group` made after the start (`salt` says by
    /// what: the stages, an admin spawn): the same in every run and on every shard.
    func laterDeviceRNG(salt: UInt64, group: Int, index: Int) -> SplitMix64 {
        SplitMix64(seed: seed).derived(salt).derived(UInt64(group)).derived(UInt64(index))
    }

    /// The run is over: every store is closed, and what the store-error log held back is said.
    package mutating func finish() {
        commitWaitingRows()
        storage.stores.closeAll()
        settleBacklog(before: .max)
        for line in storage.errorLog.flush() { effects.append(.log(FleetLogLine(.error, line))) }
    }

    /// Where the clock got to, and the warp, for the data folder's `clock.json`; `stopped` for
    /// the run's last word. The driver writes it (see `ClockRecord` for when).
    package func clockRecord(stopped: Bool) -> ClockRecord {
        // With lookahead, devices ahead of the fleet's clock have stamped up to `reachedMillis`.
        ClockRecord(reachedMillis: max(metrics.virtualNow, schedule.reachedMillis), warp: clock.warp, stopped: stopped)
    }

    // MARK: The loop

    /// The earliest timer's deadline (mutating: stale timers at the top are dropped on the way,
    /// where a copy of the queue would copy the whole heap).
    package mutating func nextDeadline() -> Int64? {
        schedule.timers.nextDeadline()
    }

    /// How far a turn of `runDue` got.
    package struct Turn {
        /// The last deadline fired (or the time reached before the turn).
        package var reached: Int64
        /// Every timer due by the asked-for instant fired (the turn was not cut short).
        package var caughtUp: Bool
    }

    /// Fires every timer due by `now`, each at its own deadline (so timestamps do not depend on
    /// how late the driver called), until `overBudget` says the turn has lasted long enough
    /// (asked every 64 timers, with the rows then waiting for their commit, which the turn's end
    /// still has to write). A device's events wait at its own answer instant until the
    /// real answer is in (modelled timing); without `lookahead`, a modelled transfer sent during
    /// the turn stops the whole turn just short of its answer instant instead.
    @discardableResult
    package mutating func runDue(until now: Int64, overBudget: (_ rowsWaiting: Int) -> Bool = { _ in false }) -> Turn {
        var fired = 0
        var caughtUp = true
        var reached = metrics.virtualNow
        var now = min(now, schedule.syncTarget ?? .max)
        schedule.answerLimit = .max
        while let due = nextDue(atOrBefore: schedule.lookahead ? now : min(now, schedule.answerLimit)) {
            if !schedule.lookahead {
                let lateness = Double(now - due.deadline) / max(clock.warp, 1e-9)
                metrics.timerLateness.record(lateness)
                schedule.recentTimerLateness.record(lateness)
            }
            reached = max(reached, due.deadline)
            fire(due.key, at: due.deadline)
            fired += 1
            if fired % 64 == 0, overBudget(rowsWaiting) {
                caughtUp = false
                break
            }
        }
        schedule.reachedMillis = max(schedule.reachedMillis, reached)
        if schedule.lookahead {
            // The fleet's clock is the instant every device has reached: all before the earliest
            // event still to fire (one waiting for an answer, or past the turn's end).
            let frontier = min(now, (schedule.timers.nextDeadline() ?? .max) - 1)
            metrics.virtualNow = max(metrics.virtualNow, frontier)
            settleBacklog(before: metrics.virtualNow)
            return Turn(reached: metrics.virtualNow, caughtUp: caughtUp)
        }
        now = min(now, schedule.answerLimit)
        // Device time never runs backwards: completions handled before the remaining timers
        // are stamped with the last deadline reached, not with a `now` the loop has not caught up to.
        metrics.virtualNow = caughtUp ? max(reached, now) : reached
        settleBacklog(before: metrics.virtualNow)
        return Turn(reached: reached, caughtUp: caughtUp)
    }

    /// The next timer that may fire by `instant`: a device's own event waits (parked) at or past
    /// its answer hold; a fault, which concerns many devices, waits until no parked event comes
    /// before it.
    private mutating func nextDue(atOrBefore instant: Int64) -> (deadline: Int64, key: LoopTimer, event: Void)? {
        let slots = slots
        let transfers = transfers
        return schedule.timers.popDue(atOrBefore: instant) { key, deadline in
            let slot: Int
            switch key {
            case .device(let owner, _), .providerTick(let owner), .spawn(let owner), .relaunch(let owner),
                .significantMoveCheck(let owner), .storeRetry(let owner), .open(let owner), .churnReinstall(let owner),
                .churnUpgrade(let owner), .linkFlap(let owner), .oemKill(let owner), .doze(let owner):
                slot = owner
            case .delivery(let number), .transferTimeout(let number):
                guard let owner = transfers[number]?.slot else { return .fire }
                slot = owner
            case .fault, .faultEnd, .stage, .arrival:
                return .barrier
            }
            guard let hold = slots[slot].waiting.answerHold, deadline >= hold else { return .fire }
            return .park(lane: slot)
        }
    }

    /// Whether control commands may run now. With `lookahead`, devices stand at different
    /// instants, and a command must find each where the others are: the first call asks every
    /// device to reach the furthest instant any reached (`syncTarget`, which none passes), and
    /// once they all have, the clock stands there and commands run. Without it, always.
    package mutating func readyForCommands() -> Bool {
        guard schedule.lookahead else { return true }
        let target = schedule.syncTarget ?? max(schedule.reachedMillis, metrics.virtualNow)
        guard (schedule.timers.nextDeadline() ?? .max) > target else {
            schedule.syncTarget = target
            return false
        }
        schedule.syncTarget = nil
        metrics.virtualNow = max(metrics.virtualNow, target)
        return true
    }

    private mutating func fire(_ timer: LoopTimer, at time: Int64) {
        switch timer {
        case .spawn(let slot):
            spawn(slot, at: time)
        case .device(let slot, let deviceTimer):
            feed(.timerFired(deviceTimer), to: slot, at: time)
        case .providerTick(let slot):
            providerTick(slot, at: time)
        case .fault(let index):
            applyFault(index, at: time)
        case .faultEnd(let index):
            endFault(index, at: time)
        case .relaunch(let slot):
            relaunchDue(slot, at: time)
        case .significantMoveCheck(let slot):
            checkSignificantMove(slot, at: time)
        case .delivery(let number):
            deliverHeld(number, at: time)
        case .transferTimeout(let number):
            transferTimedOut(number, at: time)
        case .storeRetry(let slot):
            retryStore(slot, at: time)
        case .stage(let group):
            followStages(group, at: time)
        case .open(let slot):
            openInstall(slot, at: time)
        case .churnReinstall(let slot):
            churnReinstallDue(slot, at: time)
        case .churnUpgrade(let slot):
            churnUpgradeDue(slot, at: time)
        case .arrival(let group):
            arrive(group, at: time)
        case .linkFlap(let slot):
            flapDue(slot, at: time)
        case .oemKill(let slot):
            oemKillDue(slot, at: time)
        case .doze(let slot):
            lookForDoze(slot, at: time)
        }
    }

    package mutating func spawn(_ slot: Int, at time: Int64) {
        let group = fleet.groups[slots[slot].group]
        let restored: PersistedDeviceState
        let pending: Int
        perform(commitRows(slot), slot: slot, at: time)
        do {
            // Made already at the start; a device the stages or the API add is made here.
            try slots[slot].storage.store.prepare()
            restored = try slots[slot].storage.store.readDeviceState()
            pending = try slots[slot].storage.store.pendingCount()
        } catch {
            reportStoreError(error, slot: slot, at: time, resume: .spawn)
            return
        }
        // What the store holds before the device does anything: carried over, not admitted now.
        settleLedger(slot, at: time)
        var state = restored
        let installID = UUIDv7(roster.installIDs[slots[slot].id] ?? "")
        var firstState: [DeviceStateChange] = []
        if state.installID == nil, let installID {
            state.installID = installID
            firstState.append(.installID(installID))
        }
        // The installed app's version: as an update left it, else recorded now.
        if let installed = state.sdkVersion {
            slots[slot].identity.sdkVersion = installed
        } else {
            firstState.append(.sdkVersion(slots[slot].identity.sdkVersion))
        }
        let actions: [DeviceAction] = firstState.isEmpty ? [] : [.persistState(firstState)]
        let (device, restoreActions) = Device.restore(
            platform: slots[slot].identity.platform, osVersion: slots[slot].identity.osVersion,
            model: slots[slot].identity.model,
            sdkVersion: slots[slot].identity.sdkVersion,
            restored: state, pendingFixes: pending,
            seed: roster.installSeed(of: slots[slot].id, seed: slots[slot].seed), now: deviceNow(slot, at: time))
        slots[slot].device = device
        noteChange(slot)
        perform(actions + restoreActions, slot: slot, at: time)
        // Faults and actions that began before the spawn hold from its first instant: the app
        // finds the world as it is before it configures and starts.
        tellWorld(slot, at: time)
        feed(.configure(resolvedConfig(group.config)), to: slot, at: time)
        if !group.extras.isEmpty {
            feed(.setExtras(filled(group.extras, slot: slot)), to: slot, at: time)
        }
        if !group.geofences.isEmpty {
            feed(.addGeofences(group.geofences), to: slot, at: time)
        }
        if group.autoStart {
            feed(.start, to: slot, at: time)
        }
        // Killed before it spawned: the app ran until now, and is dead until the kill's relaunch.
        if !slots[slot].os.processAlive { processGone(slot, at: time) }
        planChurn(slot, at: time)
        startFlapping(slot, at: time)
        startOEMKills(slot, at: time)
        startDozing(slot, at: time)
    }

    /// The group's config with the run's ingest filled in where the file left the URL open.
    func resolvedConfig(_ config: BeekonConfig) -> BeekonConfig {
        var resolved = config
        if let url = fleet.ingestURL(of: config, given: options.ingest) { resolved.sync?.url = url }
        return resolved
    }

    /// `{index}`, `{group}` and `{id}` filled in for this device.
    func filled(_ extras: StringMap, slot: Int) -> StringMap {
        var result = StringMap()
        for (key, value) in extras {
            result[key] =
                value
                .replacingOccurrences(of: "{index}", with: String(slots[slot].identity.indexInGroup + 1))
                .replacingOccurrences(of: "{group}", with: fleet.groups[slots[slot].group].name)
                .replacingOccurrences(of: "{id}", with: slots[slot].id)
        }
        return result
    }

    /// Where device `slot`'s phone truly is at `time`, along its route (read field by field: a
    /// method of the slot would copy the whole slot out of the array on every fix).
    func truePosition(of slot: Int, at time: Int64) -> TruePosition {
        slots[slot].world.motion.position(afterMillis: time - slots[slot].world.setOffAt)
    }

    private mutating func providerTick(_ slot: Int, at time: Int64) {
        guard let accuracy = slots[slot].world.accuracy, slots[slot].os.processAlive else { return }
        // Deep Doze gives location coarser (seed 02).
        let cadence = ProviderProfile.cadenceMillis(accuracy)
        let dozing = slots[slot].os.dozeCycle?.dozing == true
        schedule.timers.schedule(
            (), key: .providerTick(slot), at: time + (dozing ? max(cadence, Doze.idleCadenceMillis) : cadence))
        guard slots[slot].os.permissionGranted, slots[slot].os.locationServicesOn else { return }
        let truth = truePosition(of: slot, at: time)
        let moving = truth.speed > RouteMotion.standingSpeed
        if slots[slot].world.wasMoving, !moving {
            feed(.dwellStarted(latitude: truth.latitude, longitude: truth.longitude), to: slot, at: time)
        } else if !slots[slot].world.wasMoving, moving {
            feed(.dwellEnded, to: slot, at: time)
        }
        slots[slot].world.wasMoving = moving
        if var fix = slots[slot].world.provider.fix(at: time, truth: truth, request: accuracy) {
            // The OS stamps the fix from the phone's clock, but for Android's GNSS fixes.
            if !DeviceClock.stampsSatelliteTime(platform: slots[slot].identity.platform, accuracy: accuracy) {
                fix.timestamp = deviceNow(slot, at: time)
            }
            if let jump = slots[slot].world.gpsJump {
                if time < jump.until {
                    jump.move(&fix)
                } else {
                    slots[slot].world.gpsJump = nil
                }
            }
            feed(.osFix(fix), to: slot, at: time)
        }
    }

    // MARK: Devices

    /// Hands `event` to the device and carries out what it asks for.
    mutating func feed(_ event: DeviceEvent, to slot: Int, at time: Int64) {
        perform(handled(event, by: slot, at: time), slot: slot, at: time)
    }

    /// The device's actions for `event` (none while it is not spawned).
    mutating func handled(_ event: DeviceEvent, by slot: Int, at time: Int64) -> [DeviceAction] {
        guard slots[slot].device != nil else { return [] }
        // Mutated in place: copying a device out and back costs more than handling the event.
        // The SDK reads the phone's clock, not true time.
        let actions = slots[slot].device!.handle(event, at: deviceNow(slot, at: time))
        // An OS fix the device answers with nothing (gated out, inside a stationary region) changes
        // nothing the admin shows: its position, counts and states change only through actions.
        // At a real cadence that is most ticks, so they leave the device table alone.
        if case .osFix = event, actions.isEmpty { return actions }
        noteChange(slot)
        return actions
    }

    /// What device `slot`'s clock reads at true `time` (the SDK's `now`; see `DeviceClock`).
    func deviceNow(_ slot: Int, at time: Int64) -> Int64 {
        slots[slot].os.clock?.read(time) ?? time
    }

    /// The metrics, with the device counts: the devices noted since the last call are brought
    /// up to date first (`recordChanges`), so the counts are kept as devices change, never
    /// counted over every device.
    package mutating func snapshot() -> FleetMetrics {
        commitWaitingRows()
        recordChanges()
        var copy = metrics
        copy.devicesByState = publication.stateCounts.filter { $0.value > 0 }
        copy.devices = copy.devicesByState.values.reduce(0, +)
        return copy
    }
}
