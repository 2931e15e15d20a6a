import BeekonNet
import Foundation
import Testing

@testable import IngestReceiver

/// Hostile input gets the right 4xx, and the receiver keeps answering and storing afterwards.
@Suite("Hostile input")
struct HostileInputTests {
    /// A valid upload still goes through and is stored.
    static func stillServes(_ harness: ReceiverHarness) async throws {
        let before = try harness.count("SELECT count(*) FROM batches")
        #expect(try await harness.upload(harness.payload().json).status == 200)
        #expect(try harness.count("SELECT count(*) FROM batches") == before + 1)
    }

    static func post(_ harness: ReceiverHarness, body: [UInt8], gzipHeader: Bool = true) async -> HTTPResult {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if gzipHeader { headers.append(("Content-Encoding", "gzip")) }
        return await harness.send(
            HTTPRequest(url: harness.receiver.url, headers: headers, body: body, connectionKey: "hostile"))
    }

    @Test("bad gzip is refused 400")
    func badGzip() async throws {
        let harness = try ReceiverHarness()
        let valid = try GzipCompressor().compress(harness.payload().json)
        for body in [Array("not gzip at all".utf8), Array(valid.prefix(valid.count / 2)), [0x1F, 0x8B]] {
            let result = await Self.post(harness, body: body)
            #expect(result.status == 400)
            #expect(result.reason.contains("gzip"))
        }
        try await Self.stillServes(harness)
    }

    @Test("bad UTF-8 is refused 400")
    func badUTF8() async throws {
        let harness = try ReceiverHarness()
        var json = Array(seedExample.utf8)
        // A lone continuation byte, then an overlong NUL, inside the geofence id "home".
        let index = try #require(json.lastIndex(of: UInt8(ascii: "h")))
        json[index] = 0xFF
        let result = try await harness.upload(json)
        #expect(result.status == 400)
        #expect(result.reason.hasPrefix("body"))
        json[index] = 0xC0
        json.insert(0x80, at: index + 1)
        #expect(try await harness.upload(json).status == 400)
        try await Self.stillServes(harness)
    }

    @Test("deep JSON is refused 400 without recursing", arguments: [33, 600, 2_000_000])
    func deepJSON(depth: Int) async throws {
        let harness = try ReceiverHarness()
        let body = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
        let result = try await harness.upload(body)
        #expect(result.status == 400)
        #expect(result.reason.contains("nested deeper"))
        try await Self.stillServes(harness)
    }

    @Test("a body over the limit is refused 413, whether declared or streamed")
    func oversized() async throws {
        let harness = try ReceiverHarness { $0.maxBodyBytes = 64 << 10 }
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: 200 << 10)
        let declared = await Self.post(harness, body: big, gzipHeader: false)
        #expect(declared.status == 413)
        #expect(declared.reason.contains("limit"))
        try await Self.stillServes(harness)
        let chunked = await harness.send(
            HTTPRequest(
                url: harness.receiver.url,
                headers: [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")], body: big,
                connectionKey: "chunked"))
        #expect(chunked.status == 413, "\(chunked)")
        try await Self.stillServes(harness)
    }

    @Test("a gzip bomb is refused 413 once it inflates past the limit")
    func gzipBomb() async throws {
        let harness = try ReceiverHarness { $0.maxInflatedBytes = 1 << 20 }
        let bomb = try GzipCompressor().compress([UInt8](repeating: 0x20, count: 16 << 20))
        #expect(bomb.count < 64 << 10)
        let result = await Self.post(harness, body: bomb)
        #expect(result.status == 413)
        #expect(result.reason.contains("inflates"))
        try await Self.stillServes(harness)
    }

    @Test("a client that stalls mid-request is cut off by the connection timeout")
    func slowClient() async throws {
        let harness = try ReceiverHarness { $0.connectionTimeoutSeconds = 1 }
        let socket = RawSocket.connect(port: harness.receiver.port)
        #expect(socket >= 0)
        defer { close(socket) }
        let head = "POST /ingest HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"sch"
        _ = head.withCString { send(socket, $0, strlen($0), 0) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 256)
        let clock = ContinuousClock()
        let start = clock.now
        let read = recv(socket, &buffer, buffer.count, 0)
        #expect(read <= 0, "the stalled request was answered")
        #expect(clock.now - start < .seconds(4))
        try await Self.stillServes(harness)
    }
}

/// A blocking TCP connection to 127.0.0.1, for the raw-socket test.
enum RawSocket {
    static func connect(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return connected == 0 ? fd : -1
    }
}
