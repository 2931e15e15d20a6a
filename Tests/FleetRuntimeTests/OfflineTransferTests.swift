import BeekonDevice
import FleetTestSupport
import Foundation
import IngestReceiver
import Testing

@testable import FleetEngine

/// A phone whose network goes down (`networkOffline`) hears `offline`, at that instant, for what it
/// had out; it sends nothing while offline, and the server's late answers are counted, never
/// heard. Modelled timing (`--deterministic`), so every instant is exact and every run alike.
@Suite("Transfers cut off by the network's loss", .serialized)
struct OfflineTransferTests {
    /// The fleet's clock.start, 2026-06-15T08:00:00Z, Unix ms.
    static let start: Int64 = 1_781_510_400_000
    static let offlineAt = start + 120_000
    static let onlineAt = offlineAt + 60_000
    /// Every device loses its network 2 virtual minutes in, for one minute. The tests add an
    /// injected latency, so a transfer is out long enough for the loss to find one.
    static let offlineFaults = """
          - {at: 2m, for: 1m, select: all, action: networkOffline}
        """

    @Test(
        """
        an upload out when the network goes is heard as `offline` at that instant; the late \
        answer is counted, not heard; the same batch goes the instant the network is back
        """
    )
    func uploadCutOff() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // Answers take 300 real ms, so the cut upload's answer most likely comes after the cut; one
        // in before it, held for its instant, is counted alike. Uploads are out 20.1 virtual s,
        // back to back.
        let server = try workspace.receiver { $0.script.latencyMillis = 300 }
        defer { server.stop() }
        let faults = """
            faults:
              - {at: 0s, for: 1h, select: all, action: latency, params: {ms: 20000}}
            \(Self.offlineFaults)
            """
        let runtime = try await workspace.runtime(
            Workspace.yaml(warp: 600, faults: faults), ingest: server.url, virtualMinutes: 5,
            timing: .deterministic)
        let metrics = runtime.metrics
        let devices = runtime.snapshot.devices
        #expect(devices.count == 3)
        for device in devices {
            let uploads = device.uploads
            let cut = uploads.filter { $0.outcome == .offline }
            guard cut.count == 1, let record = cut.first, let index = uploads.firstIndex(of: record) else {
                Issue.record("\(device.id): not one upload cut off: \(uploads)")
                continue
            }
            #expect(record.at == Self.offlineAt)
            #expect(record.latencyMillis > 0 && record.latencyMillis < 20_100, "it was not out: \(record)")
            // Not heard: the server took the batch, yet the device sends it again, at once, when back.
            let next = uploads[index + 1]
            #expect(next.batchID == record.batchID)
            #expect(next.outcome == .status(200))
            #expect(next.at == Self.onlineAt + 20_100)
        }
        #expect(metrics.batchesByOutcome[.offline] == 3)
        #expect(runtime.snapshot.metrics.uploads.overall[.offline]?.count == 3)
        #expect(TransferOutcome.offline.isNetwork)
        #expect(metrics.answersAfterOffline == 3, "each cut upload's real answer is counted once")
        #expect(metrics.answersAfterTimeout == 0)
        // Nothing was sent while offline; the cut batches, which the server took, came again at the return.
        let uploads = server.uploadLog()
        #expect(uploads.allSatisfy { $0.sentAt < Self.offlineAt || $0.sentAt >= Self.onlineAt })
        let resent = Dictionary(grouping: uploads, by: \.batchID).values.filter { $0.count == 2 }
        #expect(resent.count == 3)
        // The same batch: its sent_at is when it was assembled, before the network went.
        #expect(resent.allSatisfy { $0[0].scripted == nil && $0[1].sentAt == $0[0].sentAt })
        // And the normal answer was 200 every time, never a storage failure.
        let stats = server.stats()
        #expect(stats.requestsByStatus.keys.sorted() == [200])
        // Every fix the devices stored arrived, or is still pending: the cut rows were kept.
        #expect(stats.fixesStored + metrics.fixes.ledger.pending == metrics.fixesStored)
        // The cut batches were acknowledged by the server unheard, and their fixes went twice.
        #expect(metrics.fixes.unheardAcknowledgements.batches == 3)
        #expect(metrics.fixes.unheardAcknowledgements.fixes == resent.map { $0[0].locationCount }.reduce(0, +))
        #expect(metrics.fixes.unaccounted == 0)
    }

    @Test(
        """
        a token refresh out when the network goes is heard as `offline` and counts no \
        failure; none is sent while offline; it goes again the instant the network is back
        """
    )
    func refreshCutOff() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // Uploads need a token the endpoint issued: the one the fleet file gives is refused 401.
        let server = try workspace.receiver { $0.auth.requireToken = true }
        defer { server.stop() }
        // The token expires at 08:02:55, so the proactive refresh goes at 08:01:55 (60 s skew),
        // 5 s before the network's loss; its answer is due 10.1 s after it. No uploads before the
        // network's return: the interval is an hour and there is no threshold. The refresh sends
        // its refresh token, which the endpoint needs.
        let expiresAt = (Self.start + 175_000) / 1000
        let yaml = Workspace.yaml(
            warp: 600,
            faults: """
                faults:
                  - {at: 0s, for: 1h, select: all, action: latency, params: {ms: 10000}}
                \(Self.offlineFaults)
                """
        ).replacingOccurrences(
            of: "sync: {syncThreshold: 3, intervalSeconds: 60}",
            with: """
                sync: {syncThreshold: 0, intervalSeconds: 3600, auth: {accessToken: a, refreshToken: r, \
                expiresAt: \(expiresAt), refreshUrl: "\(server.tokenURL!)", \
                refreshPayload: {refresh_token: "{refreshToken}"}}}
                """)
        let runtime = try await workspace.runtime(yaml, ingest: server.url, virtualMinutes: 4, timing: .deterministic)
        let metrics = runtime.metrics
        #expect(metrics.refreshesByOutcome == [.offline: 3, .status(200): 3], "\(metrics.refreshesByOutcome)")
        #expect(metrics.refreshesSent == 6)
        // Every token request was answered with a token, the cut ones too.
        #expect(server.stats().tokensIssued == 6)
        #expect(metrics.answersAfterOffline == 3)
        // The network's return uploads the backlog, after the refresh it found due, with its token.
        // The batch is assembled at the network's return and waits for the token (sent_at is then).
        #expect(server.uploadLog().map(\.sentAt).min() == Self.onlineAt)
        let sends = runtime.snapshot.devices.flatMap(\.uploads).map { $0.at - Int64($0.latencyMillis) }
        #expect(sends.min() == Self.onlineAt + 10_100)
        #expect(server.stats().unauthorizedUploads == 0)
        for device in runtime.snapshot.devices {
            #expect(device.auth.lastRefreshOutcome == .status(200))
            #expect(device.auth.breakerOpenUntil == nil)
            #expect(
                device.auth.validUntil == Self.onlineAt + 10_100 + 3_600_000,
                "the refresh was not sent at the network's return")
        }
    }
}
