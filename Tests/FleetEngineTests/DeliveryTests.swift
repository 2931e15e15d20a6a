import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// Small fleets on the simulated driver (`SimulatedFleet`): what devices upload, retry, drop and
/// keep, at exact virtual instants. Every device of `yaml()` spawns at the start and its first
/// upload is the sync interval's, 60 s in.
@Suite("Fleet engine: delivery, retries and faults")
struct DeliveryTests {
    @Test(
        """
        every admitted fix is taken exactly once by id; a 500 at 60 s is \
        retried with the same batch_id and fixes at 180 s (60 s × 2¹ later)
        """
    )
    func deliversOnceWithRetries() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest { $0.priorUploads == 0 ? .respond(status: 500) : .ok }
        var fleet = try workspace.simulated(Workspace.yaml(), ingest: ingest)
        fleet.advance(byMillis: 30 * Workspace.minute)
        let metrics = fleet.engine.snapshot()
        #expect(metrics.fixesStored > 200)
        #expect(ingest.malformed.isEmpty, "uploads that break seed 05: \(ingest.malformed)")
        let taken = ingest.acceptedLocationIDs
        #expect(taken.count == Set(taken).count, "a fix was taken twice")
        #expect(Set(taken).count + metrics.fixes.ledger.pending == metrics.fixesStored)
        #expect(Set(ingest.uploads.map(\.device)).count == 20)
        for slot in fleet.engine.slots {
            let uploads = ingest.uploads(of: slot.id)
            try #require(uploads.count >= 2)
            let (first, retry) = (uploads[0], uploads[1])
            #expect(first.request.sentAt == Workspace.start + Workspace.minute && first.status == 500)
            #expect(retry.request.sentAt == Workspace.start + 3 * Workspace.minute && retry.status == 200)
            #expect(retry.batchID == first.batchID, "the retry did not reuse the batch_id")
            #expect(retry.locationIDs == first.locationIDs)
            #expect(retry.sentAt == first.sentAt, "sent_at is when the batch was assembled, kept by its retry")
        }
    }

    @Test("a 400 drops the batch: its fixes are never sent again and leave the store, and the rest are taken")
    func rejectedBatchIsDropped() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest { $0.priorUploads == 0 ? .respond(status: 400) : .ok }
        var fleet = try workspace.simulated(Workspace.yaml(devices: 5), ingest: ingest)
        fleet.advance(byMillis: 20 * Workspace.minute)
        let rejected = ingest.uploads.filter { $0.status == 400 }
        #expect(rejected.map(\.request.sentAt) == Array(repeating: Workspace.start + Workspace.minute, count: 5))
        let dropped = Set(rejected.flatMap(\.locationIDs))
        let later = ingest.uploads.filter { $0.status != 400 }.flatMap(\.locationIDs)
        #expect(!later.contains { dropped.contains($0) }, "a rejected fix was sent again")
        #expect(try fleet.storedFixes().allSatisfy { !dropped.contains($0.id) }, "a rejected fix is still stored")
        let metrics = fleet.engine.snapshot()
        #expect(
            dropped.count + Set(ingest.acceptedLocationIDs).count + metrics.fixes.ledger.pending == metrics.fixesStored)
    }

    @Test("local-only devices send nothing and keep every fix they admit")
    func localOnly() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        var fleet = try workspace.simulated(Workspace.yaml(devices: 5, sync: "false"), ingest: ingest)
        fleet.advance(byMillis: 20 * Workspace.minute)
        #expect(fleet.engine.metrics.fixesStored > 50)
        #expect(fleet.sent.isEmpty)
        #expect(fleet.engine.metrics.batchesSent == 0)
        #expect(try fleet.storedFixes().count == fleet.engine.metrics.fixesStored)
    }

    @Test(
        """
        a revoked permission pauses tracking at the fault's instant, no fix is \
        admitted until the re-grant 10 min later, and tracking resumes then
        """
    )
    func permissionPausesAndResumes() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        let faults = """
            faults:
              - {at: 5m, for: 10m, select: all, action: revokePermission}
            """
        var fleet = try workspace.simulated(Workspace.yaml(devices: 5, faults: faults), ingest: ingest)
        fleet.advance(byMillis: 30 * Workspace.minute)
        let (revoked, granted) = (Workspace.start + 5 * Workspace.minute, Workspace.start + 15 * Workspace.minute)
        let stored = try fleet.storedFixes()
        var firstAfter: [Int64] = []
        for slot in fleet.engine.slots {
            let changes = slot.recent.stateHistory.elements.filter { $0.at >= revoked }
            #expect(
                changes == [
                    StateChange(at: revoked, state: .sdk(.paused(.permissionRevoked))),
                    StateChange(at: granted, state: .sdk(.tracking)),
                ],
                "\(slot.id)")
            let fixes =
                (ingest.uploads(of: slot.id).filter(\.accepted).flatMap(\.timestamps)
                + stored.filter { $0.device == slot.id }.map(\.timestamp)).sorted()
            #expect(fixes.contains { $0 < revoked }, "\(slot.id) admitted nothing before the revoke")
            #expect(
                !fixes.contains { $0 >= revoked && $0 <= granted },
                "\(slot.id) admitted a fix while permission was revoked")
            firstAfter.append(try #require(fixes.first { $0 > granted }, "\(slot.id) did not track after the re-grant"))
        }
        // The re-grant asks for updates again; the provider's first fix comes 1 s later.
        #expect(firstAfter.min() == granted + 1_000)
    }

    @Test(
        """
        a timeout after the server took the batch: the same batch_id goes again after each timeout's \
        backoff, at 60, 210 and 480 s, and is heard 2 s later once the timeouts fault is over at 8 min
        """
    )
    func timeoutsResendSameBatch() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let ingest = SimulatedIngest()
        let faults = """
            faults:
              - {at: 0s, for: 8m, select: all, action: timeouts, params: {fraction: 1}}
              - {at: 0s, for: 20m, select: all, action: latency, params: {ms: 2000}}
            """
        var fleet = try workspace.simulated(Workspace.yaml(devices: 5, faults: faults), ingest: ingest)
        fleet.advance(byMillis: 20 * Workspace.minute)
        let second: Int64 = 1_000
        for slot in fleet.engine.slots {
            let uploads = ingest.uploads(of: slot.id)
            try #require(uploads.count > 3)
            // Sent at the interval (60 s), timed out 30 s later, sent again after 120 s and 240 s
            // of backoff (60 s × 2¹, × 2²); the fault ended at 480 s, just before the third send.
            #expect(
                uploads.prefix(3).map { $0.request.sentAt - Workspace.start } == [
                    60 * second, 210 * second, 480 * second,
                ])
            #expect(Set(uploads.prefix(3).map(\.batchID)).count == 1, "\(slot.id) did not send the same batch again")
            #expect(
                Set(uploads.prefix(3).map(\.locationIDs)).count == 1,
                "\(slot.id) sent other fixes under the same batch_id")
            let heard = slot.recent.uploads.elements.prefix(3).map { ($0.at - Workspace.start, $0.outcome) }
            #expect(heard.map(\.0) == [90 * second, 240 * second, 482 * second])
            #expect(heard.map(\.1) == [.injectedTimeout, .injectedTimeout, .status(200)])
            // And the next batch leaves at once: the drain goes on.
            #expect(
                uploads[3].request.sentAt == Workspace.start + 482 * second && uploads[3].batchID != uploads[0].batchID)
        }
        // Duplicates are whole batches sent again; every fix still arrives.
        let metrics = fleet.engine.snapshot()
        #expect(Set(ingest.acceptedLocationIDs).count + metrics.fixes.ledger.pending == metrics.fixesStored)
    }

    @Test(
        """
        a run on the data folder of one that stopped resumes its devices 1 ms \
        later: the same install ids, and every fix the first kept is taken once
        """
    )
    func restartResumes() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let refusing = SimulatedIngest { _ in .respond(status: 503) }
        var first = try workspace.simulated(Workspace.yaml(devices: 5), ingest: refusing)
        first.advance(byMillis: 10 * Workspace.minute)
        first.finish()
        #expect(refusing.acceptedLocationIDs.isEmpty && !refusing.uploads.isEmpty)
        let kept = first.engine.metrics.fixesStored

        let taking = SimulatedIngest()
        var second = try workspace.simulated(Workspace.yaml(devices: 5), ingest: taking)
        let resumed = Workspace.start + 10 * Workspace.minute + 1
        #expect(second.now == resumed)
        second.advance(byMillis: 10 * Workspace.minute)
        #expect(
            Set(taking.uploads.map(\.installID)) == Set(refusing.uploads.map(\.installID)),
            "the devices got new install ids")
        // Each device's first fix after the restart brings its backlog over the threshold: all of
        // it goes at once, 1 s in.
        let firstSends = second.engine.slots.compactMap { taking.uploads(of: $0.id).first?.request.sentAt }
        #expect(firstSends == Array(repeating: resumed + 1_000, count: 5))
        let taken = taking.acceptedLocationIDs
        #expect(taken.count == Set(taken).count, "a fix was taken twice")
        #expect(
            Set(taken).count + second.engine.snapshot().fixes.ledger.pending == kept + second.engine.metrics.fixesStored
        )
        #expect(
            Set(refusing.uploads.flatMap(\.locationIDs)).isSubset(of: Set(taken)),
            "a fix the first run kept was not delivered")
    }

    @Test(
        "the same fleet file and seed give the same devices and fixes whatever the network answers and when",
        arguments: [
            SimulatedAnswer.respond(status: 200, afterMillis: 20_000), .respond(status: 503, afterMillis: 100), .hang,
        ])
    func sameSeedSameFixes(answer: SimulatedAnswer) throws {
        func run(_ answer: SimulatedAnswer) throws -> (installs: [String: String], fixes: Set<String>) {
            let workspace = try Workspace()
            defer { workspace.cleanUp() }
            let ingest = SimulatedIngest { _ in answer }
            var fleet = try workspace.simulated(Workspace.yaml(devices: 6, sync: "{syncThreshold: 3}"), ingest: ingest)
            fleet.advance(byMillis: 20 * Workspace.minute)
            let admitted = Set(ingest.uploads.flatMap(\.locationIDs)).union(try fleet.storedFixes().map(\.id))
            #expect(admitted.count == fleet.engine.metrics.fixesStored)
            return (fleet.engine.roster.installIDs, admitted)
        }
        let taken = try run(.ok)
        let other = try run(answer)
        #expect(taken.installs.count == 6)
        #expect(other.installs == taken.installs)
        #expect(taken.fixes.count > 100)
        #expect(other.fixes == taken.fixes)
    }
}
