import BeekonDevice
import BeekonStore
import FleetDescription

/// The fleet as the loop last published it, a few times a second and after every command:
/// what the admin API reads, without ever waiting on the loop.
public struct FleetSnapshot: Sendable {
    /// The fleet's name.
    public var name = ""
    /// The run's seed.
    public var seed: UInt64 = 0
    /// Where this run's clock started, Unix ms.
    public var startedAt: Int64 = 0
    /// Virtual time, Unix ms.
    public var virtualNow: Int64 = 0
    /// The fleet file's fault timeline as the run stands.
    public var timeline: [TimelineFaultView] = []
    /// The running devices the stages or a `devices` command want now; nil when neither set one.
    public var targetDevices: Int?
    /// What the run is checked against.
    public var thresholds = ThresholdSet(given: [], strict: false)
    /// When the run ends on the virtual clock (`--for`, `duration:`), Unix ms; nil runs until
    /// stopped or its wall-clock limit.
    public var endsAt: Int64?
    /// Virtual seconds per real second.
    public var warp = 1.0
    /// Whether virtual time stands still.
    public var paused = false
    /// The clock jumps from event to event (`--warp max`); `warp` is then the rate reached.
    public var maxWarp = false
    /// Every answer takes modelled virtual time (`--deterministic`, `clock.deterministic`, max
    /// warp), whatever the server's real time.
    public var deterministic = false
    /// The real second (monotonic clock) at publication, for `UploadStats.window`.
    public var realSecond: UInt64 = 0
    /// Group names, in the order they were added.
    public var groups: [String] = []
    /// Counters (`devices`, `devicesByState` and `pending` cover listed devices only).
    public var metrics = FleetMetrics()
    /// Every device slot ever made, deleted ones included (see `DeviceSnapshot.deleted`).
    public var devices = DeviceTable()
    /// Index into `devices` by id.
    public var indexByID: [String: Int] = [:]
    /// Recent fault and admin actions, oldest first.
    public var actions: [ActionRecord] = []
    /// Recent notable values of the devices' SDK streams (sync retries and failures, every auth
    /// change), oldest first, numbered across the run.
    public var streamEvents: [StreamRecord] = []
    /// Recent changes of listed devices' state, pending count or last outcome, oldest first,
    /// numbered across the run: recorded as they happen, coalesced per publication (see
    /// `FleetLoop.noteChange`), for the `devices` live event.
    public var deviceChanges = DeviceChangeLog()
    /// Counts publications; a reader can tell a new snapshot from one it has seen.
    public var sequence: UInt64 = 0

    /// An empty snapshot (before the run starts).
    public init() {}

    /// The device with this id, unless it was deleted.
    public func device(_ id: String) -> DeviceSnapshot? {
        guard let index = indexByID[id], !devices[index].deleted else { return nil }
        return devices[index]
    }

    /// The devices listed: not deleted.
    public var listed: [DeviceSnapshot] { devices.filter { !$0.deleted } }

    /// The listed devices by state, per group (the metrics count them for the fleet only).
    public var devicesByGroup: [String: [DeviceState: Int]] {
        var counts: [String: [DeviceState: Int]] = [:]
        for device in devices where !device.deleted {
            counts[device.group, default: [:]][device.state, default: 0] += 1
        }
        return counts
    }
}

/// Every device slot's `DeviceSnapshot`, by slot: what the loop keeps from one publication to
/// the next, rewriting only the devices something happened to (`FleetLoop.recordChanges`).
///
/// Held in chunks of 64 boxed devices, so a publication shares the whole table with the loop
/// and the loop's next change to a chunk copies 64 references, not 64 devices' fields (a device
/// holds some twenty references, each retained by a copy): publishing costs what changed, not
/// what exists. What depends on the clock alone (a token's expiry, the breaker's end) is worked out
/// when a device is read, at the virtual instant of the publication (`now`).
public struct DeviceTable: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    static let chunkShift = 6
    static let chunkMask = (1 << chunkShift) - 1

    /// One device's snapshot, never changed: a new one replaces it.
    final class Box: Sendable {
        let device: DeviceSnapshot
        init(_ device: DeviceSnapshot) { self.device = device }
    }

    private var chunks: [[Box]] = []
    /// How many slots the table holds.
    public private(set) var count = 0
    /// The virtual instant the devices are read at, Unix ms.
    public internal(set) var now: Int64 = .min

    public init() {}

    /// A table of `devices`, slot by slot (for a snapshot made by hand).
    public init(_ devices: some Sequence<DeviceSnapshot>) {
        for device in devices { set(count, device) }
    }

    public init(arrayLiteral devices: DeviceSnapshot...) {
        self.init(devices)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> DeviceSnapshot {
        var device = chunks[position >> Self.chunkShift][position & Self.chunkMask].device
        device.auth = device.auth.seen(at: now)
        return device
    }

    /// Sets slot `index`'s snapshot; `index` is at most `count` (the next slot is appended).
    mutating func set(_ index: Int, _ device: DeviceSnapshot) {
        setBox(index, Box(device))
    }

    /// The box holding slot `index`'s snapshot: the same box until the device changes.
    func box(_ index: Int) -> Box {
        chunks[index >> Self.chunkShift][index & Self.chunkMask]
    }

    /// Sets slot `index` to `box`, which another table may hold too (a fleet's table shares its
    /// shards' boxes: `SnapshotMerger`); `index` is at most `count`.
    mutating func setBox(_ index: Int, _ box: Box) {
        precondition(index <= count, "device table slot \(index) past its end \(count)")
        if index == count {
            if index & Self.chunkMask == 0 {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(1 << Self.chunkShift)
            }
            chunks[index >> Self.chunkShift].append(box)
            count += 1
        } else {
            chunks[index >> Self.chunkShift][index & Self.chunkMask] = box
        }
    }
}

/// One device as the admin API shows it: never its tokens.
public struct DeviceSnapshot: Sendable {
    /// `group-0001`.
    public var id: String
    /// Its group's name.
    public var group: String
    /// `ios` or `android`.
    public var platform: Platform
    /// The phone model; empty when the group names none.
    public var model: String
    /// The OS release (`18.7`, `15`).
    public var osVersion: String
    /// The SDK version it reports.
    public var sdkVersion: String
    /// The install id (UUIDv7 text).
    public var installID: String
    /// The SDK's state, `dead`, or `storeError` (see `storeError`).
    public var state: DeviceState
    /// Whether the app's process is alive.
    public var alive: Bool
    /// Whether it has been spawned yet.
    public var spawned: Bool
    /// Deleted through the admin API.
    public var deleted: Bool
    /// Location permission.
    public var permissionGranted: Bool
    /// System location services.
    public var locationServicesOn: Bool
    /// Network.
    public var online: Bool
    /// Fixes stored and not yet acknowledged.
    public var pending: Int
    /// The last upload's outcome (`200`, `timeout`, `offline`).
    public var lastOutcome: TransferOutcome?
    /// When the last upload ended, virtual Unix ms.
    public var lastUploadAt: Int64?
    /// The last admitted fix's latitude.
    public var latitude: Double?
    /// The last admitted fix's longitude.
    public var longitude: Double?
    /// The SDK configuration in force (secrets included: redact before showing it).
    public var config: BeekonConfig?
    /// Where its sync engine is.
    public var sync: SyncView
    /// Its auth session, without its tokens.
    public var auth: AuthView
    /// Recent state changes, oldest first.
    public var stateHistory: [StateChange]
    /// Recent uploads, oldest first.
    public var uploads: [UploadRecord]
    /// The recent values of its SDK's `syncStatus` and `authChanges` streams, oldest first.
    public var streams: [StreamRecord]
    /// Why its store fails, while it is in `storeError`.
    public var storeError: DeviceStoreError?
    /// Its store's ledger over its whole life (nil before the store was first opened).
    public var fixes: FixLedger? = nil
    /// Its `getCurrentLocation` calls so far, and the last answer (nil before the first).
    public var currentLocationCalls = 0
    public var currentLocation: CurrentLocationRecord? = nil
}

/// Why a device's store fails, as the admin API shows it.
/// A device's listed state, pending count or last outcome as it became: one entry of the loop's
/// change log.
public struct DeviceChange: Sendable, Hashable {
    /// What the `devices` event shows of a device.
    public struct Listed: Sendable, Hashable {
        public var state: DeviceState
        public var pending: Int
        public var lastOutcome: TransferOutcome?
    }

    /// Its number in the run's change log (1, 2, …): a reader takes those past the last it saw.
    public var number: UInt64
    /// The device, by its index in `FleetSnapshot.devices`.
    public var slot: Int
    public var listed: Listed
}

/// The loop's change log, oldest first, numbered without gaps, in chunks shared with the
/// snapshots published from it.
///
/// A plain array shared with the last published snapshot was copied whole by the next append: at
/// 100,000 devices the log keeps 401,024 changes or more, and that copy, four times a second, was
/// 15 % of the loop's thread. Here an append copies at most the last chunk and the list of
/// chunks, trimming drops whole chunks from the front, and a reader finds the changes past the
/// last number it saw by arithmetic, not by a walk over the log.
public struct DeviceChangeLog: Sequence, Sendable {
    static let chunkSize = 1024

    /// Full chunks, oldest first, then the one being filled.
    private var chunks: [[DeviceChange]] = []
    /// How many changes the log holds.
    public private(set) var count = 0

    public init() {}

    /// The oldest change held.
    public var first: DeviceChange? { chunks.first?.first }
    /// The newest change.
    public var last: DeviceChange? { chunks.last?.last }

    /// Adds `change`, numbered one past the last (precondition).
    mutating func append(_ change: DeviceChange) {
        precondition(last.map { change.number == $0.number + 1 } ?? true, "change \(change.number) out of order")
        if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
            var chunk: [DeviceChange] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(change)
        count += 1
    }

    /// Drops the oldest chunks while at least `kept` changes would remain.
    mutating func dropOldest(keeping kept: Int) {
        var dropped = 0
        while dropped < chunks.count - 1, count - chunks[dropped].count >= kept {
            count -= chunks[dropped].count
            dropped += 1
        }
        chunks.removeFirst(dropped)
    }

    /// The changes numbered after `number`, oldest first.
    public func changes(after number: UInt64) -> [DeviceChange] {
        let offset = first.map { number >= $0.number ? Int(number - $0.number) + 1 : 0 } ?? 0
        guard offset < count else { return [] }
        var found: [DeviceChange] = []
        found.reserveCapacity(count - offset)
        found += chunks[offset / Self.chunkSize][(offset % Self.chunkSize)...]
        for chunk in chunks[(offset / Self.chunkSize + 1)...] { found += chunk }
        return found
    }

    public func makeIterator() -> FlattenSequence<[[DeviceChange]]>.Iterator {
        chunks.joined().makeIterator()
    }
}

extension DeviceStoreError {
    /// Every `cause` there is: the store's failure kinds, as the API writes them.
    public static let causes = StoreError.Kind.allCases.map(\.rawValue)
}

public struct DeviceStoreError: Sendable, Hashable {
    /// The cause: `full`, `tooManyOpenFiles`, `ioError`, `readOnly`, `corrupt`, `busy`, … (the
    /// raw values of `StoreError.Kind`).
    public var cause: String
    /// SQLite's own message (`database or disk is full`).
    public var message: String
    /// When the device entered `storeError`, virtual Unix ms.
    public var since: Int64
}

/// Where a device's sync engine is, as the admin API shows it (the SDK's own `syncStatus`
/// stream is `BeekonDevice.SyncStatus`).
public struct SyncView: Sendable, Hashable {
    /// The sync engine's phase.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case idle, loading, uploading, awaitingRefresh, backingOff, awaitingNetwork, suspended
        /// Local-only: the configuration has no sync block.
        case off
    }

    public var phase: Phase
    /// Failed uploads in a row.
    public var consecutiveFailures: Int
    /// When a backed-off batch is retried, virtual Unix ms.
    public var nextAttemptAt: Int64?
}

/// A device's auth session, as far as it may be shown: state and instants, never a token.
public struct AuthView: Sendable, Hashable {
    /// The session's state.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// No declarative auth configured.
        case none
        case valid, refreshing, expired
        /// Dead credentials: no refresh until a new seed.
        case failed
    }

    public var state: State
    /// The access token's expiry, virtual Unix ms.
    public var validUntil: Int64?
    /// The last refresh's outcome (`200`, `timeout`, `offline`).
    public var lastRefreshOutcome: TransferOutcome?
    /// No refresh is tried before this, virtual Unix ms.
    public var breakerOpenUntil: Int64?

    /// The view as it stands at `now`: a valid token past its expiry is expired, and a breaker
    /// whose time is over is closed. (The loop rewrites a device's view only when something
    /// happens to it; the clock alone changes these two.)
    func seen(at now: Int64) -> AuthView {
        var view = self
        if view.state == .valid, let until = view.validUntil, until <= now { view.state = .expired }
        if let until = view.breakerOpenUntil, until <= now { view.breakerOpenUntil = nil }
        return view
    }
}

/// One upload's end, as the device's recent history keeps it.
public struct UploadRecord: Sendable, Hashable {
    /// When the answer arrived, virtual Unix ms.
    public var at: Int64
    /// The batch's id (16 bytes, not its 36 characters: a fleet keeps millions of these).
    public var batchID: UUIDv7
    /// Fixes in the batch.
    public var fixes: Int
    /// What the device heard: a status, a network failure, or offline.
    public var outcome: TransferOutcome
    /// Virtual ms from send to the outcome the device heard.
    public var latencyMillis: Double
    /// Wall ms the server took to answer; nil when it had not answered by the time the device
    /// heard the outcome (its timeout, or `offline`).
    public var serverMillis: Double?
}

/// A state a device passed into.
public struct StateChange: Sendable, Hashable {
    /// Virtual Unix ms.
    public var at: Int64
    /// The state it entered.
    public var state: DeviceState
    /// Why a dead app came back, on the first state it entered (or listed) on relaunch; nil on
    /// every other change.
    public var cause: RelaunchCause?
}

/// A value a device's SDK emitted on one of its streams (spec §6): `syncStatus` or `authChanges`.
public struct StreamRecord: Sendable, Hashable {
    /// Virtual Unix ms.
    public var at: Int64
    /// The device's id.
    public var device: String
    public var value: Value
    /// Counts the fleet's notable stream values over the run (set when logged; 0 otherwise).
    public var number = 0

    public enum Value: Sendable, Hashable {
        case syncStatus(SyncStatus)
        case authChange(AuthChange)
    }

    /// Worth a live event of its own: a retry or a failure of sync, any auth change. The rest
    /// (in flight, succeeded, idle) each upload's outcome already tells.
    public var isNotable: Bool {
        switch value {
        case .syncStatus(.retrying), .syncStatus(.failed), .authChange: true
        case .syncStatus: false
        }
    }
}

/// Where an action, or the fault it began, came from.
public enum ActionSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The fleet file's fault timeline.
    case timeline
    /// The admin API (REST, or the page through it).
    case api
}

/// A fault or admin action that ran.
public struct ActionRecord: Sendable, Hashable {
    /// Which action.
    public var action: FleetAction.Name
    /// How many devices it applied to.
    public var applied: Int
    /// Virtual Unix ms.
    public var at: Int64
    /// Where it came from.
    public var source: ActionSource
    /// Counts actions over the run (set when logged), so a reader can tell new ones.
    public var number: UInt64 = 0
}
