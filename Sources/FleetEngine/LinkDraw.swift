import BeekonDevice
import FleetDescription
import Foundation

/// What a device's modelled network (`NetworkProfile`) does to one transfer, drawn from the
/// device's own network stream: the virtual time it adds to the answer, or how it fails and
/// when the device hears that. Pure: the profile, the body's size on the wire and the draws in,
/// the fate out; `startTransfer` applies it.
///
/// The model, per transfer:
/// - latency: log-normal with the profile's median and p95 (σ = ln(p95 ÷ median) ÷ 1.645), the
///   round trip the request and its answer take;
/// - a name lookup that fails (`dns`) is heard after one round trip (the resolver's answer), a
///   TLS handshake that fails (`tls`) after two (TCP's, then the hello and its alert);
/// - the body takes its size ÷ the uplink's bandwidth;
/// - loss: each of the body's segments (1,460 bytes) is lost with the profile's share, again and
///   again; each loss costs a retransmission timeout, 200 ms doubled per consecutive loss, and a
///   sixth loss in a row resets the connection;
/// - `resetMidBody`: the connection resets after a uniform share of the body.
/// A reset is heard half a round trip after the bytes that went before it.
package struct LinkDraw: Sendable, Hashable {
    /// How the transfer fares.
    package enum Fate: Sendable, Hashable {
        /// It goes through: the answer is heard this much later than the server's own time.
        case deliver(extraMillis: Int64)
        /// It fails before the server could have it; the device hears `failure` this long after
        /// the send, and the request never goes on the wire.
        case fail(TransferOutcome.LinkFailure, afterMillis: Int64)
    }

    package var fate: Fate
    /// Retransmissions the body needed (lost segments), whatever the fate.
    package var retransmissions: Int
    /// A reset's place in the body: the bytes that went before it (nil for any other fate). The
    /// real request goes on the wire and is cut there, so the server sees the truncated body.
    package var resetAfterBytes: Int? = nil

    /// A body segment's payload (Ethernet MTU less the IP and TCP headers), bytes.
    static let segmentBytes = 1460
    /// The first retransmission timeout, ms (Linux's minimum RTO); doubled per loss in a row.
    static let retransmissionMillis = 200.0
    /// Losses of one segment in a row that reset the connection.
    static let lossesToReset = 6
    /// z of the 95th percentile of a standard normal.
    static let p95Z = 1.6448536269514722

    /// One transfer's fate over `profile`, for a body of `bodyBytes` on the wire.
    package static func draw(
        _ profile: NetworkProfile, bodyBytes: Int, using rng: inout some RandomNumberGenerator
    ) -> LinkDraw {
        let roundTrip = latencyMillis(profile, using: &rng)
        if profile.dns > 0, Double.random(in: 0..<1, using: &rng) < profile.dns {
            return LinkDraw(fate: .fail(.dns, afterMillis: rounded(roundTrip)), retransmissions: 0)
        }
        if profile.tls > 0, Double.random(in: 0..<1, using: &rng) < profile.tls {
            return LinkDraw(fate: .fail(.tls, afterMillis: rounded(2 * roundTrip)), retransmissions: 0)
        }
        let millisPerByte = 8 / profile.uplinkKbps
        // Where a `resetMidBody` cuts the body, if it does.
        var cutAt: Int?
        if profile.resetMidBody > 0, Double.random(in: 0..<1, using: &rng) < profile.resetMidBody {
            cutAt = Int(Double.random(in: 0..<1, using: &rng) * Double(bodyBytes))
        }
        var waitedMillis = 0.0
        var retransmissions = 0
        let segments = max(1, (bodyBytes + segmentBytes - 1) / segmentBytes)
        for segment in 0..<segments {
            let sentBefore = segment * segmentBytes
            if let cutAt, cutAt < sentBefore + segmentBytes {
                let heard = roundTrip / 2 + Double(cutAt) * millisPerByte + waitedMillis
                return LinkDraw(
                    fate: .fail(.reset, afterMillis: rounded(heard)), retransmissions: retransmissions,
                    resetAfterBytes: cutAt)
            }
            guard profile.loss > 0 else { continue }
            var inARow = 0
            while Double.random(in: 0..<1, using: &rng) < profile.loss {
                inARow += 1
                retransmissions += 1
                if inARow == lossesToReset {
                    // The five timeouts before the sixth loss ran out: the stack gives up.
                    let heard = roundTrip / 2 + Double(sentBefore) * millisPerByte + waitedMillis
                    return LinkDraw(
                        fate: .fail(.reset, afterMillis: rounded(heard)), retransmissions: retransmissions,
                        resetAfterBytes: sentBefore)
                }
                waitedMillis += timeoutMillis(afterLosses: inARow)
            }
        }
        let total = roundTrip + Double(bodyBytes) * millisPerByte + waitedMillis
        return LinkDraw(fate: .deliver(extraMillis: rounded(total)), retransmissions: retransmissions)
    }

    /// The link's round trip for one transfer, ms: log-normal from the profile's median and p95.
    static func latencyMillis(_ profile: NetworkProfile, using rng: inout some RandomNumberGenerator) -> Double {
        guard profile.latencyMedianMillis > 0 else { return 0 }
        let median = Double(profile.latencyMedianMillis)
        let sigma = log(Double(max(profile.latencyP95Millis, profile.latencyMedianMillis)) / median) / p95Z
        return median * exp(sigma * rng.standardNormal())
    }

    /// The timeout after the `losses`-th loss in a row of one segment, ms.
    static func timeoutMillis(afterLosses losses: Int) -> Double {
        retransmissionMillis * Double(1 << (losses - 1))
    }

    private static func rounded(_ millis: Double) -> Int64 { Int64(millis.rounded()) }
}
