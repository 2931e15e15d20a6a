import CMicroHTTPD
import Foundation
import Synchronization

/// A libmicrohttpd server on 127.0.0.1, port 0, for the transport's tests: it answers with a
/// scripted status, headers, body and delay, and records every request with the client port it
/// came from (one port = one TCP connection).
///
/// Sendable: all of its state, the daemon's address included, is in one `Mutex`.
final class LoopbackServer: Sendable {
    /// What the server answers to every request.
    struct Answer: Sendable {
        var status = 200
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var delayMillis = 0
        /// Close the connection without answering (after the delay).
        var closeWithoutAnswer = false
    }

    /// One request as the server saw it.
    struct Received: Sendable {
        var method: String
        var path: String
        /// Header values by lower-cased name.
        var headers: [String: String]
        var body: [UInt8]
        var clientPort: UInt16
    }

    private struct State {
        var answer = Answer()
        var received: [Received] = []
        var inFlight = 0
        var maxInFlight = 0
        // The daemon's address: a plain integer, because a pointer is not Sendable.
        var daemon = 0
        var port: UInt16 = 0
    }

    /// Collects one request's headers and body across the access handler's calls.
    private final class RequestBox {
        var headers: [String: String] = [:]
        var body: [UInt8] = []
    }

    private let state = Mutex(State())

    /// The port the server listens on.
    var port: UInt16 { state.withLock { $0.port } }

    init(answer: Answer = Answer()) throws {
        state.withLock { $0.answer = answer }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        // Unmanaged, unretained: the daemon is stopped in deinit, before self is gone.
        let context = Unmanaged.passUnretained(self).toOpaque()
        // A thread per connection, so a delayed answer on one connection does not hold up others.
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_POLL.rawValue
        let started = withUnsafeMutablePointer(to: &address) { addressPointer in
            var options = [
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: 10, ptr_value: nil),
                // poll() has no FD_SETSIZE bound, so allow more than select's 1020 connections.
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: 8192, ptr_value: nil),
                MHD_OptionItem(
                    option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(addressPointer)),
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
            ]
            return options.withUnsafeMutableBufferPointer { buffer in
                beekon_mhd_start_daemon(
                    UInt32(flags), 0, nil, nil, LoopbackServer.handle, context, buffer.baseAddress)
            }
        }
        guard let daemon = started else { throw ServerError.startFailed }
        let port = beekon_mhd_daemon_port(daemon)
        let daemonAddress = Int(bitPattern: daemon)
        state.withLock { state in
            state.daemon = daemonAddress
            state.port = port
        }
    }

    deinit {
        stop()
    }

    enum ServerError: Error { case startFailed }

    /// Stops listening and closes every connection; waits for delayed answers to finish.
    func stop() {
        let address = state.withLock { state in
            defer { state.daemon = 0 }
            return state.daemon
        }
        if let daemon = OpaquePointer(bitPattern: address) { MHD_stop_daemon(daemon) }
    }

    /// A port on 127.0.0.1 that nothing listens on (a server's, just stopped).
    static func closedPort() throws -> UInt16 {
        let server = try LoopbackServer()
        server.stop()
        return server.port
    }

    var answer: Answer {
        get { state.withLock { $0.answer } }
        set { state.withLock { $0.answer = newValue } }
    }

    var received: [Received] { state.withLock { $0.received } }

    /// The most requests the server was answering at the same moment.
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    private static let handle: MHD_AccessHandlerCallback = {
        context, connection, url, method, _, uploadData, uploadSize, requestContext in
        let server = Unmanaged<LoopbackServer>.fromOpaque(context!).takeUnretainedValue()
        guard let requestContext, let uploadSize else { return MHD_Result.NO }
        guard let boxPointer = requestContext.pointee else {
            // The first call for a request carries only its head.
            let box = RequestBox()
            withUnsafeMutablePointer(to: &box.headers) { headers in
                _ = MHD_get_connection_values(
                    connection, .HEADER_KIND,
                    { headers, _, key, value in
                        guard let key else { return MHD_Result.YES }
                        let name = String(cString: key).lowercased()
                        headers!.assumingMemoryBound(to: [String: String].self).pointee[name] =
                            value.map { String(cString: $0) } ?? ""
                        return MHD_Result.YES
                    }, headers)
            }
            // Retained until the last call for this request takes it back.
            requestContext.pointee = Unmanaged.passRetained(box).toOpaque()
            return MHD_Result.YES
        }
        let box = Unmanaged<RequestBox>.fromOpaque(boxPointer)
        if uploadSize.pointee > 0 {
            box.takeUnretainedValue().body.append(
                contentsOf: UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee))
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        let request = box.takeRetainedValue()
        requestContext.pointee = nil
        var clientPort: UInt16 = 0
        if let address = beekon_mhd_connection_client_address(connection),
            address.pointee.sa_family == AF_INET
        {
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                clientPort = UInt16(bigEndian: $0.pointee.sin_port)
            }
        }
        let answer = server.state.withLock { state in
            state.received.append(
                Received(
                    method: method.map { String(cString: $0) } ?? "",
                    path: url.map { String(cString: $0) } ?? "",
                    headers: request.headers, body: request.body, clientPort: clientPort))
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return state.answer
        }
        if answer.delayMillis > 0 { usleep(UInt32(answer.delayMillis) * 1000) }
        server.state.withLock { $0.inFlight -= 1 }
        if answer.closeWithoutAnswer { return MHD_Result.NO }
        let response = answer.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        for header in answer.headers {
            _ = MHD_add_response_header(response, header.name, header.value)
        }
        let queued = MHD_queue_response(connection, UInt32(answer.status), response)
        MHD_destroy_response(response)
        return queued
    }
}
