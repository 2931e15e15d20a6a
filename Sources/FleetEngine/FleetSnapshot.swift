import BeekonStore

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

extension DeviceStoreError {
    /// Every `cause` there is: the store's failure kinds, as the API writes them.
    public static let causes = StoreError.Kind.allCases.map(\.rawValue)
}
