import BeekonNet
import HTTPTypes

/// How the simulated network answers a request, on virtual time.
public enum SimulatedAnswer: Sendable {
    /// The server answers `status` after `afterMillis` virtual ms.
    case respond(status: Int, headers: HTTPFields = [:], body: [UInt8] = [], afterMillis: Int64 = 0)
    /// The connection fails (`refused`, `reset`, `dns`, `tls`) after `afterMillis` virtual ms.
    case fail(NetworkFailure, afterMillis: Int64 = 0)
    /// No answer ever comes: the SDK's timeout answers.
    case hang

    /// 200 with an empty body at once.
    public static let ok = SimulatedAnswer.respond(status: 200)
}
