import BeekonDevice
import FleetDescription
import Testing

@testable import FleetEngine

/// A modelled network's draw for one transfer, seeded: its latency distribution, its bandwidth,
/// its retransmissions and resets, its failures.
@Suite("Link draws")
struct LinkDrawTests {
    static let draws = 10_000

    /// `profile` with only what a test looks at left on.
    static func only(
        _ profile: NetworkProfile, uplinkKbps: Double = 1_000_000, loss: Double = 0, dns: Double = 0, tls: Double = 0,
        resetMidBody: Double = 0
    ) -> NetworkProfile {
        var profile = profile
        profile.uplinkKbps = uplinkKbps
        profile.loss = loss
        profile.dns = dns
        profile.tls = tls
        profile.resetMidBody = resetMidBody
        return profile
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
    }

    @Test(
        "latency is log-normal: over 10,000 draws its p50 and p95 are the profile's within 5 %",
        arguments: NetworkProfile.Name.allCases)
    func latency(name: NetworkProfile.Name) {
        let profile = NetworkProfile.named(name)
        var rng = SplitMix64(seed: 38)
        let sorted = (0..<Self.draws).map { _ in LinkDraw.latencyMillis(profile, using: &rng) }.sorted()
        let p50 = Self.percentile(sorted, 0.5)
        let p95 = Self.percentile(sorted, 0.95)
        #expect(abs(p50 / Double(profile.latencyMedianMillis) - 1) < 0.05, "p50 \(p50)")
        #expect(abs(p95 / Double(profile.latencyP95Millis) - 1) < 0.05, "p95 \(p95)")
    }

    @Test("with no loss and no failures, a transfer takes its round trip and body ÷ bandwidth, and delivers")
    func bandwidth() {
        let profile = Self.only(
            NetworkProfile(
                uplinkKbps: 1, latencyMedianMillis: 100, latencyP95Millis: 100, loss: 0, dns: 0, tls: 0,
                resetMidBody: 0), uplinkKbps: 100)
        var rng = SplitMix64(seed: 1)
        // 10,000 bytes at 100 kbit/s: 800 ms; a latency with no spread: 100 ms.
        #expect(
            LinkDraw.draw(profile, bodyBytes: 10_000, using: &rng)
                == LinkDraw(fate: .deliver(extraMillis: 900), retransmissions: 0))
    }

    @Test("each loss in a row doubles the retransmission timeout from 200 ms")
    func timeouts() {
        #expect((1...5).map { LinkDraw.timeoutMillis(afterLosses: $0) } == [200, 400, 800, 1600, 3200])
    }

    @Test(
        "six losses in a row reset the connection: with loss 0.5, a one-segment body resets 1 time in 64",
        arguments: [UInt64(1), 2, 3])
    func resetShare(seed: UInt64) {
        let profile = Self.only(.named(.wifi), loss: 0.5)
        var rng = SplitMix64(seed: seed)
        var resets = 0
        var retransmissions = 0
        for _ in 0..<Self.draws {
            let draw = LinkDraw.draw(profile, bodyBytes: 500, using: &rng)
            retransmissions += draw.retransmissions
            if case .fail(.reset, _) = draw.fate { resets += 1 }
        }
        let share = Double(resets) / Double(Self.draws)
        #expect(abs(share - 1.0 / 64) < 0.004, "reset share \(share)")
        // A geometric count of losses: about one retransmission a transfer.
        #expect(abs(Double(retransmissions) / Double(Self.draws) - 1) < 0.05)
    }

    @Test(
        "dns, tls and resetMidBody fail about their share of transfers, each heard as its own failure",
        arguments: [
            (TransferOutcome.LinkFailure.dns, 0.5), (.tls, 0.25), (.reset, 0.1),
        ])
    func failureShare(failure: TransferOutcome.LinkFailure, share: Double) {
        // A latency with no spread (100 ms) and 5,000 bytes at 100 kbit/s (400 ms).
        var profile = NetworkProfile(
            uplinkKbps: 100, latencyMedianMillis: 100, latencyP95Millis: 100, loss: 0, dns: 0, tls: 0, resetMidBody: 0)
        switch failure {
        case .dns: profile.dns = share
        case .tls: profile.tls = share
        case .reset: profile.resetMidBody = share
        }
        var rng = SplitMix64(seed: 5)
        var failed = 0
        for _ in 0..<Self.draws {
            let draw = LinkDraw.draw(profile, bodyBytes: 5_000, using: &rng)
            guard case .fail(let heard, let after) = draw.fate else {
                #expect(draw.fate == .deliver(extraMillis: 500))
                continue
            }
            #expect(heard == failure)
            switch failure {
            case .dns: #expect(after == 100)
            case .tls: #expect(after == 200)
            // Half a round trip, then the part of the body that went before the cut.
            case .reset: #expect((50...450).contains(after))
            }
            failed += 1
        }
        #expect(abs(Double(failed) / Double(Self.draws) - share) < 0.02)
    }

    @Test("a name lookup fails after one round trip and a handshake after two")
    func failureTimes() {
        var rng = SplitMix64(seed: 9)
        let fixed = NetworkProfile(
            uplinkKbps: 1000, latencyMedianMillis: 150, latencyP95Millis: 150, loss: 0, dns: 1, tls: 0, resetMidBody: 0)
        #expect(LinkDraw.draw(fixed, bodyBytes: 100, using: &rng).fate == .fail(.dns, afterMillis: 150))
        var tls = fixed
        tls.dns = 0
        tls.tls = 1
        #expect(LinkDraw.draw(tls, bodyBytes: 100, using: &rng).fate == .fail(.tls, afterMillis: 300))
    }

    @Test("the same stream draws the same fates")
    func replays() {
        func fates(_ seed: UInt64) -> [LinkDraw] {
            var rng = SplitMix64(seed: seed)
            return (0..<200).map { _ in LinkDraw.draw(.named(.lossy), bodyBytes: 20_000, using: &rng) }
        }
        #expect(fates(4) == fates(4))
        #expect(fates(4) != fates(5))
    }
}
