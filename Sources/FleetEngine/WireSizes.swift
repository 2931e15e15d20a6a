import BeekonNet

/// How many body bytes a request puts on the wire, for a modelled network's bandwidth
/// (`LinkDraw`).
///
/// An upload's body is gzipped on the transport's thread, just before it leaves
/// (`HTTPTransportLoop`), after the engine has timed the transfer; and the simulated driver and
/// the request digest take it uncompressed. So for a device with a modelled network, and only
/// for one, the engine deflates the body once more to learn its size: `GzipCompressor` with the
/// transport's settings gives the length the wire carries. That costs one more deflate per
/// modelled upload on the loop's thread (about a sixth of a one-fix upload's cost); a device
/// without a network costs nothing, and no run's requests change. The estimate a smaller cost
/// would buy (a fixed ratio to the JSON) would be wrong by the very thing a batch's size varies
/// with.
struct WireSizes {
    /// One deflate stream for the loop, made at the first modelled upload.
    private var compressor: GzipCompressor?

    /// The body's length as sent: gzipped if the transport will gzip it. Should zlib fail (it
    /// fails only for want of memory), the uncompressed length, which bounds it.
    mutating func bytes(of request: OutboundRequest) -> Int {
        guard request.gzipBody else { return request.body.count }
        do throws(GzipError) {
            if compressor == nil { compressor = try GzipCompressor() }
            return try compressor?.compress(request.body).count ?? request.body.count
        } catch {
            return request.body.count
        }
    }
}
