internal import CCurl

/// The libcurl multi handle that drives every transfer of one `HTTPTransport`.
///
/// `@unchecked Sendable`: only `wakeup()`, which libcurl documents as callable from any
/// thread, is used off the transport thread; every other method runs on that one thread.
final class CurlMulti: @unchecked Sendable {  // only wakeup() is called off the transport thread
    let handle: UnsafeMutableRawPointer

    init() throws(CurlError) {
        guard let handle = curl_multi_init() else {
            throw CurlError(
                Int32(CURLE_OUT_OF_MEMORY.rawValue), interface: .easy, message: "curl_multi_init failed")
        }
        self.handle = handle
        // Each device is its own phone: no HTTP/1 pipelining or HTTP/2 multiplexing across
        // transfers, and no per-host limit (the transport's own cap and queue do the limiting).
        try CurlError.check(beekon_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, Int(CURLPIPE_NOTHING)))
        try CurlError.check(beekon_curl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, 0))
        try CurlError.check(beekon_curl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0))
    }

    /// Every easy handle must have been removed by now; the transport thread does that on exit.
    deinit {
        curl_multi_cleanup(handle)
    }

    func add(_ easy: CurlEasy) throws(CurlError) {
        try CurlError.check(curl_multi_add_handle(handle, easy.handle))
    }

    /// Detaches a finished or cancelled transfer; its connection stays in the device's cache.
    func remove(_ easy: CurlEasy) {
        // Fails only for a handle that is not attached, which the loop never passes.
        _ = curl_multi_remove_handle(handle, easy.handle)
    }

    /// Moves every transfer as far as it can go without blocking.
    func perform() throws(CurlError) {
        var running: Int32 = 0
        try CurlError.check(curl_multi_perform(handle, &running))
    }

    /// Blocks until a socket is ready, a libcurl timer is due, `timeoutMillis` pass, or
    /// `wakeup()` is called.
    func poll(timeoutMillis: Int32) throws(CurlError) {
        try CurlError.check(curl_multi_poll(handle, nil, 0, timeoutMillis, nil))
    }

    /// Interrupts `poll` from any thread.
    func wakeup() {
        _ = curl_multi_wakeup(handle)
    }

    /// The transfers that finished since the last call: their easy handles and result codes.
    func finishedTransfers() -> [(easy: UnsafeMutableRawPointer, code: CURLcode)] {
        var finished: [(easy: UnsafeMutableRawPointer, code: CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else {
                continue
            }
            finished.append((easy, message.pointee.data.result))
        }
        return finished
    }
}
