import BeekonDevice

/// The last answer a device's `getCurrentLocation` got, for its detail.
public struct CurrentLocationRecord: Sendable, Hashable {
    /// The call's request id (the device's calls numbered from 1).
    public var requestID: Int
    /// When the answer came, virtual Unix ms.
    public var at: Int64
    public var answer: CurrentLocationAnswer
}
