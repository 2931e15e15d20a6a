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

    /// The key of the network stream, derived from the device's seed ("NET").
    static let networkStream: UInt64 = 0x4E45_5400

    /// A device's link: no fault yet, over its group's network.
    init(rng: SplitMix64, network: NetworkProfile?, deviceSeed: UInt64) {
        self.rng = rng
        self.network = network
        networkDraws = SplitMix64(seed: deviceSeed).derived(Self.networkStream)
    }
}
