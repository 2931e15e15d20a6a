import BeekonDevice
import FleetRoutes

/// A fleet file: what devices to emulate, on which routes, with which SDK configuration, and
/// the faults to inject over time. Read from YAML by `FleetFile.load(path:)`.
public struct FleetFile: Sendable, Hashable {
    /// The warps a fleet accepts, from every surface (`--warp`, `clock.warp`, `PATCH
    /// /api/v1/fleet`): a hundredth of real time up to 10 000× (a week in a minute). Above it, the
    /// 100 ms lag bound would let a turn's backlog reach days of virtual time.
    public static let warpRange = NumberRange(0.01...10_000)

    /// The fleet's name, for reports.
    public var name: String
    /// The run seed: every random choice of the run derives from it.
    public var seed: UInt64
    /// Where virtual time starts, and how fast it runs.
    public var clock: ClockSpec
    /// The default ingest URL for groups whose sync block names none.
    public var ingest: String?
    /// How long the run lasts on the virtual clock, ms after `clock.start` (`duration:`, which
    /// `run --for` overrides); nil runs until stopped.
    public var durationMillis: Int64?

    /// Whether some group uploads without naming a URL while the file names no `ingest`: the
    /// run must then be given one (`--ingest`) or start a receiver of its own.
    public var needsIngestURL: Bool {
        ingest == nil && groups.contains { $0.config.sync?.url.isEmpty == true }
    }
    /// Where a group with `config` uploads: its sync block's URL; where that is empty, `given`
    /// (`--ingest`) or else the file's `ingest`; where it repeats the file's `ingest`, `given`
    /// over it. Nil for a group that does not upload; empty when no URL is known.
    public func ingestURL(of config: BeekonConfig, given: String?) -> String? {
        guard let url = config.sync?.url else { return nil }
        if url.isEmpty { return given ?? ingest ?? "" }
        if let given, ingest != nil, url == ingest { return given }
        return url
    }
    /// The device groups, in file order.
    public var groups: [DeviceGroup]
    /// The fault timeline, in file order.
    public var faults: [FaultEntry]
    /// The route files the reader read while checking them (by path as written), so a run
    /// reads each once; empty when the file was read without its folder.
    public var routes: [String: Route] = [:]
    /// What the run must meet to pass (`thresholds:`), in file order; empty when the file gives none.
    public var thresholds: [Threshold] = []
    /// The load over time for the whole fleet (`stages:`), shared over the groups that have no
    /// stages of their own (see `groupStages`); empty without.
    public var stages: [Stage] = []
    /// The day of load for every group without stages or a curve of its own (`daily:`); nil
    /// without. Never with `stages` (the reader refuses both).
    public var daily: DailyCurve?

    /// The fleet's side of the network (`network:`): where its connections leave from.
    public var network = NetworkSpec()

    /// The fleet's side of the network: the same for every device, unlike a group's link.
    public struct NetworkSpec: Sendable, Hashable {
        /// The local addresses connections leave from (`network.sourceAddresses`, which `run
        /// --source-addresses` overrides); nil leaves the choice to the system, one address for all.
        public var sourceAddresses: SourceAddresses?
        /// Whether HTTPS connections offer HTTP/2 by ALPN (`network.http2`, `run --http2`), as
        /// phones' HTTP stacks (OkHttp, URLSession) do; `http://` stays HTTP/1.1 either way.
        public var http2 = HTTP2Choice.auto
        /// A device's connection idle this long on the virtual clock is not reused: its
        /// next request opens a new one (TCP and TLS), as a phone's HTTP stack drops idle
        /// connections (OkHttp's pool keeps them 5 minutes). 0 opens one per request.
        public var idleCloseSeconds = 300

        /// `network.idleCloseSeconds`: 0 to 3600 s.
        public static let idleCloseRange = NumberRange.integer(0...3_600, unit: "s")

        public init(sourceAddresses: SourceAddresses? = nil) {
            self.sourceAddresses = sourceAddresses
        }
    }

    /// Whether HTTPS connections offer HTTP/2.
    public enum HTTP2Choice: String, Sendable, Hashable, CaseIterable {
        /// Offered by ALPN on `https://`; the server's choice is used.
        case auto
        /// HTTP/1.1 only.
        case off

        /// `auto` or `off`, for messages.
        public static let words = allCases.map { "`\($0.rawValue)`" }.joined(separator: " or ")
    }

    /// `seed` (`--seed`, a selector's `seed`): whole numbers of up to 15 digits, exact in every
    /// JSON reader (below 2^53).
    public static let seedRange = NumberRange.integer(0...999_999_999_999_999)

    /// The virtual clock's start, warp, and how long an answer takes on it.
    public struct ClockSpec: Sendable, Hashable {
        /// Unix ms; nil means the wall-clock time when the run starts.
        public var start: Int64?
        /// A rate of the wall clock, or `max`.
        public var warp: Warp
        /// How long an answer takes on the virtual clock (`clock.timing`, `run --timing`).
        public var timing: TimingChoice

        /// `clock.deterministic: true`, the same as `timing: modelled`.
        public var deterministic: Bool {
            get { timing == .modelled }
            set { timing = newValue ? .modelled : .auto }
        }

        /// A clock spec; defaults start now, in real time, with the timing chosen by the warp.
        public init(start: Int64? = nil, warp: Warp = .rate(1), deterministic: Bool = false) {
            self.start = start
            self.warp = warp
            self.timing = deterministic ? .modelled : .auto
        }
    }
}

extension FleetFile {
    /// `run --devices`: how many devices a run may be scaled to, over all groups.
    public static let scaledDevicesRange = NumberRange.integer(1...1_000_000, unit: "devices")

    /// The same fleet with `devices` devices in all, shared over its groups in proportion to
    /// their counts (largest remainders first, ties to the earlier group), each group keeping
    /// at least one device; nil, with why, when there are fewer devices than groups.
    public func scaled(toDevices devices: Int) -> Result<FleetFile, ScaleProblem> {
        guard devices >= groups.count else {
            return .failure(ScaleProblem(devices: devices, groups: groups.count))
        }
        // Each group's exact share, floored (at least 1); what is left goes by largest remainder.
        let counts = Self.shares(of: devices, weights: groups.map(\.count), minimum: 1)
        var scaled = self
        for (group, count) in counts.enumerated() { scaled.groups[group].count = count }
        return .success(scaled)
    }

    /// Why a fleet cannot be scaled to a number of devices.
    public struct ScaleProblem: Error, Sendable, CustomStringConvertible {
        public var devices: Int
        public var groups: Int

        public var description: String {
            "--devices \(devices) is fewer than the fleet file's \(groups) groups; expected at least \(groups) "
                + "(one device a group)"
        }
    }
}
