/// What a run has done so far, for the progress line, the summary and (later) the admin API.
public struct FleetMetrics: Sendable, Codable {
    /// Virtual time, Unix ms.
    public var virtualNow: Int64 = 0
    /// Real seconds the fleet has run, from the clock's start (store preparation and the final
    /// drain not counted).
    public var realSeconds = 0.0
    /// Devices listed (made and not deleted; set by `FleetLoop.snapshot()` from its counts).
    public var devices = 0
    /// Devices by tracking state (`idle`, `tracking`, `paused(permissionRevoked)`, …, and `dead`).
    public var devicesByState: [DeviceState: Int] = [:]
    /// Where the run's fixes went, for the whole fleet (see `FixAccount`).
    public var fixes = FixAccount()
    /// The same per group, by the group's index in the fleet file (groups the admin API added
    /// after them).
    public var fixesByGroup: [FixAccount] = []
    /// The faults as they began, in order: the fleet file's timeline and the API's.
    public var timeline: [TimelineFault] = []
    /// The run over time, per 10 virtual seconds (see `RunHistory`).
    public var history = RunHistory()
    /// How long the backlog took to drain after each fault that ended (the timeline's or the
    /// API's), in the order they ended.
    public var drains: [FaultDrain] = []
    /// Fixes admitted and stored (admitted less lost).
    public var fixesStored: Int { fixes.ledger.admitted - fixes.ledger.lost }
    /// Geofence events stored.
    public var geofenceEvents = 0
    /// How `getCurrentLocation` calls were answered.
    public var currentLocation = CurrentLocationCounts()
    /// Upload POSTs sent.
    public var batchesSent = 0
    /// Upload outcomes with their latency, over the run and its last seconds.
    public var uploads = UploadStats()
    /// Upload outcomes and latency per group, over the run, by the group's index (as `fixesByGroup`).
    public var uploadsByGroup: [GroupUploads] = []
    /// How many uploads ended with each outcome (counted once, in `uploads`).
    public var batchesByOutcome: [TransferOutcome: Int] { uploads.overall.mapValues(\.count) }
    /// Token refreshes sent.
    public var refreshesSent = 0
    /// Token refresh outcomes.
    public var refreshesByOutcome: [TransferOutcome: Int] = [:]
    /// Store errors by cause (`StoreError.Kind`'s raw value: `full`, `tooManyOpenFiles`, …);
    /// logged on standard error at most once a minute per cause.
    public var storeErrorsByCause: [String: Int] = [:]
    /// Fixes admitted whose insert failed, by the store error's cause: never stored, never sent
    /// (this run's; `fixes` counts them with earlier runs' losses a killed process had not yet
    /// written down).
    public var fixesLostByCause: [String: Int] = [:]
    /// Geofence events whose insert failed, by cause.
    public var geofenceEventsLostByCause: [String: Int] = [:]
    /// Store errors of every cause.
    public var storeErrors: Int { storeErrorsByCause.values.reduce(0, +) }
    /// Upload latency as the device lived it: virtual ms from send to the outcome it heard
    /// (injected latency and timeouts included).
    public var latency = LatencyHistogram()
    /// How long the server took to answer an upload, real ms (libcurl's time for the request, from
    /// the connection to the last byte, not its wait for a connection): every answer it gave, in
    /// time for the device or not. The server's own speed, the same at every warp.
    public var serverLatency = LatencyHistogram()
    /// Answers that took more than half the SDK's timeout once the warp is applied: a sign the
    /// warp, not the server, decides what the devices hear (see `slowestAnswerMillis`).
    public var slowAnswers = 0
    /// The slowest such answer, wall ms.
    public var slowestAnswerMillis = 0.0
    /// Server answers that came after the device's timeout had already ended its transfer.
    public var answersAfterTimeout = 0
    /// Ends of real requests (the server's answer, or a transport failure) that the device never
    /// heard because its network went down first and it heard `offline`: one per such transfer,
    /// whether the end came after that instant or before it, held for a later one.
    public var answersAfterOffline = 0
    /// Times a device's network dropped under its `flapping` (virtual time), and times it
    /// handed over between Wi-Fi and cellular instead.
    public var networkDrops = 0
    public var handovers = 0
    /// Apps a phone maker's battery manager killed (`oemKills`).
    public var oemKills = 0
    /// Times a phone's Doze went idle (its apps lost the network until a maintenance window).
    public var dozeIdles = 0
    /// Requests the fleet's own connection cap (`--max-connections`) held back before they went on
    /// the wire, and how long they waited there, real ms: the fleet's queueing, not the server's.
    public var heldBack = 0
    public var connectionWait = LatencyHistogram()
    /// Requests on the wire closed when their device gave up on them (its timeout, for want of an
    /// answer), as a phone's HTTP client cancels a request it no longer waits for.
    public var cancelledOnWire = 0
    /// Virtual ms the whole clock stood still waiting for real answers: none since each device
    /// waits for its own (modelled timing runs with lookahead); kept in the run record's form.
    public var clockHeldMillis: Int64 = 0
    /// Every request the devices sent, as one digest: two runs whose devices each sent the same
    /// requests in the same order have the same one.
    public var sent = RequestDigest()
    /// How late timers fired, in real ms.
    public var timerLateness = LatencyHistogram()
    /// Virtual ms the clock dropped because the loop fell behind it (more timers than the
    /// machine fires at this warp), or ran ahead of a pause or a warp change: the fleet ran
    /// slower than its warp by this much.
    public var clockLagDroppedMillis: Int64 = 0
    /// Whether the run keeps up with its warp: the achieved warp and timer lateness over its last
    /// real seconds, the verdict, and how long it was behind (the real driver measures it:
    /// `PaceMeter`; the simulated one, which has no wall to keep up with, leaves it unmeasured).
    public var pace = FleetPace()

    /// An empty record.
    public init() {}
}
