import FleetEngine
import FleetReport

/// One fault as the run stands: the fleet file's timeline, or one the API began.
struct TimelineFaultBody: APIBody {
    var fault: Int
    var source: ActionSource
    var line: Int?
    var action: String
    var selector: String
    var startsAt: APITime
    var endsAt: APITime?
    var phase: TimelineFaultView.Phase
    var applied: Int?
    var endable: Bool
    var endedEarlyAt: APITime?

    init(_ view: TimelineFaultView) {
        fault = view.fault
        source = view.source
        line = view.line
        action = view.action.rawValue
        selector = view.selector
        startsAt = APITime(view.startsAt)
        endsAt = APITime(optional: view.endsAt)
        phase = view.phase
        applied = view.applied
        endable = view.endable
        endedEarlyAt = APITime(optional: view.endedEarlyAt)
    }

    static let example = TimelineFaultBody(
        TimelineFaultView(
            fault: 0, source: .timeline, line: 1, action: .networkOffline, selector: "all", startsAt: 0, endsAt: nil,
            phase: .upcoming, applied: nil, endable: false, endedEarlyAt: nil))
    static let notes = [
        "fault": APINote(
            "Its number: its place in the fleet file's `faults:` (from 0), or, for one the API began, after them; "
                + "`DELETE /api/v1/faults/{fault}` ends it."),
        "source": APINote(
            "Where it came from: the fleet file's `timeline`, or the `api` (an action that begins a fault, applied "
                + "through REST or the page; its opposite action through the API, or `DELETE`, ends it)."),
        "line": APINote("Its line in the fleet file; null for the API's."),
        "selector": APINote("Which devices, as the fleet file writes it."),
        "endsAt": APINote("When its `for` ends it, or when the API ended it; null without either."),
        "applied": APINote("Devices it was applied to; null until it starts."),
        "endable": APINote("Whether `DELETE /api/v1/faults/{fault}` can end it now: on, with an opposite action."),
        "endedEarlyAt": APINote(
            "When the API ended it (`DELETE /api/v1/faults/{fault}`, or its opposite action); null otherwise."),
    ]
}
