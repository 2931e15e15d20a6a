import Foundation
import HTTPMessage
import HTTPTypes
import Synchronization
import Testing

@testable import BeekonNet

/// The transport against real libmicrohttpd servers on 127.0.0.1, port 0.
@Suite("HTTP transport")
struct HTTPTransportTests {
    /// Sends `request` and waits for its result without blocking a cooperative thread.
    static func send(_ transport: HTTPTransport, _ request: OutboundRequest) async -> HTTPResult {
        await withCheckedContinuation { continuation in
            transport.submit(request) { continuation.resume(returning: $0) }
        }
    }

    static func url(_ server: LoopbackServer, _ path: String = "/v1/locations") -> String {
        "http://127.0.0.1:\(server.port)\(path)"
    }

    @Test("a POST's gzip body and headers reach the server byte for byte")
    func postArrivesExactly() async throws {
        let server = try LoopbackServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let json = Array(#"{"schema_version":1,"locations":[{"latitude":37.7749}]}"#.utf8)
        let gzipped = try GzipCompressor().compress(json)
        let request = OutboundRequest(
            url: Self.url(server),
            headerFields: HTTPFields(textPairs: [
                ("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                ("Authorization", "Bearer token-1"), ("X-Beekon-Device", "device-7"),
            ]),
            body: gzipped, timeoutMillis: 5000, connectionKey: "device-7")
        let result = await Self.send(transport, request)
        #expect(result.status == 200)
        let received = try #require(server.received.first)
        #expect(received.method == "POST")
        #expect(received.path == "/v1/locations")
        #expect(received.body == gzipped)
        #expect(try GzipDecompressor().decompress(received.body) == json)
        #expect(received.headers["content-encoding"] == "gzip")
        #expect(received.headers["content-type"] == "application/json")
        #expect(received.headers["authorization"] == "Bearer token-1")
        #expect(received.headers["x-beekon-device"] == "device-7")
        #expect(received.headers["content-length"] == String(gzipped.count))
        #expect(received.headers["expect"] == nil)
    }

    @Test("a body marked gzipBody is sent as the compressor's bytes for it, with the given headers")
    func gzipBodyOnTheTransportThread() async throws {
        let server = try LoopbackServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let json = Array(#"{"schema_version":1,"locations":[{"latitude":37.7749}]}"#.utf8)
        let request = OutboundRequest(
            url: Self.url(server),
            headerFields: HTTPFields(textPairs: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")]),
            body: json, gzipBody: true, timeoutMillis: 5000, connectionKey: "device-7")
        let result = await Self.send(transport, request)
        #expect(result.status == 200)
        let received = try #require(server.received.first)
        #expect(received.body == (try GzipCompressor().compress(json)))
        #expect(try GzipDecompressor().decompress(received.body) == json)
        #expect(received.headers["content-encoding"] == "gzip")
        #expect(received.headers["content-length"] == String(received.body.count))
    }

    @Test("a GET and an empty POST send no body and no form content type")
    func emptyBodies() async throws {
        let server = try LoopbackServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let get = await Self.send(
            transport,
            OutboundRequest(url: Self.url(server), method: .get, timeoutMillis: 5000, connectionKey: "a"))
        let post = await Self.send(
            transport, OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "a"))
        #expect(get.status == 200)
        #expect(post.status == 200)
        let received = server.received
        #expect(received.map(\.method) == ["GET", "POST"])
        #expect(received.allSatisfy { $0.body.isEmpty && $0.headers["content-type"] == nil })
        #expect(received[1].headers["content-length"] == "0")
    }

    @Test("the status, response headers and body come back")
    func responseComesBack() async throws {
        let server = try LoopbackServer(
            answer: .init(
                status: 207, headers: [("X-Request-Id", "req-42"), ("Retry-After", "30")],
                body: Array(#"{"accepted":3}"#.utf8)))
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let result = await Self.send(
            transport, OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "d"))
        guard case .response(let response, let body, let latency) = result else {
            Issue.record("expected a response, got \(result)")
            return
        }
        #expect(response.status.code == 207)
        #expect(body == Array(#"{"accepted":3}"#.utf8))
        #expect(result.header("x-request-id") == "req-42")
        #expect(result.header("Retry-After") == "30")
        #expect(latency >= 0 && latency < 5000)
    }

    @Test("a 302 is returned as a status, never followed")
    func redirectIsNotFollowed() async throws {
        let server = try LoopbackServer()
        server.answer = .init(status: 302, headers: [("Location", Self.url(server, "/elsewhere"))])
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let result = await Self.send(
            transport, OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "d"))
        #expect(result.status == 302)
        #expect(result.header("location") == Self.url(server, "/elsewhere"))
        #expect(server.received.map(\.path) == ["/v1/locations"])
    }

    @Test("a closed port fails as refused")
    func refused() async throws {
        let port = try LoopbackServer.closedPort()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let result = await Self.send(
            transport, OutboundRequest(url: "http://127.0.0.1:\(port)/", timeoutMillis: 5000, connectionKey: "d"))
        guard case .failed(let kind, let message, _) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(kind == .refused, "\(message)")
    }

    @Test("an unresolvable host fails (as dns wherever the machine has a resolver)")
    func unresolvable() async throws {
        let transport = try HTTPTransport(connectTimeoutMillis: 3000)
        defer { transport.shutdown() }
        let result = await Self.send(
            transport,
            OutboundRequest(url: "http://nonexistent.invalid/", timeoutMillis: 5000, connectionKey: "d"))
        guard case .failed(let kind, let message, _) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        // Without DNS at all the lookup may time out instead; any failure is acceptable then.
        #expect(kind == .dns || kind == .timeout || kind == .other, "\(kind): \(message)")
    }

    @Test("a server that closes the connection without answering fails as reset")
    func reset() async throws {
        let server = try LoopbackServer(answer: .init(closeWithoutAnswer: true))
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let result = await Self.send(
            transport, OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "d"))
        guard case .failed(let kind, let message, _) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(kind == .reset, "\(message)")
    }

    @Test("TLS to a plain-HTTP port, or with a missing CA file, fails as tls")
    func tls() async throws {
        let server = try LoopbackServer()
        let url = "https://127.0.0.1:\(server.port)/"
        let insecure = try HTTPTransport(insecure: true)
        defer { insecure.shutdown() }
        let handshake = await Self.send(
            insecure, OutboundRequest(url: url, timeoutMillis: 5000, connectionKey: "d"))
        guard case .failed(let kind, let message, _) = handshake else {
            Issue.record("expected a failure, got \(handshake)")
            return
        }
        #expect(kind == .tls, "\(message)")

        let missingCA = try HTTPTransport(caFile: "/nonexistent/beekon-ca.pem")
        defer { missingCA.shutdown() }
        let badFile = await Self.send(
            missingCA, OutboundRequest(url: url, timeoutMillis: 5000, connectionKey: "d"))
        guard case .failed(let badFileKind, let badFileMessage, _) = badFile else {
            Issue.record("expected a failure, got \(badFile)")
            return
        }
        #expect(badFileKind == .tls, "\(badFileMessage)")
    }

    @Test("dropping the transport without shutdown still cancels what is in flight")
    func deinitCancels() async throws {
        let server = try LoopbackServer(answer: .init(delayMillis: 500))
        let results = Mutex<[HTTPResult]>([])
        do {
            let transport = try HTTPTransport()
            for index in 0..<3 {
                transport.submit(
                    OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "device-\(index)")
                ) { result in results.withLock { $0.append(result) } }
            }
        }
        let deadline = ContinuousClock.now + .seconds(3)
        while results.withLock({ $0.count }) < 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 3)
        #expect(delivered.allSatisfy { if case .failed(.other, "cancelled", _) = $0 { true } else { false } })
    }

    @Test("a server that answers after the request's timeout fails as timeout")
    func timeout() async throws {
        let server = try LoopbackServer(answer: .init(delayMillis: 3000))
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let result = await Self.send(
            transport, OutboundRequest(url: Self.url(server), timeoutMillis: 300, connectionKey: "d"))
        guard case .failed(let kind, _, let latency) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(kind == .timeout)
        // Gave up at the timeout, not when the server finally answered.
        #expect(latency >= 250 && latency < 3000)
    }

    @Test("one device reuses its connection; two devices never share one")
    func connectionPerDevice() async throws {
        let server = try LoopbackServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        for key in ["device-a", "device-a", "device-a", "device-b", "device-b", "device-a"] {
            let result = await Self.send(
                transport, OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: key))
            #expect(result.status == 200)
        }
        let ports = server.received.map(\.clientPort)
        #expect(ports.count == 6)
        #expect(Set(ports[0...2]).count == 1)
        #expect(Set(ports[3...4]).count == 1)
        #expect(ports[0] != ports[3])
        #expect(ports[5] == ports[0])
    }

    @Test(
        """
        a request leaves from its source address, and a device's connection is reused only from \
        the same address; an address the machine does not have is the client's failure
        """)
    func sourceAddress() async throws {
        let server = try LoopbackServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        for address in ["127.0.0.3", "127.0.0.3", "127.0.0.4", nil] {
            let result = await Self.send(
                transport,
                OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "a", sourceAddress: address))
            #expect(result.status == 200)
        }
        let received = server.received
        #expect(received.map(\.clientAddress) == ["127.0.0.3", "127.0.0.3", "127.0.0.4", "127.0.0.1"])
        #expect(received[0].clientPort == received[1].clientPort)
        #expect(Set(received.map(\.clientPort)).count == 3)
        // 10.9.9.9 is none of this machine's addresses: libcurl cannot bind to it.
        let unbound = await Self.send(
            transport,
            OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "b", sourceAddress: "10.9.9.9"))
        guard case .failed(let kind, let message, _) = unbound else {
            Issue.record("expected a failure, got \(unbound)")
            return
        }
        #expect(kind == .sourceAddress, "\(message)")
        #expect(server.received.count == 4)
    }

    @Test(
        """
        a paced body leaves a segment at a time, no faster than its limit (20,000 bytes at 40,000 a \
        second: the server reads it over at least 0.4 s), and arrives whole
        """)
    func pacedBody() async throws {
        let server = try LoopbackServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        var request = OutboundRequest(
            url: Self.url(server), body: Array(repeating: 7, count: 20_000), timeoutMillis: 30_000, connectionKey: "a")
        request.maxSendBytesPerSecond = 40_000
        #expect(await Self.send(transport, request).status == 200)
        let received = try #require(server.received.first)
        #expect(received.body == request.body)
        // A lower bound only: a loaded machine sends slower, never faster.
        #expect(received.bodyMicros >= 400_000, "\(received.bodyMicros) µs")
    }

    @Test(
        """
        a body cut after 3,000 of 20,000 bytes resets the connection: the client hears reset, the \
        server never gets a whole request, and the device's next request arrives whole
        """)
    func cutBody() async throws {
        let server = try LoopbackServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        var request = OutboundRequest(
            url: Self.url(server), body: Array(repeating: 7, count: 20_000), timeoutMillis: 30_000, connectionKey: "a")
        request.abortAfterBytes = 3_000
        let cut = await Self.send(transport, request)
        guard case .failed(let kind, let message, _) = cut else {
            Issue.record("expected a failure, got \(cut)")
            return
        }
        #expect(kind == .reset, "\(message)")
        #expect(server.received.isEmpty)
        request.abortAfterBytes = nil
        #expect(await Self.send(transport, request).status == 200)
        #expect(server.received.map(\.body.count) == [20_000])
    }

    @Test("a request asking for a fresh connection gets one; the next reuses that one")
    func freshConnection() async throws {
        let server = try LoopbackServer()
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        for fresh in [false, true, false] {
            var request = OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "a")
            request.freshConnection = fresh
            #expect(await Self.send(transport, request).status == 200)
        }
        let ports = server.received.map(\.clientPort)
        #expect(ports[0] != ports[1])
        #expect(ports[1] == ports[2])
    }

    @Test("an idle device beyond the idle bound loses its connection, least recently used first")
    func idleEviction() async throws {
        let server = try LoopbackServer()
        let transport = try HTTPTransport(maxIdleConnections: 1)
        defer { transport.shutdown() }
        for key in ["a", "b", "b", "a"] {
            _ = await Self.send(
                transport, OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: key))
        }
        let ports = server.received.map(\.clientPort)
        #expect(ports[1] == ports[2])
        #expect(Set(ports).count == 3)
        #expect(ports[3] != ports[0])
    }

    @Test("a device's request while its connection is busy goes on a connection of its own: none waits for another")
    func busyDeviceOpensAnother() async throws {
        let server = try LoopbackServer(answer: .init(delayMillis: 300))
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<4 {
                group.addTask {
                    _ = await Self.send(
                        transport,
                        OutboundRequest(
                            url: Self.url(server, "/\(index)"), timeoutMillis: 5000, connectionKey: "same"))
                }
            }
        }
        #expect(server.maxInFlight == 4)
        #expect(Set(server.received.map(\.clientPort)).count == 4)
        // Idle again, the device's next request reuses one of them: its own connection is kept.
        _ = await Self.send(
            transport, OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "same"))
        #expect(Set(server.received.map(\.clientPort)).count == 4)
    }

    @Test("a request cancelled on the wire ends as cancelled, without its answer, and its connection is closed")
    func cancelRunning() async throws {
        // An answer ten minutes away: the cancel comes first however loaded the machine is.
        let server = try LoopbackServer(answer: .init(delayMillis: 600_000))
        defer { server.stop() }
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let result = Mutex<HTTPResult?>(nil)
        transport.submit(OutboundRequest(url: Self.url(server), timeoutMillis: 900_000, connectionKey: "a"), id: 7) {
            outcome in result.withLock { $0 = outcome }
        }
        while server.received.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        transport.cancel(id: 7)
        while result.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(5)) }
        guard case .failed(.cancelled, _, _)? = result.withLock({ $0 }) else {
            Issue.record("cancelled request ended \(String(describing: result.withLock { $0 }))")
            return
        }
        server.answer = .init()
        _ = await Self.send(transport, OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "a"))
        let ports = server.received.map(\.clientPort)
        #expect(ports.count == 2 && ports[0] != ports[1], "the cancelled connection was reused")
        transport.cancel(id: 7)  // Ended already: no effect.
    }

    @Test("a request cancelled while it waits for room never reaches the server")
    func cancelWaiting() async throws {
        // The first request holds the only slot until the test cancels it too (its answer and its
        // timeout ten minutes away): no timing involved.
        let server = try LoopbackServer(answer: .init(delayMillis: 600_000))
        let transport = try HTTPTransport(maxConcurrentTransfers: 1)
        defer { transport.shutdown() }
        let outcomes = Mutex<[Int: HTTPResult]>([:])
        for (id, path) in [(1, "/first"), (2, "/second")] {
            let request = OutboundRequest(url: Self.url(server, path), timeoutMillis: 900_000, connectionKey: path)
            transport.submit(request, id: id) { outcome in
                outcomes.withLock { $0[id] = outcome }
            }
            while id == 1, server.received.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        }
        transport.cancel(id: 2)
        while outcomes.withLock({ $0[2] }) == nil { try await Task.sleep(for: .milliseconds(5)) }
        if case .failed(.cancelled, _, _)? = outcomes.withLock({ $0[2] }) {
        } else {
            Issue.record("the waiting request ended \(String(describing: outcomes.withLock { $0[2] }))")
        }
        transport.cancel(id: 1)
        while outcomes.withLock({ $0[1] }) == nil { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.received.map(\.path) == ["/first"])
    }

    @Test("a malformed URL fails as other without touching the network")
    func malformedURL() async throws {
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let result = await Self.send(
            transport, OutboundRequest(url: "gopherx://127.0.0.1/", timeoutMillis: 1000, connectionKey: "d"))
        guard case .failed(.other, _, _) = result else {
            Issue.record("expected an .other failure, got \(result)")
            return
        }
    }

    @Test("the concurrency cap holds: cap 2, ten slow requests, never more than two at once")
    func concurrencyCap() async throws {
        let server = try LoopbackServer(answer: .init(delayMillis: 150))
        let transport = try HTTPTransport(maxConcurrentTransfers: 2)
        defer { transport.shutdown() }
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<10 {
                group.addTask {
                    await Self.send(
                        transport,
                        OutboundRequest(
                            url: Self.url(server), timeoutMillis: 5000, connectionKey: "device-\(index)")
                    ).status
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 10))
        #expect(server.maxInFlight == 2)
        #expect(Set(server.received.map(\.clientPort)).count == 10)
    }

    @Test("shutdown with transfers in flight and queued completes each exactly once as cancelled")
    func shutdownCancels() async throws {
        // Answers slowly enough that nothing completes before the shutdown, even on a busy machine
        // whose cooperative pool resumes this task late (once 18 s late with 6 s answers, once over
        // 3 minutes late with 1-minute answers and 2-minute timeouts, when the three rounds of two
        // had all finished): a round takes 10 minutes here. The shutdown ends it at once.
        let server = try LoopbackServer(answer: .init(delayMillis: 600_000))
        let transport = try HTTPTransport(maxConcurrentTransfers: 2)
        let results = Mutex<[HTTPResult]>([])
        for index in 0..<6 {
            transport.submit(
                OutboundRequest(url: Self.url(server), timeoutMillis: 1_200_000, connectionKey: "device-\(index)")
            ) { result in results.withLock { $0.append(result) } }
        }
        // Let the first two reach the server.
        let deadline = ContinuousClock.now + .seconds(3)
        while server.received.count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        // A test machine running other tests may resume this task only after the server has
        // answered some; those finished before the shutdown, and only the rest must be cancelled.
        let finishedBefore = results.withLock { $0.count }
        transport.shutdown()
        transport.shutdown()
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 6)
        #expect(finishedBefore < 6)
        for result in delivered.dropFirst(finishedBefore) {
            guard case .failed(.other, "cancelled", _) = result else {
                Issue.record("expected cancelled, got \(result)")
                continue
            }
        }
        let late = await Self.send(transport, OutboundRequest(url: Self.url(server), connectionKey: "late"))
        guard case .failed(.other, "cancelled", _) = late else {
            Issue.record("expected cancelled after shutdown, got \(late)")
            return
        }
    }

    @Test("a response body over the cap fails instead of growing without bound")
    func bodyCap() async throws {
        let server = try LoopbackServer(answer: .init(body: Array(repeating: 0x61, count: 100_000)))
        let transport = try HTTPTransport(maxResponseBytes: 10_000)
        defer { transport.shutdown() }
        let result = await Self.send(
            transport, OutboundRequest(url: Self.url(server), timeoutMillis: 5000, connectionKey: "d"))
        guard case .failed(.other, let message, _) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(message.contains("10000"))
    }

    @Test("response heads after a 1xx are the ones reported")
    func headerParsing() {
        let lines = [
            "HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 200 OK\r\n",
            "Content-Type:  application/json \r\n",
            "X-Empty:\r\n", "\r\n",
        ].map { Array($0.utf8) }
        let headers = CurlEasy.parseHeaders(lines)
        #expect(headers.map(\.name.rawName) == ["Content-Type", "X-Empty"])
        #expect(headers.map(\.value) == ["application/json", ""])
    }

    @Test(
        "curl codes, with the errno libcurl saw, map to the transport's failure kinds",
        arguments: [
            (6, 0, NetworkFailure.dns), (7, 0, .refused), (7, ECONNREFUSED, .refused), (7, EMFILE, .tooManyOpenFiles),
            (7, ENFILE, .tooManyOpenFiles), (6, EMFILE, .dns), (28, 0, .timeout), (60, 0, .tls), (35, 0, .tls),
            (52, 0, .reset), (56, 0, .reset), (18, 0, .reset), (3, 0, .other), (45, 0, .sourceAddress), (42, 0, .reset),
            (7, EINVAL, .sourceAddress),
        ] as [(Int32, Int32, NetworkFailure)])
    func failureKinds(code: Int32, osErrno: Int32, kind: NetworkFailure) {
        #expect(CurlError(rawValue: code).networkFailure(osErrno: osErrno) == kind)
    }

    @Test("the named curl constants are the codes curl.h defines, and the failure kinds are the documented labels")
    func namedCodes() {
        #expect(CurlError.couldNotResolveHost.message == "Couldn't resolve host name")
        #expect(CurlError.gotNothing.networkFailure(osErrno: 0) == .reset)
        #expect(CurlError.peerFailedVerification.networkFailure(osErrno: 0) == .tls)
        #expect(
            NetworkFailure.allCases.map(\.rawValue)
                == [
                    "dns", "refused", "too-many-open-files", "source-address", "timeout", "tls", "reset", "other",
                    "cancelled",
                ])
    }
}
