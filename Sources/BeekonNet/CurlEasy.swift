internal import CCurl
import Foundation
import HTTPMessage
import HTTPTypes

/// One libcurl easy handle: one device's transfer slot, reused for each of its requests so the
/// device keeps its own connection (held in its own `CurlShare`) between them.
///
/// The memory libcurl reads during a transfer (the body, the header list, the error buffer) is
/// allocated here, never moves, and is freed only after the transfer has been removed from the
/// multi handle. Used only on the transport thread.
final class CurlEasy {
    /// Settings common to every transfer of one transport.
    struct Options: Sendable {
        var connectTimeoutMillis: Int
        var maxResponseBytes: Int
        var caFile: String?
        var insecure: Bool
        /// Offer HTTP/2 by ALPN on HTTPS (plain HTTP stays HTTP/1.1).
        var http2 = false
    }

    let handle: UnsafeMutableRawPointer
    let connectionKey: String
    private let share: CurlShare
    private let maxResponseBytes: Int
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var body: UnsafeMutableRawBufferPointer?
    // A paced or cut body is read by libcurl through the read callback, from `body`.
    private var bodyLength = 0
    private var bodyRead = 0
    private var bodyCut: Int?
    /// The last transfer was cut at `abortAfterBytes`: its connection must go with this handle.
    private(set) var wasCut = false
    private var headerList: UnsafeMutablePointer<curl_slist>?
    // Filled by the callbacks during a transfer, read once it has finished.
    private var responseBody: [UInt8] = []
    private var headerLines: [[UInt8]] = []
    private var bodyOverflowed = false
    // The errno of a socket() that failed during the transfer: libcurl reports that as
    // CURLE_COULDNT_CONNECT and leaves CURLINFO_OS_ERRNO at 0.
    private var socketErrno: Int32 = 0
    /// The send-speed limit of the transfer, bytes a second (nil: none).
    private var sendLimit: Int?
    /// The source address of the last request prepared (nil: none asked for): its connection's.
    private(set) var sourceAddress: String?

    init(connectionKey: String, options: Options) throws(CurlError) {
        let share = try CurlShare()
        guard let handle = curl_easy_init() else {
            throw CurlError(
                Int32(CURLE_FAILED_INIT.rawValue), interface: .easy, message: "curl_easy_init failed")
        }
        self.handle = handle
        self.connectionKey = connectionKey
        self.share = share
        self.maxResponseBytes = options.maxResponseBytes
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        // From here on a throw runs deinit, which frees everything above.
        try set(CURLOPT_SHARE, pointer: share.handle)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_HTTP_VERSION, options.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1)
        // libcurl drops a connection idle 118 real seconds, which would make reuse depend on the
        // warp; the caller decides on its own clock (`OutboundRequest.freshConnection`).
        try set(CURLOPT_MAXAGE_CONN, 366 * 86_400)
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_PIPEWAIT, 0)
        try set(CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMillis)
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        if let caFile = options.caFile {
            try CurlError.check(beekon_curl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile))
        }
        if options.insecure {
            try set(CURLOPT_SSL_VERIFYPEER, 0)
            try set(CURLOPT_SSL_VERIFYHOST, 0)
        }
        // Unmanaged, unretained: the handle is freed in deinit, so libcurl never calls back
        // with this pointer after self is gone.
        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_WRITEDATA, pointer: context)
        try set(CURLOPT_HEADERDATA, pointer: context)
        try CurlError.check(
            beekon_curl_easy_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION) {
                data, size, count, context in
                let easy = Unmanaged<CurlEasy>.fromOpaque(context!).takeUnretainedValue()
                return easy.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
            })
        try CurlError.check(
            beekon_curl_easy_setopt_write_callback(handle, CURLOPT_HEADERFUNCTION) {
                data, size, count, context in
                let easy = Unmanaged<CurlEasy>.fromOpaque(context!).takeUnretainedValue()
                return easy.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
            })
        try set(CURLOPT_READDATA, pointer: context)
        try CurlError.check(
            beekon_curl_easy_setopt_read_callback(handle, CURLOPT_READFUNCTION) { buffer, size, count, context in
                let easy = Unmanaged<CurlEasy>.fromOpaque(context!).takeUnretainedValue()
                return easy.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
            })
        // The socket libcurl would make, with the errno kept when none can be made.
        try set(CURLOPT_OPENSOCKETDATA, pointer: context)
        try CurlError.check(
            beekon_curl_easy_setopt_opensocket_callback(handle, CURLOPT_OPENSOCKETFUNCTION) {
                context, _, address in
                guard let address else { return CURL_SOCKET_BAD }
                let descriptor = socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
                if descriptor < 0 {
                    Unmanaged<CurlEasy>.fromOpaque(context!).takeUnretainedValue().socketErrno = errno
                } else if address.pointee.family == AF_INET {
                    // With a source address libcurl binds before it connects; without this the
                    // kernel picks the port at the bind, one per address for every server, so an
                    // address would run out at 28,232 connections in all rather than per server.
                    var on: Int32 = 1
                    _ = setsockopt(
                        descriptor, Int32(IPPROTO_IP), IP_BIND_ADDRESS_NO_PORT, &on, socklen_t(MemoryLayout<Int32>.size)
                    )
                }
                return descriptor
            })
    }

    deinit {
        curl_easy_cleanup(handle)
        freeTransferMemory()
        errorBuffer.deallocate()
    }

    /// Sets up the next transfer; the handle must not be attached to the multi handle.
    func prepare(_ request: OutboundRequest) throws(CurlError) {
        freeTransferMemory()
        responseBody = []
        headerLines = []
        bodyOverflowed = false
        socketErrno = 0
        bodyLength = 0
        bodyCut = nil
        wasCut = false
        errorBuffer[0] = 0
        try CurlError.check(beekon_curl_easy_setopt_string(handle, CURLOPT_URL, request.head.target))
        // `host!` binds to the address itself (never an interface name); nil binds none.
        try CurlError.check(
            beekon_curl_easy_setopt_string(handle, CURLOPT_INTERFACE, request.sourceAddress.map { "host!" + $0 }))
        sourceAddress = request.sourceAddress
        try set(CURLOPT_TIMEOUT_MS, request.timeoutMillis)
        sendLimit = request.maxSendBytesPerSecond.map { max(1, $0) }
        try CurlError.check(
            beekon_curl_easy_setopt_off_t(handle, CURLOPT_MAX_SEND_SPEED_LARGE, curl_off_t(sendLimit ?? 0)))
        let method = request.head.method.rawValue
        try set(CURLOPT_NOBODY, method == "HEAD" ? 1 : 0)
        try CurlError.check(beekon_curl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, nil))
        switch method {
        case "GET":
            try set(CURLOPT_POSTFIELDS, pointer: nil)
            try set(CURLOPT_HTTPGET, 1)
        case "HEAD":
            break
        default:
            // Never a null pointer, even for an empty body: with a null one libcurl reads stdin.
            let buffer = UnsafeMutableRawBufferPointer.allocate(
                byteCount: max(1, request.body.count), alignment: 1)
            buffer.copyBytes(from: request.body)
            body = buffer
            try set(CURLOPT_POST, 1)
            // Small bodies go out with the head in one write, too fast to pace and too soon to
            // cut: a paced or cut body is read through the callback, a segment at a time.
            let paced = request.maxSendBytesPerSecond != nil || request.abortAfterBytes != nil
            bodyLength = request.body.count
            bodyRead = 0
            bodyCut = request.abortAfterBytes.map { min(max(0, $0), request.body.count) }
            try set(CURLOPT_POSTFIELDS, pointer: paced ? nil : buffer.baseAddress)
            try CurlError.check(
                beekon_curl_easy_setopt_off_t(
                    handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            if method != "POST" {
                try CurlError.check(beekon_curl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
            }
        }
        // An empty `Expect:` stops libcurl from waiting for a 100-continue round trip, and an
        // empty `Content-Type:` drops its form-encoding default when the caller set none.
        var lines = ["Expect:"]
        if !request.head.headerFields.contains(.contentType) {
            lines.append("Content-Type:")
        }
        // "Name;" is libcurl's spelling of a header with an empty value.
        lines += request.head.headerFields.map {
            $0.value.isEmpty ? "\($0.name.rawName);" : "\($0.name.rawName): \($0.value)"
        }
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw CurlError(Int32(CURLE_OUT_OF_MEMORY.rawValue), interface: .easy)
            }
            headerList = appended
        }
        try CurlError.check(beekon_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))
    }

    /// What the finished transfer came to, given its result code; frees its request memory.
    func result(of code: CURLcode) -> HTTPResult {
        defer { freeTransferMemory() }
        var micros: curl_off_t = 0
        _ = beekon_curl_easy_getinfo_off_t(handle, CURLINFO_TOTAL_TIME_T, &micros)
        // A paced body's sending is the client's slowness, not the server's: its time (the body
        // at the limit) is taken off, leaving the server's share of the exchange.
        let pacedMillis = sendLimit.map { Double(bodyLength) * 1000 / Double($0) } ?? 0
        let latencyMillis = max(0, Double(micros) / 1000 - pacedMillis)
        if bodyOverflowed {
            return .failed(
                kind: .other, message: "the response body exceeds \(maxResponseBytes) bytes",
                latencyMillis: latencyMillis)
        }
        do {
            try CurlError.check(code)
        } catch {
            let detail = String(cString: errorBuffer)
            var osErrno = Int(socketErrno)
            if osErrno == 0 { _ = beekon_curl_easy_getinfo_long(handle, CURLINFO_OS_ERRNO, &osErrno) }
            return .failed(
                kind: error.networkFailure(osErrno: Int32(truncatingIfNeeded: osErrno)),
                message: (detail.isEmpty ? error.message : detail)
                    + (socketErrno == 0 ? "" : " (no socket: \(String(cString: strerror(socketErrno))))"),
                latencyMillis: latencyMillis)
        }
        var status = 0
        _ = beekon_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        // libcurl reads three digits; anything else is no HTTP answer.
        guard (0...999).contains(status) else {
            return .failed(kind: .other, message: "the status \(status) is not HTTP's", latencyMillis: latencyMillis)
        }
        return .response(
            HTTPResponse(status: .init(code: status), headerFields: Self.parseHeaders(headerLines)),
            body: responseBody, latencyMillis: latencyMillis)
    }

    /// The fields of the last response head in `lines` (libcurl also reports any 1xx heads); a
    /// line whose name is no field name is left out.
    static func parseHeaders(_ lines: [[UInt8]]) -> HTTPFields {
        var headers = HTTPFields()
        for raw in lines {
            let line = String(decoding: raw, as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                headers = [:]
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = trimmed(line[line.index(after: colon)...])
            if let field = HTTPFields.field(name, value) { headers.append(field) }
        }
        return headers
    }

    private static func trimmed(_ text: Substring) -> String {
        let blank: Set<Character> = [" ", "\t", "\r", "\n", "\r\n"]
        var slice = text
        while let first = slice.first, blank.contains(first) { slice.removeFirst() }
        while let last = slice.last, blank.contains(last) { slice.removeLast() }
        return String(slice)
    }

    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        // Returning less than was offered makes libcurl abort the transfer.
        guard responseBody.count + bytes.count <= maxResponseBytes else {
            bodyOverflowed = true
            return 0
        }
        responseBody.append(contentsOf: bytes)
        return bytes.count
    }

    /// A segment (1,460 bytes) of the body at a time, so libcurl's pacing applies between them;
    /// at the cut the transfer is aborted and the handle, with its connection, goes
    /// (`HTTPTransportLoop`): the server is left with what went before. A close, not an RST, which
    /// could discard what the server had not read yet and leave the cut no trace there.
    private func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let body else { return 0 }
        if let cut = bodyCut, bodyRead >= cut, cut < bodyLength {
            wasCut = true
            return beekon_curl_readfunc_abort()
        }
        let count = min(buffer.count, Self.segmentBytes, (bodyCut ?? bodyLength) - bodyRead)
        guard count > 0 else { return 0 }
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: body[bodyRead..<bodyRead + count]))
        bodyRead += count
        return count
    }

    /// A TCP segment's payload on Ethernet: how much of a paced body goes per write.
    static let segmentBytes = 1460

    private func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int {
        headerLines.append(Array(bytes))
        return bytes.count
    }

    private func freeTransferMemory() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        body?.deallocate()
        body = nil
    }

    private func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
        try CurlError.check(beekon_curl_easy_setopt_long(handle, option, value))
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(CurlError) {
        try CurlError.check(beekon_curl_easy_setopt_pointer(handle, option, pointer))
    }
}
