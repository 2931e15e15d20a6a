import FleetEngine

/// What the fleet itself did to its requests (its limits, its timing, its pace) over the run:
/// never the server's. `GET /api/v1/stats`' `fleetHealth` and the report's `fleet_health`.
package struct FleetHealthBody: APIBody {
    var notSent: APIMap<Int>
    var heldBack: Int
    var connectionWaitMs: PercentilesBody
    var cancelledOnWire: Int
    var warpTimeouts: Int
    var answerWaitSeconds: Double
    var behindSeconds: Double

    package init(_ metrics: FleetMetrics) {
        notSent = APIMap(metrics.notSentByCause.map { ($0.key.rawValue, $0.value) })
        heldBack = metrics.heldBack
        connectionWaitMs = PercentilesBody(metrics.connectionWait)
        cancelledOnWire = metrics.cancelledOnWire
        warpTimeouts = metrics.warpTimeouts
        answerWaitSeconds = Rounding.seconds(metrics.pace.answerWaitSeconds)
        behindSeconds = Rounding.seconds(metrics.pace.behindSeconds)
    }

    package static let example = FleetHealthBody(FleetMetrics())

    package static func summary(_ keys: APIKeyStyle) -> String? {
        switch keys {
        case .camelCase: "The fleet's own doing over the run, not the server's (as the run report's `fleet_health`)."
        case .snakeCase:
            "The fleet's own doing, not the server's: requests its limits kept off the wire or held back, requests "
                + "it closed, timeouts its timing made, and real time its clock spent waiting or behind."
        }
    }

    package static func notes(_ keys: APIKeyStyle) -> [String: APINote] {
        switch keys {
        case .camelCase: apiNotes
        case .snakeCase: reportNotes
        }
    }

    private static let apiNotes = [
        "notSent": APINote(
            "Uploads never put on the wire before their device gave up, by cause: `connection-cap` "
                + "(`--max-connections`), `descriptors` (out of file descriptors)."),
        "heldBack": APINote("Requests the fleet's connection cap held back before they went out.", minimum: 0),
        "connectionWaitMs": APINote("Real ms those requests waited for a connection."),
        "cancelledOnWire": APINote("Requests on the wire closed because their device gave up on them.", minimum: 0),
        "warpTimeouts": APINote("Uploads heard as `warp-timeout` (as-answered timing above warp 1).", minimum: 0),
        "answerWaitSeconds": APINote(
            "Real seconds the clock yielded to the server's answers (modelled timing).", minimum: 0),
        "behindSeconds": APINote("Real seconds the run was behind its warp.", minimum: 0),
    ]

    private static let reportNotes = [
        "not_sent": APINote(
            "Uploads never put on the wire before their device gave up (heard as `not-sent-CAUSE`), by cause: "
                + "`connection-cap` (`--max-connections`), `descriptors` (out of file descriptors)."),
        "held_back": APINote(
            "Requests (uploads and token refreshes) the fleet's connection cap held back before they went out.",
            minimum: 0),
        "connection_wait_ms": APINote("Real ms those requests waited for a connection."),
        "cancelled_on_wire": APINote(
            "Requests on the wire closed because their device gave up on them (its timeout), as a phone's "
                + "HTTP client does.", minimum: 0),
        "warp_timeouts": APINote(
            "Uploads heard as `warp-timeout`: as-answered timing above warp 1 made the server's real time × "
                + "the warp pass the SDK's timeout.", minimum: 0),
        "answer_wait_seconds": APINote(
            "Real seconds the clock yielded to the server's answers (modelled timing waits for each real "
                + "answer) rather than falling behind.", minimum: 0),
        "behind_seconds": APINote(
            "Real seconds the run was behind its warp for its own sake (as `pace.behind_seconds`).", minimum: 0),
    ]
}
