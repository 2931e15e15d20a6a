internal import CMicroHTTPD
import Foundation
import HTTPMessage
import HTTPTypes
import Synchronization

/// Owns one libmicrohttpd daemon: a pool of threads, each with its own epoll loop, calling the
/// responder with whole requests. Delays and hangs suspend the connection and a timer resumes
/// it, so a slow answer holds no thread and blocks no other connection.
///
/// Sendable: its state (the daemon's address, suspended connections) is in one `Mutex`.
public final class MicroHTTPDaemon: Sendable {
    /// Decides what to do with a request; runs on one of the daemon's threads.
    public typealias Responder = @Sendable (IncomingRequest) -> Disposition
    /// Told of a request whose connection ended before its body did; runs on a daemon thread.
    public typealias CutShortWatcher = @Sendable (CutShortRequest) -> Void

    struct State {
        // Addresses as integers, because pointers are not Sendable.
        var daemon = 0
        var port: UInt16 = 0
        var stopping = false
        /// Suspended connections: the generation of the suspension each timer may resume, and for
        /// a `later` request the reply its timer sends. The reply lives here rather than in the
        /// timer, so it is freed as soon as the real answer goes out (a receiver at thousands of
        /// uploads a second would otherwise hold every one for the whole timeout).
        var suspended: [Int: (generation: UInt64, timeoutReply: OutgoingReply?)] = [:]
        var generation: UInt64 = 0
        /// Answers to `later` requests, waiting for their connection to come back.
        var ready: [Int: OutgoingReply] = [:]
    }

    /// What the daemon's threads reach through their context pointer; kept alive by the daemon
    /// object until MHD has stopped.
    final class Core: Sendable {
        let state = Mutex(State())
        let respond: Responder
        let cutShort: CutShortWatcher?
        let maxBodyBytes: Int
        let memoryBudget: MemoryBudget?

        init(
            respond: @escaping Responder, cutShort: CutShortWatcher?, maxBodyBytes: Int, memoryBudget: MemoryBudget?
        ) {
            self.respond = respond
            self.cutShort = cutShort
            self.maxBodyBytes = maxBodyBytes
            self.memoryBudget = memoryBudget
        }

        /// Resumes a suspended connection if that suspension is still the current one.
        func resume(_ connection: Int, generation: UInt64) {
            state.withLock { state in _ = Self.resume(connection, generation: generation, in: &state) }
        }

        /// Answers a `later` request if that suspension is still the current one.
        func answer(_ connection: Int, generation: UInt64, with reply: OutgoingReply) {
            state.withLock { state in
                if Self.resume(connection, generation: generation, in: &state) != nil {
                    state.ready[connection] = reply
                }
            }
        }

        /// A `later` request's timer fired: it is answered its timeout reply if that suspension
        /// is still the current one.
        func timedOut(_ connection: Int, generation: UInt64) {
            state.withLock { state in
                if let suspension = Self.resume(connection, generation: generation, in: &state) {
                    state.ready[connection] = suspension.timeoutReply
                }
            }
        }

        /// Ends the suspension of `connection` if it is still the one of `generation`, and says
        /// what it was; nil when it is not (answered, timed out or stopped already). An answer to
        /// hand over goes in `ready` under the same lock, before MHD's thread can pick it up.
        private static func resume(
            _ connection: Int, generation: UInt64, in state: inout State
        ) -> (generation: UInt64, timeoutReply: OutgoingReply?)? {
            guard !state.stopping, let suspension = state.suspended[connection], suspension.generation == generation,
                let pointer = OpaquePointer(bitPattern: connection)
            else { return nil }
            state.suspended[connection] = nil
            MHD_resume_connection(pointer)
            return suspension
        }

        /// Suspends `connection` and returns the suspension's generation (for a `later` request,
        /// keeping the reply its timer sends); nil when stopping.
        func suspend(_ connection: OpaquePointer, timeoutReply: OutgoingReply? = nil) -> UInt64? {
            state.withLock { state in
                guard !state.stopping else { return nil }
                MHD_suspend_connection(connection)
                state.generation += 1
                state.suspended[Int(bitPattern: connection)] = (state.generation, timeoutReply)
                return state.generation
            }
        }

        var isStopping: Bool { state.withLock { $0.stopping } }
    }

    /// One request's state across the access handler's calls; freed by the completion callback.
    private final class RequestBox {
        enum Phase {
            case receiving
            case delayed(OutgoingReply)
            case hanging
            case awaiting
            case answered
        }

        var headerFields = HTTPFields()
        var query: [String: String] = [:]
        var body: [UInt8] = []
        var tooLarge = false
        /// The body's bytes in the daemon's memory budget; given back after the responder ran.
        let reservation: MemoryReservation
        var overBudget = false
        /// Two `Content-Length` headers that disagree, as received.
        var conflictingLengths: [String] = []
        var clientPort: UInt16 = 0
        var clientAddress = ""
        var path = ""
        var phase = Phase.receiving
        /// Body bytes read off the connection (kept or not), and when the first and the last came
        /// (monotonic ns).
        var received = 0
        var firstBodyNanos: UInt64 = 0
        var lastBodyNanos: UInt64 = 0

        init(budget: MemoryBudget?) {
            reservation = MemoryReservation(budget)
        }

        /// Adds a chunk of body, within the size limit and the memory budget; drops the body
        /// once either is passed.
        func append(_ chunk: UnsafeRawBufferPointer, maxBodyBytes: Int) {
            lastBodyNanos = DispatchTime.now().uptimeNanoseconds
            if received == 0 { firstBodyNanos = lastBodyNanos }
            received += chunk.count
            guard !tooLarge, !overBudget else { return }
            if body.count + chunk.count > maxBodyBytes {
                tooLarge = true
            } else if body.count + chunk.count > reservation.bytes,
                !reservation.grow(body.count + chunk.count - reservation.bytes)
            {
                overBudget = true
            } else {
                body.append(contentsOf: chunk)
                return
            }
            body = []
            reservation.release()
        }
    }

    private let core: Core

    /// `later` requests suspended with a timeout reply held for them (tests: none once answered).
    var timeoutRepliesHeld: Int { core.state.withLock { $0.suspended.values.count { $0.timeoutReply != nil } } }

    /// The port the daemon listens on.
    public var port: UInt16 { core.state.withLock { $0.port } }

    /// Starts listening on `host:port` (IPv4; port 0 picks one).
    ///
    /// The connection budgets cut slow and idle clients: a connection silent for
    /// `connectionTimeoutSeconds` is closed; past `connectionLimit` connections (shared by the
    /// threads) new ones wait in the listen queue; past `perIPConnectionLimit` from one address
    /// (0: no cap) new ones from it are closed at once. With a `memoryBudget`, bodies take their
    /// bytes from it as they arrive (given back once the responder has run) and a body that would
    /// pass it reaches the responder with `bodyOverBudget` set and no bytes.
    public init(
        host: String, port: UInt16, threads: Int, connectionTimeoutSeconds: Int = 10,
        connectionLimit: Int = 16_384, perIPConnectionLimit: Int = 4096, maxBodyBytes: Int,
        memoryBudget: MemoryBudget? = nil, cutShort: CutShortWatcher? = nil, respond: @escaping Responder
    ) throws(MicroHTTPError) {
        core = Core(respond: respond, cutShort: cutShort, maxBodyBytes: maxBodyBytes, memoryBudget: memoryBudget)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        let literal = host == "localhost" ? "127.0.0.1" : host == "*" ? "0.0.0.0" : host
        guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else {
            throw MicroHTTPError("\"\(host)\" is not an IPv4 address; expected e.g. 127.0.0.1 or 0.0.0.0")
        }
        let context = Unmanaged.passUnretained(core).toOpaque()  // Unretained: stop() ends the daemon before core goes.
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let completed: MHD_RequestCompletedCallback = { context, _, requestContext, termination in
            guard let requestContext, let pointer = requestContext.pointee else { return }
            let box = Unmanaged<RequestBox>.fromOpaque(pointer).takeRetainedValue()  // Balances passRetained.
            requestContext.pointee = nil
            // Ended while its body was still coming: the client reset it (READ_ERROR, CLIENT_ABORT)
            // or went silent (TIMEOUT_REACHED); not COMPLETED_OK (0) nor DAEMON_SHUTDOWN (3).
            guard case .receiving = box.phase, ![0, 3].contains(termination.rawValue),
                let core = context.map({ Unmanaged<Core>.fromOpaque($0).takeUnretainedValue() }),
                let cutShort = core.cutShort
            else { return }
            cutShort(
                CutShortRequest(
                    path: box.path, clientAddress: box.clientAddress, receivedBytes: box.received,
                    declaredBytes: box.headerFields[.contentLength].flatMap { Int($0) }))
        }
        let started = withUnsafeMutablePointer(to: &address) { addressPointer in
            var options = [
                MHD_OptionItem(option: .THREAD_POOL_SIZE, value: max(1, threads), ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: connectionTimeoutSeconds, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: connectionLimit, ptr_value: nil),
                MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: perIPConnectionLimit, ptr_value: nil),
                MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: 4096, ptr_value: nil),
                MHD_OptionItem(
                    option: .NOTIFY_COMPLETED, value: unsafeBitCast(completed, to: Int.self), ptr_value: context),
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(addressPointer)),
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
            ]
            return options.withUnsafeMutableBufferPointer { buffer in
                beekon_mhd_start_daemon(
                    UInt32(flags), port, nil, nil, MicroHTTPDaemon.handle, context, buffer.baseAddress)
            }
        }
        guard let daemon = started else {
            throw MicroHTTPError(
                "cannot listen on \(host):\(port): \(String(cString: strerror(errno))) (is the port in use?)")
        }
        let boundPort = beekon_mhd_daemon_port(daemon)
        core.state.withLock { state in
            state.daemon = Int(bitPattern: daemon)
            state.port = boundPort
        }
    }

    deinit {
        stop()
    }

    /// Stops listening: first lets answers already given to `PendingReply.send` go out (up to
    /// a second), then resumes held connections (a hang is closed, a delayed answer is sent),
    /// waits for requests in progress (their transactions finish), closes every connection.
    /// Idempotent.
    public func stop() {
        // An answer handed over just before stop sits in `ready` until its connection's thread
        // picks it up; clearing it below would close that connection unanswered.
        for _ in 0..<1000 where !core.state.withLock({ $0.ready.isEmpty || $0.stopping }) {
            usleep(1000)
        }
        let address = core.state.withLock { state in
            state.stopping = true
            for connection in state.suspended.keys {
                if let pointer = OpaquePointer(bitPattern: connection) { MHD_resume_connection(pointer) }
            }
            state.suspended = [:]
            state.ready = [:]
            defer { state.daemon = 0 }
            return state.daemon
        }
        if let daemon = OpaquePointer(bitPattern: address) { MHD_stop_daemon(daemon) }
    }

    // MARK: - The access handler

    private static let handle: MHD_AccessHandlerCallback = {
        context, connection, url, method, _, uploadData, uploadSize, requestContext in
        let core = Unmanaged<Core>.fromOpaque(context!).takeUnretainedValue()  // Unretained: outlives the daemon.
        guard let connection, let requestContext, let uploadSize else { return MHD_Result.NO }
        guard let boxPointer = requestContext.pointee else {
            // The first call carries only the head.
            let box = RequestBox(budget: core.memoryBudget)
            var fields: [(String, String)] = []
            withUnsafeMutablePointer(to: &fields) { fields in
                _ = MHD_get_connection_values(
                    connection, .HEADER_KIND,
                    { fields, _, key, value in
                        guard let key else { return MHD_Result.YES }
                        fields!.assumingMemoryBound(to: [(String, String)].self).pointee.append(
                            (String(cString: key), value.map { String(cString: $0) } ?? ""))
                        return MHD_Result.YES
                    }, fields)
            }
            // A name that is no field name (libmicrohttpd passes what the client wrote) is left out.
            box.headerFields = HTTPFields(textPairs: fields)
            let lengths = Set(fields.filter { $0.0.lowercased() == "content-length" }.map { $0.1 })
            if lengths.count > 1 { box.conflictingLengths = lengths.sorted() }
            // With their lengths: a `%00` in an argument stays in it (and is refused by the reader
            // of that argument) rather than cutting it short at the NUL.
            withUnsafeMutablePointer(to: &box.query) { query in
                _ = MHD_get_connection_values_n(
                    connection, .GET_ARGUMENT_KIND,
                    { query, _, key, keySize, value, valueSize in
                        guard let key else { return MHD_Result.YES }
                        func text(_ bytes: UnsafePointer<CChar>?, _ count: Int) -> String {
                            guard let bytes else { return "" }
                            return bytes.withMemoryRebound(to: UInt8.self, capacity: count) {
                                String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                            }
                        }
                        query!.assumingMemoryBound(to: [String: String].self).pointee[text(key, keySize)] =
                            text(value, valueSize)
                        return MHD_Result.YES
                    }, query)
            }
            (box.clientAddress, box.clientPort) = client(of: connection)
            box.path = url.map { String(cString: $0) } ?? ""
            requestContext.pointee = Unmanaged.passRetained(box).toOpaque()  // Released by the completion callback.
            // Refused before reading the body; MHD closes the connection after this answer. The
            // budget is taken as bytes arrive, not as declared: a client that declares much and
            // sends nothing holds nothing.
            if let length = box.headerFields[.contentLength].flatMap({ Int($0) }), length > core.maxBodyBytes {
                box.tooLarge = true
            }
            if box.tooLarge || !box.conflictingLengths.isEmpty {
                return finish(box, core: core, connection: connection, url: url, method: method)
            }
            return MHD_Result.YES
        }
        let box = Unmanaged<RequestBox>.fromOpaque(boxPointer).takeUnretainedValue()  // Retained until completion.
        if uploadSize.pointee > 0 {
            if case .receiving = box.phase {
                let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
                box.append(chunk, maxBodyBytes: core.maxBodyBytes)
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        return finish(box, core: core, connection: connection, url: url, method: method)
    }

    /// The last call for a request (or a resumed one): decide, then answer, suspend or close.
    private static func finish(
        _ box: RequestBox, core: Core, connection: OpaquePointer, url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?
    ) -> MHD_Result {
        switch box.phase {
        case .answered:
            return MHD_Result.YES
        case .hanging:
            return MHD_Result.NO
        case .awaiting:
            box.phase = .answered
            let reply = core.state.withLock { $0.ready.removeValue(forKey: Int(bitPattern: connection)) }
            guard let reply else { return MHD_Result.NO }
            return queue(reply, on: connection)
        case .delayed(let reply):
            box.phase = .answered
            return queue(reply, on: connection)
        case .receiving:
            break
        }
        // libmicrohttpd takes any token as a method; anything else has no HTTP method to answer.
        guard let method = method.flatMap({ HTTPRequest.Method(String(cString: $0)) }) else {
            box.phase = .answered
            return queue(OutgoingReply(status: 400), on: connection)
        }
        let request = IncomingRequest(
            method: method, path: url.map { String(cString: $0) } ?? "",
            query: box.query, headerFields: box.headerFields, body: box.body, bodyTooLarge: box.tooLarge,
            bodyOverBudget: box.overBudget, conflictingContentLengths: box.conflictingLengths,
            clientPort: box.clientPort, clientAddress: box.clientAddress,
            bodyMicros: Int64((box.lastBodyNanos - box.firstBodyNanos) / 1000))
        box.body = []
        let disposition = core.respond(request)
        box.reservation.release()  // The responder has taken what it keeps into its own budget.
        switch disposition {
        case .reply(let reply, let delay) where delay > 0:
            box.phase = .delayed(reply)
            if suspend(connection, core: core, millis: delay) { return MHD_Result.YES }
            box.phase = .answered
            return queue(reply, on: connection)
        case .reply(let reply, _):
            box.phase = .answered
            return queue(reply, on: connection)
        case .hang(let millis):
            box.phase = .hanging
            return suspend(connection, core: core, millis: millis) ? MHD_Result.YES : MHD_Result.NO
        case .close:
            return MHD_Result.NO
        case .later(let timeoutMillis, let timeoutReply, let start):
            box.phase = .awaiting
            guard let generation = core.suspend(connection, timeoutReply: timeoutReply) else { return MHD_Result.NO }
            let address = Int(bitPattern: connection)
            // A Dispatch timer, not the cooperative pool: it only hands the connection back to MHD.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(timeoutMillis)) {
                core.timedOut(address, generation: generation)
            }
            start(PendingReply(core: core, connection: address, generation: generation))
            return MHD_Result.YES
        case .stream(let headerFields, let stream):
            box.phase = .answered
            return stream.start(on: connection, core: core, headerFields: headerFields)
        }
    }

    /// The peer's address as text and its TCP port (IPv4 or IPv6); empty and 0 when MHD does not
    /// know them.
    private static func client(of connection: OpaquePointer) -> (address: String, port: UInt16) {
        guard let address = beekon_mhd_connection_client_address(connection) else { return ("", 0) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                var bytes = $0.pointee.sin_addr
                let shown = inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count)) == nil ? "" : String(cString: text)
                return (shown, UInt16(bigEndian: $0.pointee.sin_port))
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                var bytes = $0.pointee.sin6_addr
                let shown =
                    inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)) == nil ? "" : String(cString: text)
                return (shown, UInt16(bigEndian: $0.pointee.sin6_port))
            }
        default:
            return ("", 0)
        }
    }

    /// Suspends `connection` and arms a timer that resumes it; false when the daemon is stopping.
    private static func suspend(_ connection: OpaquePointer, core: Core, millis: Int) -> Bool {
        let address = Int(bitPattern: connection)
        guard let generation = core.suspend(connection) else { return false }
        // A Dispatch timer, not the cooperative pool: it only hands the connection back to MHD.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(millis)) {
            core.resume(address, generation: generation)
        }
        return true
    }

    static func queue(_ reply: OutgoingReply, on connection: OpaquePointer) -> MHD_Result {
        let response = reply.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response else { return MHD_Result.NO }
        for field in reply.head.headerFields {
            _ = MHD_add_response_header(response, field.name.rawName, field.value)
        }
        let queued = MHD_queue_response(connection, UInt32(reply.status), response)
        MHD_destroy_response(response)
        return queued
    }
}
