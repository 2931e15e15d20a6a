import BeekonDevice
import BeekonNet
import BeekonStore
import Foundation

/// What the loop's timer queue holds.
enum LoopTimer: Hashable, Sendable {
    /// A device's own timer.
    case device(Int, DeviceTimer)
    /// The emulated OS provider's next fix for a device.
    case providerTick(Int)
    /// A device is spawned.
    case spawn(Int)
    /// A fault starts (by timeline index).
    case fault(Int)
    /// A fault's `for` is over (by timeline index).
    case faultEnd(Int)
    /// A killed device's app relaunches.
    case relaunch(Int)
    /// A transfer's answer, held back by a `latency` fault, reaches the device (by transfer number).
    case delivery(Int)
    /// The SDK's timeout of a transfer (by transfer number), on the virtual clock.
    case transferTimeout(Int)
    /// A device in `storeError` tries its store again.
    case storeRetry(Int)
}

/// One emulated phone in the loop: its SDK state machine, store, OS and world.
struct DeviceSlot {
    let id: String
    let group: Int
    let indexInGroup: Int
    let platform: Platform
    let model: String
    let seed: UInt64
    var device: Device?
    let store: DeviceStore
    var provider: OSProvider
    let motion: RouteMotion
    /// When the phone sets off along its route (virtual ms).
    var setOffAt: Int64
    var permissionGranted = true
    var locationServicesOn = true
    var online = true
    var processAlive = true
    var accuracy: AccuracyRequest?
    var wasMoving = true
    var state = "idle"
    /// `latency` fault: added to every transfer, ms.
    var extraLatencyMillis: Int64 = 0
    /// `timeouts` fault: the share of transfers that time out.
    var timeoutFraction = 0.0
    /// Draws for the `timeouts` fault.
    var faultRNG: SplitMix64
    /// Deleted through the admin API: no longer listed, selected or driven (its store stays).
    var removed = false
    /// The last admitted fix's position.
    var lastPosition: (latitude: Double, longitude: Double)?
    /// The last token refresh's outcome (`200`, `timeout`).
    var lastRefreshOutcome: String?
    /// The most recent uploads, oldest first.
    var uploads = RecentRing<UploadRecord>(capacity: 50)
    /// The most recent state changes, oldest first.
    var stateHistory = RecentRing<StateChange>(capacity: 50)
    /// The store's failure while it lasts (the device is listed as `storeError`).
    var storeProblem: StoreProblem?

    /// The state as listed: `storeError` while its store fails, `dead` while the app's process
    /// is gone, otherwise the SDK's state (which runs on throughout a store failure).
    var listedState: String {
        if storeProblem != nil { return StoreProblem.listedState }
        return processAlive ? state : "dead"
    }
}

/// The event loop's state: devices, stores, timers and metrics. Confined to the run's thread.
struct FleetLoop {
    /// The fleet file, with the groups the admin API added.
    var fleet: FleetFile
    let options: RunOptions
    let seed: UInt64
    var clock: FleetClock
    var startMillis: Int64 = 0
    var timers = TimerQueue<LoopTimer, Void>()
    var slots: [DeviceSlot] = []
    let pool: StorePool
    var outgoing: [OutgoingTransfer] = []
    var metrics = FleetMetrics()
    /// Routes by path, read once.
    var routes: [String: Route]
    /// Slot index by device id.
    var slotsByID: [String: Int] = [:]
    /// Devices the admin API spawned, waiting for their real-time turn (oldest first).
    var spawnQueue: [(slot: Int, realNanos: UInt64)] = []
    /// Upload outcomes with their latency, over the run and the last seconds.
    var uploadStats = UploadStats()
    /// Fault and admin actions as they ran, most recent last.
    var actionLog = RecentRing<ActionRecord>(capacity: 100)
    /// Admin actions so far (seeds `fraction` selectors that give no seed).
    var adminActions: UInt64 = 0
    /// Lasting actions a device the admin API adds later meets (`meetLastingActions`), oldest first.
    var lasting: [LastingAction] = []
    /// The real clock at the start of this turn, ns.
    var realNow: UInt64 = 0
    /// Uploads and refreshes the devices have sent and not yet heard the end of, by number.
    var transfers: [Int: TransferInFlight] = [:]
    /// Transfers the device heard end as `offline` whose real request is still out (`networkLost`).
    var offlineOnWire: Set<Int> = []
    var nextTransfer = 0
    /// The last virtual ms this turn may reach: just before the answer instant of a modelled
    /// transfer sent during it.
    var answerLimit: Int64 = .max
    var installIDs: [String: String]
    /// Store errors on standard error, rate-limited.
    var storeLog: StoreErrorLog
    /// The data folder's `clock.json`, as the previous run on it left it (nil when there is none).
    let previousClock: ClockRecord?
    /// Where this run's clock started, and why (set by `start`).
    var runStart = RunStart(millis: 0, reason: .fresh)
    /// When `clock.json` was last written (real ns) and at what warp.
    var clockWrittenAt: UInt64 = 0
    var clockWrittenWarp = 0.0
    /// The last write of `clock.json` failed (logged once until one succeeds).
    var clockWriteFailing = false

    init(fleet: FleetFile, options: RunOptions) throws {
        self.fleet = fleet
        self.options = options
        seed = options.seed ?? fleet.seed
        if let warp = options.warp {
            do throws(NumberProblem) {
                _ = try FleetClock.warpRange.check(warp)
            } catch {
                throw RunError(description: "warp \(error)")
            }
        }
        if let length = options.virtualDurationMillis {
            do throws(NumberProblem) {
                _ = try FleetDuration.runLengthRange.check(Double(length))
            } catch {
                throw RunError(description: "virtual duration \(error)")
            }
        }
        clock = FleetClock(startMillis: 0, warp: options.warp ?? fleet.clock.warp, realNanos: 0)
        pool = StorePool(maxOpen: options.maxOpenStores)
        var routes: [String: Route] = [:]
        for group in fleet.groups {
            for path in group.routes where routes[path] == nil {
                let resolved = path.hasPrefix("/") ? path : URL(fileURLWithPath: options.routeFolder).appendingPathComponent(path).path
                do throws(RouteError) {
                    routes[path] = try Route.load(path: resolved)
                } catch {
                    throw RunError(description: "\(error)")
                }
            }
        }
        self.routes = routes
        storeLog = StoreErrorLog(write: options.storeLogSink)
        installIDs = Self.readInstallIDs(options.dataDirectory)
        previousClock = try Self.readClock(options.dataDirectory)
        if fleet.needsIngestURL, options.ingest == nil,
            let group = fleet.groups.first(where: { $0.config.sync?.url.isEmpty == true })
        {
            throw RunError(description: "group \"\(group.name)\" uploads, but no ingest URL is set: give `ingest:` in the fleet file or `--ingest URL`")
        }
    }

    /// The run's length on the virtual clock, ms: `--for` over the fleet file's `duration`; nil
    /// runs until stopped.
    var virtualDurationMillis: Int64? { options.virtualDurationMillis ?? fleet.durationMillis }

    /// When the run ends on the virtual clock, Unix ms; nil without a virtual duration.
    var endsAt: Int64? { virtualDurationMillis.map { startMillis + $0 } }

    // MARK: Start and stop

    /// Whether the data folder holds an earlier run: devices it made, or its clock file.
    var resumesEarlierRun: Bool { !installIDs.isEmpty || previousClock != nil }

    mutating func start(realNanos: UInt64) {
        let wallNow = Int64(Date().timeIntervalSince1970 * 1000)
        // On a folder an earlier run used, its devices' stores are opened first: the newest row
        // they hold bounds where the clock may start. Each is opened once for the whole start
        // (the slot takes it over), so this costs one index lookup per non-empty table.
        var known: [String: DeviceStore] = [:]
        var newestStored: Int64?
        if resumesEarlierRun {
            for (groupIndex, group) in fleet.groups.enumerated() {
                for index in 0..<group.count {
                    let id = Self.deviceID(group: group.name, index: index)
                    guard let installID = installIDs[id] else { continue }
                    let store = makeStore(installID: installID, group: groupIndex)
                    known[id] = store
                    // A store that fails here fails again below, where the failure is reported.
                    if let newest = try? store.newestTimestamp() {
                        newestStored = max(newestStored ?? newest, newest)
                    }
                }
            }
        }
        runStart = RunStart.resolve(
            configured: fleet.clock.start, wallNow: wallNow, earlierRun: resumesEarlierRun, record: previousClock,
            newestStored: newestStored)
        startMillis = runStart.millis
        metrics.virtualNow = startMillis
        clock = FleetClock(startMillis: startMillis, warp: options.warp ?? fleet.clock.warp, realNanos: realNanos)
        var rng = SplitMix64(seed: seed)
        for (groupIndex, group) in fleet.groups.enumerated() {
            for index in 0..<group.count {
                var deviceRNG = SplitMix64(seed: rng.next())
                let spread = group.count > 1 ? group.spreadMillis * Int64(index) / Int64(group.count) : 0
                let spawnAt = startMillis + group.startAfterMillis + spread
                let store = known[Self.deviceID(group: group.name, index: index)]
                addSlot(group: groupIndex, index: index, spawnAt: spawnAt, rng: &deviceRNG, store: store)
                timers.schedule((), key: .spawn(slots.count - 1), at: spawnAt)
            }
        }
        Self.writeInstallIDs(installIDs, options.dataDirectory)
        // Create and open every store before the clock starts: making a SQLite file costs
        // milliseconds, and a thousand of them at the first instant would make every timer late.
        for slot in slots.indices {
            do {
                _ = try slots[slot].store.pendingCount()
            } catch {
                reportStoreError(error, slot: slot, at: startMillis)
            }
        }
        let clockStarts = FleetRuntime.realNanos()
        clock = FleetClock(startMillis: startMillis, warp: options.warp ?? fleet.clock.warp, realNanos: clockStarts)
        // The timeline counts from this run's start, so a resumed run plays it again from there.
        for (index, fault) in fleet.faults.enumerated() {
            timers.schedule((), key: .fault(index), at: startMillis + fault.atMillis)
        }
        metrics.devices = slots.count
        recordClock(stopped: false, realNanos: clockStarts)
        if let notice = runStart.notice {
            (options.noticeSink ?? { print($0) })(notice)
        }
    }

    /// The id of device `index` (from 0) of group `group`: `walkers-0001`.
    static func deviceID(group: String, index: Int) -> String {
        "\(group)-\(String(format: "%04d", index + 1))"
    }

    /// The store of the device with `installID` in group `group` (opened on first use).
    func makeStore(installID: String, group: Int) -> DeviceStore {
        DeviceStore(
            path: "\(options.dataDirectory)/devices/\(installID)/beekon.db",
            retention: .standard(syncEnabled: fleet.groups[group].config.sync != nil), pool: pool)
    }

    /// Makes device `index` of group `group` (its platform, route, start offset, install id and
    /// store, all drawn from `rng`) and appends its slot; the caller schedules its spawn. `store`
    /// is the device's store when the caller already made it.
    mutating func addSlot(
        group groupIndex: Int, index: Int, spawnAt: Int64, rng deviceRNG: inout SplitMix64, store: DeviceStore? = nil
    ) {
        let group = fleet.groups[groupIndex]
        let id = Self.deviceID(group: group.name, index: index)
        let weights = group.platforms.reduce(0) { $0 + $1.weight }
        var pick = Double.random(in: 0..<max(weights, 1e-9), using: &deviceRNG)
        var platform = group.platforms[0].platform
        for entry in group.platforms {
            if pick < entry.weight { platform = entry.platform; break }
            pick -= entry.weight
        }
        let route = routes[group.routes[index % group.routes.count]]!
        let fraction: Double
        switch group.startOffset {
        case .fraction(let value): fraction = value
        case .random: fraction = Double.random(in: 0..<1, using: &deviceRNG)
        }
        let timing: RouteMotion.Timing
        switch group.pace {
        case .routeTimes(let factor): timing = .routeTimes(factor: factor)
        case .pace(let pace, let factor):
            timing = .speed(metersPerSecond: pace.metersPerSecond * factor, dwellEveryMeters: group.dwell?.everyMeters ?? 0, dwellSeconds: group.dwell?.seconds ?? 0)
        case .metersPerSecond(let speed):
            timing = .speed(metersPerSecond: speed, dwellEveryMeters: group.dwell?.everyMeters ?? 0, dwellSeconds: group.dwell?.seconds ?? 0)
        }
        let installID = installID(for: id, at: spawnAt, rng: &deviceRNG)
        let store = store ?? makeStore(installID: installID, group: groupIndex)
        slotsByID[id] = slots.count
        slots.append(
            DeviceSlot(
                id: id, group: groupIndex, indexInGroup: index, platform: platform,
                model: group.models.isEmpty ? "" : group.models[index % group.models.count],
                seed: deviceRNG.next(), device: nil, store: store,
                provider: OSProvider(profile: group.provider, seed: deviceRNG.next()),
                motion: RouteMotion(route: route, timing: timing, loops: group.loops, startFraction: fraction),
                setOffAt: spawnAt, faultRNG: SplitMix64(seed: deviceRNG.next())))
    }

    mutating func finish() {
        pool.closeAll()
        recordClock(stopped: true, realNanos: FleetRuntime.realNanos())
        storeLog.flush()
    }

    // MARK: The clock file

    /// The data folder's clock file: nil when there is none; a `RunError` naming the file when
    /// it cannot be read or is not what a run writes. Refusing beats guessing: without it a
    /// resumed run could stamp uploads earlier than ones the last run already sent.
    static func readClock(_ directory: String) throws(RunError) -> ClockRecord? {
        let path = "\(directory)/\(ClockRecord.fileName)"
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw ClockRecord.problem(path, "cannot be examined (\(String(cString: strerror(errno))))")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = (error as NSError).userInfo[NSUnderlyingErrorKey].map { "\($0)" } ?? error.localizedDescription
            throw ClockRecord.problem(path, "cannot be read (\(reason))")
        }
        return try ClockRecord(json: data, path: path)
    }

    /// Writes where the clock got to, and the warp, to the data folder's `clock.json`; `stopped`
    /// for the run's last word. A failure is logged once until a write succeeds again.
    mutating func recordClock(stopped: Bool, realNanos: UInt64) {
        clockWrittenAt = realNanos
        clockWrittenWarp = clock.warp
        let path = "\(options.dataDirectory)/\(ClockRecord.fileName)"
        let record = ClockRecord(reachedMillis: metrics.virtualNow, warp: clock.warp, stopped: stopped)
        do {
            try PrivateFile.write(record.json, toFile: path)
            clockWriteFailing = false
        } catch {
            if !clockWriteFailing {
                storeLog.write(
                    "beekon-fleet: cannot record the virtual clock in \(path): \(error.localizedDescription); "
                        + "a run resumed on this data folder may start earlier than this run's latest uploads\n")
            }
            clockWriteFailing = true
        }
    }

    /// Rewrites `clock.json` once `ClockRecord.writeIntervalNanos` have passed since the last
    /// write, or at once when the warp changed (the slack a resume allows for is the recorded
    /// warp's). Called after the turn's timers and before its uploads are sent, so an upload's
    /// `sent_at` is always covered by a record written before it left.
    mutating func recordClockIfDue(realNanos: UInt64) {
        guard realNanos >= clockWrittenAt + ClockRecord.writeIntervalNanos || clock.warp != clockWrittenWarp else { return }
        recordClock(stopped: false, realNanos: realNanos)
    }

    /// The install id of device `id`: kept from an earlier run on the same data directory, or
    /// made now (and then remembered in `devices.json`).
    mutating func installID(for id: String, at millis: Int64, rng: inout SplitMix64) -> String {
        if let known = installIDs[id] { return known }
        var ids = UUIDv7Generator()
        let made = ids.next(atUnixMillis: millis, using: &rng).text
        installIDs[id] = made
        return made
    }

    private static func readInstallIDs(_ directory: String) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: "\(directory)/devices.json"),
            let map = try? JSONDecoder().decode([String: String].self, from: data)
        else { return [:] }
        return map
    }

    static func writeInstallIDs(_ map: [String: String], _ directory: String) {
        try? PrivateFile.createFolder(atPath: directory)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        if let data = try? encoder.encode(map) {
            // 0600 (it names every device's store), and renamed over the old one, so a crash
            // never leaves half a map.
            try? PrivateFile.write(data, toFile: "\(directory)/devices.json")
        }
    }

    // MARK: The loop

    /// The longest a turn of timers runs before completions and uploads get their turn.
    static let turnNanos: UInt64 = 2_000_000

    /// The earliest timer's deadline (mutating: stale timers at the top are dropped on the way,
    /// where a copy of the queue would copy the whole heap).
    mutating func nextDeadline() -> Int64? {
        timers.nextDeadline()
    }

    mutating func takeOutgoing() -> [OutgoingTransfer] {
        defer { outgoing = [] }
        return outgoing
    }

    /// Fires every timer due by `now`, each at its own deadline (so timestamps do not depend on
    /// how late the loop woke).
    mutating func runDue(until now: Int64, realNanos: UInt64) {
        // A turn lasts at most a couple of milliseconds, so a loop that has fallen behind still
        // hands out transfer completions and sends uploads between turns: a device's next
        // upload waits for its last one's answer, so long turns would throttle every upload.
        let turnEnds = realNanos + Self.turnNanos
        var fired = 0
        var caughtUp = true
        var reached = metrics.virtualNow
        var now = now
        answerLimit = .max
        // A modelled transfer sent during this turn stops it short of its answer instant.
        while let due = timers.popDue(atOrBefore: min(now, answerLimit)) {
            let lateness = Double(now - due.deadline) / max(clock.warp, 1e-9)
            metrics.timerLateness.record(lateness)
            reached = max(reached, due.deadline)
            fire(due.key, at: due.deadline)
            fired += 1
            if fired % 64 == 0, FleetRuntime.realNanos() >= turnEnds {
                caughtUp = false
                break
            }
        }
        now = min(now, answerLimit)
        // Device time never runs backwards: completions handled before the remaining timers
        // are stamped with the last deadline reached, not with a `now` the loop has not caught up to.
        metrics.virtualNow = caughtUp ? max(reached, now) : reached
        // A loop that cannot keep up at this warp drops the lag rather than racing to catch up,
        // so a pause or a lower warp takes effect within a turn whatever the backlog.
        if !caughtUp { metrics.clockLagDroppedMillis += clock.dropLag(reached: reached, realNanos: realNanos) }
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
            relaunch(slot, cause: slots[slot].platform == .ios ? .significantLocationChange : .workManager, at: time)
        case .delivery(let number):
            deliverHeld(number, at: time)
        case .transferTimeout(let number):
            transferTimedOut(number, at: time)
        case .storeRetry(let slot):
            retryStore(slot, at: time)
        }
    }

    mutating func spawn(_ slot: Int, at time: Int64) {
        let group = fleet.groups[slots[slot].group]
        let restored: PersistedDeviceState
        let pending: Int
        do {
            restored = try slots[slot].store.readDeviceState()
            pending = try slots[slot].store.pendingCount()
        } catch {
            reportStoreError(error, slot: slot, at: time, resume: .spawn)
            return
        }
        var state = restored
        let installID = UUIDv7(installIDs[slots[slot].id] ?? "")
        var actions: [DeviceAction] = []
        if state.installID == nil, let installID {
            state.installID = installID
            actions.append(.persistState([.installID(installID)]))
        }
        let (device, restoreActions) = Device.restore(
            platform: slots[slot].platform, model: slots[slot].model, sdkVersion: group.sdkVersion,
            restored: state, pendingFixes: pending, seed: slots[slot].seed, now: time)
        slots[slot].device = device
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
        if !slots[slot].processAlive { processGone(slot, at: time) }
    }

    /// The group's config with the run's ingest filled in where the file left the URL open.
    func resolvedConfig(_ config: BeekonConfig) -> BeekonConfig {
        var resolved = config
        if let sync = resolved.sync, sync.url.isEmpty {
            resolved.sync?.url = options.ingest ?? fleet.ingest ?? ""
        } else if let ingest = options.ingest, resolved.sync != nil, fleet.ingest != nil, resolved.sync?.url == fleet.ingest {
            resolved.sync?.url = ingest
        }
        return resolved
    }

    /// `{index}`, `{group}` and `{id}` filled in for this device.
    func filled(_ extras: StringMap, slot: Int) -> StringMap {
        var result = StringMap()
        for (key, value) in extras {
            result[key] = value
                .replacingOccurrences(of: "{index}", with: String(slots[slot].indexInGroup + 1))
                .replacingOccurrences(of: "{group}", with: fleet.groups[slots[slot].group].name)
                .replacingOccurrences(of: "{id}", with: slots[slot].id)
        }
        return result
    }

    private mutating func providerTick(_ slot: Int, at time: Int64) {
        guard let accuracy = slots[slot].accuracy, slots[slot].processAlive else { return }
        timers.schedule((), key: .providerTick(slot), at: time + ProviderProfile.cadenceMillis(accuracy))
        guard slots[slot].permissionGranted, slots[slot].locationServicesOn else { return }
        let truth = slots[slot].motion.position(afterMillis: time - slots[slot].setOffAt)
        let moving = truth.speed > RouteMotion.standingSpeed
        if slots[slot].wasMoving, !moving {
            feed(.dwellStarted(latitude: truth.latitude, longitude: truth.longitude), to: slot, at: time)
        }
        slots[slot].wasMoving = moving
        if let fix = slots[slot].provider.fix(at: time, truth: truth, request: accuracy) {
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
        return slots[slot].device!.handle(event, at: time)
    }

    func snapshot() -> FleetMetrics {
        var copy = metrics
        var states: [String: Int] = [:]
        var pending = 0
        var devices = 0
        for slot in slots where !slot.removed {
            states[slot.listedState, default: 0] += 1
            pending += slot.device?.pendingUploadCount ?? 0
            devices += 1
        }
        copy.devices = devices
        copy.devicesByState = states
        copy.pending = pending
        return copy
    }
}
