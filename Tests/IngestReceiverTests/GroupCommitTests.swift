import BeekonDevice
import BeekonNet
import Dispatch
import FleetTestSupport
import Foundation
import SQLite
import Synchronization
import Testing

@testable import IngestReceiver

/// Group commit (`IngestWriter`): concurrent uploads share a transaction, yet each is answered
/// and deduped exactly as if stored alone, and a bad upload costs the others nothing.
@Suite("group commit")
struct GroupCommitTests {
    /// The `locations` table as the receiver creates it, plus a trigger that refuses one id:
    /// a real constraint failure in the middle of a group.
    static func poison(databasePath: String, locationID: String) throws {
        let connection = try SQLiteConnection(path: databasePath)
        try connection.execute(IngestDatabase.schema)
        try connection.execute(
            """
            CREATE TRIGGER poison BEFORE INSERT ON locations WHEN NEW.id = '\(locationID)'
            BEGIN SELECT RAISE(ABORT, 'poisoned row'); END;
            """)
    }

    @Test(
        """
        200 concurrent uploads from 50 devices, with duplicates and \
        partial replays, are each answered right and stored once
        """
    )
    func concurrentUploads() async throws {
        let harness = try ReceiverHarness { $0.threads = 4 }
        struct Device {
            var id: String
            var uploads: [[UInt8]]
        }
        // Per device: A (3 fixes), A again, B (2 of A's fixes + 2 new), C (2 new + 1 event).
        let devices = (0..<50).map { _ -> Device in
            let id = harness.newID()
            let a = harness.payload(device: id, fixes: 3)
            let b = harness.payload(device: id, fixes: 2, reuse: Array(a.locationIDs.suffix(2)))
            let c = harness.payload(device: id, fixes: 2, events: 1)
            return Device(id: id, uploads: [a.json, a.json, b.json, c.json])
        }
        let answers = await withTaskGroup(of: (Int, Int, HTTPResult?).self) { group in
            for (index, device) in devices.enumerated() {
                for (number, json) in device.uploads.enumerated() {
                    group.addTask {
                        let result: HTTPResult? = try? await harness.upload(json, device: "\(device.id)-\(number)")
                        return (index, number, result)
                    }
                }
            }
            var all: [Int: [Int: HTTPResult]] = [:]
            for await (index, number, result) in group {
                if let result { all[index, default: [:]][number] = result }
            }
            return all
        }
        for index in devices.indices {
            let results: [Int: HTTPResult] = try #require(answers[index])
            #expect(results.count == 4)
            #expect(results.values.allSatisfy { $0.status == 200 })
            let stored: Int = results.values.map { $0.json["stored_locations"] as? Int ?? -100 }.reduce(0, +)
            let duplicates: Int = results.values.map { $0.json["duplicate_locations"] as? Int ?? -100 }.reduce(0, +)
            #expect(stored == 7)
            #expect(duplicates == 5)
            // Of the two copies of A, exactly one is new and stores; the other is all duplicates.
            let pair: [Bool] = [results[0], results[1]].map { $0?.json["duplicate_batch"] as? Bool ?? false }
            #expect(pair.filter { $0 }.count == 1)
            #expect(results[3]?.json["stored_geofence_events"] as? Int == 1)
        }
        #expect(try harness.count("SELECT count(*) FROM batches") == 150)
        #expect(try harness.count("SELECT count(*) FROM locations") == 350)
        #expect(try harness.count("SELECT count(*) FROM geofence_events") == 50)
        #expect(try harness.count("SELECT count(DISTINCT install_id) FROM devices") == 50)
        let stats = harness.receiver.stats()
        #expect(stats.batchesStored == 150)
        #expect(stats.duplicateBatches == 50)
        #expect(stats.fixesStored == 350)
        #expect(stats.duplicateFixes == 250)
        #expect(stats.geofenceEventsStored == 50)
        #expect(stats.requestsByStatus[200] == 200)
    }

    @Test("over HTTP, a poisoned upload among concurrent ones gets 500 and every other one is stored and answered")
    func poisonedUploadOverHTTP() async throws {
        let poisonID = UUIDv7("0190c1a4-0000-7000-8000-00000000dead")!
        let harness = try ReceiverHarness { configuration in
            try? Self.poison(databasePath: configuration.databasePath, locationID: poisonID.text)
        }
        let good = (0..<60).map { _ in harness.payload(device: harness.newID(), fixes: 2) }
        let bad = harness.payload(device: harness.newID(), fixes: 1, reuse: [poisonID])
        let uploads = good.map(\.json) + [bad.json]
        let statuses = await withTaskGroup(of: (Int, HTTPResult?).self) { group in
            for (index, json) in uploads.enumerated() {
                group.addTask {
                    let result: HTTPResult? = try? await harness.upload(json, device: "u\(index)")
                    return (index, result)
                }
            }
            var all: [Int: HTTPResult] = [:]
            for await (index, result) in group {
                if let result { all[index] = result }
            }
            return all
        }
        for index in good.indices {
            #expect(statuses[index]?.status == 200)
            #expect(statuses[index]?.json["stored_locations"] as? Int == 2)
        }
        #expect(statuses[good.count]?.status == 500)
        #expect(statuses[good.count]?.reason.contains("poisoned row") == true)
        #expect(try harness.count("SELECT count(*) FROM batches") == 60)
        #expect(try harness.count("SELECT count(*) FROM locations") == 120)
        let stats = harness.receiver.stats()
        #expect(stats.batchesStored == 60)
        #expect(stats.requestsByStatus[200] == 60)
        #expect(stats.requestsByStatus[500] == 1)
    }

    @Test("a poisoned group is retried one by one: the bad upload fails alone, the rest are stored once")
    func poisonedGroup() throws {
        let harness = try ReceiverHarness()  // For its payload maker and its temporary folder.
        let path = harness.folder + "/group.db"
        let poisonID = UUIDv7("0190c1a4-0000-7000-8000-00000000beef")!
        try Self.poison(databasePath: path, locationID: poisonID.text)
        let validator = PayloadValidator(maxDepth: 32, maxElements: 100_000)
        let writer = IngestWriter(database: try IngestDatabase(path: path))
        let results = Mutex<[Int: Result<IngestDatabase.Outcome, SQLiteError>?]>([:])
        let done = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        func job(_ index: Int, _ json: [UInt8], hold: Bool = false) throws -> IngestWriter.Job {
            IngestWriter.Job(batch: try validator.validate(json), receivedAt: 1, bytes: json.count) { result in
                results.withLock { $0[index] = result }
                if hold { gate.wait() }  // Holds the writer so the next jobs queue up as one group.
                done.signal()
            }
        }
        let first = harness.payload(fixes: 1)
        #expect(writer.submit(try job(0, first.json, hold: true)))
        // Queued while the writer is held: one group of 10, the poisoned one in the middle, and a
        // duplicate of an earlier upload in the group (sees it as stored, as it would alone).
        var payloads = (0..<8).map { _ in harness.payload(device: harness.newID(), fixes: 3).json }
        payloads.insert(harness.payload(fixes: 1, reuse: [poisonID]).json, at: 4)
        payloads.append(payloads[0])
        while writer.groupsCommitted.load(ordering: .relaxed) < 1 { usleep(1000) }
        for (offset, json) in payloads.enumerated() { #expect(writer.submit(try job(offset + 1, json))) }
        let before = writer.groupsCommitted.load(ordering: .relaxed)
        gate.signal()
        for _ in 0...payloads.count { done.wait() }
        writer.close()
        #expect(!writer.submit(try job(99, harness.payload(fixes: 1).json)))
        // The group failed, so it was not committed as a group; its uploads went one by one.
        #expect(writer.groupsCommitted.load(ordering: .relaxed) == before)
        let all = results.withLock { $0 }
        for index in [1, 2, 3, 4, 6, 7, 8, 9] {
            guard case .success(let outcome)?? = all[index] else {
                Issue.record("upload \(index): \(String(describing: all[index]))")
                continue
            }
            #expect(outcome.newBatch && outcome.storedLocationTimestamps.count == 3)
        }
        guard case .failure(let error)?? = all[5] else {
            Issue.record("poisoned: \(String(describing: all[5]))")
            return
        }
        #expect(error.message.contains("poisoned row"))
        guard case .success(let replay)?? = all[10] else {
            Issue.record("replay: \(String(describing: all[10]))")
            return
        }
        #expect(!replay.newBatch && replay.duplicateLocations == 3 && replay.storedLocationTimestamps.isEmpty)
        #expect(try ReceiverHarness.count("SELECT count(*) FROM batches", in: path) == 9)
        #expect(try ReceiverHarness.count("SELECT count(*) FROM locations", in: path) == 25)
    }

    @Test("uploads queued together commit as one group, each with its own outcome")
    func oneGroup() throws {
        let harness = try ReceiverHarness()  // For its payload maker and its temporary folder.
        let path = harness.folder + "/group.db"
        let validator = PayloadValidator(maxDepth: 32, maxElements: 100_000)
        let writer = IngestWriter(database: try IngestDatabase(path: path))
        let done = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let outcomes = Mutex<[Int: IngestDatabase.Outcome]>([:])
        let first = harness.payload(fixes: 1).json
        _ = writer.submit(
            IngestWriter.Job(batch: try validator.validate(first), receivedAt: 1, bytes: 1) { _ in
                gate.wait()
                done.signal()
            })
        while writer.groupsCommitted.load(ordering: .relaxed) < 1 { usleep(1000) }
        let shared = harness.payload(fixes: 2)
        let jsons = [shared.json, harness.payload(fixes: 1, reuse: shared.locationIDs).json, shared.json]
        for (index, json) in jsons.enumerated() {
            _ = writer.submit(
                IngestWriter.Job(batch: try validator.validate(json), receivedAt: 2, bytes: json.count) { result in
                    if case .success(let outcome)? = result { outcomes.withLock { $0[index] = outcome } }
                    done.signal()
                })
        }
        gate.signal()
        for _ in 0...jsons.count { done.wait() }
        #expect(writer.groupsCommitted.load(ordering: .relaxed) == 2)
        writer.close()
        let all = outcomes.withLock { $0 }
        #expect(all[0]?.newBatch == true && all[0]?.storedLocationTimestamps.count == 2)
        #expect(
            all[1]?.newBatch == true && all[1]?.storedLocationTimestamps.count == 1 && all[1]?.duplicateLocations == 2)
        #expect(all[2]?.newBatch == false && all[2]?.duplicateLocations == 2)
    }
}
