import BeekonDevice
import FleetDescription

/// A device's network as its `flapping` moves it: up or down, on Wi-Fi or on cellular. Each
/// stretch up or down lasts an exponential draw of its mean; at the end of a stretch up, a draw
/// decides between a drop and a handover. Draws come from a stream derived from the device's
/// seed ("FLAP"), so a fleet without flapping draws nothing new, and a device flaps at the same
/// instants at any warp and on any shard.
struct LinkFlap {
    /// Whether the flap has the network up (a `networkOffline` fault is the phone's other reason
    /// to be without one).
    private(set) var up = true
    /// On cellular after an odd number of handovers, on Wi-Fi from the start.
    private(set) var onCellular = false
    /// Whether the device's flapping has begun (at its first spawn, or a `flapping` action after).
    var running = false
    private var draws: SplitMix64

    /// What happens at the end of a stretch.
    enum Change: Equatable {
        /// The network drops.
        case drop
        /// The phone moves between Wi-Fi and cellular, never without a network.
        case handover
        /// The network comes back.
        case restore
    }

    /// The key of the flap stream, derived from a device's seed ("FLAP").
    static let streamKey: UInt64 = 0x464C_4150

    init(deviceSeed: UInt64) {
        draws = SplitMix64(seed: deviceSeed).derived(Self.streamKey)
    }

    /// Virtual ms the stretch it is in lasts under `flapping`: an exponential draw of its mean
    /// (at least 1 ms).
    mutating func stretch(_ flapping: Flapping) -> Int64 {
        Exponential.millis(mean: Double(up ? flapping.meanOnlineMillis : flapping.meanOfflineMillis), using: &draws)
    }

    /// The change at the end of the stretch it is in, under `flapping`.
    mutating func change(_ flapping: Flapping) -> Change {
        guard up else {
            up = true
            return .restore
        }
        if Double.random(in: 0..<1, using: &draws) < flapping.handover {
            onCellular.toggle()
            return .handover
        }
        up = false
        return .drop
    }

    /// Up again at once: its flapping ended while the network was down.
    mutating func restore() {
        up = true
    }
}
