import BeekonDevice
import BeekonStore
import FleetDescription

/// How a run is set up beyond its fleet file.
public struct RunOptions: Sendable {
    /// Where the device stores live (`<data>/devices/<install_id>/beekon.db`).
    public var dataDirectory: String
    /// Overrides the fleet file's ingest URL (and fills groups that have none).
    public var ingest: String?
    /// Overrides the fleet file's warp (`--warp`).
    public var warp: Warp?
    /// Overrides the fleet file's seed.
    public var seed: UInt64?
    /// Stop after this much real time; nil runs until `stop()`.
    public var realDurationMillis: Int64?
    /// Stop once virtual time reaches this many ms after the start (`--for`: overrides the fleet
    /// file's `duration`, 1 ms to 366 days); nil keeps the file's, if any.
    public var virtualDurationMillis: Int64?
    /// Where relative route paths start (the fleet file's folder).
    public var routeFolder: String
    /// Most stores open at once.
    public var maxOpenStores: Int
    /// Most uploads in flight at once (0 = unlimited).
    public var maxConnections: Int
    /// `maxConnections` (`--max-connections`): 0 (unlimited) to 65 536.
    public static let maxConnectionsRange = NumberRange.integer(0...65_536, unit: "connections")
    /// CA bundle for HTTPS ingest servers.
    public var caFile: String?
    /// Skip TLS verification (test servers only).
    public var insecure: Bool
    /// `run --source-addresses`: the local addresses devices' connections leave from, over the
    /// fleet file's `network.sourceAddresses`; nil keeps the file's.
    public var sourceAddresses: SourceAddresses?
    /// `run --http2`: whether HTTPS connections offer HTTP/2, over the fleet file's `network.http2`.
    public var http2: FleetFile.HTTP2Choice?
    /// Exactly how long a transfer takes on the virtual clock (tests: a modelled latency of their
    /// own); nil takes `timing`.
    public var transferTiming: TransferTiming?
    /// The timing chosen (`run --timing`, `--deterministic`: `modelled`); nil takes the fleet
    /// file's (`clock.timing`, `clock.deterministic`), whose default is `auto`.
    public var timing: TimingChoice?
    /// Thresholds from the command line (`--threshold`), checked with the fleet file's.
    public var thresholds: [Threshold] = []
    /// With no threshold given, the defaults fail the run too (`--strict`).
    public var strictThresholds = false
    /// The part of the fleet this run's loop runs (the whole fleet unless it is split).
    public var shard = Shard.whole
    /// `run --start-at`: the wall-clock instant (Unix ms) the run's clock starts at, so shards
    /// started at different moments begin together; a fleet file without `clock.start` starts its
    /// virtual clock at this instant too, the same on every shard. Nil starts once the stores are
    /// ready.
    public var startAt: Int64?
    /// `run --clock-start`: the virtual instant (Unix ms) a run on a fresh data folder starts
    /// at, over the fleet file's `clock.start`, so a `clock.start: now` fleet replays exactly. A
    /// resumed run continues its folder's clock instead, as it does over `clock.start`.
    public var clockStart: Int64?
    /// How many loops the run's devices are split over, each on a thread of its own with a
    /// shard of the fleet (`--loops`): 1 to `loopsRange`'s most.
    public var loops = 1
    /// `loops`: 1 to 64.
    public static let loopsRange = NumberRange.integer(1...64, unit: "loops")

    /// How many loops a run of `devices` devices takes on a machine of `cores` cores, when not
    /// told: one per 10,000 devices (a loop keeps up with 10,000 at warp 1 on a fraction of a
    /// core, and one loop keeps a small fleet's every figure in one place), at most one per core.
    public static func defaultLoops(devices: Int, cores: Int) -> Int {
        max(1, min(cores, (devices + 9_999) / 10_000, Int(loopsRange.upper)))
    }
    /// Tests: the wall-clock bound on a real request instead of `RealDriver.realTimeoutMillis`'s
    /// (how long a modelled run waits for a hung server before its device hears the timeout).
    package var realTimeoutMillis: Int?
    /// Tests: where the start's notice (a resume) goes instead of standard output.
    package var noticeSink: (@Sendable (String) -> Void)?

    /// Options with the defaults of `beekon-fleet run`.
    public init(
        dataDirectory: String, ingest: String? = nil, warp: Warp? = nil, seed: UInt64? = nil,
        realDurationMillis: Int64? = nil, virtualDurationMillis: Int64? = nil, routeFolder: String = ".",
        maxOpenStores: Int = StorePool.defaultMaxOpen, maxConnections: Int = 256, caFile: String? = nil,
        insecure: Bool = false, transferTiming: TransferTiming? = nil
    ) {
        self.transferTiming = transferTiming
        self.dataDirectory = dataDirectory
        self.ingest = ingest
        self.warp = warp
        self.seed = seed
        self.realDurationMillis = realDurationMillis
        self.virtualDurationMillis = virtualDurationMillis
        self.routeFolder = routeFolder
        self.maxOpenStores = maxOpenStores
        self.maxConnections = maxConnections
        self.caFile = caFile
        self.insecure = insecure
    }
}
