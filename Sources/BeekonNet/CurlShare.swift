internal import CCurl

/// One libcurl share handle that holds a private connection cache for one device.
///
/// Inside a multi handle, easy handles normally draw from the multi's one connection cache, so
/// two devices talking to the same host would share a socket. An easy handle attached to a share
/// that shares `CURL_LOCK_DATA_CONNECT` uses the share's cache instead: one cache per device.
/// Only the transport thread touches it, so no lock callbacks are installed.
final class CurlShare {
    let handle: UnsafeMutableRawPointer

    init() throws(CurlError) {
        guard let handle = curl_share_init() else {
            throw CurlError(
                Int32(CURLE_OUT_OF_MEMORY.rawValue), interface: .easy, message: "curl_share_init failed")
        }
        self.handle = handle
        try CurlError.check(
            beekon_curl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_CONNECT.rawValue)))
    }

    /// Closes the connections still in the cache. The easy handles using the share must be
    /// cleaned up first; `CurlEasy` holds the share strongly, which guarantees that order.
    deinit {
        curl_share_cleanup(handle)
    }
}
