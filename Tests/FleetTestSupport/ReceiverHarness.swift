import BeekonDevice
import BeekonNet
import Foundation
import HTTPMessage
import HTTPTypes
import IngestReceiver
import SQLite
import Synchronization

/// A receiver on 127.0.0.1, port 0, with its database in a fresh temporary folder, and a client
/// to talk to it: what every HTTP test here starts from.
package final class ReceiverHarness: Sendable {
    package let folder: String
    package let receiver: IngestReceiver
    package let transport: HTTPTransport
    private let ids = Mutex(Ids(seed: 1))

    package var databasePath: String { folder + "/ingest.db" }

    /// `allTransfersAtOnce` lifts the client's limit on transfers in flight (256 by default), for
    /// tests that hold thousands of connections open together.
    package init(allTransfersAtOnce: Bool = false, _ configure: (inout IngestReceiverConfiguration) -> Void = { _ in })
        throws
    {
        folder =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("beekon-receiver-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var configuration = IngestReceiverConfiguration(port: 0, databasePath: folder + "/ingest.db", threads: 2)
        configure(&configuration)
        receiver = try IngestReceiver(configuration: configuration)
        transport = try allTransfersAtOnce ? HTTPTransport(maxConcurrentTransfers: 0) : HTTPTransport()
    }

    deinit {
        transport.shutdown()
        receiver.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Sends one request and waits for its result without blocking a cooperative thread.
    package func send(_ request: OutboundRequest) async -> HTTPResult {
        await withCheckedContinuation { continuation in
            transport.submit(request) { continuation.resume(returning: $0) }
        }
    }

    /// POSTs `json` to the ingest path, gzipped unless told otherwise.
    package func upload(
        _ json: [UInt8], gzip: Bool = true, headers: [(name: String, value: String)] = [],
        timeoutMillis: Int = 10_000, device: String = "d"
    ) async throws -> HTTPResult {
        var all: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if gzip { all.append(("Content-Encoding", "gzip")) }
        let body = gzip ? try GzipCompressor().compress(json) : json
        return await send(
            OutboundRequest(
                url: receiver.url, headerFields: HTTPFields(textPairs: all + headers), body: body,
                timeoutMillis: timeoutMillis,
                connectionKey: device))
    }

    /// GETs `/stats` and returns its JSON object.
    package func statsJSON() async throws -> [String: Any] {
        let result = await send(OutboundRequest(url: receiver.statsURL, method: .get, connectionKey: "stats"))
        guard case .response(let response, let body, _) = result, response.status.code == 200 else {
            throw HarnessError("stats: \(result)")
        }
        return try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] ?? [:]
    }

    /// One integer from `SELECT` on the receiver's database, read with a fresh connection.
    package func count(_ sql: String) throws -> Int {
        try Self.count(sql, in: databasePath)
    }

    package static func count(_ sql: String, in path: String) throws -> Int {
        let connection = try SQLiteConnection(path: path)
        let statement = try connection.prepare(sql)
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return statement.int(at: 0)
    }

    /// A fresh, valid payload from `device` with `fixes` locations (new ids) plus `extra` ids.
    package func payload(
        device: String? = nil, session: String? = nil, fixes: Int = 3, reuse: [UUIDv7] = [],
        batchID: UUIDv7? = nil, events: Int = 0, sdkVersion: String = "0.1.1"
    ) -> (json: [UInt8], batchID: UUIDv7, locationIDs: [UUIDv7]) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let locationIDs = reuse + (0..<fixes).map { _ in newUUID() }
        let locations = locationIDs.enumerated().map { index, id in
            Location(
                id: id, latitude: 48.85 + Double(index) * 0.001, longitude: 2.35, timestamp: now - 5000 + Int64(index),
                accuracy: 5, speed: 1.5, bearing: 90, trigger: .interval, motion: .moving)!
        }
        let geofenceEvents = (0..<events).map { _ in
            GeofenceEvent(id: newUUID(), geofenceID: "home", type: .exit, timestamp: now - 1000)
        }
        let batch = batchID ?? newUUID()
        let payload = UploadPayload(
            batchID: batch, sessionID: session ?? Self.session.text, sentAt: now,
            device: DeviceIdentity(
                installID: device ?? Self.device.text, platform: .android, sdkVersion: sdkVersion, model: "Pixel 8"),
            locations: locations, geofenceEvents: geofenceEvents)
        return (payload.encoded(), batch, locationIDs)
    }

    /// A fresh UUIDv7 text, for a device or session id.
    package func newID() -> String { newUUID().text }

    package func newUUID() -> UUIDv7 { ids.withLock { $0.next() } }

    package static let device = UUIDv7("0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff")!
    package static let session = UUIDv7("0190d4e0-1234-7000-8000-aabbccddeeff")!

    /// UUIDv7s for test payloads, from a fixed seed.
    struct Ids {
        var generator = UUIDv7Generator()
        var random: SplitMix64

        init(seed: UInt64) { random = SplitMix64(seed: seed) }

        mutating func next() -> UUIDv7 {
            generator.next(atUnixMillis: Int64(Date().timeIntervalSince1970 * 1000), using: &random)
        }
    }
}

package struct HarnessError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

extension HTTPResult {
    /// The body as a JSON object, or empty.
    package var json: [String: Any] {
        guard case .response(_, let body, _) = self,
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        else { return [:] }
        return object
    }

    /// The `error` reason of a refusal, or "".
    package var reason: String { json["error"] as? String ?? "" }
}

/// Seed 05's example payload, as the page prints it.
package let seedExample = #"""
    { "schema_version": 1, "batch_id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f", "session_id": \#
    "0190d4e0-1234-7000-8000-aabbccddeeff", "sent_at": "2026-06-15T12:34:56.789Z", "device": { \#
    "install_id": "0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff", "platform": "ios", "sdk_version": "0.1.1", \#
    "model": "iPhone15,3" }, "extras": { "user_id": "app-user-123", "trip": "morning-commute" }, \#
    "locations": [ { "id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e20", "timestamp": \#
    "2026-06-15T12:34:10.000Z", "trigger": "interval", "motion": "moving", "is_mock": false, "latitude": \#
    37.7749, "longitude": -122.4194, "accuracy": 5.2, "speed": 2.5, "bearing": 180, "altitude": 14.3, \#
    "activity": "walking" } ], "geofence_events": [ { "id": "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e21", \#
    "geofence_id": "home", "type": "exit", "timestamp": "2026-06-15T12:34:05.000Z" } ]}
    """#
