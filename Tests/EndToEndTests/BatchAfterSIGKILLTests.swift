import BeekonDevice
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

/// Issue #34 on the real driver: `beekon-fleet run` killed with a real SIGKILL at each step of its
/// devices' first upload, then run again on the same data folder, against the reference receiver
/// (which dedupes, and counts what a server deduping on `batch_id` alone would store twice). Three
/// devices: the batch smaller than, equal to and cut by `batchSize`.
@Suite("Batch after SIGKILL: the same batch from a real process", .serialized)
struct BatchAfterSIGKILLTests {
    typealias Step = BatchAfterDeath.Step

    /// Uploads at warp 5, the first when 5 fixes are pending (about 8 real seconds in). In flight
    /// and answered unheard: for the first two minutes every answer is heard 25 virtual s late (5
    /// real s, within the SDK's 30 s: the window the kill lands in, the server having answered).
    /// Before the send: the batch waits for a token the endpoint refuses at first (its retry is
    /// two virtual hours off), so the kill finds it assembled and never sent.
    static func yaml(step: Step, tokenURL: String?) -> String {
        let auth =
            tokenURL.map {
                ", auth: {refreshToken: r, refreshUrl: \"\($0)\", refreshPayload: {refresh_token: \"{refreshToken}\"}}"
            } ?? ""
        let groups = [8, 5, 3].map { size in
            "  - {name: size\(size), count: 1, platform: android, route: steady.csv, pace: route, config: "
                + "{preset: precision, whenStationary: keepTracking, sync: {syncThreshold: 5, intervalSeconds: 3600, "
                + "batchSize: \(size)\(auth)}}}"
        }
        let faults =
            step == .inFlight || step == .answeredUnheard
            ? "faults:\n  - {at: 0s, for: 2m, action: latency, params: {ms: 25000}}\n" : ""
        return """
            name: batch-after-sigkill
            seed: 11
            clock: {start: 2026-06-15T08:00:00Z, warp: 5}
            groups:
            \(groups.joined(separator: "\n"))
            \(faults)
            """
    }

    @Test(
        """
        SIGKILL before the send, in flight, answered but unheard, or after the delete, then a second run: each \
        first batch goes again (if at all) exactly as it went, and no fix is stored under two batch ids
        """,
        arguments: Step.allCases)
    func sigkillAtEachStep(step: Step) async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        try BatchAfterDeath.route().write(
            to: workspace.folder.appendingPathComponent("steady.csv"), atomically: true, encoding: .utf8)
        let server = try workspace.receiver { configuration in
            switch step {
            case .beforeSend:
                configuration.auth.requireToken = true
                configuration.tokenEndpoint.failStatus = 503
                configuration.tokenEndpoint.failFirst = 3
            case .inFlight: configuration.script.failFirst = 1
            case .answeredUnheard, .afterDelete: break
            }
        }
        defer { server.stop() }
        let fleet = workspace.folder.appendingPathComponent("fleet.yaml").path
        try Self.yaml(step: step, tokenURL: step == .beforeSend ? server.tokenURL : nil)
            .write(toFile: fleet, atomically: true, encoding: .utf8)

        let (first, firstOutput) = try ResumeRunTests.launch(fleet, data: workspace.data, server: server)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        // Each device's first request reached the server; the answer is on its way back (or, after the delete,
        // was heard a real second ago; before the send, the token endpoint refused each device's refresh).
        let reached = try await offPool { () -> Bool in
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let stats = server.stats()
                let count = step == .beforeSend ? stats.requestsByStatus[503] ?? 0 : server.uploadLog().count
                if count >= 3 { return true }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return false
        }
        try #require(reached, "the first run's devices never reached the step")
        if step == .afterDelete || step == .beforeSend { try await Task.sleep(for: .seconds(1)) }
        kill(first.processIdentifier, SIGKILL)
        try await offPool {
            _ = firstOutput.fileHandleForReading.readDataToEndOfFile()
            first.waitUntilExit()
        }
        #expect(first.terminationReason == .uncaughtSignal)
        try await Task.sleep(for: .milliseconds(200))
        let before = server.uploadLog()
        if step == .beforeSend { #expect(before.isEmpty, "an upload went before its token came") }

        // The second run resumes the devices from their stores, at max warp, for 20 virtual minutes.
        let (second, secondOutput) = try ResumeRunTests.launch(
            fleet, data: workspace.data, server: server, more: ["--warp", "max", "--for", "20m"])
        let printed = try await offPool {
            let text = String(decoding: secondOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            second.waitUntilExit()
            return text
        }
        #expect(second.terminationStatus == 0, "\(printed)")
        #expect(printed.contains("every admitted fix is accounted for"), "\(printed)")

        let stats = server.stats()
        #expect(stats.fixesInAnotherBatch == 0, "fixes sent again under a new batch_id")
        #expect(stats.batchesChangedOnRetry == 0, "a batch_id re-used for other rows")
        let uploads = server.uploadLog()
        for (batchID, sendings) in Dictionary(grouping: uploads, by: \.batchID) where sendings.count > 1 {
            #expect(
                sendings.allSatisfy {
                    $0.sentAt == sendings[0].sentAt && $0.locationCount == sendings[0].locationCount
                },
                "batch \(batchID) went again with another sent_at or size")
        }
        let byDevice = Dictionary(grouping: uploads, by: \.installID)
        #expect(byDevice.count == 3, "\(printed)")
        // The oldest fixes, up to batchSize (5 were pending): the batch each device died with.
        #expect(byDevice.values.map { $0[0].locationCount }.sorted() == [3, 5, 5])
        for (device, sent) in byDevice {
            try #require(sent.count >= 2, "\(device) sent too little: \(sent)")
            switch step {
            case .beforeSend:
                #expect(sent[0].batchID != sent[1].batchID)
            case .inFlight, .answeredUnheard:
                // The first run's batch, the first thing the second run sent.
                #expect(sent[0].batchID == sent[1].batchID, "\(device) re-sent its batch under a new batch_id")
                #expect(sent.count(where: { $0.batchID == sent[0].batchID }) == 2)
            case .afterDelete:
                #expect(sent.count(where: { $0.batchID == sent[0].batchID }) == 1, "\(device) sent an acked batch")
            }
        }
        switch step {
        case .beforeSend: #expect(stats.tokensIssued >= 3 && stats.duplicateBatches == 0)
        case .inFlight: #expect(stats.duplicateBatches == 0 && uploads.filter { $0.scripted != nil }.count == 3)
        case .answeredUnheard: #expect(stats.duplicateBatches == 3)
        case .afterDelete: #expect(stats.duplicateBatches == 0)
        }
    }
}
