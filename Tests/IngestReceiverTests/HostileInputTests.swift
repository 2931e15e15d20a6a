import BeekonNet
import FleetTestSupport
import Foundation
import HTTPMessage
import HTTPTypes
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
            OutboundRequest(
                url: harness.receiver.url, headerFields: HTTPFields(textPairs: headers), body: body,
                connectionKey: "hostile"))
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
            OutboundRequest(
                url: harness.receiver.url,
                headerFields: HTTPFields(textPairs: [
                    ("Content-Type", "application/json"), ("Transfer-Encoding", "chunked"),
                ]), body: big,
                connectionKey: "chunked"))
        #expect(chunked.status == 413, "\(chunked)")
        try await Self.stillServes(harness)
    }

    /// Bodies that inflate to 16 MiB from a few KB: spaces, an array of zeros (what costs a
    /// generic parser most), and the same split over many gzip members.
    static let bombs: [(name: String, plain: [UInt8], members: Int)] = [
        ("16 MiB of spaces", [UInt8](repeating: 0x20, count: 16 << 20), 1),
        (
            "16 MiB array of zeros",
            Array("[".utf8) + Array(repeating: Array("0,".utf8), count: 8 << 20).flatMap { $0 } + Array("0]".utf8), 1
        ),
        ("16 MiB of spaces in 64 gzip members", [UInt8](repeating: 0x20, count: 256 << 10), 64),
    ]

    @Test(
        "a gzip bomb is refused 413 once it inflates past the limit, and the receiver keeps serving",
        arguments: bombs.indices)
    func gzipBomb(index: Int) async throws {
        let (_, plain, members) = Self.bombs[index]
        let harness = try ReceiverHarness { $0.maxInflatedBytes = 1 << 20 }
        let member = try GzipCompressor().compress(plain)
        let bomb = Array(repeating: member, count: members).flatMap { $0 }
        #expect(bomb.count < 64 << 10)
        let result = await Self.post(harness, body: bomb)
        #expect(result.status == 413)
        #expect(result.reason.contains("inflates to more than 1048576 bytes"), "\(result.reason)")
        try await Self.stillServes(harness)
    }

    @Test("the SDK's largest batch (batchSize 1000, with geofence events) fits every default budget")
    func largestBatch() async throws {
        let harness = try ReceiverHarness()
        let defaults = IngestReceiverConfiguration()
        let json = harness.payload(fixes: 1000, events: 100).json
        // Ten times under the inflate limit, and well under the element limit (about 14 values a fix).
        #expect(json.count * 10 < defaults.maxInflatedBytes, "\(json.count) bytes")
        #expect(1100 * 14 * 5 < defaults.maxJSONElements)
        let result = try await harness.upload(json)
        #expect(result.status == 200)
        #expect(result.json["stored_locations"] as? Int == 1000)
        #expect(try harness.count("SELECT count(*) FROM locations") == 1000)
    }

    @Test(
        "more JSON values than the element limit are refused 400 naming the limit",
        arguments: [
            "[" + Array(repeating: "0", count: 101).joined(separator: ",") + "]",
            "{" + (0..<101).map { "\"k\($0)\": true" }.joined(separator: ",") + "}",
            #"{"locations": ["# + Array(repeating: #"{"a": "b"}"#, count: 60).joined(separator: ",") + "]}",
        ])
    func tooManyElements(json: String) async throws {
        let harness = try ReceiverHarness { $0.maxJSONElements = 100 }
        let result = try await harness.upload(Array(json.utf8))
        #expect(result.status == 400)
        #expect(result.reason.contains("more than 100 JSON values (the element limit)"), "\(result.reason)")
        try await Self.stillServes(harness)
    }

    /// `{"a":1}` and seed 05's example in encodings other than UTF-8, and what the refusal says.
    static let encodings: [(name: String, body: [UInt8], reason: String)] = {
        func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
            text.utf16.flatMap { unit in
                bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            }
        }
        return [
            (
                "UTF-16LE with a BOM", [0xFF, 0xFE] + utf16(seedExample, bigEndian: false),
                "UTF-16 (it starts with a byte order mark)"
            ),
            (
                "UTF-16BE with a BOM", [0xFE, 0xFF] + utf16(seedExample, bigEndian: true),
                "UTF-16 (it starts with a byte order mark)"
            ),
            (
                "UTF-16LE without a BOM", utf16(seedExample, bigEndian: false),
                "UTF-16 or UTF-32 without a byte order mark"
            ),
            (
                "UTF-16BE without a BOM", utf16(seedExample, bigEndian: true),
                "UTF-16 or UTF-32 without a byte order mark"
            ),
            ("UTF-8 with a BOM", [0xEF, 0xBB, 0xBF] + Array(seedExample.utf8), "UTF-8 byte order mark"),
            ("Latin-1", Array(#"{"schema_version": 1, "x": "caf"#.utf8) + [0xE9] + Array(#""}"#.utf8), "invalid UTF-8"),
        ]
    }()

    @Test("a body that is not UTF-8 is refused 400 naming the encoding", arguments: encodings.indices)
    func notUTF8(index: Int) async throws {
        let (name, body, reason) = Self.encodings[index]
        let harness = try ReceiverHarness()
        for gzip in [true, false] {
            let result = try await harness.upload(body, gzip: gzip)
            #expect(result.status == 400, "\(name)")
            #expect(result.reason.hasPrefix("body: ") && result.reason.contains(reason), "\(name): \(result.reason)")
        }
        #expect(try harness.count("SELECT count(*) FROM batches") == 0)
        try await Self.stillServes(harness)
    }

    @Test(
        "a number that is not an integer that fits, in an integer field, is refused 400 naming the field",
        arguments: ["1e16", "1.0", "1e0", "9223372036854775808", "-9223372036854775809", "2", "\"1\""])
    func integerFields(written: String) async throws {
        let harness = try ReceiverHarness()
        let body = seedExample.replacingOccurrences(
            of: #""schema_version": 1,"#, with: #""schema_version": \#(written),"#)
        let result = try await harness.upload(Array(body.utf8))
        #expect(result.status == 400)
        #expect(result.reason.hasPrefix("schema_version: "), "\(result.reason)")
        #expect(try harness.count("SELECT count(*) FROM batches") == 0)
    }

    @Test(
        "a number outside its field's range, or integral with a decimal point, is refused 400 naming the field",
        arguments: [
            (#""latitude": 37.7749"#, #""latitude": 90.5"#, "locations[0].latitude: \"90.5\" is out of range"),
            (#""longitude": -122.4194"#, #""longitude": -1e400"#, "locations[0].longitude: \"-1e400\" is not finite"),
            (#""accuracy": 5.2"#, #""accuracy": -0.1"#, "locations[0].accuracy: \"-0.1\" is out of range"),
            (#""bearing": 180"#, #""bearing": 360"#, "locations[0].bearing: \"360\" is out of range"),
            (#""bearing": 180"#, #""bearing": 180.0"#, "locations[0].bearing: the integral value 180 must be written"),
            (#""altitude": 14.3"#, #""altitude": 1e999"#, "locations[0].altitude: \"1e999\" is not finite"),
        ])
    func numberFields(from: String, to: String, reason: String) async throws {
        let harness = try ReceiverHarness()
        let result = try await harness.upload(Array(seedExample.replacingOccurrences(of: from, with: to).utf8))
        #expect(result.status == 400)
        #expect(result.reason.hasPrefix(reason), "\(result.reason)")
    }

    @Test(
        "two Content-Length headers that disagree are refused 400; two that agree are one",
        arguments: [(["5", "10"], 400), (["10", "5"], 400), (["0", "5"], 400), (["same", "same"], 200)])
    func duplicateContentLength(lengths: [String], status: Int) async throws {
        let harness = try ReceiverHarness()
        let body = try GzipCompressor().compress(harness.payload().json)
        let values = lengths.map { $0 == "same" ? "\(body.count)" : $0 }
        let head =
            "POST /ingest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            + values.map { "Content-Length: \($0)\r\n" }.joined() + "Connection: close\r\n\r\n"
        let answer = RawSocket.exchange(port: harness.receiver.port, Array(head.utf8) + body)
        #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "\(answer)")
        if status == 400 {
            #expect(answer.contains("Content-Length: the request has several that disagree"), "\(answer)")
        }
        try await Self.stillServes(harness)
    }

    /// What slow clients send before they stall: nothing, part of a head, a head and part of a body.
    static let stalls = [
        "", "POST /ingest HTTP/1.1\r\nHost: x\r\n",
        "POST /ingest HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"sch",
        "GET /stats HTTP/1.1\r\nHo", "POST /ingest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"s",
    ]

    @Test("slow clients are cut by the connection timeout while a valid upload is answered")
    func slowClients() async throws {
        let harness = try ReceiverHarness { $0.connectionTimeoutSeconds = 1 }
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for stall in Self.stalls {
            let socket = RawSocket.connect(port: harness.receiver.port)
            try #require(socket >= 0)
            sockets.append(socket)
            _ = stall.withCString { send(socket, $0, strlen($0), 0) }
        }
        try await Self.stillServes(harness)
        for (socket, stall) in zip(sockets, Self.stalls) {
            // Generous: only a receiver that never cuts the client runs into it.
            #expect(RawSocket.readToEnd(socket, timeoutSeconds: 20) == .closed, "stalled after \"\(stall)\"")
        }
        try await Self.stillServes(harness)
    }

    @Test("past the per-address cap, more connections from that address are closed; other addresses are served")
    func perAddressCap() async throws {
        let harness = try ReceiverHarness {
            $0.perIPConnectionLimit = 2
            $0.threads = 1
            $0.connectionTimeoutSeconds = 600  // The idle pair must outlive a slow run.
        }
        let idle = (0..<2).map { _ in RawSocket.connect(port: harness.receiver.port) }
        defer { for fd in idle { close(fd) } }
        try #require(idle.allSatisfy { $0 >= 0 })
        // Let the daemon accept both before the third arrives.
        let probe = RawSocket.exchange(
            port: harness.receiver.port, Array("GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8),
            from: "127.0.0.2")
        #expect(probe.hasPrefix("HTTP/1.1 200 "), "\(probe)")
        let third = RawSocket.exchange(
            port: harness.receiver.port, Array("GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(third == "", "a third connection from 127.0.0.1 was served: \(third)")
        let body = try GzipCompressor().compress(harness.payload().json)
        let head =
            "POST /ingest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let other = RawSocket.exchange(port: harness.receiver.port, Array(head.utf8) + body, from: "127.0.0.3")
        #expect(other.hasPrefix("HTTP/1.1 200 "), "\(other)")
    }

    @Test(
        "past the memory budget an upload is answered 503 with Retry-After, then served once memory is free",
        arguments: [true, false])
    func memoryBudget(gzip: Bool) async throws {
        let harness = try ReceiverHarness {
            $0.memoryBudgetBytes = 48 << 10
            $0.maxBodyBytes = 40 << 10
            // The holder below must not be cut for idling while a loaded machine runs the test.
            $0.connectionTimeoutSeconds = 600
        }
        // A slow client holds 40 KiB of the budget: it has sent all of its body but the last byte.
        let holder = RawSocket.connect(port: harness.receiver.port)
        try #require(holder >= 0)
        let head = "POST /ingest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40960\r\n\r\n"
        let partial = Array(head.utf8) + [UInt8](repeating: 0x20, count: 40959)
        _ = partial.withUnsafeBytes { send(holder, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        // An upload racing the holder's body would take the budget first and leave the holder
        // over it, holding nothing: wait until the daemon holds all it was sent.
        for _ in 0..<500 where harness.receiver.bytesHeld < 40959 {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(harness.receiver.bytesHeld == 40959)
        // 100 fixes: about 30 KB of JSON (about 6 KB gzipped), more than the 8 KiB left.
        let json = harness.payload(fixes: 100).json
        #expect(json.count > 16 << 10)
        let refused = try await harness.upload(json, gzip: gzip)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.reason.contains("memory budget"), "\(refused.reason)")
        // Declaring a body holds nothing until its bytes arrive.
        let declarer = RawSocket.connect(port: harness.receiver.port)
        defer { close(declarer) }
        _ = "POST /ingest HTTP/1.1\r\nHost: x\r\nContent-Length: 40000\r\n\r\n".withCString {
            send(declarer, $0, strlen($0), 0)
        }
        close(holder)
        var served = try await harness.upload(json, gzip: gzip)
        for _ in 0..<250 where served.status == 503 {
            try await Task.sleep(for: .milliseconds(20))
            served = try await harness.upload(json, gzip: gzip)
        }
        #expect(served.status == 200)
    }
}

/// Blocking TCP connections to 127.0.0.1 for what a client library would not send.
enum RawSocket {
    /// A connection from `source` (any 127.x.y.z) to 127.0.0.1:`port`; -1 on failure.
    static func connect(port: UInt16, from source: String = "127.0.0.1") -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// How a read to the end went.
    enum End: Equatable {
        /// The server closed the connection (after answering, or not).
        case closed
        /// Nothing came and the connection stayed open for the whole timeout.
        case stillOpen
    }

    /// Reads until the server closes or `timeoutSeconds` pass with nothing.
    static func readToEnd(_ fd: Int32, timeoutSeconds: Int) -> End {
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = recv(fd, &buffer, buffer.count, 0)
            if read > 0 { continue }
            return read == 0 || errno == ECONNRESET ? .closed : .stillOpen
        }
    }

    /// Sends `request` on a new connection and returns everything the server sent back before
    /// it closed ("" when it closed without a word).
    static func exchange(port: UInt16, _ request: [UInt8], from source: String = "127.0.0.1") -> String {
        let fd = connect(port: port, from: source)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = recv(fd, &buffer, buffer.count, 0)
            if read <= 0 { break }
            answer.append(contentsOf: buffer[0..<read])
        }
        return String(decoding: answer, as: UTF8.self)
    }
}

/// Uploads cut short and paced uploads, as the receiver counts them (`/stats`).
@Suite("Cut and slow uploads")
struct CutUploadTests {
    @Test(
        """
        an upload reset after 2,000 of its 10,000 bytes is counted truncated (what arrived, what \
        was declared), nothing is stored, and the receiver serves the next one
        """)
    func truncated() async throws {
        let harness = try ReceiverHarness()
        var request = OutboundRequest(
            url: harness.receiver.url,
            headerFields: HTTPFields(textPairs: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")]),
            body: Array(repeating: 0x20, count: 10_000), connectionKey: "cut")
        // As the engine sends a modelled network's body: paced (its uplink), then cut.
        request.maxSendBytesPerSecond = 20_000
        request.abortAfterBytes = 2_000
        _ = await harness.send(request)
        // The daemon learns of the reset on its own thread: polled, never timed.
        var stats = harness.receiver.stats()
        for _ in 0..<500 where stats.truncatedUploads.count == 0 {
            try await Task.sleep(nanoseconds: 10_000_000)
            stats = harness.receiver.stats()
        }
        #expect(stats.truncatedUploads.count == 1)
        #expect(stats.truncatedUploads.declaredBytes == 10_000)
        #expect((0...2_000).contains(stats.truncatedUploads.receivedBytes))
        #expect(stats.batchesStored == 0)
        #expect(String(decoding: stats.json(), as: UTF8.self).contains(#""truncated_uploads":{"count":1,"#))
        #expect(stats.prometheusText().contains("beekon_receiver_truncated_uploads_total 1\n"))
        try await HostileInputTests.stillServes(harness)
    }

    @Test("a paced upload's body speed is measured, no faster than it was sent; one in one read is not")
    func bodySpeed() async throws {
        let harness = try ReceiverHarness()
        let json = harness.payload().json
        #expect(try await harness.upload(json).status == 200)
        #expect(harness.receiver.stats().uploadBytesPerSecond.count == 0)
        var request = OutboundRequest(
            url: harness.receiver.url,
            headerFields: HTTPFields(textPairs: [("Content-Type", "application/json")]),
            body: Array(repeating: 0x20, count: 12_000) + json, connectionKey: "slow")
        request.maxSendBytesPerSecond = 30_000
        #expect(await harness.send(request).status == 200)
        let speed = harness.receiver.stats().uploadBytesPerSecond
        #expect(speed.count == 1)
        // An upper bound on the speed is a lower bound on time: a loaded machine cannot break it.
        #expect(speed.p50 > 0 && speed.p50 <= 45_000, "\(speed.p50) B/s")
    }
}
