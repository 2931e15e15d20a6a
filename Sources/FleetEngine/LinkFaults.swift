import BeekonDevice
import FleetDescription

/// The network between a device and the server: the `latency` and `timeouts` faults on its
/// transfers, and the modelled network (`network:`, `networkProfile`) each transfer's fate is
/// drawn from (`LinkDraw`).
struct LinkFaults {
    /// `latency` fault: added to every transfer, ms.
    var extraLatencyMillis: Int64 = 0
    /// `timeouts` fault: the share of transfers that time out.
    var timeoutFraction = 0.0
    /// Draws for the `timeouts` fault.
    var rng: SplitMix64
    /// `captivePortal` fault: what the portal its network sits behind answers (nil: none).
    var portal: FleetAction.PortalAnswer?
    /// The network it uploads over now; nil: not modelled, the link adds nothing.
    var network: NetworkProfile?
    /// Draws for `network`: a stream derived from the device's seed, so a run without networks
    /// draws nothing new and keeps its digest, and a device draws the same on every shard.
    var networkDraws: SplitMix64
    /// How its network flaps now (`flapping:`, a `flapping` action); nil: it stays up.
    var flapping: Flapping?
    /// Where the flapping has the network (up or down, Wi-Fi or cellular), with its draws.
    var flap: LinkFlap
    /// The network its connections were on went away (a drop, a handover, `networkOffline`): the
    /// next request opens a new connection, as a phone's HTTP client does.
    var connectionLost = false

    /// The key of the network stream, derived from the device's seed ("NET").
    static let networkStream: UInt64 = 0x4E45_5400

    /// A device's link: no fault yet, over its group's network.
    init(rng: SplitMix64, network: NetworkProfile?, flapping: Flapping?, deviceSeed: UInt64) {
        self.rng = rng
        self.network = network
        self.flapping = flapping
        networkDraws = SplitMix64(seed: deviceSeed).derived(Self.networkStream)
        flap = LinkFlap(deviceSeed: deviceSeed)
    }
}
