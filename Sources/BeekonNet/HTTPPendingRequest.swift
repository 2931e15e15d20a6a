/// A submitted request and the closure that receives its result.
struct HTTPPendingRequest: Sendable {
    let request: OutboundRequest
    /// The caller's name for it, for `HTTPTransport.cancel(id:)`.
    var id: Int?
    let completion: @Sendable (HTTPResult) -> Void
}
