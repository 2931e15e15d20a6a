/// How long an upload or refresh takes on the virtual clock, from send to the answer the device
/// hears. Injected latency is added either way, and the SDK's timeout ends it either way.
public enum TransferTiming: Sendable, Hashable {
    /// As long as the server really takes, times the warp: what a phone would live through if
    /// the server were that much slower. At warp 60 a 500 ms answer is 30 virtual s, a timeout.
    case asAnswered
    /// Exactly `latencyMillis` virtual ms, whatever the server's real time: virtual time waits at
    /// the transfer's answer instant until its real answer is in (at most the request's real
    /// timeout), so what devices hear depends on the requests, not on the machine's speed.
    case modelled(latencyMillis: Int64)

    /// `run --deterministic`: every answer takes 100 virtual ms.
    public static let deterministic = TransferTiming.modelled(latencyMillis: 100)

    /// Answers take modelled time, so what devices hear depends on the requests alone.
    public var isModelled: Bool {
        if case .modelled = self { true } else { false }
    }
}
