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
