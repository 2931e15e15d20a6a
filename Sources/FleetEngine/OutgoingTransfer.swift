import BeekonNet

/// A real request the engine asks its driver to make, by transfer number (see `TransferInFlight`).
package struct OutgoingTransfer {
    package var number: Int
    package var kind: TransferKind
    /// When the device sent it, virtual Unix ms (devices may stand at different instants: see
    /// `LoopSchedule.lookahead`).
    package var sentAt: Int64
    package var http: OutboundRequest
}
