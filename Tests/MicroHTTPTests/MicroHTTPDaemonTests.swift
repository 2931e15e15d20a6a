import BeekonNet
import Dispatch
import HTTPMessage
import HTTPTypes
import Synchronization
import Testing

@testable import MicroHTTP

/// The daemon against a real libcurl client on 127.0.0.1, port 0.
@Suite("MicroHTTP daemon")
struct MicroHTTPDaemonTests {
    /// Sends `request` and waits for its result without blocking a cooperative thread.
    static func send(_ transport: HTTPTransport, _ request: OutboundRequest) async -> HTTPResult {
        await withCheckedContinuation { continuation in
            transport.submit(request) { continuation.resume(returning: $0) }
        }
    }

    /// A daemon on 127.0.0.1, port 0, answering with `respond`; idle connections live 10 minutes,
    /// so connection reuse does not depend on how soon a busy test run gets back to a test.
    static func daemon(_ respond: @escaping MicroHTTPDaemon.Responder) throws -> MicroHTTPDaemon {
        try MicroHTTPDaemon(
            host: "127.0.0.1", port: 0, threads: 1, connectionTimeoutSeconds: 600, connectionLimit: 64,
            maxBodyBytes: 1 << 20, respond: respond)
    }

    @Test("a request carries its client's port: one port per connection")
    func clientPort() async throws {
        let ports = Mutex<[UInt16]>([])
        let daemon = try Self.daemon { request in
            ports.withLock { $0.append(request.clientPort) }
            return .reply(OutgoingReply(status: 204), delayMillis: 0)
        }
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        for key in ["a", "a", "b"] {
            let request = OutboundRequest(
                url: "http://127.0.0.1:\(daemon.port)/", timeoutMillis: 5000, connectionKey: key)
            #expect(await Self.send(transport, request).status == 204)
        }
        let seen = ports.withLock { $0 }
        #expect(seen.count == 3 && seen.allSatisfy { $0 != 0 })
        #expect(seen[0] == seen[1])
        #expect(seen[2] != seen[0])
    }

    @Test("a deferred request can be answered, or closed unanswered, from another thread")
    func deferredSendAndClose() async throws {
        let daemon = try Self.daemon { request in
            .later(timeoutMillis: 5000, timeoutReply: OutgoingReply(status: 504)) { pending in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                    if request.path == "/close" {
                        pending.close()
                    } else {
                        pending.send(OutgoingReply(status: 201))
                    }
                    pending.send(OutgoingReply(status: 500))  // Too late: the first one won.
                }
            }
        }
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let answered = await Self.send(
            transport,
            OutboundRequest(url: "http://127.0.0.1:\(daemon.port)/send", timeoutMillis: 5000, connectionKey: "a"))
        #expect(answered.status == 201)
        let closed = await Self.send(
            transport,
            OutboundRequest(url: "http://127.0.0.1:\(daemon.port)/close", timeoutMillis: 5000, connectionKey: "b"))
        var reset = false
        if case .failed(.reset, _, _) = closed { reset = true }
        #expect(reset, "expected a reset, got \(closed)")
    }

    @Test(
        """
        a deferred request nobody answers gets its timeout reply at its time; \
        one answered lets its timeout reply go at once
        """
    )
    func deferredTimeout() async throws {
        let daemon = try Self.daemon { request in
            .later(timeoutMillis: request.path == "/never" ? 200 : 60_000, timeoutReply: OutgoingReply(status: 504)) {
                pending in
                if request.path != "/never" { pending.send(OutgoingReply(status: 201)) }
            }
        }
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        for number in 0..<20 {
            let answered = await Self.send(
                transport,
                OutboundRequest(
                    url: "http://127.0.0.1:\(daemon.port)/send", timeoutMillis: 5000, connectionKey: "c\(number % 4)"))
            #expect(answered.status == 201)
        }
        #expect(
            daemon.timeoutRepliesHeld == 0, "answered requests still hold their timeout replies until their timers fire"
        )
        let started = DispatchTime.now().uptimeNanoseconds
        let timedOut = await Self.send(
            transport,
            OutboundRequest(url: "http://127.0.0.1:\(daemon.port)/never", timeoutMillis: 5000, connectionKey: "n"))
        #expect(timedOut.status == 504)
        #expect(DispatchTime.now().uptimeNanoseconds - started >= 200_000_000)
        #expect(daemon.timeoutRepliesHeld == 0)
    }
}

/// The daemon's memory budget: bodies take their bytes as they arrive and give them back.
@Suite("MicroHTTP memory budget")
struct MicroHTTPBudgetTests {
    @Test(
        "a body that fits the budget reaches the responder; one that does not arrives flagged and empty",
        arguments: [(512, false, false), (4096, false, true), (512, true, false), (4096, true, true)])
    func budget(size: Int, chunked: Bool, over: Bool) async throws {
        let budget = MemoryBudget(limit: 2048)
        let seen = Mutex<[(Int, Bool)]>([])
        let daemon = try MicroHTTPDaemon(
            host: "127.0.0.1", port: 0, threads: 1, maxBodyBytes: 1 << 20, memoryBudget: budget
        ) { request in
            seen.withLock { $0.append((request.body.count, request.bodyOverBudget)) }
            return .reply(OutgoingReply(status: request.bodyOverBudget ? 503 : 204), delayMillis: 0)
        }
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let headers: [(name: String, value: String)] = chunked ? [("Transfer-Encoding", "chunked")] : []
        let result = await MicroHTTPDaemonTests.send(
            transport,
            OutboundRequest(
                url: "http://127.0.0.1:\(daemon.port)/", headerFields: HTTPFields(textPairs: headers),
                body: [UInt8](repeating: 7, count: size),
                timeoutMillis: 5000, connectionKey: "a"))
        #expect(result.status == (over ? 503 : 204))
        let (count, flagged) = try #require(seen.withLock { $0.first })
        #expect(flagged == over)
        #expect(count == (over ? 0 : size))
        #expect(budget.inUse == 0)
    }
}
