import BeekonDevice
import FleetDescription
import FleetTestSupport
import Foundation
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// Issue #34: a batch sent before a process death goes out again as exactly that batch (the same
/// rows, `batch_id` and `sent_at`), whatever arrived since, so a server deduping on `batch_id`
/// stores no fix twice (seed 05: "a retry carries the same batch_id"; spec §1). On the simulated
/// driver, with real SQLite stores: a kill or a reboot at each step of the first upload, for a
/// batch smaller than, equal to and cut by `batchSize`.
@Suite("Batch after death: the same batch, whatever arrived since")
struct BatchAfterDeathTests {
    typealias Step = BatchAfterDeath.Step

    static let start: Int64 = 1_781_510_400_000  // 2026-06-15T08:00:00Z
    /// The first upload goes when 5 fixes are pending (one every 10 s from the route).
    static let threshold = 5
    /// The server's answers that come after the death (within the SDK's 30 s timeout)...
    static let slowMillis: Int64 = 20_000
    /// ...and the token endpoint's (within its 15 s).
    static let slowTokenMillis: Int64 = 10_000
    static let token = Array(#"{"access_token": "fresh", "expires_in": 3600}"#.utf8)

    static func yaml(batchSize: Int, step: Step) -> String {
        // Before send: no access token yet, so the batch waits for the refresh it starts.
        let auth =
            step == .beforeSend
            ? ", auth: {refreshToken: r, refreshUrl: \"http://ingest.invalid/token\", "
                + "refreshPayload: {refresh_token: \"{refreshToken}\"}}"
            : ""
        let config =
            "{preset: precision, whenStationary: keepTracking, sync: {syncThreshold: \(threshold), "
            + "intervalSeconds: 3600, batchSize: \(batchSize)\(auth)}}"
        return """
            name: batch-after-death
            seed: 11
            clock: {start: 2026-06-15T08:00:00Z, warp: 3000}
            groups:
              - {name: android, count: 1, platform: android, route: steady.csv, pace: route, config: \(config)}
              - {name: ios, count: 1, platform: ios, route: steady.csv, pace: route, config: \(config)}
            """
    }

    /// The server: the device's first upload (or token refresh) answered by `step`, the rest 200 at once.
    static func ingest(_ step: Step) -> SimulatedIngest {
        SimulatedIngest { context in
            guard case .upload = context.request.kind else {
                return .respond(status: 200, body: token, afterMillis: slowTokenMillis)
            }
            guard context.priorUploads == 0 else { return .ok }
            switch step {
            case .beforeSend, .afterDelete: return .ok
            case .inFlight: return .respond(status: 503, afterMillis: slowMillis)
            case .answeredUnheard: return .respond(status: 200, afterMillis: slowMillis)
            }
        }
    }

    /// Whether `device` has reached `step` of its first upload.
    static func reached(_ step: Step, _ device: String, ingest: SimulatedIngest, requests: [SimulatedRequest]) -> Bool {
        switch step {
        case .beforeSend:
            requests.contains { $0.device == device && $0.kind == .refresh }
        case .inFlight, .answeredUnheard, .afterDelete:
            !ingest.uploads(of: device).isEmpty
        }
    }

    @Test(
        """
        killed or rebooted at each step of an upload, a device sends that batch again first, exactly as it went \
        (rows, batch_id, sent_at), newer fixes in the next batch: a server deduping on batch_id stores no fix twice
        """,
        arguments: [FleetAction.Name.kill, .reboot], Step.allCases)
    func sameBatchAfterDeath(action: FleetAction.Name, step: Step) throws {
        // Batch smaller than, equal to and cut by batchSize (5 fixes pending at the first upload).
        for batchSize in [8, 5, 3] {
            try check(action: action, step: step, batchSize: batchSize)
        }
    }

    func check(action: FleetAction.Name, step: Step, batchSize: Int) throws {
        let label = "\(action) \(step) batchSize \(batchSize)"
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        try BatchAfterDeath.route().write(
            to: workspace.folder.appendingPathComponent("steady.csv"), atomically: true, encoding: .utf8)
        let ingest = Self.ingest(step)
        var fleet = try workspace.simulated(Self.yaml(batchSize: batchSize, step: step), ingest: ingest)
        let devices = fleet.engine.slots.map(\.id)
        let outage: FleetAction =
            action == .kill ? .kill(relaunchAfterMillis: 60_000) : .reboot(relaunchAfterMillis: 60_000)
        var diedAt: [String: Int64] = [:]
        while diedAt.count < devices.count, fleet.now < Self.start + 10 * 60_000 {
            fleet.advance(byMillis: 1000)
            for device in devices
            where diedAt[device] == nil
                && Self.reached(step, device, ingest: ingest, requests: fleet.sent)
            {
                _ = try fleet.command { loop throws(FleetControlError) in try loop.act(outage, on: .ids([device])) }
                diedAt[device] = fleet.now
            }
        }
        try #require(diedAt.count == devices.count, "\(label): a device never reached the step")
        fleet.advance(to: Self.start + 30 * 60_000)
        let metrics = fleet.engine.snapshot()
        #expect(ingest.malformed.isEmpty, "\(label): \(ingest.malformed)")

        // Every sending of a batch is that batch: the same rows and sent_at.
        for (batchID, sendings) in Dictionary(grouping: ingest.uploads, by: \.batchID) where sendings.count > 1 {
            #expect(
                sendings.allSatisfy { $0.locationIDs == sendings[0].locationIDs && $0.sentAt == sendings[0].sentAt },
                "\(label): batch \(batchID) went out with other rows or sent_at")
        }
        // A server that keeps the first 2xx batch of each batch_id (seed 05's example) stores each fix once,
        // and every fix the devices admitted is stored there or still pending.
        var kept: Set<String> = []
        var stored: [String] = []
        for upload in ingest.uploads where upload.accepted && kept.insert(upload.batchID).inserted {
            stored += upload.locationIDs
        }
        #expect(stored.count == Set(stored).count, "\(label): a fix stored twice by a batch-deduping server")
        #expect(stored.count + metrics.fixes.ledger.pending == metrics.fixesStored, "\(label)")
        #expect(metrics.fixes.unaccounted == 0)

        for device in devices {
            let uploads = ingest.uploads(of: device)
            let died = diedAt[device]!
            let before = uploads.filter { $0.request.sentAt <= died }
            let after = uploads.filter { $0.request.sentAt > died }
            let requests = fleet.sent.filter { $0.device == device }.map { ($0.kind, $0.sentAt - Self.start) }
            try #require(after.count >= 2, "\(label): \(device) sent too little after its relaunch: \(requests)")
            // The device's oldest fixes, up to batchSize, were the batch at its death.
            let all = uploads.flatMap { zip($0.locationIDs, $0.timestamps) }.sorted { $0.1 < $1.1 }
            var firstBatch: [String] = []
            for (id, _) in all where !firstBatch.contains(id) && firstBatch.count < min(Self.threshold, batchSize) {
                firstBatch.append(id)
            }
            switch step {
            case .beforeSend:
                #expect(before.isEmpty, "\(label): \(device) sent before its token came")
                #expect(after[0].locationIDs == firstBatch, "\(label): \(device) did not send its batch first")
            case .inFlight, .answeredUnheard:
                #expect(before.count == 1 && before[0].locationIDs == firstBatch, "\(label): \(device)")
                #expect(after[0].batchID == before[0].batchID, "\(label): \(device) re-sent under a new batch_id")
                #expect(after[0].locationIDs == firstBatch && after[0].sentAt == before[0].sentAt)
            case .afterDelete:
                #expect(!after.contains { $0.batchID == before[0].batchID }, "\(label): \(device) sent an acked batch")
            }
            // Newer fixes were stored when the batch went again: they went in the next batch.
            #expect(
                step == .afterDelete
                    || after.dropFirst().contains { upload in
                        upload.timestamps.contains { $0 <= after[0].request.sentAt }
                    },
                "\(label): \(device) stored nothing newer before re-sending, so the case proves nothing")
        }
    }
}
