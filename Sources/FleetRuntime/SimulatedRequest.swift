import BeekonNet

/// A request as the simulated network sees it.
public struct SimulatedRequest: Sendable {
    /// The transfer's number (the order the fleet sent it in, from 1).
    public var number: Int
    /// The device that sent it.
    public var device: String
    /// An upload (with its batch id) or a token refresh.
    public var kind: FleetRuntime.TransferKind
    /// When it was sent, virtual Unix ms.
    public var sentAt: Int64
    /// The request as a real driver would make it (the body before gzip).
    public var http: OutboundRequest
}
