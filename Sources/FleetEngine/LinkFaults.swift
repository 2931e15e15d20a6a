import BeekonDevice

/// The `latency` and `timeouts` faults on a device's transfers.
struct LinkFaults {
    /// `latency` fault: added to every transfer, ms.
    var extraLatencyMillis: Int64 = 0
    /// `timeouts` fault: the share of transfers that time out.
    var timeoutFraction = 0.0
    /// Draws for the `timeouts` fault.
    var rng: SplitMix64
}
