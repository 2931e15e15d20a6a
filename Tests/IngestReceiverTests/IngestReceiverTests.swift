import BeekonDevice
import BeekonNet
import FleetTestSupport
import Foundation
import HTTPMessage
import HTTPTypes
import Testing

@testable import IngestReceiver

/// The receiver over real HTTP on loopback, storing into a real SQLite file.
@Suite("Ingest receiver")
struct IngestReceiverTests {
    @Test("seed 05's example is accepted and stored, the trip stitched by install and session")
    func seedExampleStored() async throws {
        let harness = try ReceiverHarness()
        let result = try await harness.upload(Array(seedExample.utf8))
        #expect(result.status == 200)
        #expect(result.json["stored_locations"] as? Int == 1)
        #expect(try harness.count("SELECT count(*) FROM batches") == 1)
        #expect(
            try harness.count(
                "SELECT count(*) FROM locations WHERE install_id = '0190c1a4-aaaa-7bbb-8ccc-ddddeeeeffff' "
                    + "AND session_id = '0190d4e0-1234-7000-8000-aabbccddeeff' AND bearing = 180 AND accuracy = 5.2")
                == 1)
        #expect(try harness.count("SELECT count(*) FROM geofence_events WHERE type = 'exit'") == 1)
        #expect(try harness.count("SELECT count(*) FROM devices WHERE model = 'iPhone15,3'") == 1)
        #expect(try harness.count("SELECT count(*) FROM sessions") == 1)
    }

    @Test("every broken rule is answered 400 with a reason naming the field, over HTTP")
    func refusedOverHTTP() async throws {
        let harness = try ReceiverHarness()
        for mutation in Mutation.all {
            let result = try await harness.upload(Array(mutation.body.utf8))
            #expect(result.status == 400, "\(mutation.testDescription)")
            #expect(result.reason.hasPrefix(mutation.field + ":"), "\(mutation.field): \(result.reason)")
        }
        #expect(try harness.count("SELECT count(*) FROM locations") == 0)
        #expect(harness.receiver.stats().rejectedUploads == Mutation.all.count)
    }

    @Test("an upload the SDK encoder makes is accepted")
    func encoderPayloadAccepted() async throws {
        let harness = try ReceiverHarness()
        let payload = harness.payload(fixes: 25, events: 2)
        let result = try await harness.upload(payload.json)
        #expect(result.status == 200)
        #expect(try harness.count("SELECT count(*) FROM locations") == 25)
        #expect(try harness.count("SELECT count(*) FROM geofence_events") == 2)
    }

    @Test("a duplicate batch is acknowledged 2xx without storing anything twice")
    func duplicateBatch() async throws {
        let harness = try ReceiverHarness()
        let payload = harness.payload(fixes: 10, events: 1)
        let first = try await harness.upload(payload.json)
        let second = try await harness.upload(payload.json)
        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(second.json["duplicate_batch"] as? Bool == true)
        #expect(second.json["stored_locations"] as? Int == 0)
        #expect(second.json["duplicate_locations"] as? Int == 10)
        #expect(try harness.count("SELECT count(*) FROM batches") == 1)
        #expect(try harness.count("SELECT count(*) FROM locations") == 10)
        #expect(try harness.count("SELECT count(*) FROM geofence_events") == 1)
        let stats = harness.receiver.stats()
        #expect(stats.batchesStored == 1)
        #expect(stats.duplicateBatches == 1)
        #expect(stats.fixesStored == 10)
        #expect(stats.duplicateFixes == 10)
        #expect(stats.duplicateGeofenceEvents == 1)
        // A retry that is the batch it retries is no conformance error.
        #expect(stats.batchesChangedOnRetry == 0 && stats.fixesInAnotherBatch == 0)

        // The same counters in Prometheus's text format, for one scrape of fleet and server.
        let metrics = await harness.send(
            OutboundRequest(
                url: harness.receiver.statsURL.replacingOccurrences(of: "/stats", with: "/metrics"), method: .get,
                connectionKey: "metrics"))
        guard case .response(let response, let body, _) = metrics else {
            Issue.record("GET /metrics: \(metrics)")
            return
        }
        #expect(response.status.code == 200)
        #expect(response.headerFields[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
        let text = String(decoding: body, as: UTF8.self)
        for sample in [
            "beekon_receiver_requests_total{status=\"200\"} 2", "beekon_receiver_batches_stored_total 1",
            "beekon_receiver_duplicate_batches_total 1", "beekon_receiver_fixes_stored_total 10",
            "beekon_receiver_duplicate_fixes_total 10", "beekon_receiver_devices 1",
        ] {
            #expect(text.contains("\n" + sample + "\n"), "\(sample) in:\n\(text)")
        }
        #expect(text.contains("# TYPE beekon_receiver_fixes_stored_total counter\n"))
    }

    @Test("a partial replay stores only the new ids")
    func partialReplay() async throws {
        let harness = try ReceiverHarness()
        let first = harness.payload(fixes: 4)
        #expect(try await harness.upload(first.json).status == 200)
        // A new batch carrying two of the stored fixes and three new ones.
        let replay = harness.payload(fixes: 3, reuse: Array(first.locationIDs.suffix(2)))
        let result = try await harness.upload(replay.json)
        #expect(result.status == 200)
        #expect(result.json["stored_locations"] as? Int == 3)
        #expect(result.json["duplicate_locations"] as? Int == 2)
        #expect(try harness.count("SELECT count(*) FROM locations") == 7)
        #expect(try harness.count("SELECT count(*) FROM batches") == 2)
        // The same batch id with new rows (never sent by the SDK) still loses nothing.
        let sameBatch = harness.payload(fixes: 1, reuse: replay.locationIDs, batchID: replay.batchID)
        let again = try await harness.upload(sameBatch.json)
        #expect(again.status == 200)
        #expect(again.json["duplicate_batch"] as? Bool == true)
        #expect(try harness.count("SELECT count(*) FROM locations") == 8)
        // Both break seed 05 ("a retry carries the same batch_id"), and the receiver says so: fixes sent
        // again under another batch_id (2 in the replay, the same 2 again), and a batch_id re-used for new rows.
        let stats = harness.receiver.stats()
        #expect(stats.fixesInAnotherBatch == 4)
        #expect(stats.batchesChangedOnRetry == 1)
        let json = try await harness.statsJSON()
        #expect((json["fixes"] as? [String: Any])?["in_another_batch"] as? Int == 4)
        #expect((json["batches"] as? [String: Any])?["changed_on_retry"] as? Int == 1)
        #expect((json["geofence_events"] as? [String: Any])?["in_another_batch"] as? Int == 0)
    }

    @Test("an identity-encoded body is accepted; other encodings and content types are refused")
    func encodings() async throws {
        let harness = try ReceiverHarness()
        #expect(try await harness.upload(harness.payload().json, gzip: false).status == 200)
        let brotli = try await harness.upload(
            harness.payload().json, gzip: false, headers: [("Content-Encoding", "br")])
        #expect(brotli.status == 415)
        #expect(brotli.reason.hasPrefix("Content-Encoding"))
        let form = await harness.send(
            OutboundRequest(
                url: harness.receiver.url, headerFields: HTTPFields(textPairs: [("Content-Type", "text/plain")]),
                body: harness.payload().json, connectionKey: "d"))
        #expect(form.status == 415)
        #expect(form.reason.hasPrefix("Content-Type"))
    }

    @Test("unknown paths are 404, wrong methods 405, and /stats counts what happened")
    func routingAndStats() async throws {
        let harness = try ReceiverHarness()
        let device = harness.newID()
        let session = harness.newID()
        #expect(
            try await harness.upload(harness.payload(device: device, session: session, fixes: 5).json).status == 200)
        #expect(try await harness.upload(Array("{}".utf8)).status == 400)
        let missing = await harness.send(
            OutboundRequest(url: harness.receiver.baseURL + "/nope", method: .get, connectionKey: "d"))
        #expect(missing.status == 404)
        let get = await harness.send(OutboundRequest(url: harness.receiver.url, method: .get, connectionKey: "d"))
        #expect(get.status == 405)
        #expect(get.header("Allow") == "POST")
        let stats = try await harness.statsJSON()
        let requests = stats["requests"] as? [String: Any]
        let byStatus = requests?["by_status"] as? [String: Any]
        #expect(byStatus?["200"] as? Int == 1)
        #expect(byStatus?["400"] as? Int == 1)
        #expect(byStatus?["404"] as? Int == 1)
        #expect(byStatus?["405"] as? Int == 1)
        #expect((stats["batches"] as? [String: Any])?["stored"] as? Int == 1)
        #expect((stats["fixes"] as? [String: Any])?["stored"] as? Int == 5)
        #expect(stats["devices"] as? Int == 1)
        #expect(stats["sessions"] as? Int == 1)
        let lastSeen = stats["device_last_seen"] as? [String: Any]
        #expect((lastSeen?[device] as? String).flatMap { Timestamp.unixMillis(parsing: $0) } != nil)
        // The fixes were made about 5 s before they were sent.
        let age = stats["fix_age_ms"] as? [String: Any]
        #expect(age?["count"] as? Int == 5)
        let p50 = age?["p50"] as? Int ?? 0
        #expect((4000...60_000).contains(p50), "p50 \(p50)")
        #expect((age?["p99"] as? Int ?? 0) >= p50)
    }

    @Test("the receiver reopens an existing database and keeps deduping against it")
    func reopen() async throws {
        let harness = try ReceiverHarness()
        let payload = harness.payload(fixes: 3)
        #expect(try await harness.upload(payload.json).status == 200)
        harness.receiver.stop()
        let second = try IngestReceiver(
            configuration: IngestReceiverConfiguration(port: 0, databasePath: harness.databasePath, threads: 1))
        defer { second.stop() }
        let result = await harness.send(
            OutboundRequest(
                url: second.url, headerFields: HTTPFields(textPairs: [("Content-Type", "application/json")]),
                body: payload.json,
                connectionKey: "again"))
        #expect(result.json["duplicate_batch"] as? Bool == true)
        #expect(try harness.count("SELECT count(*) FROM locations") == 3)
    }

    @Test(
        """
        the upload log lists every upload the script answered, oldest first, \
        each retry with its own sent_at and the script's answer; off by default
        """
    )
    func uploadLog() async throws {
        let harness = try ReceiverHarness {
            $0.script = AnswerScript(failFirst: 1, failFirstStatus: 500, retryAfter: "1")
            $0.keepsUploadLog = true
        }
        // Each device sends a batch, then the same batch again after the 500, as the SDK does:
        // seed 05's example, retried a minute later, and one of the harness's payloads.
        let retried = seedExample.replacingOccurrences(
            of: #""sent_at": "2026-06-15T12:34:56.789Z""#, with: #""sent_at": "2026-06-15T12:35:56.789Z""#)
        let other = harness.newID()
        let payload = harness.payload(device: other).json
        let sends: [(json: [UInt8], device: String)] = [
            (Array(seedExample.utf8), "seed"), (Array(retried.utf8), "seed"), (payload, other), (payload, other),
        ]
        var statuses: [Int?] = []
        for (json, device) in sends {
            let result = try await harness.upload(json, device: device)
            statuses.append(result.status)
            #expect(result.header("Retry-After") == (result.status == 500 ? "1" : nil))
        }
        #expect(statuses == [500, 200, 500, 200])
        // A body the validator refuses never reaches the script, so it is not logged.
        #expect(try await harness.upload(Array("{}".utf8)).status == 400)

        let log = harness.receiver.uploadLog()
        let seedDevice = ReceiverHarness.device.text
        #expect(log.map(\.installID) == [seedDevice, seedDevice, other, other])
        #expect(log.map(\.scripted) == [.status(500), nil, .status(500), nil])
        #expect(log[0].batchID == "0190d4e2-7b1a-7c3e-9f10-2a4b6c8d0e1f" && log[1].batchID == log[0].batchID)
        #expect(log[2].batchID == log[3].batchID && log[2].batchID != log[0].batchID)
        #expect(
            log.prefix(2).map(\.sentAt)
                == ["2026-06-15T12:34:56.789Z", "2026-06-15T12:35:56.789Z"].map { Timestamp.unixMillis(parsing: $0) })
        #expect(log[0].sessionID == ReceiverHarness.session.text)
        #expect(log.map(\.locationCount) == [1, 1, 3, 3])
        #expect(log.map(\.geofenceEventCount) == [1, 1, 0, 0])
        #expect(zip(log, log.dropFirst()).allSatisfy { $0.receivedAt <= $1.receivedAt })
        // The database holds each batch once, as stored by its retry.
        #expect(try harness.count("SELECT count(*) FROM batches") == 2)

        let off = try ReceiverHarness()
        #expect(try await off.upload(off.payload().json).status == 200)
        #expect(off.receiver.uploadLog().isEmpty)
    }

    @Test("two thousand devices uploading at once, every answer held 100 ms, are all answered 200 and stored")
    func twoThousandAtOnce() async throws {
        // Every answer is held, so all the connections are open at the same time.
        let harness = try ReceiverHarness(allTransfersAtOnce: true) { $0.script = AnswerScript(latencyMillis: 100) }
        let count = 2000
        let uploads = (0..<count).map { _ in harness.payload(device: harness.newID(), fixes: 2).json }
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for (index, json) in uploads.enumerated() {
                group.addTask { try? await harness.upload(json, device: "d\(index)").status }
            }
            var statuses: [Int?] = []
            for await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses.count == count)
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses.filter { $0 != 200 }.prefix(5))")
        let stats = harness.receiver.stats()
        #expect(stats.batchesStored == count)
        #expect(stats.fixesStored == 2 * count)
        #expect(stats.devices == count)
    }

    @Test("a bad configuration is refused with the value named")
    func badConfiguration() throws {
        #expect(throws: IngestReceiverError.self) {
            try IngestReceiverConfiguration(ingestPath: "ingest").checked()
        }
        #expect(throws: IngestReceiverError.self) {
            try IngestReceiverConfiguration(
                script: AnswerScript(mix: [MixEntry(.status(503), percent: 80), MixEntry(.hang, percent: 30)])
            ).checked()
        }
        do {
            _ = try IngestReceiverConfiguration.parseListen("localhost")
            Issue.record("a host without a port was accepted")
        } catch {
            #expect(error.message.contains("ADDR:PORT"))
        }
        let any = try IngestReceiverConfiguration.parseListen("0.0.0.0:9000")
        #expect(any.host == "0.0.0.0" && any.port == 9000)
        let loopback = try IngestReceiverConfiguration.parseListen(":0")
        #expect(loopback.host == "127.0.0.1" && loopback.port == 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "beekon-receiver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try IngestReceiver(
                configuration: IngestReceiverConfiguration(
                    host: "example.com", port: 0, databasePath: folder.path + "/x.db"))
            Issue.record("a host name was accepted")
        } catch {
            #expect(error.kind == .listen)
        }
        do {
            _ = try IngestReceiver(
                configuration: IngestReceiverConfiguration(port: 0, databasePath: folder.path + "/missing/x.db"))
            Issue.record("a database in a missing folder was opened")
        } catch {
            #expect(error.kind == .database)
            #expect(error.message.contains("missing/x.db"))
        }
    }
}
