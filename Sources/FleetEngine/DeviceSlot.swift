import BeekonDevice

/// One emulated phone in the loop: its SDK state machine and the parts around it (what phone it
/// is, its world, its OS's switches, its network's faults, its store, what it recently did, and
/// the answers it waits for), each a value of its own.
package struct DeviceSlot {
    package let id: String
    package let group: Int
    package let seed: UInt64
    /// The phone: platform, model, OS release, SDK version (an `upgrade` changes it), and its
    /// place in its group.
    var identity: PhoneIdentity
    package var device: Device?
    package var state = TrackingState.idle
    /// Where the phone is and what its OS's location provider makes of it.
    var world: PhoneWorld
    /// The OS's switches and the app's process.
    var os = PhoneOS()
    /// The network faults on its transfers.
    var link: LinkFaults
    /// The local addresses its connections leave from on Wi-Fi and on cellular (after a
    /// `flapping` handover) (`network.sourceAddresses`); nil leaves the choice to the system.
    var addresses: (wifi: String?, cellular: String?)
    /// Its store and how the store fares.
    package var storage: SlotStorage
    /// What it did recently, for the admin API.
    package var recent: RecentActivity
    /// The transfers it has out and the answer instant its events wait for.
    package var waiting = AwaitedAnswers()
    /// Deleted through the admin API: no longer listed, selected or driven (its store stays).
    var removed = false
    /// Stopped by the stages or `PATCH /api/v1/fleet`'s `devices` (it stands by, stopped, until
    /// they want it again).
    var standingBy = false

    /// The local address its connections leave from now.
    var sourceAddress: String? { link.flap.onCellular ? addresses.cellular : addresses.wifi }

    /// Whether the app has a network: no `networkOffline` fault holds it down, nor its flapping,
    /// nor Doze (which leaves the phone its network but not its apps).
    var online: Bool { os.online && link.flap.up && os.dozeCycle?.blocksNetwork != true }

    /// The state as listed: `storeError` while its store fails, `dead` while the app's process
    /// is gone, otherwise the SDK's state (which runs on throughout a store failure).
    var listedState: DeviceState {
        if storage.problem != nil { return .storeError }
        return os.processAlive ? .sdk(state) : .dead
    }
}
