import BeekonDevice
import BeekonNet

/// What a device heard at the end of an upload or a token refresh, as the fleet counts it. Text
/// only at the edge (`description`: `200`, `timeout`, `offline`), where it labels counts.
///
/// Whose fault an outcome is decides which verdict it feeds: statuses and network failures
/// (`timeout`: the server did not answer within the SDK's timeout in real time) are the server's;
/// `injected-timeout`, `offline`, `handover` and the modelled network's failures (`injected-dns`,
/// `injected-tls`, `injected-reset`: requests never sent) are faults the run injected;
/// `warp-timeout` and `not-sent-…` are the fleet's own (its timing, its limits), never the
/// server's (`isFleetSide`).
public enum TransferOutcome: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The server answered with this status.
    case status(Int)
    /// No answer: the transport failed (`timeout`: the server did not answer within the SDK's
    /// timeout, counted in real seconds whatever the warp).
    case failed(NetworkFailure)
    /// The device's network went down while the transfer was out.
    case offline
    /// The phone moved between Wi-Fi and cellular (`flapping`) while the transfer was out: its
    /// connection went with the old network, and the device heard a reset.
    case handover
    /// The device heard its timeout because of an injected fault (a `timeouts` fault took the
    /// transfer, or `latency` put its answer past the SDK's timeout), whatever the server did.
    case injectedTimeout
    /// The device heard its timeout only because answers take their real time × the warp
    /// (`--timing as-answered` above warp 1): the server had not answered within the SDK's
    /// timeout divided by the warp, which says nothing of the server.
    case warpTimeout
    /// The fleet could not put the request on the wire before its device gave up on it.
    case notSent(NotSentCause)
    /// The device's modelled network (`network:`, `networkProfile`) failed the transfer before
    /// the server could have it: the request never went on the wire.
    case injected(LinkFailure)
    /// A captive portal answered instead of the server (`captivePortal`): the device heard the
    /// portal's 200 or 302; the request never reached the server.
    case captivePortal

    /// How a modelled network fails a transfer (`LinkDraw`).
    public enum LinkFailure: String, Sendable, Hashable, Codable, CaseIterable {
        /// The name lookup failed.
        case dns
        /// The TLS handshake failed.
        case tls
        /// The connection was reset during the body (six losses in a row, or `resetMidBody`).
        case reset
    }

    /// Why the fleet did not put a request on the wire.
    public enum NotSentCause: String, Sendable, Hashable, Codable, CaseIterable {
        /// It waited behind the fleet's own connection cap (`--max-connections`) until its device
        /// heard its timeout, or so long that the server, once it had it, had less than the SDK's
        /// timeout before the device gave up (the fleet's wait, not the server's).
        case connectionCap = "connection-cap"
        /// No socket could be made: the process or the system was out of file descriptors.
        case descriptors
        /// The connection could not leave from the device's source address (`--source-addresses`):
        /// not this machine's, or no route from it to the server.
        case sourceAddress = "source-address"
    }

    public var description: String {
        switch self {
        case .status(let status): String(status)
        case .failed(let failure): failure.rawValue
        case .offline: "offline"
        case .handover: "handover"
        case .injectedTimeout: "injected-timeout"
        case .warpTimeout: "warp-timeout"
        case .notSent(let cause): "not-sent-\(cause.rawValue)"
        case .injected(let failure): "injected-\(failure.rawValue)"
        case .captivePortal: "captive-portal"
        }
    }

    /// The fleet's label for a transport's failure: a socket the process could not make, or
    /// could not send from its source address, was never on the wire.
    public init(_ failure: NetworkFailure) {
        switch failure {
        case .tooManyOpenFiles: self = .notSent(.descriptors)
        case .sourceAddress: self = .notSent(.sourceAddress)
        default: self = .failed(failure)
        }
    }

    /// A 2xx answer: the upload was acknowledged.
    public var isSuccess: Bool {
        if case .status(let code) = self { return (200..<300).contains(code) }
        return false
    }

    /// An answer that ends an upload's batch for its device: a 2xx (its rows deleted) or 400/422
    /// (dropped). Any other outcome leaves them pending, to go again.
    var endsTheBatch: Bool {
        guard case .status(let code) = self else { return false }
        return [.accepted, .rejected].contains(UploadVerdict(status: code))
    }

    /// No answer reached the device (a network failure, a fault, the fleet's own), rather than a
    /// status.
    public var isNetwork: Bool {
        if case .status = self { return false }
        return true
    }

    /// Whose doing an outcome is.
    public enum Party: String, Sendable, Hashable {
        /// The server's answer, or the network's failure to reach it.
        case server
        /// A fault the run injected (`timeouts`, `latency`, `networkOffline`, a `network:` profile).
        case fault
        /// The fleet's own timing or limits.
        case fleet
    }

    /// Whose doing it is: the one rule the verdicts and the reports read.
    public var party: Party {
        switch self {
        case .status, .failed: .server
        case .offline, .handover, .injectedTimeout, .injected, .captivePortal: .fault
        case .warpTimeout, .notSent: .fleet
        }
    }

    /// The fleet's own doing (its timing or its limits), never the server's: left out of the
    /// server's verdict (`upload.errors`) and counted by `fleet.*` metrics.
    public var isFleetSide: Bool { party == .fleet }

    /// Every outcome a device can hear without a status, as thresholds name them
    /// (`upload.LABEL.rate`): a transport's failures but those the fleet labels otherwise (a socket
    /// it could not make) or never hears (its own cancellation).
    public static let networkOutcomes: [TransferOutcome] =
        NetworkFailure.allCases.filter { ![.tooManyOpenFiles, .sourceAddress, .cancelled].contains($0) }.map {
            .failed($0)
        }
        + [.offline, .handover, .injectedTimeout, .warpTimeout] + NotSentCause.allCases.map { .notSent($0) }
        + LinkFailure.allCases.map { .injected($0) } + [.captivePortal]

    /// By their text, as every report lists them.
    public static func < (lhs: TransferOutcome, rhs: TransferOutcome) -> Bool { lhs.description < rhs.description }
}
